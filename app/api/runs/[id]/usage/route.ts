import { handler, json, parse } from "@/lib/api/http";
import { RunIdParam } from "@/lib/api/schemas";
import { runUsage } from "@/lib/metrics/model-usage";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

/** Model calls of a run: tokens, latency and endpoint of each, totals and per state. */
export const GET = handler(async (_req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parse(RunIdParam, await ctx.params);
  const rt = await getRuntime();
  await rt.engine.getRun(id); // 404 for an unknown run
  return json(await runUsage(rt.db, id));
});
