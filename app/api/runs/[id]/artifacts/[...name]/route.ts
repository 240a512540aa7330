import { handler, parse } from "@/lib/api/http";
import { RunIdParam } from "@/lib/api/schemas";
import { NotFoundError } from "@/lib/engine/errors";
import { getRuntime } from "@/lib/runtime";
import { z } from "zod";

export const dynamic = "force-dynamic";

const Segment = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9._-]+$/, "not a file name")
  .refine((s) => s !== "." && s !== "..", "relative path segments are not allowed");
const Name = z.array(Segment).min(1).max(5);

const TYPES: Record<string, string> = { md: "text/markdown; charset=utf-8", log: "text/plain; charset=utf-8", json: "application/json", txt: "text/plain; charset=utf-8", html: "text/plain; charset=utf-8" };

/** One artifact's content (`?download=1` to save it as a file). */
export const GET = handler(async (req: Request, ctx: { params: Promise<{ id: string; name: string[] }> }) => {
  const params = await ctx.params;
  const { id } = parse(RunIdParam, { id: params.id });
  const name = parse(Name, params.name).join("/");
  const rt = await getRuntime();
  await rt.engine.getRun(id);
  const content = await rt.store.artifact(id, name);
  if (content === null) throw new NotFoundError(`run ${id} has no artifact ${name}`);
  const ext = name.split(".").pop() ?? "";
  const headers: Record<string, string> = { "content-type": TYPES[ext] ?? "text/plain; charset=utf-8", "x-content-type-options": "nosniff" };
  if (new URL(req.url).searchParams.get("download")) headers["content-disposition"] = `attachment; filename="${name.split("/").pop()}"`;
  return new Response(content, { headers });
});
