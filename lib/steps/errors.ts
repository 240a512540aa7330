// The error a step's effect fails with: its category (what the run page and `on_error` see) and
// whether `retry` may try it again.
import { EffectError } from "../engine/effect-error";

export type StepErrorCategory = "NETWORK" | "BUSINESS" | "LLM" | "RESOURCE_LIMIT";

export class StepError extends EffectError {
  declare readonly category: StepErrorCategory;

  constructor(message: string, category: StepErrorCategory, retryable: boolean) {
    super(message, { category, retryable });
    this.name = "StepError";
  }
}
