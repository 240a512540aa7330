// An effect done by an external worker: the invocation becomes a task on a queue, and the effect
// waits until a worker completes or fails it. The task is keyed by the invocation key, so an
// effect started again after a restart (or by another cluster worker) re-attaches to the same
// task: a task claimed when the server was killed is still claimed, its worker can still complete
// it, and a task completed meanwhile is taken as the result at once: never done twice.
import { z } from "zod";
import { parkEffect, waitingOutside, type EffectContext, type EffectFn } from "../engine/engine";
import { isStorageFailure } from "../engine/errors";
import { EffectError } from "../engine/effect-error";
import { childKey, parseKey, type PersistedChildren } from "../engine/key";
import { backoffMs, STORAGE_RETRY, stepRetry } from "../engine/retry";
import type { RunStore } from "../engine/store/types";
import { TERMINAL } from "../engine/store/types";
import { DEFAULT_MAX_ATTEMPTS, type TaskQueue } from "./queue";
import { SETTLED, type TaskRow } from "./store";

/** A task its worker failed (or withdrawn, or answered with an output that does not parse): not retried here (the queue already retried it). */
export class TaskFailed extends EffectError {
  constructor(message: string, category: string, retryable = false) {
    super(message, { category, retryable });
    this.name = "TaskFailed";
  }
}

export interface ExternalSpec {
  queue: string;
  /** the stage the worker is told (default: the invoking state) */
  stage?: string;
  workflow: string;
  /** the effect it stands for ("step.external", or a built-in's actor name) */
  effect: string;
  /** what the worker gets as `input` */
  input: unknown;
  /** RetryPolicy's fields (a task row keeps them), backoffMs the first wait */
  maxAttempts: number;
  backoffMs: number;
}

/** Queue the invocation's task (or find it): its row once settled; until then the effect parks (it runs again when the task settles). */
export async function runExternal(tasks: TaskQueue, spec: ExternalSpec, ctx: EffectContext): Promise<TaskRow> {
  const { stage, ...rest } = spec;
  const task = await untilStored(ctx, () => tasks.create({ key: ctx.key, runId: ctx.runId, stage: stage ?? ctx.state, ...rest }));
  // viewers see progress lines: the task's id (a worker's handle on it) stays out of them
  ctx.progress(task.attempt ? `waiting for a worker on queue ${spec.queue} (attempt ${task.attempt}, ${task.status})` : `queued for a worker on ${spec.queue}`);
  // no memory (and, in cluster mode, no job slot) is held while a worker has the task: the effect
  // parks, so its run can be evicted, and it runs again once the task is settled
  if (!SETTLED.includes(task.status)) {
    tasks.park(task);
    if (ctx.signal.aborted) void withdrawIfStale(tasks, task); // the run moved on while the task was written
    throw parkEffect(`a worker on queue ${spec.queue}`);
  }
  if (task.status === "failed") throw new TaskFailed(`${spec.queue}: ${task.error?.message ?? "the worker failed the task"}`, task.error?.category ?? "BUSINESS");
  if (task.status === "cancelled") throw new TaskFailed(`${spec.queue}: the task was withdrawn`, "BUSINESS");
  return task;
}

/** A database that refuses for a while (locked, unreachable) delays the task; it does not fail the step. */
async function untilStored<T>(ctx: EffectContext, write: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await write();
    } catch (e) {
      if (!isStorageFailure(e) || ctx.signal.aborted) throw e;
      ctx.progress(`the database refused the task (${(e as Error).message}); trying again`);
      await new Promise<void>((resolve, reject) => {
        const h = ctx.clock.setTimeout(resolve, backoffMs(STORAGE_RETRY, attempt));
        ctx.signal.addEventListener("abort", () => (ctx.clock.clearTimeout(h), reject(new Error("cancelled"))), { once: true });
      });
    }
  }
}

// The effect stops both when its run left the stage and when this process stops: only in the
// first case is the task withdrawn (the run's committed state tells them apart; the commit that
// moved the run on is written before the effect is stopped).
async function withdrawIfStale(tasks: TaskQueue, task: TaskRow): Promise<void> {
  try {
    if (!(await tasks.isCurrent(task.runId, task.key))) await tasks.cancel(task.id);
  } catch {
    // the store is closing: a stale task is withdrawn when a worker tries to complete it
  }
}

/** Is invocation `key` still in flight in the run's committed snapshot? */
export function currentIn(store: RunStore): (runId: string, key: string) => Promise<boolean> {
  return async (runId, key) => {
    const run = await store.getRun(runId);
    if (!run || TERMINAL.includes(run.status)) return false;
    const child = parseKey(key, runId)?.child;
    const snap = run.snapshot as PersistedChildren;
    return child !== undefined && snap.children?.[child]?.snapshot?.status === "active" && key === childKey(runId, snap, child);
  };
}

/** A zod error in one line, clipped: what the run's log and the worker's dashboard show. */
/** the most characters of a worker output's issues a task error quotes */
export const ISSUES_MAX = 400;

export function issuesOf(e: z.ZodError, max = ISSUES_MAX): string {
  const line = e.issues.map((i) => `${i.path.length ? i.path.join(".") : "(output)"}: ${i.message}`).join("; ");
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/**
 * A built-in's effect sent to a queue: the worker's output, parsed with the effect's declared
 * schema (builtIn({ outputs })), is the effect's result. An output that does not parse fails the
 * call with a BUSINESS error naming what is wrong: the machine takes its error path.
 */
export function externalBuiltin(tasks: () => TaskQueue, workflow: string, effect: string, queue: string, maxAttempts: number, schema: z.core.$ZodType): EffectFn {
  return waitingOutside(async (input: never, ctx: EffectContext) => {
    const t = await runExternal(tasks(), { queue, workflow, effect, input, maxAttempts, backoffMs: 1_000 }, ctx);
    const out = t.output;
    if (out === null || typeof out !== "object" || Array.isArray(out)) {
      throw new TaskFailed(`${queue}: the worker's output for ${effect} must be a JSON object (got ${out === null ? "null" : Array.isArray(out) ? "an array" : typeof out})`, "BUSINESS");
    }
    const parsed = z.safeParse(schema, out);
    if (!parsed.success) throw new TaskFailed(`${queue}: the worker's output for ${workflow}.${effect} is not valid: ${issuesOf(parsed.error)}`, "BUSINESS");
    return parsed.data;
  });
}

const StepInput = z.object({
  stage: z.string(),
  workflow: z.string(),
  queue: z.string(),
  input: z.unknown(),
  retry: z.object({ max: z.number().int().min(0), backoff_s: z.number().min(0) }).optional(),
});

/**
 * The `external: { queue }` step: the worker gets `{ input, steps, review }` (the run's input,
 * earlier steps' records, the last review); its output is the step's output. `retry.max` counts
 * the retryable failures and expired leases the task may have (default 2 more attempts).
 */
export function externalStep(tasks: () => TaskQueue): EffectFn {
  return waitingOutside(async (raw: never, ctx: EffectContext) => {
    const i = StepInput.parse(raw);
    const retry = i.retry ? stepRetry(i.retry) : { maxAttempts: DEFAULT_MAX_ATTEMPTS, backoffMs: 1_000 };
    const t = await runExternal(tasks(), { queue: i.queue, workflow: i.workflow, stage: i.stage, effect: "step.external", input: i.input, ...retry }, ctx);
    // credited to whoever completed it (accounts on: the principal, e.g. "ana (token mailer-1)"; off: the claim's worker name)
    const who = t.settledBy ?? t.worker ?? "?";
    // offered again with no failure recorded: a worker's lease ran out (the run page says so)
    const again = t.attempt > 1 && !t.error ? { again: "lease" as const } : {};
    return { output: t.output, by: `worker ${who}`, worker: who, attempts: t.attempt, ...again };
  });
}
