// Errors the client throws, and a sleep that an abort cuts short.
import type { ErrorBody } from "./types.js";

/**
 * A request the server refused or could not answer: `status` is the HTTP status (0 when the
 * server was not reached), `code` and `message` the server's own (`{ error, code }`).
 */
export class SwitchyardError extends Error {
  readonly status: number;
  readonly code: string;
  readonly body: ErrorBody | null;
  readonly method: string;
  readonly path: string;

  constructor(init: { status: number; code: string; message: string; body: ErrorBody | null; method: string; path: string; cause?: unknown }) {
    super(init.message, init.cause !== undefined ? { cause: init.cause } : undefined);
    this.name = "SwitchyardError";
    this.status = init.status;
    this.code = init.code;
    this.body = init.body;
    this.method = init.method;
    this.path = init.path;
  }

  /** validation issues of a 422 (`[{ path, message }]`) */
  get issues(): { path: string; message: string }[] {
    return this.body?.issues ?? [];
  }
}

/**
 * Thrown by a task handler to say how the task failed: `retryable: true` asks for it to be offered
 * again (within the step's retries), `false` fails the step at once. Any other error a handler
 * throws counts as retryable unless it has a `retryable: false` property.
 */
export class TaskFailure extends Error {
  readonly retryable: boolean;
  constructor(message: string, opts: { retryable: boolean; cause?: unknown }) {
    super(message, opts.cause !== undefined ? { cause: opts.cause } : undefined);
    this.name = "TaskFailure";
    this.retryable = opts.retryable;
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
