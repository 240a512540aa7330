// Routing in the engine's commits, pure: a review opened in a state with a route (lib/reviews/
// routes.ts) is written with its groups and deadline, and its deadline is a durable timer (a Timer
// row like any delayed event, kept across restarts). When the timer fires the review is escalated
// to the route's `escalate` groups in a commit of its own: one timeline row (a targetless
// transition, so no state is left or entered and no metric counts it), the review re-routed, and
// the on_review_escalated webhooks (lib/hooks/webhooks.ts) planned from that row. The run does not
// move: moving it on is the step's `timeout`.
import type { Draft } from "../engine/draft";
import type { ReviewRow, TimerRow, TransitionRow } from "../engine/store/types";
import type { ReviewRoute } from "./routes";

/** the event of a review's deadline timer */
export const REVIEW_DUE = "review.due";
/** the timeline row of an escalation */
export const REVIEW_ESCALATED = "review.escalated";

export const dueTimerId = (reviewId: string) => `review-due:${reviewId}`;

export const isDueTimer = (event: unknown): event is { type: typeof REVIEW_DUE; reviewId: string } =>
  typeof event === "object" && event !== null && (event as { type?: unknown }).type === REVIEW_DUE && typeof (event as { reviewId?: unknown }).reviewId === "string";

/** What an escalation's timeline row carries (and its webhook sends). */
export interface EscalationPayload {
  reviewId: string;
  state: string;
  /** the groups before and after */
  from: string[];
  to: string[];
  /** ISO time the review was due */
  dueAt: string;
}

/**
 * Route the reviews a draft opens and drop the deadlines of those it closes. `routeOf`: a state's
 * route; `armed`: whether the run has a timer with that id (only those are cleared).
 */
export function routeDraft(d: Draft, routeOf: (state: string) => ReviewRoute | null, armed: (timerId: string) => boolean): void {
  for (const c of d.reviewsClose) {
    const id = dueTimerId(c.id);
    d.timersSet.delete(id);
    if (armed(id)) d.timersClear.add(id);
  }
  for (const r of d.reviewsOpen) {
    if (r.status !== "pending") continue;
    const route = routeOf(r.state);
    if (!route) continue;
    // the same object is in d.reviews (what the run holds after the commit)
    r.assignedTo = route.assign ?? null;
    if (route.due) {
      r.dueAt = d.now + Math.round(route.due.after_s * 1000);
      const timer: TimerRow = { runId: d.row.id, id: dueTimerId(r.id), dueAt: r.dueAt, event: { type: REVIEW_DUE, reviewId: r.id }, seq: r.seq };
      d.timersClear.delete(timer.id);
      d.timersSet.set(timer.id, timer);
    }
  }
}

/**
 * The escalation of a pending review whose deadline passed, folded into a draft (which clears its
 * timer already): the review's new groups and the timeline row. Returns false (nothing to do) when
 * the route names no escalation any more.
 */
export function escalateInDraft(d: Draft, review: ReviewRow, route: ReviewRoute | null): boolean {
  const to = route?.due?.escalate;
  if (!to?.length) return false;
  const from = review.assignedTo ?? [];
  const next: ReviewRow = { ...review, assignedTo: to, escalatedFrom: from };
  d.reviews.set(review.state, next);
  (d.reviewsRoute ??= []).push({ id: review.id, assignedTo: to, escalatedFrom: from });
  const payload: EscalationPayload = { reviewId: review.id, state: review.state, from, to, dueAt: new Date(review.dueAt ?? d.now).toISOString() };
  const row: TransitionRow = {
    runId: d.row.id,
    seq: ++d.row.seq,
    from: d.row.state,
    to: d.row.state,
    event: REVIEW_ESCALATED,
    reason: `review of ${review.state} escalated ${from.length ? `from ${from.join(", ")} ` : ""}to ${to.join(", ")}`,
    at: d.now,
    durationMs: 0,
    payload,
  };
  d.transitions.push(row);
  return true;
}

/** A transition row that is an escalation: its payload. */
export function escalationOf(t: Pick<TransitionRow, "event" | "payload">): EscalationPayload | null {
  if (t.event !== REVIEW_ESCALATED) return null;
  const p = t.payload as Partial<EscalationPayload> | null;
  return p && typeof p.reviewId === "string" && typeof p.state === "string" && Array.isArray(p.from) && Array.isArray(p.to) && typeof p.dueAt === "string" ? (p as EscalationPayload) : null;
}
