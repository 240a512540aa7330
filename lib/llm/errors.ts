// Error classification as the processing-modes seed (004) names it. NETWORK and LLM errors are
// retryable (with backoff, then the next endpoint); BUSINESS, RESOURCE_LIMIT and UNKNOWN fail
// at once.

export type ErrorCategory = "NETWORK" | "LLM" | "BUSINESS" | "RESOURCE_LIMIT" | "UNKNOWN";

export const RETRYABLE: ReadonlySet<ErrorCategory> = new Set(["NETWORK", "LLM"]);

export class ModelError extends Error {
  readonly category: ErrorCategory;
  readonly retryable: boolean;
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
    super(message, { cause: opts.cause });
    this.name = "ModelError";
    this.category = opts.category;
    this.code = opts.code;
    this.retryable = opts.retryable ?? RETRYABLE.has(opts.category);
    this.status = opts.status;
    this.endpoint = opts.endpoint;
    this.retryAfterMs = opts.retryAfterMs;
    this.attempts = opts.attempts ?? 1;
  }
}

export function isModelError(e: unknown): e is ModelError {
  return typeof e === "object" && e !== null && (e as { name?: unknown }).name === "ModelError" && typeof (e as { category?: unknown }).category === "string";
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
