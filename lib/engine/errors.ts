// Errors the engine raises on purpose. Each carries the HTTP status the API maps it to, so a
// bad request is a 4xx with a message and never a 500.

// Next.js may load this module more than once (one copy per server bundle), so errors are
// recognised by a brand that survives that, not by `instanceof`.
const BRAND = Symbol.for("switchyard.engine-error");

export class EngineError extends Error {
  readonly [BRAND] = true;
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class NotFoundError extends EngineError {
  constructor(message: string) {
    super(message, 404, "not_found");
  }
}

/** The caller may not do this (a review assigned to groups the caller is not in). */
export class ForbiddenError extends EngineError {
  constructor(message: string) {
    super(message, 403, "forbidden");
  }
}

/** The request was valid but the run or review is not in a state that allows it. */
export class ConflictError extends EngineError {
  constructor(message: string, details?: unknown) {
    super(message, 409, "conflict", details);
  }
}

export class InvalidError extends EngineError {
  constructor(message: string, details?: unknown) {
    super(message, 422, "invalid", details);
  }
}

export function isEngineError(e: unknown): e is EngineError {
  return typeof e === "object" && e !== null && (e as Record<symbol, unknown>)[BRAND] === true;
}

export function isZodError(e: unknown): e is { issues: { path: PropertyKey[]; message: string }[] } {
  return typeof e === "object" && e !== null && (e as { name?: unknown }).name === "ZodError" && Array.isArray((e as { issues?: unknown }).issues);
}

const STORAGE_CODES = /^(SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|FULL|READONLY|PROTOCOL|NOTADB)|P1001|P1002|P1008|P1017|P2024|ECONNREFUSED|ECONNRESET|57P01|57P03|53300|40P01|40001|08000|08003|08006)/;

/**
 * Is this the database refusing or failing (locked, unreachable, out of space) rather than a
 * bug? The API answers those with 503 (try again), never 500.
 */
export function isStorageFailure(e: unknown): boolean {
  for (let c: unknown = e, depth = 0; c && typeof c === "object" && depth < 4; c = (c as { cause?: unknown }).cause, depth++) {
    const { code, message } = c as { code?: unknown; message?: unknown };
    if (typeof code === "string" && STORAGE_CODES.test(code)) return true;
    if (typeof message === "string" && /database is locked|database table is locked|disk I\/O error|unable to open database|Can't reach database server|Timed out fetching a new connection/i.test(message)) return true;
  }
  return false;
}

/** The database refused or failed (locked, unreachable, full): 503, try again shortly. */
export class StorageError extends EngineError {
  constructor(cause: unknown) {
    const message = cause instanceof Error ? cause.message : String(cause);
    super(`storage unavailable: ${message.slice(0, 300)}; try again shortly`, 503, "storage_unavailable");
  }
}

/** The run's version moved under this process's feet (cluster mode re-reads and tries again). */
export class WriterConflict extends ConflictError {}
