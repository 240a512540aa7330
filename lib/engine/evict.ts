// Runs that wait cost nothing: a run with no effect in flight and no step queued, idle for
// SWITCHYARD_EVICT_AFTER_MS, is dropped from memory (its actor, snapshot, timers and reviews).
// The database has all of it: the run's next event, decision, abort or timer loads it again from
// its snapshot (Engine.loadLive, one load shared by concurrent callers) and steps it as if it had
// never left. A restart loads only the runs with an effect in flight (RunStore.activeRuns, the
// indexed Run.inFlight column); timers come from the database (lib/engine/timer-wheel.ts).
import type { AnyMachineSnapshot, EventObject } from "xstate";
import type { WorkflowDefinition } from "../machines/types";
import { restore } from "./step";
import type { RunRow } from "./store/types";

/** SWITCHYARD_EVICT_AFTER_MS when unset */
export const DEFAULT_EVICT_AFTER_MS = 5_000;

/**
 * SWITCHYARD_EVICT_AFTER_MS: how long (ms) a waiting run stays in memory after its last step;
 * unset: 5000; 0: never evict (every unfinished run stays in memory, as before).
 */
export function evictAfterFromEnv(env: NodeJS.ProcessEnv): number {
  const v = env.SWITCHYARD_EVICT_AFTER_MS?.trim();
  if (!v) return DEFAULT_EVICT_AFTER_MS;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 86_400_000) throw new Error(`SWITCHYARD_EVICT_AFTER_MS must be a whole number of milliseconds from 0 (never evict) to 86400000; got "${v}"`);
  return n;
}

/** What eviction reads of a run in memory. */
export interface Evictable {
  /** steps queued and not finished */
  pending?: number;
  /** when (Date.now()) its last step finished, or it was loaded */
  touched?: number;
  effects: { size: number };
}

/**
 * The runs in `live` idle for `idleMs` or more (real time): no step queued, no effect running here,
 * not being loaded, and not kept by `keep`. `drop` takes each out of memory; returns how many.
 */
export function evictIdle<L extends Evictable>(live: Map<string, L>, opts: { idleMs: number; loading: { has(id: string): boolean }; keep?: (id: string) => boolean; drop(id: string, run: L): void }): number {
  const before = Date.now() - opts.idleMs;
  let n = 0;
  for (const [id, run] of live) {
    if ((run.pending ?? 0) > 0 || run.effects.size > 0 || (run.touched ?? 0) > before || opts.loading.has(id) || opts.keep?.(id)) continue;
    opts.drop(id, run);
    n++;
  }
  return n;
}

/** Checks for idle runs every `min(idleMs, 1 s)` (real time; never keeps the process alive). */
export class EvictionTimer {
  private handle: ReturnType<typeof setInterval> | null = null;
  /** runs evicted so far */
  evicted = 0;

  constructor(
    private idleMs: number,
    private sweep: (idleMs: number) => number,
  ) {}

  start(): void {
    if (this.idleMs <= 0 || this.handle) return;
    this.handle = setInterval(() => (this.evicted += this.sweep(this.idleMs)), Math.max(50, Math.min(this.idleMs, 1_000)));
    this.handle.unref?.();
  }

  stop(): void {
    if (this.handle) clearInterval(this.handle);
    this.handle = null;
  }
}

/**
 * The client events a stored run accepts now, read without loading it into memory (a run page
 * asking about an evicted run does not bring it back). [] when its snapshot does not restore.
 */
export function acceptedByRow(def: WorkflowDefinition, row: RunRow): string[] {
  const { effects: _effects, ...persisted } = row.snapshot as { effects?: unknown };
  void _effects;
  let snapshot: AnyMachineSnapshot;
  try {
    snapshot = restore(def.machine, persisted, row.context);
  } catch {
    return [];
  }
  return Object.keys(def.events).filter((type) => snapshot.can({ type } as EventObject));
}
