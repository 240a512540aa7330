import { handler, parse, query } from "@/lib/api/http";
import { exportRun, exportText } from "@/lib/api/run-export";
import { RunExportQuery, RunIdParam } from "@/lib/api/schemas";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

/** The run as one JSON document (format "switchyard-run", version 1); `?download=1` saves it as run-<id>.json. */
export const GET = handler(async (req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parse(RunIdParam, await ctx.params);
  const q = parse(RunExportQuery, query(req));
  const doc = await exportRun(await getRuntime(), id);
  const headers: Record<string, string> = { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" };
  if (q.download === "1" || q.download === "true") headers["content-disposition"] = `attachment; filename="run-${id}.json"`;
  return new Response(exportText(doc), { headers });
});
