// With no model endpoint, no usage row claims a model call (a row only for work a model did): the plan, the sub-agents, the reflection and the report are the offline engine's, with no tokens and no row.
import { afterEach, describe, expect, it } from "vitest";
import type { RunView } from "../../../lib/engine/views";
import type { ResearchContext } from "../types";
import type { Runtime } from "../../../lib/runtime";
import { noModelCalls as rowsOf } from "../../../test/support/offline-usage";
import { researchRuntime } from "./support";

let rt: Runtime | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
});
const settled = (r: RunView) => r.status !== "running";
const noModelCalls = (ids: string[]) => rowsOf(rt!, ids);

describe("offline: no usage row claims a model call", () => {
  it("deep-research: plan, sub-agents, reflection and report", async () => {
    rt = await researchRuntime();
    const { run } = await rt.engine.start("deep-research", { topic: "How do durable workflow engines recover from crashes?", config: { checkinEvery: 0, maxIterations: 12, maxReflections: 1 } });
    const w = await rt.engine.waitFor(run.id, settled);
    await rt.engine.decide(w.reviewId!, { decision: "approve" });
    const done = await rt.engine.waitFor(run.id, settled, 30_000);
    const c = done.context as ResearchContext;
    expect(c.report).toBeTruthy();
    expect(c.reportAdapter).toBe("offline engine");
    expect(c.tokens).toBe(0);
    // the summary quotes prose: no command or code block
    const summary = c.report!.split("## Summary")[1]!.split("\n## ")[0]!;
    expect(summary).not.toMatch(/curl|```|\$ /);
    expect(c.report).not.toMatch(/High confidence/);
    await noModelCalls([run.id]);
  }, 60_000);
});
