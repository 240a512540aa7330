import { handler, json, parse } from "@/lib/api/http";
import { RunIdParam } from "@/lib/api/schemas";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

/** The files a run keeps: `[{ name, size, updatedAt }]`. */
export const GET = handler(async (_req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parse(RunIdParam, await ctx.params);
  const rt = await getRuntime();
  await rt.engine.getRun(id);
  const list = await rt.store.artifacts(id);
  return json(list.map((a) => ({ name: a.name, size: a.size, updatedAt: new Date(a.updatedAt).toISOString() })));
});
