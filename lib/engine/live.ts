// A run held in memory: its definition, its row and snapshot as last committed, its mailbox, and
// what it has going on in this process (effects running, timers armed, reviews open). The
// engine (engine.ts) steps it; residency.ts keeps, loads and evicts it; effects-runner.ts runs its
// effects.
import type { AnyMachineSnapshot } from "xstate";
import type { ReplayState } from "../change/replay-state";
import type { WorkflowDefinition } from "../machines/types";
import type { Cancel } from "./cancel";
import type { ReviewRow, RunRow, TimerRow } from "./store/types";

/** An effect running here: its invocation key, its cancellation, and when its outcome is committed. */
export interface RunningEffect {
  key: string;
  cancel: Cancel;
  finished?: Promise<void>;
}

export interface Live {
  def: WorkflowDefinition;
  row: RunRow;
  snapshot: AnyMachineSnapshot;
  /** the run's mailbox: its steps run one after another */
  tail: Promise<unknown>;
  /** child id → the effect running for it */
  effects: Map<string, RunningEffect>;
  /** its pending timers (single mode: the process-wide TimerWheel fires them; cluster mode: queued jobs) */
  timers: Map<string, { dueAt: number; row: TimerRow }>;
  /** pending reviews by state id */
  reviews: Map<string, ReviewRow>;
  gone: boolean;
  /** cluster mode: effect keys already handed to the queue (by this process, or by the one that committed them) */
  dispatched: Set<string>;
  /** invocation keys in flight during too many crashes: never started here (its run is being failed) */
  poisoned?: Set<string>;
  /** steps queued and not finished, and when (Date.now()) the last one finished or the run was loaded: idle runs are evicted (lib/engine/evict.ts) */
  pending?: number;
  touched?: number;
  /** dropped from memory while idle: the database has it, the next caller loads it again */
  evicted?: boolean;
  /** a replay, an evaluation case or a fork with reuse: what it takes from its source (lib/change/replay-state.ts) */
  replay?: ReplayState;
}

/** A run in memory from its parts (nothing running, nothing armed yet). */
export function newLive(def: WorkflowDefinition, row: RunRow, snapshot: AnyMachineSnapshot, more: Partial<Pick<Live, "reviews" | "pending" | "touched" | "replay">> = {}): Live {
  return { def, row, snapshot, tail: Promise.resolve(), effects: new Map(), timers: new Map(), reviews: more.reviews ?? new Map(), gone: false, dispatched: new Set(), ...more };
}
