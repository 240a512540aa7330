import { z } from "zod";
import { handler, json, parse } from "@/lib/api/http";
import { compareRuns } from "@/lib/change/compare";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

const runId = z.string().min(1).max(200).regex(/^[A-Za-z0-9_-]+$/, "not a run id");
const Params = z.object({ id: runId, other: runId });

/** Two runs of one workflow aligned on the statechart path: steps, the first divergence, totals. 404 unknown run; 422 two workflows. */
export const GET = handler(async (_req: Request, ctx: { params: Promise<{ id: string; other: string }> }) => {
  const { id, other } = parse(Params, await ctx.params);
  const rt = await getRuntime();
  return json(await compareRuns(rt, id, other));
});
