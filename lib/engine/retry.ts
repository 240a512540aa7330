// How often, and how patiently, something is tried again: one shape inside the code,
// { maxAttempts, backoffMs }. What people write keeps its documented name and is converted where
// it comes in: a step's `retry: { max, backoff_s }` (stepRetry), SWITCHYARD_LLM_MAX_RETRIES and
// SWITCHYARD_LLM_BACKOFF_MS (lib/llm/endpoints.ts), the webhook delivery schedule (a list of waits).
// Used by the engine's commits the database refused, the timer wheel, post-commit actions, webhook
// deliveries, steps, model calls and external workers' tasks.

export interface RetryPolicy {
  /** tries in all, the first one included (Infinity: until it works) */
  maxAttempts: number;
  /** the wait before the first retry, doubled before each one after it; or the waits one by one (the last one repeated) */
  backoffMs: number | readonly number[];
  /** no wait is longer than this */
  maxBackoffMs?: number;
}

/** A policy whose waits double from `backoffMs` (a step's, a task's, a model call's). */
export type DoublingRetry = RetryPolicy & { backoffMs: number };

/** The wait (ms) before retry number `retry` (0: the first retry). */
export function backoffMs(p: RetryPolicy, retry: number): number {
  const b = p.backoffMs;
  const wait = typeof b === "number" ? b * 2 ** Math.max(0, retry) : (b[Math.min(Math.max(0, retry), b.length - 1)] ?? 0);
  return p.maxBackoffMs === undefined ? wait : Math.min(p.maxBackoffMs, wait);
}

/** After `attempts` tries that failed: the wait before the next one, or undefined when none is left. */
export function nextWait(p: RetryPolicy, attempts: number): number | undefined {
  return attempts < p.maxAttempts ? backoffMs(p, attempts - 1) : undefined;
}

/** A list of waits (a retry after each, then no more) as a policy. */
export function scheduleRetry(waits: readonly number[]): RetryPolicy {
  return { maxAttempts: waits.length + 1, backoffMs: waits };
}

/** A step's `retry: { max, backoff_s }` (lib/steps/schema.ts): `max` retries after the first attempt, `backoff_s` seconds before the first. */
export function stepRetry(r: { max: number; backoff_s: number } | undefined): DoublingRetry {
  return { maxAttempts: (r?.max ?? 0) + 1, backoffMs: Math.round((r?.backoff_s ?? 0) * 1000) };
}

/** The database refused (locked, unreachable): tried again until it answers, 0.5 s, 1 s, 2 s … up to 30 s apart. */
export const STORAGE_RETRY: RetryPolicy = { maxAttempts: Infinity, backoffMs: 500, maxBackoffMs: 30_000 };
