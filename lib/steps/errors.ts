// The error a step's effect fails with: its category (what the run page and `on_error` see) and
// whether `retry` may try it again.
export type StepErrorCategory = "NETWORK" | "BUSINESS" | "LLM" | "RESOURCE_LIMIT";

export class StepError extends Error {
  constructor(
    message: string,
    readonly category: StepErrorCategory,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = "StepError";
  }
}
