// swiss-army's tests: a runtime on a fresh database with an empty knowledge store (no guide), so
// that only the Context Manager answers searches.
import type { ManualClock } from "../../../lib/engine/clock";
import type { Runtime } from "../../../lib/runtime";
import { workflowRuntime, type RuntimeOverrides } from "../../../test/helpers";

export function swissRuntime(opts: RuntimeOverrides = {}): Promise<Runtime & { clock: ManualClock }> {
  return workflowRuntime("swiss-army", { seedGuide: false, ...opts });
}
