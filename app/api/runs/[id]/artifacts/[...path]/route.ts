import { handler, parse, query } from "@/lib/api/http";
import { ArtifactPath, ArtifactQuery, RunIdParam } from "@/lib/api/schemas";
import { NotFoundError } from "@/lib/engine/errors";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

const TYPES: Record<string, string> = { md: "text/markdown; charset=utf-8", log: "text/plain; charset=utf-8", json: "application/json", txt: "text/plain; charset=utf-8", html: "text/plain; charset=utf-8" };

/** One artifact's content (`?download=1` to save it as a file); `logs/orchestrator.log` or `logs%2Forchestrator.log`. */
export const GET = handler(async (req: Request, ctx: { params: Promise<{ id: string; path: string[] }> }) => {
  const params = await ctx.params;
  const { id } = parse(RunIdParam, { id: params.id });
  const name = parse(ArtifactPath, params.path);
  const q = parse(ArtifactQuery, query(req));
  const rt = await getRuntime();
  await rt.engine.getRun(id);
  const content = await rt.store.artifact(id, name);
  if (content === null) throw new NotFoundError(`run ${id} has no artifact ${name}`);
  const ext = name.split(".").pop() ?? "";
  const headers: Record<string, string> = { "content-type": TYPES[ext] ?? "text/plain; charset=utf-8", "x-content-type-options": "nosniff" };
  if (q.download) headers["content-disposition"] = `attachment; filename="${name.split("/").pop()}"`;
  return new Response(content, { headers });
});
