// The effects runner: starts the effects a run's snapshot has invoked and stops the ones it no
// longer has; runs each (a replay's recorded outcome instead, when it has one) with its context
// (its key, signal, clock, bound model, emit and progress); commits its outcome as the run's next
// step, keeping the outcome and committing it again while the database refuses. Cluster mode hands
// new invocations to the queue instead (a worker runs them with Engine.runEffect). Also the
// poison-pill ledger: an effect in flight during too many crashes in a row is not started again.
import type { EventObject } from "xstate";
import type { ReplayedOutcome } from "../change/replay-state";
import { hashOf } from "../change/canonical";
import { bindModel, type BoundModel } from "../llm/bound";
import type { ModelPort } from "../llm/types";
import { traceStep } from "../telemetry";
import { Cancel } from "./cancel";
import type { Clock } from "./clock";
import { serializeError } from "./draft";
import { isParked, waitsOutside, type EffectContext, type WorkflowEffects } from "./effects";
import { EffectError } from "./effect-error";
import { ConflictError, InvalidError, StorageError, WriterConflict } from "./errors";
import { inFlightEffects } from "./invariant";
import { invokingStateOf } from "./invokers";
import { childKey, parseKey, type PersistedChildren } from "./key";
import type { Live } from "./live";
import { POISON_CRASHES, type CrashLedger } from "./poison";
import { isImportedRun } from "./imported";
import { backoffMs, STORAGE_RETRY } from "./retry";
import { describeEvent } from "./step";
import type { OutcomeRow, ResumableRun, RunRow } from "./store/types";

/** An effect a run invoked, identified by its invocation key (`runId:child:seq`, lib/engine/key.ts). */
export interface EffectJob {
  runId: string;
  child: string;
  key: string;
}

/** What the runner needs of the engine. */
export interface EffectHost {
  readonly clock: Clock;
  /** a workflow's effects */
  effects(workflowId: string): WorkflowEffects;
  /** the model port effects call (ctx.model); none: an effect that calls it fails */
  model?: () => ModelPort;
  /** cluster mode: where new invocations are queued */
  dispatch?: { effect(job: EffectJob): Promise<void> };
  log(level: "info" | "warn" | "error", message: string, data?: unknown): void;
  /** run `fn` as the run's next step (its mailbox) */
  enqueue<T>(live: Live, fn: () => Promise<T>): Promise<T>;
  /** apply an effect's outcome event to the run and commit it (with the outcome's record) */
  apply(live: Live, event: EventObject, outcome: OutcomeRow): Promise<unknown>;
  /** a live progress line for the run's watchers */
  progress(live: Live, message: string): void;
  /** a background promise whose failure is only logged (cluster mode: the next sweep queues it again) */
  track(p: Promise<unknown>, what: string): void;
}

/** When the state that invoked a step was entered (the earliest of its active leaves for a compound one). */
function enteredAt(row: RunRow, state: string): number | undefined {
  const times = Object.entries(row.entered ?? {})
    .filter(([s]) => s === state || s.startsWith(`${state}.`))
    .map(([, t]) => Number(t));
  return times.length ? Math.min(...times) : undefined;
}

/** The source's recorded failure, thrown again by a replay (its category kept). */
function replayedError(error: NonNullable<ReplayedOutcome["error"]>, mark: ReplayedOutcome["mark"]): Error {
  const e = error.category ? new EffectError(error.message, { category: error.category }) : new Error(error.message);
  return Object.assign(e, { name: error.name, replayed: mark });
}

const noModel = (): ModelPort => {
  throw new Error("no model port is given to the engine");
};

export class EffectsRunner {
  /** this process marked itself running in the ledger (a clean stop unmarks it) */
  private booted = false;

  constructor(
    private host: EffectHost,
    /** poison pills: crashes in a row each in-flight effect was in flight for (lib/engine/poison.ts); null: not counted */
    private ledger: CrashLedger | null,
  ) {}

  /** Does effect `src` of the workflow wait outside the process (an external worker's task)? Those are never poison pills. */
  waitsOutside(workflow: string, src: string): boolean {
    try {
      return waitsOutside(this.host.effects(workflow).actors[src]);
    } catch {
      return false;
    }
  }

  // ---------------------------------------------------------------- poison pills

  /** Boot: count a crash for every effect about to be started again (when the last process crashed); the keys in flight too often. */
  async countCrashes(list: ResumableRun[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (!this.ledger) return out;
    const inflight = list
      .filter((r) => !isImportedRun(r.run.id))
      .flatMap((r) => inFlightEffects(r.run).filter((f) => !this.waitsOutside(r.run.workflow, f.src)).map((f) => ({ key: f.key, runId: r.run.id })));
    try {
      const counts = await this.ledger.boot(inflight, this.host.clock.now());
      this.booted = true;
      for (const [key, crashes] of counts) if (crashes >= POISON_CRASHES) out.set(key, crashes);
    } catch (e) {
      this.host.log("error", "poison-pill ledger unavailable: effects in flight start again without their crashes counted", serializeError(e));
    }
    return out;
  }

  /** Cluster mode: the job's last attempt expired on a worker that died: one crash more in a row for this invocation; its count when it is now poisoned, else null. */
  async lost(live: Live, job: EffectJob, src: string): Promise<number | null> {
    if (!this.ledger || this.waitsOutside(live.def.id, src)) return null;
    const crashes = await this.ledger.bump({ key: job.key, runId: job.runId }, this.host.clock.now());
    return crashes >= POISON_CRASHES ? crashes : null;
  }

  /** A clean stop (single mode): the next boot starts the effects in flight again without counting a crash. */
  async cleanStop(): Promise<void> {
    if (this.booted && this.ledger) await this.ledger.clean().catch((e) => this.host.log("warn", "poison-pill ledger: the clean stop was not recorded", serializeError(e)));
  }

  // ---------------------------------------------------------------- invocations

  /** The invocation `job` names, if the run still has it in flight: its effect and input. */
  inFlight(live: Live, job: EffectJob): { src: string; input: unknown } | null {
    const persisted = live.row.snapshot as PersistedChildren;
    const child = persisted.children?.[job.child];
    if (!child || child.snapshot?.status !== "active" || typeof child.src !== "string" || childKey(live.row.id, persisted, job.child) !== job.key) return null;
    return { src: child.src, input: child.snapshot?.input };
  }

  /** Resolves once the effect running here under `key` has its outcome committed; false when none runs here. */
  async joined(live: Live, job: EffectJob): Promise<boolean> {
    const running = live.effects.get(job.child);
    if (running?.key !== job.key) return false;
    await running.finished;
    return true;
  }

  /**
   * Start the effects the snapshot has invoked and stop the ones it no longer has. Cluster mode
   * hands new ones to the queue instead (`adopt`: they were queued by whoever committed them).
   * `restarted`: the process is resuming after a stop; the effects in flight then ran before.
   */
  reconcile(live: Live, adopt = false, restarted = false): void {
    const persisted = live.row.snapshot as PersistedChildren;
    const children = persisted.children ?? {};
    for (const [id, running] of live.effects) {
      if (!(id in children) || childKey(live.row.id, persisted, id) !== running.key) {
        running.cancel.abort();
        live.effects.delete(id);
      }
    }
    for (const [id, child] of Object.entries(children)) {
      if (live.effects.has(id) || child.snapshot?.status !== "active" || typeof child.src !== "string") continue;
      const key = childKey(live.row.id, persisted, id);
      if (live.poisoned?.has(key)) continue;
      const dispatch = this.host.dispatch;
      if (dispatch) {
        if (live.dispatched.has(key)) continue;
        live.dispatched.add(key);
        if (!adopt) this.host.track(dispatch.effect({ runId: live.row.id, child: id, key }), `queue effect ${key}`);
        continue;
      }
      void this.start(live, id, child.src, child.snapshot?.input, key, restarted ? "restart" : undefined);
    }
  }

  /** Stop every effect the run has running here. */
  stopAll(live: Live): void {
    for (const e of live.effects.values()) e.cancel.abort();
    live.effects.clear();
  }

  /**
   * Run one invocation and commit its outcome. Resolves once the outcome is committed or the
   * invocation stopped being current; rejects (cluster mode only) when the database refused the
   * outcome (the queue runs the job again).
   */
  start(live: Live, id: string, src: string, input: unknown, key: string, again?: "restart"): Promise<void> {
    const host = this.host;
    let finish!: (e?: unknown) => void;
    const finished = new Promise<void>((resolve, reject) => (finish = (e) => (e === undefined ? resolve() : reject(e))));
    const cancel = new Cancel(() => finish());
    const entry = { key, cancel, finished };
    live.effects.set(id, entry);
    const runId = live.row.id;
    const current = () => !live.gone && live.effects.get(id)?.key === key && !cancel.aborted;
    let model: BoundModel | undefined;
    const ctx: EffectContext = {
      runId,
      // the step's own state (not every state a run with parallel branches is in)
      state: invokingStateOf(live.def.machine, id, live.row.state),
      key,
      get signal() {
        return cancel.signal;
      },
      // bound on first use (most effects never call a model)
      get model() {
        return (model ??= bindModel(host.model ?? noModel, ctx));
      },
      clock: host.clock,
      ...(again ? { again } : {}),
      emit: (event) => {
        if (!current()) return;
        void host.enqueue(live, () => (current() ? host.apply(live, event, undefined as never) : Promise.resolve(null))).catch((e) =>
          host.log("warn", `run ${runId}: event ${event.type} from ${src} not applied`, serializeError(e)),
        );
      },
      progress: (message) => {
        if (current()) host.progress(live, message);
      },
    };
    const fn = host.effects(live.def.id).actors[src] as ((input: unknown, ctx: EffectContext) => Promise<unknown>) | undefined;
    const settle = (event: EventObject, outcome: OutcomeRow, attempt = 0) => {
      if (!current()) return finish();
      void host
        .enqueue(live, async () => {
          if (!current()) return null;
          live.effects.delete(id);
          try {
            return await host.apply(live, event, outcome);
          } catch (e) {
            // another process committed first: the step is tried again on the re-read run (if the effect is still current there)
            if (e instanceof WriterConflict && !live.effects.has(id)) live.effects.set(id, entry);
            throw e;
          }
        })
        .then(
          () => finish(),
          (e) => {
            if (host.dispatch && !(e instanceof ConflictError) && !(e instanceof InvalidError)) {
              // cluster mode: the queue retries the whole effect job (under the same key)
              if (live.effects.get(id) === entry) live.effects.delete(id);
              host.log("warn", `run ${runId}: ${describeEvent(event)} not committed (${(e as Error).message}); the queue retries the effect`);
              return finish(e);
            }
            if (e instanceof StorageError && !live.gone && !cancel.aborted) {
              // the result is kept and committed once the database answers again (nothing was written)
              if (!live.effects.has(id)) live.effects.set(id, entry);
              host.log("warn", `run ${runId}: ${describeEvent(event)} not committed (${e.message}); retrying`);
              host.clock.setTimeout(() => settle(event, outcome, attempt + 1), backoffMs(STORAGE_RETRY, attempt));
              return;
            }
            host.log(e instanceof ConflictError ? "info" : "warn", `run ${runId}: ${describeEvent(event)} not applied`, serializeError(e));
            finish();
          },
        );
    };
    // what the commit of its outcome records (lib/change): what the invocation was given and returned
    const record = (mark: ReplayedOutcome["mark"] | null, output: unknown, error: OutcomeRow["error"]): OutcomeRow => ({
      key,
      runId,
      state: ctx.state,
      seq: parseKey(key, runId)?.seq ?? 0,
      effect: src,
      inputHash: hashOf(input ?? null),
      output: error ? null : (output ?? null),
      error,
      source: mark,
      at: host.clock.now(),
    });
    Promise.resolve()
      .then(async (): Promise<{ output: unknown; mark: ReplayedOutcome["mark"] | null }> => {
        // a replay takes the source's recorded outcome for the same state, visit and input (or skips a side effect)
        const from = live.replay ? await live.replay.outcome(ctx.state, src, input) : null;
        if (from?.error) throw replayedError(from.error, from.mark);
        if (from) return { output: from.output, mark: from.mark };
        if (!fn) throw new Error(`effect "${src}" is not implemented for ${live.def.id}`);
        const traced = { runId, workflow: live.def.id, state: ctx.state, key, effect: src, again, enteredAt: enteredAt(live.row, ctx.state) };
        return { output: await traceStep(traced, () => fn(input, ctx), isParked), mark: null };
      })
      .then(
        ({ output, mark }) => settle({ type: `xstate.done.actor.${id}`, output, ...(mark ? { replayed: mark } : {}) } as EventObject, record(mark, output, null)),
        (error) => {
          const mark = (error as { replayed?: ReplayedOutcome["mark"] }).replayed ?? null;
          if (!isParked(error)) return settle({ type: `xstate.error.actor.${id}`, error: serializeError(error), ...(mark ? { replayed: mark } : {}) } as EventObject, record(mark, null, serializeError(error)));
          // parked (cluster mode): no outcome yet; runEffect starts it again when its wait is over
          if (live.effects.get(id) === entry) live.effects.delete(id);
          finish();
        },
      );
    return finished;
  }
}
