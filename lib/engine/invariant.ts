// What a live run waits for, and the engine's invariant on it: a run whose status is "running"
// always has an effect in flight, a timer to come, a review open or an event from outside it
// accepts. A run that breaks it (a crafted snapshot, a machine that ends up nowhere) would sit
// "running" forever: the engine fails it with a StuckRunError instead (see Engine.commitDraft).
import type { AnyMachineSnapshot } from "xstate";
import type { WorkflowDefinition } from "../machines/types";
import { newDraft, type Draft } from "./draft";
import { activeLeaves, activeNodes } from "./step";
import type { ReviewRow, RunRow } from "./store/types";
import { childKey, type PersistedChildren } from "./key";

export const STUCK_CATEGORY = "STUCK";

type Persisted = PersistedChildren;

export interface InFlightEffect {
  child: string;
  src: string;
  input: unknown;
  /** the invocation key, runId:child:seq */
  key: string;
}

/** The effects a run's stored snapshot has in flight (invoked, not finished). */
export function inFlightEffects(row: RunRow): InFlightEffect[] {
  const persisted = row.snapshot as Persisted;
  const out: InFlightEffect[] = [];
  for (const [child, c] of Object.entries(persisted.children ?? {})) {
    if (c.snapshot?.status !== "active" || typeof c.src !== "string") continue;
    out.push({ child, src: c.src, input: c.snapshot?.input, key: childKey(row.id, persisted, child) });
  }
  return out;
}

/** The state that invoked an effect: XState names an invoke without an id "<n>.<machine>.<state path>". */
export function invokingState(child: string, leaves: string[]): string {
  const invoker = /^\d+\.[^.]+\.(.+)$/.exec(child)?.[1];
  return invoker && leaves.some((s) => s === invoker || s.startsWith(`${invoker}.`)) ? invoker : leaves.join(",");
}

/**
 * Why a "running" run waits for nothing (null: it waits for something). Cheap on the usual path:
 * an effect in flight, a timer or a review answers at once; only a run with none of them is asked
 * which client events it accepts.
 */
export function stuckReason(def: WorkflowDefinition, row: RunRow, snapshot: AnyMachineSnapshot, timers: number, reviews: number): string | null {
  if (row.status !== "running" || timers > 0 || reviews > 0) return null;
  const children = (row.snapshot as Persisted).children;
  if (children) for (const id in children) if (children[id]?.snapshot?.status === "active") return null;
  if (snapshot.status !== "active") return null;
  // an event from outside that an active state handles (guards aside: a guard that refuses now may accept the next one)
  const client = def.events;
  for (const node of activeNodes(snapshot)) for (const type of node.ownEvents) if (type === "*" || Object.hasOwn(client, type)) return null;
  return `run is running in ${row.state.join(", ") || "(no state)"} but waits for nothing: no effect in flight, no timer, no review, and no event it accepts; failed instead of left stuck`;
}

/**
 * A draft that ends the run where it stands (abort, a poisoned effect, a stuck run): one transition
 * that stays in the active states, its timers cleared and its reviews cancelled.
 */
export function haltDraft(
  live: { def: WorkflowDefinition; row: RunRow; snapshot: AnyMachineSnapshot; reviews: Map<string, ReviewRow>; timers: Iterable<string> },
  now: number,
  event: string,
  reason: string,
  payload: Record<string, unknown>,
  error: Record<string, unknown>,
): Draft {
  const draft = newDraft(live.def, live.row, live.snapshot, live.reviews, now, false);
  const leaves = activeLeaves(live.snapshot);
  const since = leaves.map((s) => live.row.entered[s]).filter((x): x is number => typeof x === "number");
  draft.transitions.push({
    runId: live.row.id,
    seq: ++draft.row.seq,
    from: leaves,
    to: leaves,
    event,
    reason,
    at: now,
    durationMs: since.length ? now - Math.min(...since) : 0,
    payload,
  });
  for (const id of live.timers) draft.timersClear.add(id);
  for (const r of live.reviews.values()) draft.reviewsClose.push({ id: r.id, status: "cancelled", decision: null, feedback: null, reviewer: null, decidedAt: now });
  draft.reviews.clear();
  draft.row.error = error;
  return draft;
}
