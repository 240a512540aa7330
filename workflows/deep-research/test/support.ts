// deep-research's tests: the shipped guide is the corpus, and the clock starts on 2026-11-23.
import { ManualClock } from "../../../lib/engine/clock";
import type { Runtime } from "../../../lib/runtime";
import { workflowRuntime, type RuntimeOverrides } from "../../../test/helpers";

export function researchRuntime(opts: RuntimeOverrides = {}): Promise<Runtime & { clock: ManualClock }> {
  return workflowRuntime("deep-research", { clock: new ManualClock(Date.parse("2026-11-23T09:00:00Z")), ...opts });
}
