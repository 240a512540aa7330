// A model call's failure, classified (lib/engine/effect-error.ts): NETWORK and LLM errors are
// retryable (with backoff, then the next endpoint); BUSINESS, RESOURCE_LIMIT and UNKNOWN fail
// at once.
import { EffectError, RETRYABLE, type ErrorCategory } from "../engine/effect-error";

export { RETRYABLE, type ErrorCategory };

export class ModelError extends EffectError {
  declare readonly category: ErrorCategory;
  readonly status?: number;
  /** a short machine-readable reason: rate_limited, server_error, timeout, refused, invalid_output, … */
  readonly code: string;
  readonly endpoint?: string;
  /** seconds the server asked us to wait (Retry-After) */
  readonly retryAfterMs?: number;
  attempts: number;

  constructor(
    message: string,
    opts: { category: ErrorCategory; code: string; status?: number; endpoint?: string; retryAfterMs?: number; attempts?: number; retryable?: boolean; cause?: unknown },
  ) {
    super(message, opts);
    this.name = "ModelError";
    this.code = opts.code;
    this.status = opts.status;
    this.endpoint = opts.endpoint;
    this.retryAfterMs = opts.retryAfterMs;
    this.attempts = opts.attempts ?? 1;
  }
}

export function isModelError(e: unknown): e is ModelError {
  return e instanceof ModelError;
}

/** Retry-After as milliseconds: seconds, an HTTP date, or OpenAI's retry-after-ms header. */
export function retryAfterMs(headers: { get(name: string): string | null } | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get("retry-after-ms");
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const v = headers.get("retry-after");
  if (!v) return undefined;
  if (/^\d+(\.\d+)?$/.test(v.trim())) return Math.max(0, Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}
