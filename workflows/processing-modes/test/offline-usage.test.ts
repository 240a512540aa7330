// With no model endpoint, every answer the offline engine gives in a model call's place records one offline usage row, and none counts as a model call (`llmCalls` 0) or a token: THINKING, CHAT small talk, KNOWLEDGE, SEARCH, CODE and DEEP_RESEARCH.
import { afterEach, describe, expect, it } from "vitest";
import type { RunView } from "../../../lib/engine/views";
import type { ModesContext } from "../types";
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
    // one offline row per offline answer: THINKING's five stages (the mode was asked for: no routing), the small talk's routing and reply
    expect(await offlineRows([t.id, hi.id])).toEqual([
      "ModelRuntime.ProcessorExec.CHAT.CallLLM chat",
      "ModelRuntime.ProcessorExec.THINKING.DeepReasoning thinking:DeepReasoning",
      "ModelRuntime.ProcessorExec.THINKING.FinalAnswer thinking:FinalAnswer",
      "ModelRuntime.ProcessorExec.THINKING.MultiPerspective thinking:MultiPerspective",
      "ModelRuntime.ProcessorExec.THINKING.ProblemAnalysis thinking:ProblemAnalysis",
      "ModelRuntime.ProcessorExec.THINKING.SynthesisAndReflection thinking:SynthesisAndReflection",
      "RouteRequest route",
    ]);
  }, 60_000);
  it("processing-modes: KNOWLEDGE, SEARCH, CODE and DEEP_RESEARCH (its plan, tasks, summaries and report)", async () => {
    rt = await workflowRuntime("processing-modes");
    const ids: string[] = [];
    let researchTasks = 0;
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
        researchTasks = c.research!.tasks.length;
        expect(researchTasks).toBeGreaterThan(0);
      }
    }
    // one offline row per offline answer; CODE ran the request's own code block: no answer asked for
    const R = "AgentRuntime.RetryableExec.RetryBoundary";
    expect(await offlineRows(ids)).toEqual([
      ...Array.from({ length: researchTasks }, () => `${R}.ExecuteSearchTasks.ProcessResult process-result`),
      `${R}.GenerateSearchQueries search-tasks`,
      `${R}.WriteFinalReport final-report`,
      `${R}.WriteReportPlan report-plan`,
      "ModelRuntime.ProcessorExec.KNOWLEDGE.CallLLM answer",
      "ModelRuntime.ProcessorExec.SEARCH.CallLLM answer",
      "ModelRuntime.ProcessorExec.SEARCH.GenerateSearchQueries search-queries",
    ]);
  }, 90_000);
});
