// The engine: runs workflow machines durably. Per run, events are processed one at a time
// (a mailbox); each step is committed (group commit across runs) before its side effects
// start; timers and pending reviews live in the database and survive a restart.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { EventObject } from "xstate";
import type { StateMeta, WorkflowDefinition } from "../machines/types";
import type { ModelPort } from "../llm/types";
import { RunBus } from "./bus";
import { StateHooks } from "./hooks";
import { systemClock, type Clock } from "./clock";
import { Committer } from "./committer";
import { addStep, finishDraft, newDraft, serializeError, type Draft } from "./draft";
import { fleetDeltas } from "../fleet/counters";
import { ConflictError, EngineError, ForbiddenError, InvalidError, NotFoundError, StorageError, WriterConflict, isStorageFailure } from "./errors";
import { activeLeaves, activeNodes, initialStep, stateId, step } from "./step";
import { forkDraft, snapshotFor, type ForkEdits } from "./fork";
import { reviewerName } from "../machines/reviewer";
import { ActionOutbox, outboxRows } from "./outbox";
import { isImportedRun } from "./imported";
import { haltDraft, inFlightEffects, invokingState, stuckReason, STUCK_CATEGORY, type InFlightEffect } from "./invariant";
import { poisonError } from "./poison";
import type { IdempotencyClaim, OutcomeRow, ReplaySpec, ResumableRun, RunRow, RunStore, TimerRow } from "./store/types";
import { ReplayState } from "../change/replay-state";
import { TERMINAL } from "./store/types";
import { reviewView, runView, transitionView, type ReviewView, type RunView, type TransitionView } from "./views";
import { TimerWheel } from "./timer-wheel";
import { MIGRATE_EVENT, planMove } from "../change/migrate-plan";
import { acceptedByRow } from "./evict";
import { startName } from "../machines/run-name";
import { traceRunFinished, traceRunStarted, type RunInfo } from "../telemetry";
import { routeOf, type ReviewRoutes } from "../reviews/routes";
import { escalateInDraft, isDueTimer, routeDraft } from "../reviews/routing";
import { newLive, type Live } from "./live";
import { Residency } from "./residency";
import { EffectsRunner, type EffectJob } from "./effects-runner";

export { StorageError };
export { parkEffect, WAITS_OUTSIDE, waitingOutside } from "./effects";
import type { WorkflowEffects } from "./effects";
export type { ActionArgs, ActionFn, EffectContext, EffectFn, WorkflowEffects } from "./effects";
export type { EffectJob } from "./effects-runner";

export interface EngineOptions {
  store: RunStore;
  /** a workflow by id; `input` (a stored run's) pins a user-defined workflow's version; `run`: the stored run (an evaluation's runs use its candidate) */
  workflows: (id: string, input?: unknown, run?: Pick<RunRow, "replay">) => WorkflowDefinition | undefined;
  effects: (workflowId: string) => WorkflowEffects;
  clock?: Clock;
  bus?: RunBus;
  log?: (level: "info" | "warn" | "error", message: string, data?: unknown) => void;
  /**
   * Cluster mode (PostgreSQL, several processes): effects and timers the runs start are handed
   * to a job queue instead of running here (a worker runs them with runEffect / fireTimer), and
   * each step re-reads its run first, because another process may have moved it.
   */
  dispatch?: Dispatcher;
  /** a run with no effect in flight and no step queued is dropped from memory after this long idle (ms; 0 or unset: never); lib/engine/evict.ts */
  evictAfterMs?: number;
  /** keep the fleet's per-state counters in each commit (lib/fleet/counters.ts); default on (npm run bench:fleet measures both) */
  fleetCounters?: boolean;
  /** review routes of the built-in workflows' review states (SWITCHYARD_REVIEW_ROUTES; user workflows say theirs in their steps) */
  reviewRoutes?: ReviewRoutes;
  /** the model port effects call through ctx.model (bound to their run, state, key and signal) */
  model?: () => ModelPort;
}

/** Who may decide a review: null, or why not (a 403). Checked on the review as it stands when the decision is applied. */
export type DecisionGate = (review: ReviewView) => string | null;

/** Where cluster mode sends the work: both calls are idempotent (per key, per timer id). */
export interface Dispatcher {
  effect(job: EffectJob): Promise<void>;
  timer(t: TimerRow): Promise<void>;
  /** withdraw a queued timer that was cleared (firing it would find nothing to do) */
  cancelTimer(t: TimerRow): Promise<void>;
}

export interface StepOutcome {
  run: RunView;
  transitions: TransitionView[];
}

/** Cluster mode: the sweep (every minute) queues again the timers due within this (each is one idempotent job). */
const SWEEP_TIMER_HORIZON_MS = 5 * 60_000;

/** Cluster mode: a step that found its run changed by another process is tried again on the re-read run this often. */
const WRITER_RETRIES = 8;

export class Engine {
  readonly bus: RunBus;
  /** on_transition / on_enter / on_exit hooks (docs/guide/15-conversation-and-your-own-workflows.md), fired after each commit */
  readonly hooks: StateHooks;
  readonly clock: Clock;
  readonly committer: Committer;
  /** the runs in memory: loaded, evicted, re-read (lib/engine/residency.ts) */
  private residency: Residency;
  /** the effects runs invoke (lib/engine/effects-runner.ts) */
  private runner: EffectsRunner;
  private stopped = false;
  /** post-commit actions still running (awaited by stop) */
  private inflight = new Set<Promise<unknown>>();
  /** post-commit actions: written with their step, run after it, run again after a crash */
  readonly outbox: ActionOutbox;
  /** single mode: one wake-up at the earliest timer in the database (cluster mode: timers are queued jobs) */
  private wheel: TimerWheel | null;

  constructor(private opts: EngineOptions) {
    this.bus = opts.bus ?? new RunBus();
    this.hooks = new StateHooks((m, e) => this.log("warn", m, e));
    this.hooks.attach(this.bus);
    this.clock = opts.clock ?? systemClock;
    this.committer = new Committer(opts.store);
    this.outbox = new ActionOutbox({ store: opts.store, clock: this.clock, action: (wf, name) => this.opts.effects(wf).actions?.[name], log: (l, m, d) => this.log(l, m, d) });
    this.wheel = opts.dispatch
      ? null
      : new TimerWheel({
          store: opts.store,
          clock: this.clock,
          // "stale" with the run not in memory: it could not be loaded (not registered, a snapshot that does not restore)
          fire: async (t) => {
            const out = await this.fireTimer(t.runId, t.id, t.dueAt);
            return out === "stale" && !this.residency.has(t.runId) ? "broken" : out;
          },
          log: (l, m, d) => this.log(l, m, d),
        });
    const cluster = !!opts.dispatch;
    this.runner = new EffectsRunner(
      {
        clock: this.clock,
        effects: (wf) => this.opts.effects(wf),
        model: opts.model,
        dispatch: opts.dispatch,
        log: (l, m, d) => this.log(l, m, d),
        enqueue: (live, fn) => this.enqueue(live, fn),
        apply: (live, event, outcome) => this.applyEvent(live, event, { outcome }),
        progress: (live, message) => this.bus.publish(live.row.id, { type: "progress", runId: live.row.id, state: live.row.state.join(","), message }),
        track: (p, what) => this.track(p, what),
      },
      opts.store.crashLedger?.() ?? null,
    );
    this.residency = new Residency({
      store: opts.store,
      workflows: opts.workflows,
      log: (l, m, d) => this.log(l, m, d),
      evictAfterMs: opts.evictAfterMs ?? 0,
      cluster,
      keep: cluster ? (id) => this.bus.watched(id) : undefined,
      retire: (live) => {
        for (const id of [...live.timers.keys()]) this.disarm(live, id);
        this.runner.stopAll(live);
      },
    });
  }

  get store(): RunStore {
    return this.opts.store;
  }

  private log(level: "info" | "warn" | "error", message: string, data?: unknown) {
    if (this.opts.log) this.opts.log(level, message, data);
    else if (level !== "info") console.error(`[engine] ${message}`, data ?? "");
  }

  workflow(id: string): WorkflowDefinition {
    const def = this.opts.workflows(id);
    if (!def) throw new NotFoundError(`unknown workflow "${id}"`);
    return def;
  }

  // ---------------------------------------------------------------- commands

  /** `idempotency`: the request's key, written in the run's first commit (a key already there: ConflictError, nothing written) */
  /**
   * `name`: what the run is called (else the workflow's rule, lib/machines/run-name.ts). `replay`: a
   * replay of run `replay.spec.of` (replayOf is set unless it is a fork's reuse), `def`: the
   * definition to run (an evaluation's candidate, never registered).
   */
  async start(workflowId: string, input: unknown, opts: { id?: string; parentId?: string; scheduleId?: string; idempotency?: IdempotencyClaim; name?: string; replay?: ReplaySpec; def?: WorkflowDefinition } = {}): Promise<StepOutcome> {
    this.assertRunning();
    const def = opts.def ?? this.workflow(workflowId);
    const parsed = z.safeParse(def.input, input ?? {});
    if (!parsed.success) throw new InvalidError(`invalid input for ${workflowId}: ${parsed.error.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join("; ")}`, parsed.error.issues);
    const now = this.clock.now();
    const id = opts.id ?? randomUUID();
    const init = initialStep(def.machine, parsed.data);
    const row: RunRow = {
      id,
      workflow: def.id,
      status: "running",
      state: [],
      snapshot: {},
      context: null,
      input: parsed.data,
      output: null,
      error: null,
      entered: {},
      version: 0,
      seq: 0,
      parentId: opts.parentId ?? null,
      forkOf: null,
      forkSeq: null,
      scheduleId: opts.scheduleId ?? null,
      retries: 0,
      waitingSince: null,
      failedStates: null,
      createdAt: now,
      updatedAt: now,
      finishedAt: null,
      name: startName(def, parsed.data, opts.name),
      ...(opts.replay ? { replayOf: opts.replay.fork ? null : opts.replay.of, replay: opts.replay } : {}),
    };
    // pending 1: its first commit is under way (not evicted meanwhile)
    const live = newLive(def, row, init.snapshot, { pending: 1 });
    if (opts.replay) live.replay = ReplayState.fresh(this.opts.store, opts.replay);
    const draft = newDraft(def, row, init.snapshot, new Map(), now, true);
    draft.idempotency = opts.idempotency;
    addStep(draft, init, { type: "xstate.init", input: parsed.data } as EventObject, { newId: randomUUID });
    for (const ev of def.startEvents?.(parsed.data) ?? []) {
      const stamped = { ...ev, at: now };
      const res = step(def.machine, draft.snapshot, stamped);
      if (res.transitions.length) addStep(draft, res, stamped, { newId: randomUUID });
    }
    this.residency.add(live);
    try {
      const out = await this.commitDraft(live, draft);
      traceRunStarted({ runId: id, workflow: def.id, createdAt: now, state: draft.row.state, replay: !!opts.replay });
      return out;
    } catch (e) {
      this.residency.remove(live);
      throw e;
    } finally {
      this.residency.settled(live);
    }
  }

  /**
   * Fork run `sourceId` at transition `seq`: a new run from the snapshot of the commit that wrote
   * that transition (the state it settled in), optionally with edited context or input.
   */
  /** `reuse`: effect invocations after the fork point take the outputs the source recorded for them (same state, visit and input) */
  async fork(sourceId: string, req: { seq: number; reuse?: boolean } & ForkEdits): Promise<StepOutcome & { fromSeq: number }> {
    this.assertRunning();
    const run = await this.opts.store.getRun(sourceId);
    if (!run) throw new NotFoundError(`run ${sourceId} not found`);
    if (!Number.isInteger(req.seq) || req.seq < 1 || req.seq > run.seq) throw new InvalidError(`seq must be a transition of run ${sourceId}: 1 to ${run.seq}`);
    const snap = await snapshotFor(this.opts.store, sourceId, req.seq);
    if (!snap) throw new ConflictError(`run ${sourceId} has no snapshot at seq ${req.seq} (it was recorded before snapshots were kept, or imported without them)`);
    const def = this.opts.workflows(run.workflow, run.input, run);
    if (!def) throw new NotFoundError(`workflow ${run.workflow} is not registered`);
    const transitions = await this.opts.store.transitions(sourceId, 0, snap.seq);
    const now = this.clock.now();
    const id = randomUUID();
    const draft = forkDraft(def, { run, snap, transitions }, req, id, now, randomUUID);
    const live = newLive(def, draft.row, draft.snapshot, { pending: 1 });
    if (req.reuse) {
      const spec: ReplaySpec = { of: sourceId, live: [], decisions: "ask", fork: true };
      draft.row = { ...draft.row, replay: spec };
      live.row = draft.row;
      live.replay = ReplayState.fresh(this.opts.store, spec);
    }
    this.residency.add(live);
    try {
      const out = await this.commitDraft(live, draft);
      traceRunStarted({ runId: id, workflow: def.id, createdAt: now, state: draft.row.state });
      return { run: out.run, transitions: out.transitions.slice(-1), fromSeq: snap.seq };
    } catch (e) {
      this.residency.remove(live);
      throw e;
    } finally {
      this.residency.settled(live);
    }
  }

  /** Send an event from outside (API / UI). Validated against the workflow's event schemas. */
  async send(runId: string, event: unknown, opts: { reviewer?: string; idempotency?: IdempotencyClaim; gate?: DecisionGate } = {}): Promise<StepOutcome> {
    this.assertRunning();
    const live = await this.require(runId);
    const type = (event as { type?: unknown })?.type;
    const schema = typeof type === "string" ? live.def.events[type] : undefined;
    if (!schema) {
      throw new InvalidError(
        typeof type === "string"
          ? `event "${type}" is not one ${live.def.id} accepts from clients (accepted: ${Object.keys(live.def.events).join(", ")})`
          : "event must be an object with a string `type`",
      );
    }
    const parsed = z.safeParse(schema, event);
    if (!parsed.success) throw new InvalidError(`invalid ${type} event: ${parsed.error.issues.map((i) => `${i.path.join(".") || "event"}: ${i.message}`).join("; ")}`, parsed.error.issues);
    const ev = parsed.data as EventObject;
    // a decision sent as a plain event still goes through the review's compare-and-set
    for (const review of live.reviews.values()) {
      const meta = this.reviewMeta(live, review.state);
      if (meta?.decisions.some((d) => d.toUpperCase() === ev.type)) {
        const { type: _t, feedback, reviewer, modifications, ...data } = ev as EventObject & { feedback?: string; reviewer?: string; modifications?: string[] };
        void _t;
        // a signed-in sender decides under their own name
        const r = await this.decide(review.id, { decision: ev.type.toLowerCase(), feedback, reviewer: opts.reviewer ?? reviewer, modifications, data }, { idempotency: opts.idempotency, verified: opts.reviewer !== undefined, gate: opts.gate });
        return { run: r.run, transitions: r.transitions };
      }
    }
    return this.enqueue(live, () => this.applyEvent(live, ev, { idempotency: opts.idempotency }));
  }

  /** `opts.verified`: the reviewer is a signed-in account (its name is compared exactly, not normalised) */
  async decide(
    reviewId: string,
    input: { decision: string; feedback?: string; reviewer?: string; modifications?: string[]; data?: Record<string, unknown> },
    opts: { idempotency?: IdempotencyClaim; verified?: boolean; gate?: DecisionGate } = {},
  ): Promise<StepOutcome & { review: ReviewView }> {
    this.assertRunning();
    const stored = this.residency.review(reviewId) ?? (await this.opts.store.getReview(reviewId));
    if (!stored) throw new NotFoundError(`review ${reviewId} not found`);
    if (stored.status !== "pending") throw new ConflictError(`review ${reviewId} is already ${stored.status}${stored.decision ? ` (${stored.decision})` : ""}`, reviewView(stored));
    const live = await this.loadLive(stored.runId);
    if (!live) throw new ConflictError(`review ${reviewId} is stale: run ${stored.runId} has finished`);
    return this.enqueue(live, async () => {
      const open = live.reviews.get(stored.state);
      if (!open || open.id !== reviewId) throw new ConflictError(`review ${reviewId} was already decided or is stale: the run has moved on`);
      const barred = opts.gate?.(reviewView(open));
      if (barred) throw new ForbiddenError(barred);
      const meta = this.reviewMeta(live, stored.state);
      const decision = input.decision.toLowerCase();
      if (!meta || !meta.decisions.includes(decision)) {
        throw new InvalidError(`decision must be one of ${meta?.decisions.join(", ") ?? "(none)"}; got "${input.decision}"`);
      }
      // names as recorded: NFKC, trimmed (a blank one is no name)
      const reviewer = reviewerName(input.reviewer);
      const refused = live.def.refuseDecision?.(stored.state, live.snapshot.context, decision, { reviewer, verified: opts.verified, data: input.data });
      if (refused?.status === 422) throw new InvalidError(refused.message);
      if (refused) throw new ConflictError(refused.message, reviewView(open));
      let event: EventObject & Record<string, unknown> = { ...(input.data ?? {}), type: decision.toUpperCase() };
      if (input.feedback !== undefined) event.feedback = input.feedback;
      if (reviewer !== undefined) event.reviewer = reviewer;
      if (input.modifications !== undefined) event.modifications = input.modifications;
      const schema = live.def.events[event.type];
      if (schema) {
        const parsed = z.safeParse(schema, event);
        if (!parsed.success) throw new InvalidError(`invalid ${decision} decision: ${parsed.error.issues.map((i) => `${i.path.join(".") || "decision"}: ${i.message}`).join("; ")}`, parsed.error.issues);
        event = parsed.data as EventObject & Record<string, unknown>;
      }
      const now = this.clock.now();
      const close = { id: reviewId, status: "decided" as const, decision, feedback: input.feedback ?? null, reviewer: reviewer ?? null, decidedAt: now, decidedBy: "person" as const };
      const out = await this.applyEvent(live, event, { decided: close, idempotency: opts.idempotency });
      const review = reviewView({ ...open, ...close });
      this.bus.publish(live.row.id, { type: "review", review });
      return { ...out, review };
    });
  }

  /**
   * Abort: where the machine handles ABORT (the seed's global abort) it takes that path and
   * keeps its partial results; anywhere else the run itself is stopped with status aborted.
   */
  async abort(runId: string, reason = "aborted by user"): Promise<StepOutcome> {
    this.assertRunning();
    const live = await this.require(runId);
    return this.enqueue(live, async () => {
      if (live.gone) throw new ConflictError(`run ${runId} has already finished`);
      const ev = { type: "ABORT", reason };
      if (live.snapshot.can(ev)) return this.applyEvent(live, ev);
      const state = activeLeaves(live.snapshot).join(",");
      const draft = haltDraft(this.halting(live), this.clock.now(), "ABORT", `Run aborted: ${reason}`, { reason }, { name: "Aborted", message: reason, state });
      return this.commitDraft(live, draft, "aborted");
    });
  }

  /**
   * Move a run at rest to another version of its workflow (lib/change/migrate-plan.ts): one
   * transition "migrated vA → vB by <who>", its pending reviews re-opened in the new states, its
   * timers keeping their deadlines, the effects the new states invoke started anew, its version pin
   * set. `dryRun`: the plan only, nothing written. A run that cannot move says why.
   */
  async migrate(runId: string, target: WorkflowDefinition, opts: { map: Record<string, string>; by: string; dryRun: boolean; from: number; to: number }): Promise<{ ok: boolean; from: string[]; to: string[]; reason?: string }> {
    this.assertRunning();
    const row = await this.opts.store.getRun(runId);
    if (!row) throw new NotFoundError(`run ${runId} not found`);
    if (TERMINAL.includes(row.status)) return { ok: false, from: row.state, to: [], reason: `the run is ${row.status}` };
    if (isImportedRun(runId)) return { ok: false, from: row.state, to: [], reason: "an imported run is read-only" };
    const live = await this.require(runId);
    return this.enqueue(live, async () => {
      if (live.gone) return { ok: false, from: live.row.state, to: [], reason: "the run has finished" };
      const now = this.clock.now();
      const plan = planMove(
        { def: live.def, row: live.row, context: live.snapshot.context, timers: [...live.timers.values()].map((t) => t.row), inFlight: inFlightEffects(live.row), waitsOutside: (src) => this.runner.waitsOutside(live.def.id, src) },
        target,
        opts.map,
        live.row.seq + 1,
        now,
      );
      if (!plan.ok) return { ok: false, from: plan.from, to: [], reason: plan.reason };
      if (opts.dryRun) return { ok: true, from: plan.from, to: plan.to };
      const draft = newDraft(target, live.row, plan.snapshot, new Map(), now, false);
      draft.effects = plan.effects;
      // the pending reviews are asked again in the new states (with the new version's prompt)
      for (const r of live.reviews.values()) draft.reviewsClose.push({ id: r.id, status: "cancelled", decision: null, feedback: null, reviewer: null, decidedAt: now });
      for (const id of plan.timersClear) draft.timersClear.add(id);
      for (const t of plan.timersSet) {
        draft.timersClear.delete(t.id);
        draft.timersSet.set(t.id, t);
      }
      const reason = `migrated v${opts.from} → v${opts.to} by ${opts.by}`;
      draft.transitions.push({ runId, seq: ++draft.row.seq, from: plan.from, to: plan.to, event: MIGRATE_EVENT, reason, at: now, durationMs: 0, payload: { from: opts.from, to: opts.to, by: opts.by, ...(Object.keys(opts.map).length ? { map: opts.map } : {}) } });
      for (const s of plan.from) delete draft.row.entered[s];
      for (const s of plan.to) draft.row.entered[s] = live.row.entered[plan.from[plan.to.indexOf(s)] ?? ""] ?? now;
      addStep(draft, { snapshot: plan.snapshot, transitions: [], actions: [] }, { type: MIGRATE_EVENT } as EventObject, { newId: randomUUID });
      const input = { ...((live.row.input ?? {}) as Record<string, unknown>), definitionVersion: opts.to };
      draft.row = { ...draft.row, input };
      draft.setInput = input;
      const before = live.def;
      live.def = target;
      try {
        await this.commitDraft(live, draft);
      } catch (e) {
        live.def = before;
        throw e;
      }
      return { ok: true, from: plan.from, to: plan.to };
    });
  }

  // ---------------------------------------------------------------- reads

  async getRun(id: string): Promise<RunView> {
    const live = this.opts.dispatch ? undefined : this.residency.get(id);
    if (live && !live.gone) return runView(live.row, [...live.reviews.values()][0]?.id ?? null);
    const row = await this.opts.store.getRun(id);
    if (!row) throw new NotFoundError(`run ${id} not found`);
    let reviewId: string | null = null;
    if (!TERMINAL.includes(row.status)) reviewId = (await this.opts.store.listReviews({ runId: id, status: "pending", limit: 1 }))[0]?.id ?? null;
    return runView(row, reviewId);
  }

  /** The state node meta of every active state (name, summary, review, timeout). */
  activeMeta(runId: string): Record<string, StateMeta> | null {
    const live = this.residency.get(runId);
    if (!live) return null;
    return live.snapshot.getMeta() as Record<string, StateMeta>;
  }

  /** Event types the run accepts right now (for the UI). */
  acceptedEvents(runId: string): string[] {
    const live = this.residency.get(runId);
    if (!live || live.gone) return [];
    return Object.keys(live.def.events).filter((type) => live.snapshot.can({ type } as EventObject));
  }

  /** Resolves with the run once `test` holds (checked on every commit), or rejects on timeout (a hang guard: generous, a busy machine is slow). */
  waitFor(runId: string, test: (run: RunView) => boolean, timeoutMs = 30_000): Promise<RunView> {
    return new Promise((resolve, reject) => {
      let done = false;
      const finish = (err: Error | null, run?: RunView) => {
        if (done) return;
        done = true;
        unsubscribe();
        clearTimeout(timer);
        if (err) reject(err);
        else resolve(run!);
      };
      const unsubscribe = this.bus.subscribe(runId, (msg) => {
        if (msg.type === "run" && test(msg.run)) finish(null, msg.run);
      });
      const timer = setTimeout(() => finish(new Error(`timed out waiting for run ${runId}`)), timeoutMs);
      this.getRun(runId).then(
        (run) => test(run) && finish(null, run),
        (e) => finish(e),
      );
    });
  }

  // ---------------------------------------------------------------- lifecycle

  /**
   * Load the unfinished runs with an effect in flight and restart those effects; arm the process's
   * timer wake-up at the earliest pending timer (overdue ones fire at once). Runs that wait for a
   * person, an event or a timer stay in the database until it arrives (lib/engine/evict.ts).
   */
  async resume(): Promise<number> {
    if (this.opts.dispatch) return 0; // cluster mode: workers pick the work up from the queue (see sweep)
    // actions a stopped process committed and had not finished (this process owns every row now)
    await this.outbox.replay({ due: false }).catch((e) => this.log("error", "outbox replay failed", serializeError(e)));
    const list = await this.opts.store.activeRuns();
    const poisoned = await this.runner.countCrashes(list);
    let n = 0;
    for (const r of list) {
      if (this.residency.has(r.run.id)) continue;
      if (isImportedRun(r.run.id)) continue; // imported runs are read-only: never resumed
      if (this.activate(r, poisoned, true)) n++;
    }
    await this.wheel?.start();
    return n;
  }

  // ---------------------------------------------------------------- cluster mode (workers)

  /**
   * Run one queued effect here: if the run still has that invocation in flight, run it and commit
   * its outcome. "stale" when the run has moved on (or finished) since it was queued.
   */
  async runEffect(job: EffectJob, opts: { lost?: boolean } = {}): Promise<"done" | "stale"> {
    this.assertRunning();
    const live = await this.loadLive(job.runId).catch((e) => (e instanceof EngineError ? null : Promise.reject(e)));
    if (!live) return "stale";
    const found = await this.enqueue(live, async () => (live.gone ? null : this.runner.inFlight(live, job)));
    if (!found) return "stale";
    if (opts.lost) {
      // its last attempt expired on a worker that died: one crash more in a row for this invocation
      const crashes = await this.runner.lost(live, job, found.src);
      if (crashes !== null) {
        await this.failPoisoned(live, { child: job.child, src: found.src, input: found.input, key: job.key }, crashes);
        return "done";
      }
    }
    // already running here (a repeated delivery)
    if (await this.runner.joined(live, job)) return "done";
    // a job that came back after its worker died ran before under this key
    await this.runner.start(live, job.child, found.src, found.input, job.key, opts.lost ? "restart" : undefined);
    return "done";
  }

  /** Fire one queued timer: "stale" when it was consumed or cleared already (timers fire once). */
  async fireTimer(runId: string, timerId: string, dueAt?: number): Promise<"fired" | "stale"> {
    this.assertRunning();
    const live = await this.loadLive(runId).catch((e) => (e instanceof EngineError ? null : Promise.reject(e)));
    if (!live) return "stale";
    return this.enqueue(live, async () => {
      const t = live.timers.get(timerId);
      if (!t || live.gone || (dueAt !== undefined && t.dueAt !== dueAt)) return "stale" as const;
      live.timers.delete(timerId);
      try {
        if (isDueTimer(t.row.event)) await this.escalate(live, t.row.event.reviewId, timerId);
        else await this.applyEvent(live, t.row.event as EventObject, { timerId });
      } catch (e) {
        // not committed: the timer is still pending (its row is there; it is fired again)
        if (!live.gone && !live.timers.has(timerId)) live.timers.set(timerId, t);
        throw e;
      }
      return "fired" as const;
    });
  }

  /** Queue again the in-flight effects of unfinished runs and their timers due soon (a process that committed them may have died before queueing). */
  async sweep(): Promise<{ runs: number; effects: number; timers: number; actions: number }> {
    const dispatch = this.opts.dispatch;
    if (!dispatch) return { runs: 0, effects: 0, timers: 0, actions: 0 };
    // post-commit actions whose committing process let their lease pass (it died, most likely)
    const out = { runs: 0, effects: 0, timers: 0, actions: await this.outbox.replay({ due: true }) };
    // the runs with effects in flight, not every waiting run (lib/engine/evict.ts)
    for (const r of await this.opts.store.activeRuns()) {
      out.runs++;
      for (const f of inFlightEffects(r.run)) {
        await dispatch.effect({ runId: r.run.id, child: f.child, key: f.key });
        out.effects++;
      }
    }
    // timers due before the next sweeps: a timer whose job was never queued is queued in time to fire when due
    for (const t of await this.opts.store.dueTimers(this.clock.now() + SWEEP_TIMER_HORIZON_MS, 10_000)) {
      await dispatch.timer(t);
      out.timers++;
    }
    return out;
  }

  /**
   * Another process committed `version` of a run: re-read it if this process holds it with an
   * older version and has effects running for it or listeners watching it (else it is re-read
   * on its next step anyway). Resolves true when it re-read.
   */
  async refreshRun(runId: string, version: number): Promise<boolean> {
    const live = this.residency.get(runId);
    if (!live || live.gone || live.row.version >= version) return false;
    if (live.effects.size === 0 && !this.bus.watched(runId)) return false;
    await this.enqueue(live, async () => undefined);
    return true;
  }

  /** Event types the run accepts now, read from the database in cluster mode (another process may have moved it). */
  async acceptedNow(runId: string): Promise<string[]> {
    if (!this.opts.dispatch) {
      if (this.residency.has(runId) || isImportedRun(runId)) return this.acceptedEvents(runId);
      // an evicted run: read from its stored snapshot, without loading it
      const row = await this.opts.store.getRun(runId);
      const def = row && !TERMINAL.includes(row.status) ? this.opts.workflows(row.workflow, row.input, row) : undefined;
      return row && def ? acceptedByRow(def, row) : [];
    }
    const live = await this.loadLive(runId).catch(() => null);
    if (!live) return [];
    await this.enqueue(live, async () => undefined);
    return this.acceptedEvents(runId);
  }

  private track(p: Promise<unknown>, what: string) {
    const t: Promise<unknown> = p
      .catch((e) => this.log("warn", `${what} failed (the next sweep queues it again)`, serializeError(e)))
      .finally(() => this.inflight.delete(t));
    this.inflight.add(t);
  }

  /** Stop timers and effects and wait for queued commits. The database keeps everything. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.residency.stopEvicting();
    await this.wheel?.stop();
    this.residency.retireAll();
    await this.committer.drain();
    await Promise.race([Promise.allSettled([...this.inflight]), new Promise((r) => setTimeout(r, 5_000))]);
    // a clean stop: the next boot starts the effects in flight again without counting a crash
    if (!this.opts.dispatch) await this.runner.cleanStop();
    await this.outbox.stop();
  }

  /** runs held in memory (live actors); waiting runs are evicted (lib/engine/evict.ts) */
  get size(): number {
    return this.residency.size;
  }

  /** Is the run held in memory as a live actor (not evicted, not finished)? */
  holds(runId: string): boolean {
    return this.residency.has(runId);
  }

  /** runs evicted from memory so far, and the process's next timer wake-up (null: none) */
  get memory(): { live: number; evicted: number; nextTimer: number | null } {
    return { live: this.residency.size, evicted: this.residency.evicted, nextTimer: this.wheel?.nextWake ?? null };
  }

  // ---------------------------------------------------------------- internals

  private assertRunning() {
    if (this.stopped) throw new EngineError("engine is stopped", 503, "stopped");
  }

  private reviewMeta(live: Live, state: string): StateMeta["review"] | undefined {
    // by path, not by getMeta's keys: those are node ids, and a flow's stages carry ids of their own
    const node = activeNodes(live.snapshot).find((n) => stateId(n) === state);
    return (node?.meta as StateMeta | undefined)?.review;
  }

  /** Run `fn` as the run's next step (cluster mode: on the run as stored, re-read first). */
  private enqueue<T>(live: Live, fn: () => Promise<T>): Promise<T> {
    return this.residency.enqueue(live, this.opts.dispatch ? () => this.fresh(live, fn) : fn);
  }

  /**
   * Evict the runs this process has not stepped for `idleMs`, with no step queued and no effect
   * running here (the database has them; the next event, decision, abort or timer loads them
   * again). Cluster mode keeps the runs someone watches here (they are refreshed for their
   * watchers when another process commits). Returns how many were evicted.
   */
  evictIdle(idleMs: number): number {
    return this.residency.evictIdle(idleMs);
  }

  /** the former name of evictIdle (cluster mode) */
  forgetIdle(idleMs: number): number {
    return this.evictIdle(idleMs);
  }

  /** Cluster mode: re-read the run before the step; when another process committed first, re-read and try again. */
  private async fresh<T>(live: Live, fn: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const r = await this.residency.refresh(live);
      if (r.moved) {
        // what the stored run has going on: its timers (queued by whoever set them) and its effects (queued likewise)
        for (const tid of [...live.timers.keys()]) this.disarm(live, tid);
        for (const t of r.timers) this.arm(live, t, true);
        this.runner.reconcile(live, true);
      }
      try {
        return await fn();
      } catch (e) {
        if (!(e instanceof WriterConflict)) throw e;
        if (attempt >= WRITER_RETRIES) throw new ConflictError(e.message);
      }
    }
  }

  private async require(runId: string): Promise<Live> {
    const live = await this.loadLive(runId);
    if (live) return live;
    const row = await this.opts.store.getRun(runId);
    if (!row) throw new NotFoundError(`run ${runId} not found`);
    throw new ConflictError(`run ${runId} has already finished (${row.status})`);
  }

  private async loadLive(runId: string): Promise<Live | null> {
    // imported runs are read-only: send, abort and decide all load their run here
    if (isImportedRun(runId)) throw new ConflictError(`run ${runId}: imported runs are read-only`);
    return this.residency.load(runId, (r) => this.activate(r));
  }

  /** A stored run into memory, with what it has going on armed. `restarted`: the process is resuming after a stop; the effects in flight then ran before (lib/steps reports it). */
  private activate(r: ResumableRun, poisoned?: Map<string, number>, restarted = false): Live | null {
    const live = this.residency.rehydrate(r);
    if (!live) return null;
    for (const t of r.timers) this.arm(live, t, true);
    const poison = poisoned?.size ? inFlightEffects(r.run).filter((f) => poisoned.has(f.key)) : [];
    if (poison.length) live.poisoned = new Set(poison.map((f) => f.key));
    this.runner.reconcile(live, true, restarted);
    for (const f of poison) void this.failPoisoned(live, f, poisoned!.get(f.key)!).catch(() => undefined);
    this.checkStuck(live);
    return live;
  }

  /** A run's in-memory parts haltDraft reads. */
  private halting(live: Live) {
    return { def: live.def, row: live.row, snapshot: live.snapshot, reviews: live.reviews, timers: live.timers.keys() };
  }

  /**
   * Fail the run where it stands, behind its queued steps: `make` gives the error, or null when
   * the reason has gone by then (the run moved on).
   */
  private failRun(live: Live, event: string, make: () => (Record<string, unknown> & { message: string }) | null): Promise<StepOutcome | null> {
    return this.enqueue(live, async () => {
      const error = live.gone ? null : make();
      if (!error) return null;
      this.log("error", `run ${live.row.id} (${live.def.id}) failed: ${error.message}`);
      return this.commitDraft(live, haltDraft(this.halting(live), this.clock.now(), event, error.message, { error }, error), "failed");
    }).catch((e) => {
      this.log("error", `run ${live.row.id}: could not record its failure (${event})`, serializeError(e));
      throw e;
    });
  }

  /** An effect in flight during POISON_CRASHES crashes in a row: not started again; its run fails (retry: a fork at the step that invoked it). */
  private failPoisoned(live: Live, f: InFlightEffect, crashes: number): Promise<StepOutcome | null> {
    return this.failRun(live, "POISON_PILL", () =>
      inFlightEffects(live.row).some((x) => x.key === f.key) ? (poisonError(invokingState(f.child, live.row.state), f.src, f.key, crashes, live.row.seq) as Record<string, unknown> & { message: string }) : null,
    );
  }

  /** A review's deadline passed: re-routed to its escalation groups (one timeline row, webhooks); the run stays where it is. */
  private async escalate(live: Live, reviewId: string, timerId: string): Promise<StepOutcome> {
    if (live.gone) throw new ConflictError(`run ${live.row.id} has already finished`);
    const draft = newDraft(live.def, live.row, live.snapshot, live.reviews, this.clock.now(), false);
    draft.timersClear.add(timerId);
    const open = [...live.reviews.values()].find((r) => r.id === reviewId);
    // a review decided or left meanwhile: the timer row is only consumed
    if (open) escalateInDraft(draft, open, this.routeFor(live, open.state));
    const out = await this.commitDraft(live, draft);
    const next = open ? live.reviews.get(open.state) : undefined;
    if (next && draft.reviewsRoute?.length) this.bus.publish(live.row.id, { type: "review", review: reviewView(next) });
    return out;
  }

  /** The route of a review state of a live run (the environment's for a built-in, else its step's). */
  private routeFor(live: Live, state: string) {
    return routeOf(this.opts.reviewRoutes ?? {}, live.def.id, state, this.reviewMeta(live, state));
  }

  /** The invariant: a running run waits for something (an effect, a timer, a review, an event it accepts); one that does not is failed, not left stuck. */
  private checkStuck(live: Live): void {
    if (live.row.status !== "running" || live.gone) return;
    if (!stuckReason(live.def, live.row, live.snapshot, live.timers.size, live.reviews.size)) return;
    const version = live.row.version;
    void this.failRun(live, "STUCK", () => {
      if (live.row.version !== version) return null;
      const why = stuckReason(live.def, live.row, live.snapshot, live.timers.size, live.reviews.size);
      return why ? { name: "StuckRunError", category: STUCK_CATEGORY, state: live.row.state.join(","), message: why } : null;
    }).catch(() => undefined);
  }

  private async applyEvent(
    live: Live,
    event: EventObject,
    opts: { decided?: Draft["reviewsClose"][number]; timerId?: string; idempotency?: IdempotencyClaim; outcome?: OutcomeRow } = {},
  ): Promise<StepOutcome> {
    if (live.gone) throw new ConflictError(live.evicted ? `run ${live.row.id} was evicted from memory while this step waited; send it again` : `run ${live.row.id} has already finished`);
    const now = this.clock.now();
    const ev = { ...event, at: (event as { at?: number }).at ?? now };
    const res = step(live.def.machine, live.snapshot, ev);
    const draft = newDraft(live.def, live.row, live.snapshot, live.reviews, now, false);
    if (opts.timerId) draft.timersClear.add(opts.timerId);
    if (res.transitions.length === 0) {
      if (opts.timerId) {
        // the timer's event no longer applies; just consume the timer row
        await this.commitDraft(live, draft);
        return { run: runView(live.row), transitions: [] };
      }
      const state = activeLeaves(live.snapshot).join(", ");
      throw new ConflictError(`${event.type} is not accepted in state ${state}`, { state: live.row.state, accepted: this.acceptedEvents(live.row.id) });
    }
    addStep(draft, res, ev, { decided: opts.decided, newId: randomUUID });
    draft.idempotency = opts.idempotency;
    if (opts.outcome) draft.outcomes = [{ ...opts.outcome, at: now }];
    return this.commitDraft(live, draft);
  }

  private async commitDraft(live: Live, draft: Draft, status?: RunRow["status"]): Promise<StepOutcome> {
    // a replay decides the reviews it opens as its source's reviewers did, in this same commit
    const replayed = live.replay ? await live.replay.decide(draft, live.def, status === undefined) : null;
    // reviews opened with a route get their groups and deadline (a durable timer); closed ones lose their deadline
    if (draft.reviewsOpen.length || draft.reviewsClose.length) routeDraft(draft, (state) => this.routeFor(live, state), (id) => live.timers.has(id));
    const armed: TimerRow[] = [];
    for (const t of live.timers.values()) armed.push(t.row);
    const item = finishDraft(draft, status, armed);
    if (this.opts.fleetCounters !== false) {
      const fleet = fleetDeltas(draft.expectVersion === null ? null : live.row, item);
      if (fleet.length) item.fleet = fleet;
    }
    // post-commit actions and webhook deliveries go in the commit (an outbox): a crash after it loses neither
    const actions = draft.actions.length ? this.opts.effects(live.def.id).actions : undefined;
    if (actions) item.outbox = outboxRows(draft, (name) => Object.hasOwn(actions, name));
    // a replay sends neither, except for the states it names live
    const quiet = live.replay?.quiet ? live.replay : null;
    if (quiet && item.outbox) item.outbox = item.outbox.filter((o) => quiet.touchesLive(item.transitions.find((t) => t.seq === o.seq)));
    let outcome;
    try {
      const deliveries = this.hooks.deliveries(item.run, quiet ? item.transitions.filter((t) => quiet.touchesLive(t)) : item.transitions);
      item.deliveries = Array.isArray(deliveries) ? deliveries : await deliveries;
      outcome = await this.committer.commit(item);
    } catch (e) {
      // the database refusing is retried (effects, timers) or answered 503; anything else is a bug, not retried
      throw isStorageFailure(e) ? new StorageError(e) : e;
    }
    if (outcome === "conflict") {
      if (this.opts.dispatch && live.row.version > 0) throw new WriterConflict(`run ${live.row.id} was changed by another process`);
      this.residency.retire(live);
      this.residency.remove(live);
      throw new ConflictError(`run ${live.row.id} was changed by another writer; reload and retry`);
    }
    live.row = draft.row;
    live.snapshot = draft.snapshot;
    live.reviews = draft.reviews;
    replayed?.keep();
    this.residency.reviewsMoved(live, item.reviewsOpen, item.reviewsClose);
    for (const id of item.timersClear) {
      // cluster mode: a cleared timer's job is withdrawn (it would only find the timer gone)
      const queued = this.opts.dispatch ? live.timers.get(id) : undefined;
      if (queued) this.track(this.opts.dispatch!.cancelTimer(queued.row), `withdraw timer ${id}`);
      this.disarm(live, id);
    }
    for (const t of item.timersSet) this.arm(live, t);
    const view = runView(live.row, live.reviews.values().next().value?.id ?? null);
    const transitions = item.transitions.map((t) => transitionView(t, true));
    if (TERMINAL.includes(live.row.status)) {
      const r = live.row;
      traceRunFinished({ runId: r.id, workflow: r.workflow, status: r.status, createdAt: r.createdAt, finishedAt: r.finishedAt, error: r.error as RunInfo["error"], state: r.state, replay: !!r.replay });
      this.residency.retire(live);
      this.residency.remove(live);
    } else {
      this.runner.reconcile(live);
      this.checkStuck(live);
    }
    if (item.outbox?.length) this.outbox.run(item.outbox);
    if (item.deliveries?.length) this.hooks.committed(item.deliveries);
    this.bus.publish(live.row.id, { type: "run", run: view, transitions });
    for (const r of item.reviewsOpen) this.bus.publish(live.row.id, { type: "review", review: reviewView(r) });
    return { run: view, transitions };
  }

  /** A pending timer: single mode wakes the process's TimerWheel by its deadline; cluster mode queues it as a delayed job (unless `adopt`: whoever committed it did). */
  private arm(live: Live, t: TimerRow, adopt = false) {
    live.timers.set(t.id, { dueAt: t.dueAt, row: t });
    const dispatch = this.opts.dispatch;
    if (!dispatch) this.wheel!.schedule(t.dueAt);
    else if (!adopt) this.track(dispatch.timer(t), `queue timer ${t.id}`);
  }

  private disarm(live: Live, id: string) {
    live.timers.delete(id);
  }
}
