// Which runs are in memory. A run is held while something happens to it (a step queued, an effect
// running); one idle for SWITCHYARD_EVICT_AFTER_MS is evicted (lib/engine/evict.ts) and loaded
// again from the database by the next caller (one load shared by concurrent callers). Cluster mode
// re-reads a held run before each step (refresh), as another process may have moved it. Also the
// index of the pending reviews of the runs held (a decision's lookup without a read), and each
// run's mailbox (its steps one after another; queued steps keep it in memory).
import type { AnyMachineSnapshot } from "xstate";
import { ReplayState } from "../change/replay-state";
import type { WorkflowDefinition } from "../machines/types";
import { serializeError } from "./draft";
import { evictIdle, EvictionTimer } from "./evict";
import { newLive, type Live } from "./live";
import { restore } from "./step";
import type { ResumableRun, ReviewRow, RunRow, RunStore, TimerRow } from "./store/types";
import { TERMINAL } from "./store/types";
import { pinOf } from "./views";

export interface ResidencyOptions {
  store: RunStore;
  workflows: (id: string, input?: unknown, run?: Pick<RunRow, "replay">) => WorkflowDefinition | undefined;
  log: (level: "info" | "warn" | "error", message: string, data?: unknown) => void;
  /** evict runs idle this long (ms; 0: never) */
  evictAfterMs: number;
  /** cluster mode: each step re-reads its run first; an evicted run is not retired (a caller holding it still steps it correctly) */
  cluster: boolean;
  /** runs never evicted (cluster mode: those someone watches here) */
  keep?: (runId: string) => boolean;
  /** stop what a run has going on here (its effects, its timers); it is already out of the index */
  retire: (live: Live) => void;
}

/** What a refresh found: the run moved (its timers as stored now), finished or vanished, or is as this process left it. */
export type Refreshed = { moved: true; timers: TimerRow[] } | { moved: false; gone: boolean };

/** The stored snapshot without the engine's own bookkeeping (the effects' seqs), as XState restores it. */
export function restoreRow(def: WorkflowDefinition, row: RunRow): AnyMachineSnapshot {
  const { effects: _effects, ...persisted } = row.snapshot as { effects?: unknown };
  void _effects;
  return restore(def.machine, persisted, row.context);
}

export class Residency {
  private live = new Map<string, Live>();
  private loading = new Map<string, Promise<Live | null>>();
  /** pending review id → its live run */
  private reviewIndex = new Map<string, Live>();
  private eviction: EvictionTimer;

  constructor(private o: ResidencyOptions) {
    this.eviction = new EvictionTimer(o.evictAfterMs, (idle) => this.evictIdle(idle));
    this.eviction.start();
  }

  get(runId: string): Live | undefined {
    return this.live.get(runId);
  }

  has(runId: string): boolean {
    return this.live.has(runId);
  }

  get size(): number {
    return this.live.size;
  }

  /** runs evicted so far */
  get evicted(): number {
    return this.eviction.evicted;
  }

  add(live: Live): void {
    this.live.set(live.row.id, live);
  }

  /** Take the run out of memory, if it is this one that is held. */
  remove(live: Live): void {
    if (this.live.get(live.row.id) === live) this.live.delete(live.row.id);
  }

  stopEvicting(): void {
    this.eviction.stop();
  }

  /** Forget every run (their effects and timers stopped by `retire`). */
  retireAll(): void {
    for (const live of this.live.values()) this.retire(live);
    this.live.clear();
  }

  /** Forget a run in memory: out of the review index, its timers and effects stopped (the database is untouched). */
  retire(live: Live): void {
    live.gone = true;
    this.unindex(live);
    this.o.retire(live);
  }

  // ---------------------------------------------------------------- the mailbox

  /** Run `fn` after the run's queued steps; queued steps keep the run in memory, the last one's end starts its idle time. */
  enqueue<T>(live: Live, fn: () => Promise<T>): Promise<T> {
    const run = live.tail.then(fn, fn);
    live.pending = (live.pending ?? 0) + 1;
    const done = () => this.settled(live);
    live.tail = run.then(done, done);
    return run;
  }

  /** A step of the run finished (its idle time starts). */
  settled(live: Live): void {
    live.pending = (live.pending ?? 1) - 1;
    live.touched = Date.now();
  }

  // ---------------------------------------------------------------- reviews

  /** A pending review of a run in memory (saves a read on the decision path). */
  review(id: string): ReviewRow | undefined {
    const live = this.reviewIndex.get(id);
    if (!live || live.gone) return undefined;
    for (const r of live.reviews.values()) if (r.id === id) return r;
    return undefined;
  }

  /** Reviews a commit of `live` opened and closed. */
  reviewsMoved(live: Live, opened: Iterable<{ id: string }>, closed: Iterable<{ id: string }>): void {
    for (const c of closed) this.reviewIndex.delete(c.id);
    for (const r of opened) this.reviewIndex.set(r.id, live);
  }

  private index(live: Live): void {
    for (const r of live.reviews.values()) this.reviewIndex.set(r.id, live);
  }

  private unindex(live: Live): void {
    for (const r of live.reviews.values()) if (this.reviewIndex.get(r.id) === live) this.reviewIndex.delete(r.id);
  }

  // ---------------------------------------------------------------- rehydration

  /**
   * The run in memory, loaded from the database when it is not (one load shared by concurrent
   * callers; `activate` arms what the loaded run has going on). null: finished, or not stored.
   */
  load(runId: string, activate: (r: ResumableRun) => Live | null): Promise<Live | null> {
    const existing = this.live.get(runId);
    if (existing && !existing.gone) return Promise.resolve(existing);
    let p = this.loading.get(runId);
    if (!p) {
      p = (async () => {
        const row = await this.o.store.getRun(runId);
        if (!row || TERMINAL.includes(row.status)) return null;
        const [timers, reviews] = await Promise.all([this.o.store.timers(runId), this.o.store.listReviews({ runId, status: "pending" })]);
        if (this.live.has(runId)) return this.live.get(runId)!;
        return activate({ run: row, timers, reviews });
      })().finally(() => this.loading.delete(runId));
      this.loading.set(runId, p);
    }
    return p;
  }

  /** A stored run brought into memory (held, its reviews indexed; nothing started): null when its workflow is unknown or its snapshot does not restore. */
  rehydrate(r: ResumableRun): Live | null {
    const def = this.o.workflows(r.run.workflow, r.run.input, r.run);
    if (!def) {
      this.o.log("warn", `run ${r.run.id}: workflow ${r.run.workflow} is not registered; not resumed`);
      return null;
    }
    let snapshot: AnyMachineSnapshot;
    try {
      snapshot = restoreRow(def, r.run);
    } catch (e) {
      this.o.log("error", `run ${r.run.id}: snapshot does not restore`, serializeError(e));
      return null;
    }
    const live = newLive(def, r.run, snapshot, {
      reviews: new Map(r.reviews.map((rv) => [rv.state, rv])),
      touched: Date.now(),
      ...(r.run.replay ? { replay: ReplayState.stored(this.o.store, r.run) } : {}),
    });
    this.add(live);
    this.index(live);
    return live;
  }

  /**
   * Bring a run in memory up to its stored version (cluster mode: other processes commit too).
   * A run that finished or vanished is retired; one that moved takes the stored row, snapshot,
   * reviews and machine version, and the caller re-arms its timers and effects.
   */
  async refresh(live: Live): Promise<Refreshed> {
    if (live.gone) return { moved: false, gone: true };
    const id = live.row.id;
    // the version alone first: most steps find the run as this process left it
    if ((await this.o.store.runVersion(id)) === live.row.version) return { moved: false, gone: false };
    const row = await this.o.store.getRun(id);
    if (row && row.version === live.row.version) return { moved: false, gone: false };
    if (!row || TERMINAL.includes(row.status)) {
      if (row) live.row = row;
      this.retire(live);
      this.remove(live);
      return { moved: false, gone: true };
    }
    const [timers, reviews] = await Promise.all([this.o.store.timers(id), this.o.store.listReviews({ runId: id, status: "pending" })]);
    // a migration moved the run to another version: its machine is that version's
    if (pinOf(row.input) !== pinOf(live.row.input)) live.def = this.o.workflows(row.workflow, row.input, row) ?? live.def;
    live.snapshot = restoreRow(live.def, row);
    live.row = row;
    // a replay's counts moved with the steps another process took
    if (row.replay) live.replay = ReplayState.stored(this.o.store, row);
    this.unindex(live);
    live.reviews = new Map(reviews.map((rv) => [rv.state, rv]));
    this.index(live);
    return { moved: true, timers };
  }

  // ---------------------------------------------------------------- eviction

  /**
   * Evict the runs not stepped for `idleMs`, with no step queued and no effect running here (the
   * database has them; the next event, decision, abort or timer loads them again). Cluster mode
   * keeps the runs `keep` names. Returns how many were evicted.
   */
  evictIdle(idleMs: number): number {
    return evictIdle(this.live, {
      idleMs,
      loading: this.loading,
      keep: this.o.keep,
      drop: (id, live) => {
        this.live.delete(id);
        this.o.store.forget?.(id);
        live.evicted = true;
        // cluster mode: not retired: a caller holding it still steps it correctly (each step re-reads the run)
        if (this.o.cluster) this.unindex(live);
        else this.retire(live);
      },
    });
  }
}
