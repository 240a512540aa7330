import { handler, json, parse } from "@/lib/api/http";
import { CompareParams } from "@/lib/api/schemas";
import { compareRuns } from "@/lib/change/compare";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

/** Two runs of one workflow aligned on the statechart path: steps, the first divergence, totals. 404 unknown run; 422 two workflows. */
export const GET = handler(async (_req: Request, ctx: { params: Promise<{ id: string; other: string }> }) => {
  const { id, other } = parse(CompareParams, await ctx.params);
  const rt = await getRuntime();
  return json(await compareRuns(rt, id, other));
});
