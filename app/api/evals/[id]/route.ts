import { handler, json, parse } from "@/lib/api/http";
import { EvalIdParam, getEval } from "@/lib/change/evals";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

/** An evaluation's report as it stands: { id, status, workflow, candidate, cases, done, byState, agreement, regressions, tokens, ms, … }. */
export const GET = handler(async (_req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parse(EvalIdParam, await ctx.params);
  return json(await getEval(await getRuntime(), id));
});
