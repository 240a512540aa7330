// The error an effect fails with, when it knows why: its category (what the run page, the step's
// `on_error` and the machines' error paths read) and whether trying again may help. Every
// classified failure extends it (ModelError, StepError, TaskFailed, …); code that reads a failure
// asks `instanceof EffectError` and its category, never the shape of an object.

/** NETWORK and LLM failures are transient (retried); BUSINESS, RESOURCE_LIMIT and UNKNOWN would fail the same way again. */
export type ErrorCategory = "NETWORK" | "LLM" | "BUSINESS" | "RESOURCE_LIMIT" | "UNKNOWN";

export const RETRYABLE: ReadonlySet<string> = new Set<ErrorCategory>(["NETWORK", "LLM"]);

export class EffectError extends Error {
  readonly category: string;
  readonly retryable: boolean;

  /** `retryable` defaults to the category's (NETWORK and LLM are) */
  constructor(message: string, opts: { category: string; retryable?: boolean; cause?: unknown }) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    // each subclass names itself (a stored error's name, which minified code would not keep)
    this.name = "EffectError";
    this.category = opts.category;
    this.retryable = opts.retryable ?? RETRYABLE.has(opts.category);
  }
}

/** May this failure be tried again? An EffectError says; any other error may (a bug fails the same way, but is not known to be one). */
export function retryable(e: unknown): boolean {
  return !(e instanceof EffectError) || e.retryable;
}

/** The category of a failure: an EffectError's, else none. */
export function categoryOf(e: unknown): string | undefined {
  return e instanceof EffectError ? e.category : undefined;
}
