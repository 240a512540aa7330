// Errors the engine raises on purpose. Each carries the HTTP status the API maps it to, so a
// bad request is a 4xx with a message and never a 500.

export class EngineError extends Error {
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
  return e instanceof EngineError;
}
