// Decision analytics of a workflow's review states (GET /api/workflows/{id}/reviews/stats): per
// state, the decisions people made in a window by kind, their rates, the time from a review opening
// to its decision (p50, p95), how many each reviewer made, and for quorum reviews `agreement`: the
// share of finished rounds that reached the quorum with approvals only (no edit, no reject). The
// engine's own decisions (replays, evaluations: decidedBy "engine") are not counted.
import { z } from "zod";
import type { Db } from "../db/client";
import { percentile } from "../metrics/state-metrics";
import type { WorkflowDefinition } from "../machines/types";
import { reviewStatesOf } from "./routes";

export const STATS_WINDOWS = { "1h": 3_600_000, "24h": 86_400_000, "7d": 7 * 86_400_000, all: null } as const;
export type StatsWindow = keyof typeof STATS_WINDOWS;
export const StatsQuery = z.object({ window: z.enum(Object.keys(STATS_WINDOWS) as [StatsWindow, ...StatsWindow[]], { error: "window is 1h, 24h, 7d or all" }).default("24h") }).strict();

/** A decided review as the statistics read it. */
export interface DecidedReview {
  runId: string;
  state: string;
  seq: number;
  decision: string;
  reviewer: string | null;
  createdAt: number;
  decidedAt: number;
  /** the review's approvals when it opened ({ so_far, needed }; absent: a review without a quorum) */
  approvals?: { so_far: number; needed: number };
}

export interface StateStats {
  /** decisions by kind (every decision the state offers, 0 when none) */
  decisions: Record<string, number>;
  /** each kind's share of the decisions (0..1; empty without decisions) */
  rates: Record<string, number>;
  total: number;
  /** ms from a review opening to its decision (null without decisions) */
  timeToDecisionMs: { p50: number | null; p95: number | null };
  /** decisions per reviewer ("(anonymous)" for decisions without a name) */
  reviewers: Record<string, number>;
  /** quorum reviews: finished rounds that reached the quorum with approvals only, as a share (null: not a quorum review, or no round finished) */
  agreement: number | null;
  /** quorum reviews: the finished rounds it rests on */
  rounds?: number;
}

export interface ReviewStats {
  workflow: string;
  window: StatsWindow;
  /** the window's start (ISO; null: all time) */
  since: string | null;
  states: Record<string, StateStats>;
}

export const ANONYMOUS = "(anonymous)";

/** Quorum rounds of one state of one run (reviews in seq order): each starts at a review with no approval so far. */
function rounds(reviews: DecidedReview[]): { finished: number; agreed: number } {
  let finished = 0;
  let agreed = 0;
  let round: DecidedReview[] | null = null;
  const close = (r: DecidedReview[]) => {
    const last = r.at(-1)!;
    // an approval, or an edit (its editor's approval of the new value), on the review that asked for the last one needed
    const counts = last.decision === "approve" || last.decision === "edit";
    const reached = counts && last.approvals!.so_far + 1 >= last.approvals!.needed;
    // still going: approvals (or edits) so far, fewer than needed (or ended without a decision: cancelled)
    if (counts && !reached) return;
    finished++;
    if (reached && r.every((x) => x.decision === "approve")) agreed++;
  };
  for (const r of reviews) {
    if (!r.approvals) continue;
    if (r.approvals.so_far === 0) {
      if (round) close(round);
      round = [r];
    } else if (round) round.push(r);
    // a round whose start is before the window is left out
  }
  if (round) close(round);
  return { finished, agreed };
}

/** The statistics of decided reviews (pure: tests feed it rows directly). `offered`: each review state's decisions. */
export function computeStats(rows: DecidedReview[], offered: Record<string, string[]>): Record<string, StateStats> {
  const byState = new Map<string, DecidedReview[]>();
  for (const s of Object.keys(offered)) byState.set(s, []);
  for (const r of rows) (byState.get(r.state) ?? byState.set(r.state, []).get(r.state)!).push(r);
  const out: Record<string, StateStats> = {};
  for (const [state, list] of byState) {
    const decisions: Record<string, number> = Object.fromEntries((offered[state] ?? []).map((d) => [d, 0]));
    const reviewers: Record<string, number> = {};
    for (const r of list) {
      decisions[r.decision] = (decisions[r.decision] ?? 0) + 1;
      const who = r.reviewer?.trim() || ANONYMOUS;
      reviewers[who] = (reviewers[who] ?? 0) + 1;
    }
    const total = list.length;
    const rates = total ? Object.fromEntries(Object.entries(decisions).map(([d, n]) => [d, n / total])) : {};
    const waits = list.map((r) => Math.max(0, r.decidedAt - r.createdAt)).sort((a, b) => a - b);
    const stats: StateStats = {
      decisions,
      rates,
      total,
      timeToDecisionMs: waits.length ? { p50: percentile(waits, 0.5), p95: percentile(waits, 0.95) } : { p50: null, p95: null },
      reviewers,
      agreement: null,
    };
    if (list.some((r) => r.approvals && r.approvals.needed > 1)) {
      const perRun = new Map<string, DecidedReview[]>();
      for (const r of list) (perRun.get(r.runId) ?? perRun.set(r.runId, []).get(r.runId)!).push(r);
      let finished = 0;
      let agreed = 0;
      for (const runReviews of perRun.values()) {
        const got = rounds(runReviews.sort((a, b) => a.seq - b.seq || a.createdAt - b.createdAt));
        finished += got.finished;
        agreed += got.agreed;
      }
      stats.rounds = finished;
      stats.agreement = finished ? agreed / finished : null;
    }
    out[state] = stats;
  }
  return out;
}

function approvalsOf(payload: string): DecidedReview["approvals"] {
  try {
    const a = (JSON.parse(payload) as { approvals?: { so_far?: unknown; needed?: unknown } } | null)?.approvals;
    return a && typeof a.so_far === "number" && typeof a.needed === "number" ? { so_far: a.so_far, needed: a.needed } : undefined;
  } catch {
    return undefined;
  }
}

/** The statistics of a workflow's review states over a window ending `now`: people's decisions only. */
export async function reviewStats(db: Db, def: WorkflowDefinition, window: StatsWindow, now: number): Promise<ReviewStats> {
  const span = STATS_WINDOWS[window];
  const since = span === null ? null : now - span;
  const rows = await db.review.findMany({
    where: { workflow: def.id, status: "decided", decidedBy: "person", ...(since !== null ? { decidedAt: { gte: new Date(since), lte: new Date(now) } } : {}) },
    select: { runId: true, state: true, seq: true, decision: true, reviewer: true, createdAt: true, decidedAt: true, payload: true },
  });
  const decided: DecidedReview[] = rows.map((r) => ({
    runId: r.runId,
    state: r.state,
    seq: r.seq,
    decision: r.decision ?? "(none)",
    reviewer: r.reviewer,
    createdAt: r.createdAt.getTime(),
    decidedAt: (r.decidedAt ?? r.createdAt).getTime(),
    approvals: approvalsOf(r.payload),
  }));
  const offered: Record<string, string[]> = {};
  for (const s of reviewStatesOf(def)) offered[s] = metaDecisions(def, s);
  return { workflow: def.id, window, since: since === null ? null : new Date(since).toISOString(), states: computeStats(decided, offered) };
}

function metaDecisions(def: WorkflowDefinition, path: string): string[] {
  let node = def.machine.root as unknown as { states?: Record<string, unknown>; meta?: { review?: { decisions?: string[] } } } | undefined;
  for (const seg of path.split(".")) node = node?.states?.[seg] as typeof node;
  return node?.meta?.review?.decisions ?? [];
}

/** Each review state's approve rate as a small tag on the diagram (lib/graph/overlay.ts); states without decisions get none. */
export function approveRateOverlay(stats: ReviewStats): { nodes: Record<string, { label: string; tone: "info"; title: string }[]> } {
  const nodes: Record<string, { label: string; tone: "info"; title: string }[]> = {};
  for (const [state, s] of Object.entries(stats.states)) {
    if (!s.total || s.decisions.approve === undefined) continue;
    const pct = Math.round((s.rates.approve ?? 0) * 100);
    nodes[state] = [{ label: `✓ ${pct}%`, tone: "info", title: `approved ${s.decisions.approve} of ${s.total} decisions (${stats.window === "all" ? "all time" : `last ${stats.window}`})` }];
  }
  return { nodes };
}
