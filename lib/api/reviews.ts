// Review use-cases: the queue (oldest first, with age) and decisions.
import type { Runtime } from "../runtime";
import { reviewView } from "../engine/views";
import type { IdempotencyClaim, IdempotencyRow, ReviewStatus } from "../engine/store/types";
import { NotFoundError } from "../engine/errors";
import { rebuiltStep, runResource } from "./runs";

export async function listReviews(rt: Runtime, q: { status?: ReviewStatus; runId?: string; limit?: number }) {
  const now = rt.clock.now();
  const rows = await rt.store.listReviews({ status: q.status, runId: q.runId, limit: q.limit ?? 200 });
  return rows.map((r) => ({ ...reviewView(r), ageMs: Math.max(0, (r.decidedAt ?? now) - r.createdAt) }));
}

/** Decide a review. `by`: the signed-in person (accounts on), who is recorded whatever the body says. */
export async function decideReview(
  rt: Runtime,
  id: string,
  body: { decision: string; feedback?: string; reviewer?: string; modifications?: string[]; data?: Record<string, unknown> },
  by?: { name: string } | null,
  idempotency?: IdempotencyClaim,
) {
  const out = await rt.engine.decide(id, by ? { ...body, reviewer: by.name } : body, { idempotency });
  return { review: out.review, run: runResource(out.run, { accepted: rt.engine.acceptedEvents(out.run.id) }), transitions: out.transitions };
}

/** A keyed decision's answer rebuilt (its first answer was not stored): the review as decided, the run now, the commit's transitions. */
export async function rebuiltDecision(rt: Runtime, reviewId: string, row: IdempotencyRow) {
  const review = await rt.store.getReview(reviewId);
  if (!review) throw new NotFoundError(`review ${reviewId} not found`);
  return { review: reviewView(review), ...(await rebuiltStep(rt, row)) };
}
