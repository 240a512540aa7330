// External workers' task queue: what the /api/tasks routes and the `external` effect
// call. The database row is the truth; this process adds wake-ups: a claim that long-polls wakes
// when a task is queued here. An effect does not wait for its task: it parks (lib/tasks/effect.ts),
// and a task completed or failed here runs its invocation again (`resume`); results a process did
// not hand over (it died, a commit was refused) and expired leases are found by a sweep.
import { ConflictError, NotFoundError } from "../engine/errors";
import type { Clock } from "../engine/clock";
import type { SqlPorts } from "../db/sql";
import { backoffMs } from "../engine/retry";
import { TaskStore, leaseHashOf, newLeaseToken, type Lease, type NewTask, type TaskError, type TaskRow } from "./store";
import { claimTraceparent } from "../telemetry";

export const MAX_WAIT_MS = 30_000;
export const DEFAULT_LEASE_MS = 30_000;
/** claims allowed when a step sets no `retry` (the first and two more) */
export const DEFAULT_MAX_ATTEMPTS = 3;

/** SWITCHYARD_TASK_LEASE_MS (1 s … 1 h, default 30 s). */
export function leaseFromEnv(env: NodeJS.ProcessEnv): number {
  const v = env.SWITCHYARD_TASK_LEASE_MS?.trim();
  if (!v) return DEFAULT_LEASE_MS;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1_000 || n > 3_600_000) throw new Error(`SWITCHYARD_TASK_LEASE_MS must be a whole number of milliseconds from 1000 to 3600000; got "${v}"`);
  return n;
}

class TaskConflict extends ConflictError {
  constructor(message: string, code: string) {
    super(message);
    (this as { code: string }).code = code;
  }
}

/** What a claim answers (the issue's contract). */
export interface ClaimedTask {
  id: string;
  runId: string;
  stage: string;
  input: unknown;
  attempt: number;
  leaseMs: number;
  /** shown once: heartbeat, complete and fail must send it (only its hash is stored) */
  leaseToken: string;
  /** the W3C traceparent of the step's span when traces are on (lib/telemetry), else null: a worker continues the run's trace with it */
  traceparent: string | null;
}

/** A heartbeat, complete or fail: the lease token the claim was given, and who is credited with the outcome. */
export interface LeaseCall {
  leaseToken: string;
  /** the principal (with accounts off: the claim's worker name, when left out) */
  by?: string;
}

export interface TaskQueueOptions {
  ports: SqlPorts;
  clock: Clock;
  leaseMs?: number;
  /** how often long-polling claims look at the table (ms) */
  pollMs?: number;
  /** is invocation `key` of run `runId` still in flight (the run has not left the stage)? */
  isCurrent: (runId: string, key: string) => Promise<boolean>;
  /**
   * Effects do not wait for their task in memory (or, in cluster mode, in a job slot), they park
   * (lib/tasks/effect.ts), so a run waiting for a worker can be evicted like one waiting for a person;
   * this runs a settled task's invocation again (Engine.runEffect) so that its run takes the outcome.
   */
  resume: (task: TaskRow) => Promise<unknown>;
  /** how often settled tasks not yet taken by their run, and expired leases, are looked for (ms) */
  sweepMs?: number;
  log?: (message: string) => void;
}

export class TaskQueue {
  readonly store: TaskStore;
  readonly leaseMs: number;
  private pollMs: number;
  /** queue → long-polling claims to wake */
  private sleepers = new Map<string, Set<() => void>>();
  private sweeper: ReturnType<typeof setInterval> | null = null;
  private resuming = new Set<string>();
  /** run → its parked tasks (task id → invocation key): withdrawn when a commit moves the run on */
  private parked = new Map<string, Map<string, string>>();
  private closed = false;

  constructor(private o: TaskQueueOptions) {
    this.store = new TaskStore(o.ports);
    this.leaseMs = o.leaseMs ?? DEFAULT_LEASE_MS;
    this.pollMs = o.pollMs ?? 1_000;
    this.sweeper = setInterval(() => void this.sweep().catch((e) => this.o.log?.(`tasks: sweep failed (${(e as Error).message})`)), o.sweepMs ?? 5_000);
    (this.sweeper as { unref?: () => void }).unref?.();
  }

  private now() {
    return this.o.clock.now();
  }

  /** Is the task's invocation still in flight (its run has not left the stage)? */
  isCurrent(runId: string, key: string): Promise<boolean> {
    return this.o.isCurrent(runId, key);
  }

  /** The task for this invocation (created queued, or the one made before a restart). */
  async create(t: NewTask): Promise<TaskRow> {
    const { task, created } = await this.store.create(t, this.now());
    if (created) this.wake(t.queue);
    return task;
  }

  /** One task of `queue` for `worker`, waiting up to `waitMs` for one to be offered; null if none. */
  async claim(queue: string, worker: string, waitMs = 0, signal?: AbortSignal): Promise<ClaimedTask | null> {
    const until = Date.now() + Math.min(Math.max(0, waitMs), MAX_WAIT_MS);
    for (;;) {
      const leaseToken = newLeaseToken();
      const t = await this.store.claim(queue, worker, leaseHashOf(leaseToken), this.now(), this.leaseMs);
      // a task whose run has moved on (its effect was not there to withdraw it: parked, or a crash) is withdrawn, not handed out
      if (t && !(await this.o.isCurrent(t.runId, t.key))) {
        await this.cancel(t.id);
        continue;
      }
      if (t) return { id: t.id, runId: t.runId, stage: t.stage, input: t.input, attempt: t.attempt, leaseMs: this.leaseMs, leaseToken, traceparent: claimTraceparent(t.runId, t.key) };
      const left = until - Date.now();
      if (left <= 0 || signal?.aborted || this.closed) return null;
      await this.sleep(queue, Math.min(left, this.pollMs), signal);
    }
  }

  /** Extend the lease (another leaseMs from now). */
  async heartbeat(id: string, call: LeaseCall): Promise<TaskRow> {
    const t = await this.leased(id, call, "heartbeat");
    if (t.status !== "claimed") throw new TaskConflict(`task ${id} is ${t.status === "done" ? "done" : "failed"} already: there is no lease to extend`, "not_claimed");
    const kept = await this.store.heartbeat(id, this.lease(call, t), this.now(), this.leaseMs);
    if (kept) return kept;
    // it changed meanwhile: the checks again say how (or it was settled by this lease)
    await this.leased(id, call, "heartbeat");
    throw new TaskConflict(`task ${id} is settled already: there is no lease to extend`, "not_claimed");
  }

  /** The task done with `output`; again with the same lease: the first answer. */
  async complete(id: string, output: unknown, call: LeaseCall): Promise<TaskRow> {
    const t = await this.leased(id, call, "complete");
    if (t.status === "done") return t; // completing twice: the first result
    if (t.status === "failed") throw new TaskConflict(`task ${id} has failed already (${t.error?.message ?? "no message"}): a complete after it is refused`, "not_claimed");
    const done = await this.store.complete(id, output, this.lease(call, t), this.now());
    if (done) return this.settled(done);
    const now = await this.leased(id, call, "complete");
    if (now.status === "done") return now;
    throw new TaskConflict(`task ${id} has failed already: a complete after it is refused`, "not_claimed");
  }

  /** Offered again (retryable, attempts left) or failed; again with the same lease: the first answer. */
  async fail(id: string, error: Omit<TaskError, "retryable">, retryable: boolean, call: LeaseCall): Promise<TaskRow> {
    const t = await this.leased(id, call, "fail", true);
    // failing twice: the first answer (re-offered, or failed)
    if (t.status === "failed" || t.status === "queued") return t;
    if (t.status === "done") throw new TaskConflict(`task ${id} is done already: a fail after it is refused`, "not_claimed");
    const err: TaskError = { ...error, retryable };
    const now = this.now();
    const l = this.lease(call, t);
    if (retryable && t.attempt < t.maxAttempts) {
      const again = await this.store.requeue(id, err, l, now, now + backoffMs(t, t.attempt - 1));
      if (again) {
        this.wake(again.queue);
        return again;
      }
    } else {
      const failed = await this.store.fail(id, err, l, now);
      if (failed) return this.settled(failed);
    }
    const after = await this.leased(id, call, "fail", true);
    if (after.status === "failed" || after.status === "queued") return after;
    throw new TaskConflict(`task ${id} is done already: a fail after it is refused`, "not_claimed");
  }

  /** Withdraw a task whose run left the stage (nothing happens to one that is settled already). */
  async cancel(id: string): Promise<void> {
    const t = await this.store.cancel(id, this.now());
    if (t) this.settled(t);
  }

  close(): void {
    this.closed = true;
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
    for (const set of this.sleepers.values()) for (const wake of set) wake();
    this.parked.clear();
  }

  // ---------------------------------------------------------------- internals

  private async found(id: string): Promise<TaskRow> {
    const t = await this.store.get(id);
    if (!t) throw new NotFoundError(`task ${id} not found`);
    return t;
  }

  /** 409 when the run left the stage (the task is withdrawn on the way). */
  private async assertCurrent(t: TaskRow): Promise<void> {
    if (await this.o.isCurrent(t.runId, t.key)) return;
    await this.cancel(t.id);
    throw new TaskConflict(`task ${t.id}: run ${t.runId} has moved on from ${t.stage}; the result is not used`, "run_moved_on");
  }

  /** The stored form of a call's lease; the credit defaults to the claim's worker name (accounts off). */
  private lease(call: LeaseCall, t: TaskRow): Lease {
    return { hash: leaseHashOf(call.leaseToken), by: call.by ?? t.worker ?? "?" };
  }

  /**
   * The task a call with lease `l` acts on, or its refusal, checked in this order: an unknown task
   * 404; a run that moved on 409 `run_moved_on` (the task is withdrawn on the way); a task not
   * claimed 409 `not_claimed`; another claim's lease (a wrong or stale token) 409 `lease_lost`.
   * A task this lease settled already is returned as it is (`repeat`: also one this lease failed
   * retryably, which is queued again until the next claim).
   */
  private async leased(id: string, call: LeaseCall, what: string, repeat = false): Promise<TaskRow> {
    const t = await this.found(id);
    if (t.status === "cancelled") throw new TaskConflict(`task ${t.id}: run ${t.runId} has moved on from ${t.stage}; the task was withdrawn`, "run_moved_on");
    if (t.status === "queued" || t.status === "claimed") await this.assertCurrent(t);
    const mine = t.leaseHash !== null && t.leaseHash === leaseHashOf(call.leaseToken);
    if (t.status === "queued" && !(repeat && mine && t.attempt > 0 && t.error)) {
      throw new TaskConflict(`task ${t.id} is not claimed (${t.attempt ? `attempt ${t.attempt} ended; it is offered again` : "it waits for a worker"}): claim it first`, "not_claimed");
    }
    if (!mine) throw new TaskConflict(`task ${t.id}: this lease token is not the current claim's (attempt ${t.attempt}${t.status === "claimed" ? "" : `, ${t.status}`}): the lease was lost, the ${what} is refused`, "lease_lost");
    return t;
  }

  /**
   * An effect parked on `task` (it does not wait in memory). When its run commits (runMoved), a
   * task whose invocation is no longer in flight is withdrawn at once; a worker holding it gets
   * 409 run_moved_on.
   */
  park(task: TaskRow): void {
    let m = this.parked.get(task.runId);
    if (!m) this.parked.set(task.runId, (m = new Map()));
    m.set(task.id, task.key);
  }

  /**
   * The run committed a step (here or, relayed, in another process): withdraw the parked tasks it
   * has left behind. Called on every commit, so a run with none costs one map lookup.
   */
  runMoved(runId: string): void {
    const m = this.parked.get(runId);
    if (m && !this.closed) void this.withdrawLeft(runId, m).catch((e) => this.o.log?.(`tasks: run ${runId}'s tasks not withdrawn yet (${(e as Error).message}); a claim or completion finds the run moved on`));
  }

  private async withdrawLeft(runId: string, m: Map<string, string>): Promise<void> {
    for (const [id, key] of [...m]) {
      if (await this.o.isCurrent(runId, key)) continue;
      m.delete(id);
      await this.cancel(id);
    }
    if (m.size === 0 && this.parked.get(runId) === m) this.parked.delete(runId);
  }

  private settled(t: TaskRow): TaskRow {
    const m = this.parked.get(t.runId);
    if (m?.delete(t.id) && m.size === 0) this.parked.delete(t.runId);
    if (t.status === "done" || t.status === "failed") void this.resumeRun(t);
    return t;
  }

  /** The run takes the settled task's outcome (its parked effect runs again and finds it). */
  private async resumeRun(t: TaskRow): Promise<void> {
    if (this.resuming.has(t.id) || this.closed) return;
    this.resuming.add(t.id);
    try {
      await this.o.resume(t);
      // taken, or the run has moved on anyway (a resume that met the effect before it parked took nothing)
      if (!(await this.o.isCurrent(t.runId, t.key))) await this.store.consumed(t.id, this.now());
    } catch (e) {
      this.o.log?.(`tasks: run ${t.runId} did not take task ${t.id} yet (${(e as Error).message}); the sweep tries again`);
    } finally {
      this.resuming.delete(t.id);
    }
  }

  /** Lease expiries, and settled tasks whose run has not taken the outcome (a process died, a commit was refused). */
  async sweep(): Promise<void> {
    if (this.closed) return;
    for (const t of await this.store.expire(this.now())) this.settled(t);
    for (const t of await this.store.unconsumed(this.now() - 2_000)) await this.resumeRun(t);
  }

  private wake(queue: string) {
    const set = this.sleepers.get(queue);
    if (!set) return;
    this.sleepers.delete(queue);
    for (const fn of set) fn();
  }

  private sleep(queue: string, ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const set = this.sleepers.get(queue) ?? new Set();
      this.sleepers.set(queue, set);
      const done = () => {
        clearTimeout(timer);
        set.delete(done);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener("abort", done, { once: true });
      set.add(done);
    });
  }
}
