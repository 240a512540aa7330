// processing-modes with a model endpoint configured: the model does the thinking wherever the seed puts an
// LLM. A local OpenAI-compatible server answers each structured-output request with an object
// generated from the request's JSON Schema (test/support/schema-model): which states called the
// model, and that its words reach the result.
import { describe, expect, it } from "vitest";
import type { RunView } from "../../../lib/engine/views";
import type { Runtime } from "../../../lib/runtime";
import { workflowRuntime } from "../../../test/helpers";
import { modelHarness } from "../../../test/support/model-harness";
import { fakeModel } from "../../../test/support/fake-openai";
import { schemaModel } from "../../../test/support/schema-model";

let rt: Runtime | null = null;
const { fake, model, calls } = modelHarness(
  () => rt,
  async () => {
    await rt?.close();
    rt = null;
  },
);
const settled = (r: RunView) => r.status !== "running";

describe("processing-modes with a model (its LLM calls per mode)", () => {
  const modesModel = () => fakeModel(fake, { OPENAI_MODEL: "schema-1", SWITCHYARD_EMBEDDINGS_MODEL: "embed-1", SWITCHYARD_LLM_BACKOFF_MS: "10" });

  it("CHAT 1, KNOWLEDGE 1 plus the query embedding, SEARCH 2+, CODE 1, THINKING 5; the model's words are the answer", async () => {
    const m = schemaModel({ code: () => ({ language: "javascript", code: "console.log('model wrote this'); 6 * 7" }) });
    fake.setDefault({ reply: m.reply });
    rt = await workflowRuntime("processing-modes", { model: modesModel() });
    const expected: Record<string, { calls: (n: number) => boolean; purposes: string[]; states: string[] }> = {
      CHAT: { calls: (n) => n === 1, purposes: ["chat"], states: ["ModelRuntime.ProcessorExec.CHAT.CallLLM"] },
      KNOWLEDGE: { calls: (n) => n === 2, purposes: ["embed", "answer"], states: ["ModelRuntime.ProcessorExec.KNOWLEDGE.GenerateEmbeddings", "ModelRuntime.ProcessorExec.KNOWLEDGE.CallLLM"] },
      SEARCH: { calls: (n) => n >= 2, purposes: ["search-queries", "answer"], states: ["ModelRuntime.ProcessorExec.SEARCH.GenerateSearchQueries", "ModelRuntime.ProcessorExec.SEARCH.CallLLM"] },
      CODE: { calls: (n) => n === 1, purposes: ["generate-code"], states: ["ModelRuntime.ProcessorExec.CODE.GenerateCode"] },
      THINKING: {
        calls: (n) => n === 5,
        purposes: ["thinking:ProblemAnalysis", "thinking:MultiPerspective", "thinking:DeepReasoning", "thinking:SynthesisAndReflection", "thinking:FinalAnswer"],
        states: ["ProblemAnalysis", "MultiPerspective", "DeepReasoning", "SynthesisAndReflection", "FinalAnswer"].map((s) => `ModelRuntime.ProcessorExec.THINKING.${s}`),
      },
    };
    for (const [mode, want] of Object.entries(expected)) {
      const { run } = await rt.engine.start("processing-modes", { query: `explain durable timers in workflow engines (${mode})`, mode });
      const done = await rt.engine.waitFor(run.id, settled, 30_000);
      expect(done.status, mode).toBe("completed");
      const c = done.context as import("../types").ModesContext;
      const made = (await calls(run.id)).filter((x) => x.purpose !== "route");
      expect(made.map((x) => x.purpose), mode).toEqual(want.purposes);
      expect(made.map((x) => x.state), mode).toEqual(want.states);
      expect(want.calls(c.metrics!.llmCalls), `${mode}: ${c.metrics!.llmCalls}`).toBe(true);
      if (mode === "CODE") expect(c.execution?.stdout).toContain("model wrote this");
      else expect(c.result?.text, mode).toMatch(/model#\d+/);
    }
  }, 120_000);

  it("routed (no mode given): RouteRequest asks the model, and its routing and reason are used", async () => {
    const m = schemaModel();
    fake.setDefault({ reply: m.reply });
    rt = await workflowRuntime("processing-modes", { model: modesModel() });
    const { run } = await rt.engine.start("processing-modes", { query: "hello, what can you do for me today?" });
    const done = await rt.engine.waitFor(run.id, settled, 30_000);
    expect(done.status).toBe("completed");
    const c = done.context as import("../types").ModesContext;
    const made = await calls(run.id);
    expect(made[0]).toMatchObject({ state: "RouteRequest", purpose: "route", ok: true });
    expect(c.routing).toMatchObject({ routedBy: "classified", adapter: "schema-1 @ endpoint 1", mode: "CHAT" });
    expect(c.routing?.reason).toMatch(/^model#\d+/);
    // the route call is not counted as the mode's LLM work (per-mode counts: workflows/processing-modes/guide.md)
    expect(c.metrics?.llmCalls).toBe(1);
  }, 60_000);

  it("DEEP_RESEARCH retried after a model error redoes only the failed step: the plan and the tasks are not asked for twice", async () => {
    const m = schemaModel();
    fake.setDefault({ reply: m.reply });
    // the report plan and the tasks answer; the first summary's call fails (no port retry here), the retry's succeeds
    fake.script({ reply: m.reply }, { reply: m.reply }, { status: 500, message: "upstream exploded" });
    const r0 = await workflowRuntime("processing-modes", { model: fakeModel(fake, { OPENAI_MODEL: "schema-1", SWITCHYARD_LLM_MAX_RETRIES: "0" }) });
    rt = r0;
    const { run } = await rt.engine.start("processing-modes", { query: "How do durable workflow engines resume runs after a restart?", mode: "DEEP_RESEARCH" });
    const waiting = await rt.engine.waitFor(run.id, (x) => x.state.includes("AgentRuntime.ErrorClassify.ErrorHandling"), 30_000);
    expect(waiting.status).toBe("running");
    r0.clock.advance(1_000); // the backoff: ErrorClassify → RetryableExec
    const done = await rt.engine.waitFor(run.id, settled, 30_000);
    expect(done.status).toBe("completed");
    const c = done.context as import("../types").ModesContext;
    expect(c.workflow).toMatchObject({ attempts: 2, errors: [{ attempt: 1, category: "LLM" }] });
    const made = await calls(run.id);
    const count = (purpose: string, ok = true) => made.filter((x) => x.purpose === purpose && x.ok === ok).length;
    expect([count("report-plan"), count("search-tasks"), count("process-result", false), count("final-report")]).toEqual([1, 1, 1, 1]);
    // every successful call was used, and only those count
    expect(c.metrics!.llmCalls).toBe(made.filter((x) => x.ok && x.purpose !== "route").length);
    // the second attempt still passed through the boundary's states
    const entered = (await rt.store.transitions(run.id)).flatMap((t) => t.to).filter((x) => x.endsWith(".WriteReportPlan"));
    expect(entered).toHaveLength(2);
    expect(c.result?.text).toMatch(/^model#\d+/);
  }, 60_000);

  it("DEEP_RESEARCH: WriteReportPlan, GenerateSearchQueries, each ProcessResult and WriteFinalReport are the model (3+ calls); its report is the result", async () => {
    const m = schemaModel({
      // two search tasks, so that SearchTask ⇄ ProcessResult goes round twice
      search_tasks: () => ({
        tasks: [
          { query: "durable timers restart", goal: "model goal: how timers survive a restart", priority: "high" },
          { query: "resume runs after a crash", goal: "model goal: how runs resume", priority: "medium" },
        ],
      }),
    });
    fake.setDefault({ reply: m.reply });
    rt = await workflowRuntime("processing-modes", { model: modesModel() });
    const { run } = await rt.engine.start("processing-modes", { query: "How do durable workflow engines resume runs after a restart?", mode: "DEEP_RESEARCH" });
    const done = await rt.engine.waitFor(run.id, settled, 30_000);
    expect(done.status).toBe("completed");
    const c = done.context as import("../types").ModesContext;
    const made = (await calls(run.id)).filter((x) => x.purpose !== "route");
    const B = "AgentRuntime.RetryableExec.RetryBoundary";
    expect(made.map((x) => `${x.state}:${x.purpose}`)).toEqual([
      `${B}.WriteReportPlan:report-plan`,
      `${B}.GenerateSearchQueries:search-tasks`,
      `${B}.ExecuteSearchTasks.ProcessResult:process-result`,
      `${B}.ExecuteSearchTasks.ProcessResult:process-result`,
      `${B}.WriteFinalReport:final-report`,
    ]);
    expect(made.every((x) => x.ok && x.adapter === "schema-1 @ endpoint 1")).toBe(true);
    expect(c.metrics!.llmCalls).toBe(5);
    // the model's words: its plan, its tasks, its summaries, and its report as the answer
    const r = c.research!;
    expect(r.plan?.title).toMatch(/^model#\d+/);
    expect(r.plan?.adapter).toBe("schema-1 @ endpoint 1");
    expect(r.tasks.map((t) => t.goal)).toEqual(["model goal: how timers survive a restart", "model goal: how runs resume"]);
    expect(r.tasks.every((t) => t.results > 0 && /^model#\d+/.test(t.summary ?? ""))).toBe(true);
    expect(c.result?.text).toMatch(/^model#\d+ .*\[S01\]/);
    expect(c.result?.adapter).toBe("schema-1 @ endpoint 1");
    expect(c.result?.citations[0]).toMatchObject({ id: "S01" });
    // the report's prompt carried the task summaries: the model wrote from them
    const last = fake.requests.filter((q) => q.method === "POST").at(-1)!;
    expect(JSON.stringify(last.body.messages)).toContain(r.tasks[0]!.summary!.slice(0, 20));
    expect(c.workflow).toMatchObject({ status: "completed", attempts: 1, completed: ["plan", "search", "synthesize"] });
  }, 60_000);
});
