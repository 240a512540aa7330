// Review use-cases: the queue (oldest first, with age) and decisions.
import type { Runtime } from "../runtime-types";
import { reviewView } from "../engine/views";
import type { IdempotencyClaim, IdempotencyRow, ReviewStatus } from "../engine/store/types";
import { NotFoundError } from "../engine/errors";
import { rebuiltStep, runResource, runsByIds } from "./runs";
import { typedReview } from "./review-types";
import { isBuiltIn } from "../machines/registry";

export async function listReviews(rt: Runtime, q: { status?: ReviewStatus; runId?: string; limit?: number }) {
  const now = rt.clock.now();
  const rows = await rt.store.listReviews({ status: q.status, runId: q.runId, limit: q.limit ?? 200 });
  // user-defined workflows' versions are pinned by each run's input
  const pinned = rows.filter((r) => !isBuiltIn(r.workflow)).map((r) => r.runId);
  const inputs = new Map<string, unknown>((await runsByIds(rt, pinned)).map((run) => [run.id, run.input]));
  return rows.map((r) => ({ ...typedReview(reviewView(r), inputs.get(r.runId)), ageMs: Math.max(0, (r.decidedAt ?? now) - r.createdAt) }));
}

/** One review, typed (its decisions, each decision's body schema, its approvals). */
export async function getReview(rt: Runtime, id: string) {
  const row = await rt.store.getReview(id);
  if (!row) throw new NotFoundError(`review ${id} not found`);
  const input = isBuiltIn(row.workflow) ? undefined : (await rt.store.getRun(row.runId))?.input;
  return { ...typedReview(reviewView(row), input), ageMs: Math.max(0, (row.decidedAt ?? rt.clock.now()) - row.createdAt) };
}

/** Decide a review. `by`: the signed-in person (accounts on), who is recorded whatever the body says. */
export async function decideReview(
  rt: Runtime,
  id: string,
  body: { decision: string; feedback?: string; reviewer?: string; modifications?: string[]; data?: Record<string, unknown> },
  by?: { name: string } | null,
  idempotency?: IdempotencyClaim,
) {
  const out = await rt.engine.decide(id, by ? { ...body, reviewer: by.name } : body, { idempotency, verified: !!by });
  return { review: out.review, run: runResource(out.run, { accepted: rt.engine.acceptedEvents(out.run.id) }), transitions: out.transitions };
}

/** A keyed decision's answer rebuilt (its first answer was not stored): the review as decided, the run now, the commit's transitions. */
export async function rebuiltDecision(rt: Runtime, reviewId: string, row: IdempotencyRow) {
  const review = await rt.store.getReview(reviewId);
  if (!review) throw new NotFoundError(`review ${reviewId} not found`);
  return { review: reviewView(review), ...(await rebuiltStep(rt, row)) };
}
