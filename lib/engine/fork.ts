// Fork: a new run that starts from another run's snapshot at one of its transitions. The fork
// carries the parent's history up to that point (so its timeline and replay read from the
// start), then one "xstate.fork" transition marks the branch point; from there it is a run of
// its own: its in-flight effects run again under its own keys, its timers keep the time they
// had left at the fork point, and a review state it starts in opens a fresh review with no
// approvals. Its context may be edited only where the workflow allows (fork-check.ts).
import type { AnyMachineSnapshot, EventObject } from "xstate";
import { z } from "zod";
import type { WorkflowDefinition } from "../machines/types";
import { addStep, isRetry, newDraft, statusOf, type Draft } from "./draft";
import { contextEditProblem, invocationProblem, stateValueProblem } from "./fork-check";
import { stuckReason } from "./invariant";
import { InvalidError } from "./errors";
import { isImportedRun } from "./imported";
import { activeLeaves, activeNodes, restore } from "./step";
import type { RunRow, RunStore, SnapshotRow, TransitionRow } from "./store/types";
import { FORK_EVENT } from "./views";


export interface ForkEdits {
  /** top-level context keys to replace */
  context?: Record<string, unknown>;
  /** the fork's input (validated against the workflow); the context is not rebuilt from it */
  input?: unknown;
}

export interface ForkSource {
  run: RunRow;
  snap: SnapshotRow;
  /** the parent's transitions 1..snap.seq */
  transitions: TransitionRow[];
}

function describeEdits(edits: ForkEdits): string {
  const parts: string[] = [];
  if (edits.context && Object.keys(edits.context).length) parts.push(`context edited (${Object.keys(edits.context).join(", ")})`);
  if (edits.input !== undefined) parts.push("input replaced");
  return parts.length ? `; ${parts.join("; ")}` : "";
}

/** The draft of a fork's first commit: the copied history, the branch-point transition, timers and reviews. */
export function forkDraft(def: WorkflowDefinition, src: ForkSource, edits: ForkEdits, id: string, now: number, newId: () => string): Draft {
  const { run, snap } = src;
  const { effects: _effects, ...persisted } = snap.snapshot as { effects?: unknown; value?: unknown; status?: unknown; children?: Record<string, { src?: unknown; snapshot?: { status?: string } }> };
  void _effects;
  const refuse = (why: string) => new InvalidError(`cannot fork run ${run.id} at seq ${snap.seq}: ${why}`);
  // the snapshot may come from an import: its state must be one this machine has
  const badState = persisted.status === "active" || persisted.status === undefined ? stateValueProblem(def.machine, persisted.value) : null;
  if (badState) throw refuse(badState);
  const base = snap.context;
  if (edits.context && (base === null || typeof base !== "object" || Array.isArray(base))) {
    throw new InvalidError(`run ${run.id}'s context is not an object; it cannot be edited`);
  }
  const badEdit = edits.context ? contextEditProblem(base as Record<string, unknown>, edits.context, def.forkEditable ?? [], def.id) : null;
  if (badEdit) throw refuse(badEdit);
  if (edits.context && def.flow && Object.hasOwn(edits.context, "input")) {
    // a user workflow's input as its declared inputs take it
    const parsed = z.safeParse(def.input, edits.context.input);
    if (!parsed.success) throw refuse(`context.input: ${parsed.error.issues.map((i) => `${["input", ...i.path].join(".")}: ${i.message}`).join("; ")}`);
  }
  const edited = edits.context ? { ...(base as Record<string, unknown>), ...edits.context } : base;
  // no approvals carried into a review it starts in; an imported run's decisions stay behind
  // (a fork's copied history reads its parent's snapshots: the snapshot's own run says whether it was imported)
  const context = def.forkStart ? def.forkStart(edited, { imported: isImportedRun(run.id) || isImportedRun(snap.runId) }) : edited;
  let snapshot: AnyMachineSnapshot;
  try {
    snapshot = restore(def.machine, persisted, context);
  } catch (e) {
    throw new InvalidError(`the snapshot at seq ${snap.seq} does not restore with that context: ${(e as Error).message}`);
  }
  if (snapshot.status !== "active") {
    throw new InvalidError(`seq ${snap.seq} is where run ${run.id} ended (${snapshot.status}); fork from an earlier transition`);
  }
  const badInvoke = invocationProblem(activeNodes(snapshot), persisted.children);
  if (badInvoke) throw refuse(badInvoke);
  let input = run.input;
  if (edits.input !== undefined) {
    const parsed = z.safeParse(def.input, edits.input);
    if (!parsed.success) throw new InvalidError(`invalid input for ${def.id}: ${parsed.error.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join("; ")}`, parsed.error.issues);
    input = parsed.data;
  }
  const leaves = activeLeaves(snapshot);
  const row: RunRow = {
    id,
    workflow: run.workflow,
    status: "running",
    state: leaves,
    snapshot: snap.snapshot,
    context,
    input,
    output: null,
    error: null,
    entered: Object.fromEntries(leaves.map((s) => [s, now])),
    version: 0,
    seq: snap.seq,
    parentId: null,
    forkOf: run.id,
    forkSeq: snap.seq,
    scheduleId: null,
    retries: src.transitions.filter((t) => isRetry(t.event, t.reason)).length,
    waitingSince: null,
    failedStates: null,
    createdAt: now,
    updatedAt: now,
    finishedAt: null,
    // a fork is called what its run is called
    name: run.name,
  };
  const draft = newDraft(def, row, snapshot, new Map(), now, true);
  draft.transitions.push(...src.transitions.map((t) => ({ ...t, runId: id })));
  const last = src.transitions.at(-1);
  draft.snapshotFirst = draft.row.seq + 1; // the copied history keeps the parent's snapshots (snapshotFor)
  draft.transitions.push({
    runId: id,
    seq: ++draft.row.seq,
    from: last?.to ?? leaves,
    to: leaves,
    event: FORK_EVENT,
    reason: `forked from run ${run.id} at seq ${snap.seq}${describeEdits(edits)}`,
    at: now,
    durationMs: 0,
    payload: { forkOf: run.id, seq: snap.seq, ...(edits.context ? { context: edits.context } : {}), ...(edits.input !== undefined ? { input } : {}) },
  });
  // open the reviews of the review states it starts in (no transitions of its own to fold)
  addStep(draft, { snapshot, transitions: [], actions: [] }, { type: FORK_EVENT } as EventObject, { newId });
  for (const t of snap.timers) {
    draft.timersSet.set(t.id, { runId: id, id: t.id, event: t.event, seq: draft.row.seq, dueAt: now + Math.max(0, t.dueAt - snap.at) });
  }
  // the engine's invariant, checked before anything is written: the fork must wait for something
  const stuck = stuckReason(def, { ...draft.row, status: statusOf(snapshot) }, snapshot, draft.timersSet.size, draft.reviews.size);
  if (stuck) throw refuse(`the snapshot waits for nothing (${stuck.replace(/; failed instead of left stuck$/, "")})`);
  return draft;
}

/**
 * The snapshot of the commit that wrote `seq` of a run; for a fork's copied history (seq up to its
 * forkSeq), the parent's, and so on up the line of forks.
 */
export async function snapshotFor(store: RunStore, runId: string, seq: number): Promise<SnapshotRow | null> {
  const own = await store.snapshotAt(runId, seq);
  if (own) return own;
  const run = await store.getRun(runId);
  return run?.forkOf && run.forkSeq !== null && seq <= run.forkSeq ? snapshotFor(store, run.forkOf, seq) : null;
}
