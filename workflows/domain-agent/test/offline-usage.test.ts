// With no model endpoint, no usage row claims a model call (a row only for work a model did): every step, SYNTHESIZE and CLARIFY included, is the offline engine's, with no tokens and no row.
import { afterEach, describe, expect, it } from "vitest";
import type { RunView } from "../../../lib/engine/views";
import type { AgentContext } from "../types";
import type { Runtime } from "../../../lib/runtime";
import { noModelCalls as rowsOf } from "../../../test/support/offline-usage";
import { workflowRuntime } from "../../../test/helpers";

let rt: Runtime | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
});
const settled = (r: RunView) => r.status !== "running";
const noModelCalls = (ids: string[]) => rowsOf(rt!, ids);

describe("offline: no usage row claims a model call", () => {
  it("domain-agent: a question answered, and one that asks for clarification", async () => {
    rt = await workflowRuntime("domain-agent");
    const a = await rt.engine.waitFor((await rt.engine.start("domain-agent", { text: "slept 5 h, resting HR 60\nwhy is my sleep worse this week?", today: "2026-11-23" })).run.id, settled);
    expect((a.context as AgentContext).answer?.adapter).toBe("offline engine");
    expect((a.context as AgentContext).tokens).toBe(0);
    const b = await rt.engine.waitFor((await rt.engine.start("domain-agent", { text: "am I eating enough protein this week?", today: "2026-11-23" })).run.id, settled);
    expect(b.state).toContain("WAIT_USER");
    expect((b.context as AgentContext).clarification?.question).toBeTruthy();
    await noModelCalls([a.id, b.id]);
  }, 60_000);
});
