// With no model endpoint, every answer the offline engine gives in a model call's place records one offline usage row (no tokens, no model call): every step, SYNTHESIZE and CLARIFY included.
import { afterEach, describe, expect, it } from "vitest";
import type { RunView } from "../../../lib/engine/views";
import type { AgentContext } from "../types";
import type { Runtime } from "../../../lib/runtime";
import { offlineRows as rowsOf } from "../../../test/support/offline-usage";
import { workflowRuntime } from "../../../test/helpers";

let rt: Runtime | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
});
const settled = (r: RunView) => r.status !== "running";
const offlineRows = (ids: string[]) => rowsOf(rt!, ids);

describe("offline: one offline usage row per offline answer, no model call, no token", () => {
  it("domain-agent: a question answered, and one that asks for clarification", async () => {
    rt = await workflowRuntime("domain-agent");
    const a = await rt.engine.waitFor((await rt.engine.start("domain-agent", { text: "slept 5 h, resting HR 60\nwhy is my sleep worse this week?", today: "2026-11-23" })).run.id, settled);
    expect((a.context as AgentContext).answer?.adapter).toBe("offline engine");
    expect((a.context as AgentContext).tokens).toBe(0);
    const b = await rt.engine.waitFor((await rt.engine.start("domain-agent", { text: "am I eating enough protein this week?", today: "2026-11-23" })).run.id, settled);
    expect(b.state).toContain("WAIT_USER");
    expect((b.context as AgentContext).clarification?.question).toBeTruthy();
    // one offline row per offline answer: each run's ROUTE, every PLAN visit, ANALYZE, SYNTHESIZE and
    // EVALUATE of the answered one, OBSERVE and CLARIFY of the one that asks
    expect(await offlineRows([a.id, b.id])).toEqual([
      "BOTH_SPLIT.PLAN_BRANCH.ANALYZE analyze",
      "BOTH_SPLIT.PLAN_BRANCH.EVALUATE evaluate",
      "BOTH_SPLIT.PLAN_BRANCH.PLAN plan",
      "BOTH_SPLIT.PLAN_BRANCH.PLAN plan",
      "BOTH_SPLIT.PLAN_BRANCH.SYNTHESIZE synthesize",
      "CLARIFY clarify",
      "OBSERVE observe",
      "PLAN plan",
      "ROUTE route",
      "ROUTE route",
    ]);
  }, 60_000);
});
