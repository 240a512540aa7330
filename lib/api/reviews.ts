// Review use-cases: the queue (oldest first, with age) and decisions.
import type { Runtime } from "../runtime";
import { reviewView } from "../engine/views";
import type { ReviewStatus } from "../engine/store/types";
import { runResource } from "./runs";

export async function listReviews(rt: Runtime, q: { status?: ReviewStatus; runId?: string; limit?: number }) {
  const now = rt.clock.now();
  const rows = await rt.store.listReviews({ status: q.status, runId: q.runId, limit: q.limit ?? 200 });
  return rows.map((r) => ({ ...reviewView(r), ageMs: Math.max(0, (r.decidedAt ?? now) - r.createdAt) }));
}

/** Decide a review. `by`: the signed-in person (accounts on), who is recorded whatever the body says. */
export async function decideReview(rt: Runtime, id: string, body: { decision: string; feedback?: string; reviewer?: string; modifications?: string[]; data?: Record<string, unknown> }, by?: { name: string } | null) {
  const out = await rt.engine.decide(id, by ? { ...body, reviewer: by.name } : body);
  return { review: out.review, run: runResource(out.run, { accepted: rt.engine.acceptedEvents(out.run.id) }), transitions: out.transitions };
}
