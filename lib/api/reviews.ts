// Review use-cases: the queue (oldest first, with age) and decisions.
import type { Runtime } from "../runtime";
import { reviewView, type ReviewView } from "../engine/views";
import type { Principal } from "../auth/accounts";
import { barredFrom, deciderOf, groupsOfUser } from "../auth/groups";
import type { IdempotencyClaim, IdempotencyRow, ReviewStatus } from "../engine/store/types";
import { InvalidError, NotFoundError } from "../engine/errors";
import { rebuiltStep, runResource, runsByIds } from "./runs";
import { typedReview } from "./review-types";
import { isBuiltIn } from "../machines/registry";

/** A review's routing as the queue shows it: its groups, deadline, whether it is overdue now, and what it was escalated from. */
export function routingOf(r: ReviewView, now: number) {
  const due = r.dueAt === null ? null : Date.parse(r.dueAt);
  return { assignedTo: r.assignedTo, dueAt: r.dueAt, overdue: r.status === "pending" && due !== null && due <= now, escalatedFrom: r.escalatedFrom };
}

export interface ReviewListFilters {
  status?: ReviewStatus;
  runId?: string;
  limit?: number;
  /** "me" (the signed-in person's groups) or a group name */
  assigned?: string;
  /** "true": only pending reviews past their deadline */
  overdue?: "true" | "false";
}

/**
 * The queue. `who`: the signed-in person (accounts on): pending reviews assigned to groups they
 * are not in are not offered to them (admins see all); `assigned=me` reads their groups.
 */
export async function listReviews(rt: Runtime, q: ReviewListFilters, who: Principal | null = null) {
  const now = rt.clock.now();
  const decider = await deciderOf(rt.db, who);
  let assigned: string[] | undefined;
  if (q.assigned === "me") {
    if (!who) throw new InvalidError("assigned=me needs a signed-in person (accounts on); with accounts off name a group: assigned=<group>");
    assigned = decider === "any" ? await groupsOfUser(rt.db, who.userId) : decider.groups;
  } else if (q.assigned !== undefined) assigned = [q.assigned];
  const overdue = q.overdue === "true";
  const rows = await rt.store.listReviews({
    status: overdue ? "pending" : q.status,
    runId: q.runId,
    limit: q.limit ?? 200,
    ...(assigned ? { assigned } : {}),
    ...(overdue ? { dueBy: now } : {}),
    // a pending review is offered only to those who may decide it
    ...(decider !== "any" ? { decidableBy: decider.groups } : {}),
  });
  // user-defined workflows' versions are pinned by each run's input
  const pinned = rows.filter((r) => !isBuiltIn(r.workflow)).map((r) => r.runId);
  const inputs = new Map<string, unknown>((await runsByIds(rt, pinned)).map((run) => [run.id, run.input]));
  return rows.map((r) => {
    const view = reviewView(r);
    return { ...typedReview(view, inputs.get(r.runId)), ...routingOf(view, now), ageMs: Math.max(0, (r.decidedAt ?? now) - r.createdAt) };
  });
}

/** One review, typed (its decisions, each decision's body schema, its approvals). */
export async function getReview(rt: Runtime, id: string) {
  const row = await rt.store.getReview(id);
  if (!row) throw new NotFoundError(`review ${id} not found`);
  const input = isBuiltIn(row.workflow) ? undefined : (await rt.store.getRun(row.runId))?.input;
  const view = reviewView(row);
  return { ...typedReview(view, input), ...routingOf(view, rt.clock.now()), ageMs: Math.max(0, (row.decidedAt ?? rt.clock.now()) - row.createdAt) };
}

/** Decide a review. `by`: the signed-in person (accounts on), who is recorded whatever the body says. */
export async function decideReview(
  rt: Runtime,
  id: string,
  body: { decision: string; feedback?: string; reviewer?: string; modifications?: string[]; data?: Record<string, unknown> },
  by?: Principal | null,
  idempotency?: IdempotencyClaim,
) {
  // assigned to groups: only their members and admins decide (accounts on), checked on the review as it is when the decision applies
  const decider = await deciderOf(rt.db, by ?? null);
  const gate = decider === "any" ? undefined : (r: ReviewView) => barredFrom(decider, r.assignedTo);
  const out = await rt.engine.decide(id, by ? { ...body, reviewer: by.name } : body, { idempotency, verified: !!by, gate });
  return { review: out.review, run: runResource(out.run, { accepted: rt.engine.acceptedEvents(out.run.id) }), transitions: out.transitions };
}

/** A keyed decision's answer rebuilt (its first answer was not stored): the review as decided, the run now, the commit's transitions. */
export async function rebuiltDecision(rt: Runtime, reviewId: string, row: IdempotencyRow) {
  const review = await rt.store.getReview(reviewId);
  if (!review) throw new NotFoundError(`review ${reviewId} not found`);
  return { review: reviewView(review), ...(await rebuiltStep(rt, row)) };
}
