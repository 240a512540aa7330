// GET /api/workflows/{id}/reviews/stats?window=1h|24h|7d|all: decision analytics (lib/reviews/stats.ts).
import type { Runtime } from "../runtime-types";
import { NotFoundError } from "../engine/errors";
import { findWorkflow } from "../machines/registry";
import { reviewStats, type StatsWindow } from "../reviews/stats";

export { StatsQuery } from "../reviews/stats";

export async function workflowReviewStats(rt: Runtime, id: string, window: StatsWindow) {
  const def = findWorkflow(id);
  if (!def) throw new NotFoundError(`workflow ${id} not found`);
  return reviewStats(rt, def, window, rt.clock.now());
}
