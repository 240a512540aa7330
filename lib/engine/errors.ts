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
