import { handler, json, parse, query } from "@/lib/api/http";
import { StatsQuery, workflowReviewStats } from "@/lib/api/review-stats";
import { WorkflowIdParam } from "@/lib/api/workflows";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

/** Decisions people made on the workflow's review states in the window: by kind, rates, time to decision, per reviewer, quorum agreement. */
export const GET = handler(async (req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parse(WorkflowIdParam, await ctx.params);
  const { window } = parse(StatsQuery, query(req));
  return json(await workflowReviewStats(await getRuntime(), id, window));
});
