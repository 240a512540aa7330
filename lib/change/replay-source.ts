// What a replay takes from its source run: the recorded outcome of each effect invocation and the
// decisions its reviewers made, both by visit key ("<state id>#<visit>"). Loaded once per replay
// run (lib/engine/engine.ts keeps it with the run while it is in memory).
import type { OutcomeRow, ReviewRow, RunStore } from "../engine/store/types";
import { decisionTransition, keyAt, runRecords } from "./records";

export interface SourceDecision {
  review: ReviewRow;
  decision: string;
  feedback?: string;
  reviewer?: string;
  modifications?: string[];
  /** the decision's other fields (an edit's `edited` value, an edited plan …) */
  data: Record<string, unknown>;
}

export interface ReplaySource {
  outcomes: Map<string, OutcomeRow>;
  /** per visit key, the decisions made there, in order (several approvers decide one after another) */
  decisions: Map<string, SourceDecision[]>;
}

const OWN = new Set(["edge", "feedback", "reviewer", "modifications", "at", "type"]);

/** A decided review's decision as it was sent: the event's fields from its transition, an edit's full value from the snapshot after it. */
export async function sourceDecision(store: RunStore, transitions: Parameters<typeof decisionTransition>[0], r: ReviewRow): Promise<SourceDecision> {
  const t = decisionTransition(transitions, r);
  const payload = (t?.payload ?? {}) as Record<string, unknown>;
  const data: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(payload)) if (!OWN.has(k)) data[k] = v;
  // transition payloads keep long strings cut short: a step review's edit is whole in the context after it
  if (t && "edited" in data) {
    const snap = await store.snapshotAt(r.runId, t.seq);
    const review = (snap?.context as { review?: { edited?: unknown } } | null)?.review;
    if (review && review.edited !== undefined) data.edited = review.edited;
  }
  const modifications = Array.isArray(payload.modifications) ? (payload.modifications as string[]) : undefined;
  return {
    review: r,
    decision: r.decision!,
    ...(r.feedback !== null ? { feedback: r.feedback } : {}),
    ...(r.reviewer !== null ? { reviewer: r.reviewer } : {}),
    ...(modifications ? { modifications } : {}),
    data,
  };
}

export async function loadReplaySource(store: RunStore, sourceId: string): Promise<ReplaySource> {
  const rec = await runRecords(store, sourceId);
  const outcomes = new Map<string, OutcomeRow>();
  for (const o of rec.outcomes) {
    // a side effect an earlier replay skipped has no recorded answer
    if (o.source === "skipped") continue;
    const k = keyAt(rec.visits, o.state, o.seq);
    if (k) outcomes.set(k, o);
  }
  const decisions = new Map<string, SourceDecision[]>();
  for (const r of rec.reviews) {
    if (r.status !== "decided" || !r.decision) continue;
    const k = keyAt(rec.visits, r.state, r.seq);
    if (!k) continue;
    const list = decisions.get(k) ?? [];
    list.push(await sourceDecision(store, rec.transitions, r));
    decisions.set(k, list);
  }
  return { outcomes, decisions };
}
