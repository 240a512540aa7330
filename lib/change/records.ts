// What a run recorded, read for comparing and replaying: its transitions, effect outcomes and
// reviews. A fork's first transitions are copies of its source's history: the outcomes and reviews
// of that part are the source's (read up the line of forks, each up to the fork point).
import type { OutcomeRow, ReviewRow, RunRow, RunStore, TransitionRow } from "../engine/store/types";
import { NotFoundError } from "../engine/errors";
import { visitAt, visitsOf, type Visit } from "./visits";

export interface RunRecords {
  run: RunRow;
  transitions: TransitionRow[];
  visits: Visit[];
  outcomes: OutcomeRow[];
  reviews: ReviewRow[];
}

const MAX_TRANSITIONS = 10_000;

/** Outcomes and reviews of a run and, for a fork, of its sources up to each fork point. */
async function lineage(store: RunStore, run: RunRow, upTo = Infinity, depth = 0): Promise<{ outcomes: OutcomeRow[]; reviews: ReviewRow[] }> {
  const [outcomes, reviews] = await Promise.all([store.outcomes(run.id), store.listReviews({ runId: run.id, limit: 10_000 })]);
  const own = { outcomes: outcomes.filter((o) => o.seq <= upTo), reviews: reviews.filter((r) => r.seq <= upTo) };
  if (!run.forkOf || run.forkSeq === null || depth > 20) return own;
  const parent = await store.getRun(run.forkOf);
  if (!parent) return own;
  const inherited = await lineage(store, parent, Math.min(run.forkSeq, upTo), depth + 1);
  return { outcomes: [...inherited.outcomes, ...own.outcomes], reviews: [...inherited.reviews, ...own.reviews] };
}

export async function runRecords(store: RunStore, runId: string): Promise<RunRecords> {
  const run = await store.getRun(runId);
  if (!run) throw new NotFoundError(`run ${runId} not found`);
  const transitions = await store.transitions(runId, 0, MAX_TRANSITIONS);
  const { outcomes, reviews } = await lineage(store, run);
  return { run, transitions, visits: visitsOf(transitions), outcomes, reviews: reviews.sort((a, b) => a.seq - b.seq || a.createdAt - b.createdAt) };
}

/** The visit key an outcome or a review belongs to: its state's visit open at its seq. */
export function keyAt(visits: readonly Visit[], state: string, seq: number): string | null {
  return visitAt(visits, state, seq)?.key ?? null;
}

/**
 * The transition a decided review's decision made: the first after it opened whose event is the
 * decision and that left (or stayed in) its state at the instant it was decided.
 */
export function decisionTransition(transitions: readonly TransitionRow[], r: ReviewRow): TransitionRow | null {
  if (r.status !== "decided" || !r.decision) return null;
  const type = r.decision.toUpperCase();
  return transitions.find((t) => t.seq > r.seq && t.event === type && t.from.includes(r.state) && (r.decidedAt === null || t.at === r.decidedAt)) ?? transitions.find((t) => t.seq > r.seq && t.event === type && t.from.includes(r.state)) ?? null;
}
