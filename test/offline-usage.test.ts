// With no model endpoint, no usage row claims a model call: each workflow's offline
// steps are recorded as the offline engine's, with no tokens; no call is made only to be logged
// (SYNTHESIZE, THINKING, CLARIFY, the deep-research report), and llmCalls and tokens stay 0.
import { afterEach, describe, expect, it } from "vitest";
import type { RunView } from "../lib/engine/views";
import type { AgentContext } from "../workflows/domain-agent/types";
import type { ResearchContext } from "../workflows/deep-research/types";
import type { ModesContext } from "../workflows/processing-modes/types";
import { runUsage } from "../lib/metrics/model-usage";
import type { Runtime } from "../lib/runtime";
import { researchRuntime, swissRuntime, workflowRuntime } from "./helpers";

let rt: Runtime | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
});

const settled = (r: RunView) => r.status !== "running";

async function noModelCalls(runIds: string[]) {
  const rows = await rt!.db.modelCall.findMany({ where: { runId: { in: runIds } } });
  for (const r of rows) {
    expect(r.adapter, `${r.state} ${r.purpose}`).toBe("offline engine");
    expect([r.promptTokens, r.completionTokens, r.model, r.endpoint]).toEqual([0, 0, null, null]);
  }
  for (const id of runIds) expect((await runUsage(rt!.db, id)).total).toMatchObject({ calls: 0, promptTokens: 0, completionTokens: 0 });
  return rows;
}

describe("offline: no usage row claims a model call", () => {
  it("conversation: no model step, no row", async () => {
    rt = await workflowRuntime("conversation", { seedGuide: false });
    const { run } = await rt.engine.start("conversation", { task: "Fix the failing login test" });
    await rt.engine.send(run.id, { type: "MESSAGE", text: "Now implement the change and fix the bug" });
    expect(await noModelCalls([run.id])).toEqual([]);
  });

  it("swiss-army", async () => {
    rt = await swissRuntime();
    const { run } = await rt.engine.start("swiss-army", { request: "Write a function that retries a fetch with exponential backoff" });
    const r = await rt.engine.waitFor(run.id, (x) => x.state.includes("HUMAN_REVIEW"));
    const rows = await noModelCalls([r.id]);
    expect(rows.map((x) => x.purpose)).toEqual(["execute"]);
    expect((r.context as { tokens: number }).tokens).toBe(0);
  });

  it("domain-agent: a question answered, and one that asks for clarification", async () => {
    rt = await workflowRuntime("domain-agent");
    const a = await rt.engine.waitFor((await rt.engine.start("domain-agent", { text: "slept 5 h, resting HR 60\nwhy is my sleep worse this week?", today: "2026-11-23" })).run.id, settled);
    expect((a.context as AgentContext).answer?.adapter).toBe("offline engine");
    expect((a.context as AgentContext).tokens).toBe(0);
    const b = await rt.engine.waitFor((await rt.engine.start("domain-agent", { text: "am I eating enough protein this week?", today: "2026-11-23" })).run.id, settled);
    expect(b.state).toContain("WAIT_USER");
    const rows = await noModelCalls([a.id, b.id]);
    expect(rows.some((x) => ["synthesize", "clarify"].includes(x.purpose))).toBe(false);
  }, 60_000);

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
    const rows = await noModelCalls([run.id]);
    expect(rows.some((x) => x.purpose === "synthesize")).toBe(false);
  }, 60_000);

  it("processing-modes: THINKING and CHAT small talk", async () => {
    rt = await workflowRuntime("processing-modes");
    const t = await rt.engine.waitFor((await rt.engine.start("processing-modes", { query: "Should we shard the database now?", mode: "THINKING" })).run.id, settled);
    expect((t.context as ModesContext).metrics?.llmCalls).toBe(0);
    const hi = await rt.engine.waitFor((await rt.engine.start("processing-modes", { query: "Hi!" })).run.id, settled);
    const hc = hi.context as ModesContext;
    expect(hc.routing?.mode).toBe("CHAT");
    expect(hc.result?.text).toMatch(/No language model is configured/);
    expect(hc.result?.text).toMatch(/Settings/);
    expect(hc.metrics?.llmCalls).toBe(0);
    await noModelCalls([t.id, hi.id]);
  }, 60_000);

  it("processing-modes: KNOWLEDGE, SEARCH, CODE and DEEP_RESEARCH (its plan, tasks, summaries and report)", async () => {
    rt = await workflowRuntime("processing-modes");
    const ids: string[] = [];
    for (const [mode, query] of [
      ["KNOWLEDGE", "How does Switchyard resume runs after a restart?"],
      ["SEARCH", "durable timers in workflow engines"],
      ["CODE", "```js\nconsole.log(6 * 7)\n```"],
      ["DEEP_RESEARCH", "How does Switchyard resume runs after a restart?"],
    ] as const) {
      const r = await rt.engine.waitFor((await rt.engine.start("processing-modes", { query, mode })).run.id, settled, 30_000);
      expect(r.status, mode).toBe("completed");
      const c = r.context as ModesContext;
      expect(c.metrics?.llmCalls, mode).toBe(0);
      ids.push(r.id);
      if (mode === "DEEP_RESEARCH") {
        expect(c.research?.plan?.adapter).toBe("offline engine");
        expect(c.research?.tasks.every((t) => t.adapter === "offline engine")).toBe(true);
        expect(c.result?.adapter).toBe("offline engine");
        // the summaries and the report are built without a call; the plan and the tasks are offline objects
        const rows = await rt.db.modelCall.findMany({ where: { runId: r.id } });
        expect(rows.some((x) => ["process-result", "final-report"].includes(x.purpose))).toBe(false);
      }
    }
    await noModelCalls(ids);
  }, 90_000);
});
