// The worker loop for `external: { queue }` steps: claim a task (long-poll), heartbeat while the
// handler works on it, complete with the handler's output or fail with the error it threw, and
// stop cleanly when the signal aborts (no new claims; tasks in hand are finished and reported).
import type { Switchyard } from "./client.js";
import { SwitchyardError, sleep } from "./errors.js";
import type { Task } from "./types.js";

export interface TaskContext {
  task: Task;
  /** the W3C trace context of the step's span (traces on at the server), else null; the reports send it back */
  traceparent: string | null;
  /** aborted when the lease is lost (the server answered a heartbeat with 404/409): the result would be dropped */
  signal: AbortSignal;
  /** aborted when the worker is asked to stop (its `signal`); a long handler may give up and throw */
  stopping: AbortSignal;
}

/** Answers the step's output (any JSON), or throws: see TaskFailure for how a failure is reported. */
export type TaskHandler = (input: unknown, ctx: TaskContext) => unknown | Promise<unknown>;

export interface WorkOptions {
  /** this worker's name, recorded with each claim */
  worker: string;
  /** how long one claim waits for a task (long-poll), ms; default 20,000 (the server caps it at 30,000) */
  waitMs?: number;
  /** tasks worked on at once; default 1 */
  concurrency?: number;
  /** abort to stop: no new claims, tasks in hand are finished and reported, then work() resolves */
  signal?: AbortSignal;
  /** stop after this many tasks were claimed and reported (e.g. 1 for a one-shot run) */
  maxTasks?: number;
  /** heartbeat every leaseMs × this; default 1/3 */
  heartbeatFraction?: number;
  /** called with every error the loop survives (network, 5xx, a lost lease); default: console.error */
  onError?: (error: unknown, task?: Task) => void;
  /** called with each task's outcome */
  onReport?: (task: Task, outcome: "completed" | "failed" | "lost", detail?: unknown) => void;
}

export interface WorkStats {
  claimed: number;
  completed: number;
  failed: number;
  /** tasks whose result the server no longer took (the lease was lost, or the run moved on: 404/409) */
  lost: number;
}

/** 404, 409, 410: the task is not ours any more (lease expired and re-offered, or its run moved on). */
const gone = (e: unknown) => e instanceof SwitchyardError && (e.status === 404 || e.status === 409 || e.status === 410);
const retryable = (e: unknown) => !(e && typeof e === "object" && (e as { retryable?: unknown }).retryable === false);
const message = (e: unknown) => (e instanceof Error ? e.message : typeof e === "string" ? e : JSON.stringify(e) ?? String(e)).slice(0, 10_000) || "failed";

/**
 * Work on `queue` until `opts.signal` aborts (or `maxTasks` are done). Resolves with counts.
 * Errors reaching the server (network, 5xx) are retried with backoff, up to 10 s apart; a claim
 * the server refuses with a 4xx (a bad queue name, no token, a role that may not claim) rejects.
 */
export async function work(client: Switchyard, queue: string, handler: TaskHandler, opts: WorkOptions): Promise<WorkStats> {
  if (!opts?.worker) throw new TypeError("work(): options.worker (this worker's name) is required");
  const stop = opts.signal ?? new AbortController().signal;
  const waitMs = Math.min(opts.waitMs ?? 20_000, 30_000);
  const fraction = opts.heartbeatFraction ?? 1 / 3;
  const onError = opts.onError ?? ((e: unknown, t?: Task) => console.error(`[switchyard worker ${opts.worker}]${t ? ` task ${t.id}:` : ""}`, e instanceof Error ? e.message : e));
  const stats: WorkStats = { claimed: 0, completed: 0, failed: 0, lost: 0 };
  // claims in flight count against maxTasks, so that parallel slots never take more than asked
  let reserved = 0;

  async function report(task: Task, send: () => Promise<unknown>, outcome: "completed" | "failed") {
    for (let attempt = 0, delay = 250; ; attempt++, delay = Math.min(delay * 2, 10_000)) {
      try {
        await send();
        stats[outcome]++;
        opts.onReport?.(task, outcome);
        return;
      } catch (e) {
        if (gone(e)) {
          stats.lost++;
          opts.onReport?.(task, "lost", e);
          onError(e, task);
          return;
        }
        // other 4xx: the server will not take it however often it is sent
        if (e instanceof SwitchyardError && e.status >= 400 && e.status < 500 && e.status !== 408 && e.status !== 429) {
          stats.lost++;
          opts.onReport?.(task, "lost", e);
          onError(e, task);
          return;
        }
        onError(e, task);
        // a finished result is worth a few tries; the lease runs out meanwhile, and the task is offered again
        if (attempt >= 5) {
          stats.lost++;
          opts.onReport?.(task, "lost", e);
          return;
        }
        await sleep(delay);
      }
    }
  }

  async function run(task: Task) {
    const lost = new AbortController();
    // every report shows the claim's lease token (the task carries it); name and attempt are informational
    const claim = { worker: opts.worker, attempt: task.attempt };
    const every = Math.max(100, Math.floor((task.leaseMs > 0 ? task.leaseMs : 30_000) * fraction));
    let timer: ReturnType<typeof setTimeout> | undefined;
    let done = false;
    const beat = async () => {
      try {
        await client.heartbeat(task, claim);
      } catch (e) {
        if (gone(e)) lost.abort(e);
        onError(e, task);
      }
      if (!done && !lost.signal.aborted) timer = setTimeout(beat, every);
    };
    timer = setTimeout(beat, every);
    let output: unknown;
    let error: unknown;
    let threw = false;
    try {
      output = await handler(task.input, { task, traceparent: task.traceparent ?? null, signal: lost.signal, stopping: stop });
    } catch (e) {
      threw = true;
      error = e;
    } finally {
      done = true;
      clearTimeout(timer);
    }
    if (threw) await report(task, () => client.fail(task, message(error), retryable(error), claim), "failed");
    else await report(task, () => client.complete(task, output === undefined ? null : output, claim), "completed");
  }

  async function slot() {
    for (let delay = 250; !stop.aborted; ) {
      if (opts.maxTasks !== undefined && stats.claimed + reserved >= opts.maxTasks) return;
      reserved++;
      let task: Task | null;
      const asked = Date.now();
      try {
        task = await client.claimTask(queue, opts.worker, waitMs, { signal: stop });
      } catch (e) {
        reserved--;
        if (stop.aborted) return;
        // a request the server refuses as such (bad queue name, no token, wrong role) will not get better
        if (e instanceof SwitchyardError && e.status >= 400 && e.status < 500 && e.status !== 408 && e.status !== 429) throw e;
        onError(e);
        await sleep(delay, stop);
        delay = Math.min(delay * 2, 10_000);
        continue;
      }
      reserved--;
      delay = 250;
      if (!task) {
        // an empty answer well before the long-poll's end (waitMs 0, a server cutting polls short): pause, do not spin
        if (Date.now() - asked < waitMs / 2 || waitMs === 0) await sleep(250, stop);
        continue;
      }
      stats.claimed++;
      await run(task);
    }
  }

  const n = Math.max(1, Math.min(opts.concurrency ?? 1, opts.maxTasks ?? Infinity));
  await Promise.all(Array.from({ length: n }, slot));
  return stats;
}
