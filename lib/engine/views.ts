// What the API, the UI and the bus see of runs, transitions and reviews.
import type { ReplaySpec, ReviewRow, RunRow, RunStatus, TransitionRow } from "./store/types";

export interface RunView {
  id: string;
  workflow: string;
  status: RunStatus;
  /** active state names (leaf ids) */
  state: string[];
  context: unknown;
  input: unknown;
  output: unknown;
  error: unknown;
  version: number;
  seq: number;
  parentId: string | null;
  /** the run this one was forked from, and the seq it started from */
  forkOf: string | null;
  forkSeq: number | null;
  /** the schedule that started it, else null */
  scheduleId: string | null;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
  /** when the current state(s) were entered */
  since: string | null;
  /** the pending review the run waits on, if any */
  reviewId?: string | null;
  /** what the run is called, as stored when it started (lib/api/runs.ts fills in older runs' names) */
  name: string | null;
  /** a replay or evaluation run: the run it replays (lib/change) */
  replayOf: string | null;
  /** how it reuses its source's records (replays, evaluation cases, forks with reuse) */
  replay?: ReplaySpec;
  /** the version of a user-defined workflow the run is pinned to (its input's definitionVersion); null for built-ins */
  workflowVersion: number | null;
}

export interface TransitionView {
  seq: number;
  from: string;
  to: string;
  event: string;
  reason: string;
  at: string;
  durationMs: number;
  payload?: unknown;
}

export interface ReviewView {
  id: string;
  runId: string;
  workflow: string;
  state: string;
  kind: string;
  prompt: string;
  payload: unknown;
  status: ReviewRow["status"];
  decision: string | null;
  feedback: string | null;
  reviewer: string | null;
  createdAt: string;
  decidedAt: string | null;
  /** a decision a replay made (the source review it repeated): the engine's, not a person's */
  replayedFrom?: string;
  /** who decided: "person", or "engine" (a replay or an evaluation); null while pending or cancelled */
  decidedBy: "person" | "engine" | null;
  /** the groups it is routed to (null: anyone) */
  assignedTo: string[] | null;
  /** when it is due (ISO; null: no deadline) */
  dueAt: string | null;
  /** the groups it was assigned to before it was escalated (null: not escalated) */
  escalatedFrom: string[] | null;
}

/** The event of the transition that marks where a fork branched off its parent. */
export const FORK_EVENT = "xstate.fork";

/**
 * ISO text of an instant. Memoised: every view of a run formats its creation time again, and a
 * step's instant is shared by its run view and its transitions (npm run bench: formatting was ~2%
 * of a step on the engine's thread). Emptied when it reaches 4,096 instants.
 */
const isoTexts = new Map<number, string>();
function iso(ms: number): string {
  let text = isoTexts.get(ms);
  if (text === undefined) {
    if (isoTexts.size >= 4096) isoTexts.clear();
    text = new Date(ms).toISOString();
    isoTexts.set(ms, text);
  }
  return text;
}

export function runView(row: RunRow, reviewId?: string | null): RunView {
  // when the current state(s) were entered: the earliest
  let since = Infinity;
  for (const s of row.state) {
    const at = row.entered[s];
    if (typeof at === "number" && at < since) since = at;
  }
  return {
    id: row.id,
    workflow: row.workflow,
    status: row.status,
    state: row.state,
    context: row.context,
    input: row.input,
    output: row.output,
    error: row.error,
    version: row.version,
    seq: row.seq,
    parentId: row.parentId,
    forkOf: row.forkOf,
    forkSeq: row.forkSeq,
    scheduleId: row.scheduleId,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    finishedAt: row.finishedAt === null ? null : iso(row.finishedAt),
    since: since === Infinity ? null : iso(since),
    name: row.name,
    ...(reviewId !== undefined ? { reviewId } : {}),
    replayOf: row.replayOf ?? null,
    ...(row.replay ? { replay: row.replay } : {}),
    workflowVersion: pinOf(row.input),
  };
}

/** A user-defined workflow run's version pin (input.definitionVersion), null for built-ins. */
export function pinOf(input: unknown): number | null {
  const v = (input as { definitionVersion?: unknown } | null | undefined)?.definitionVersion;
  return typeof v === "number" && Number.isInteger(v) ? v : null;
}

export function transitionView(t: TransitionRow, withPayload = false): TransitionView {
  return {
    seq: t.seq,
    from: t.from.join(","),
    to: t.to.join(","),
    event: t.event,
    reason: t.reason,
    at: iso(t.at),
    durationMs: t.durationMs,
    ...(withPayload ? { payload: t.payload } : {}),
  };
}

export function reviewView(r: ReviewRow): ReviewView {
  return {
    id: r.id,
    runId: r.runId,
    workflow: r.workflow,
    state: r.state,
    kind: r.kind,
    prompt: r.prompt,
    payload: r.payload,
    status: r.status,
    decision: r.decision,
    feedback: r.feedback,
    reviewer: r.reviewer,
    createdAt: iso(r.createdAt),
    decidedAt: r.decidedAt === null ? null : iso(r.decidedAt),
    ...(r.replayedFrom ? { replayedFrom: r.replayedFrom } : {}),
    decidedBy: r.decidedBy ?? (r.status === "decided" ? (r.replayedFrom ? "engine" : "person") : null),
    assignedTo: r.assignedTo ?? null,
    dueAt: r.dueAt == null ? null : iso(r.dueAt),
    escalatedFrom: r.escalatedFrom ?? null,
  };
}
