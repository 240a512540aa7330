// With a model endpoint configured, the model does the thinking wherever the seeds put an LLM
//. A local OpenAI-compatible server answers each structured-output request with an
// object generated from the request's JSON Schema (test/support/schema-model): per workflow,
// which states called the model, and that the model's words reach the result. And a reply that
// never matches its schema is retried with backoff, then a person is asked to retry or abort.
import { describe, expect, it } from "vitest";
import { ManualClock } from "../lib/engine/clock";
import type { RunView } from "../lib/engine/views";
import type { AgentContext } from "../workflows/domain-agent/types";
import type { ResearchContext } from "../workflows/deep-research/types";
import type { SwissContext } from "../workflows/swiss-army/types";
import type { Runtime } from "../lib/runtime";
import { workflowRuntime } from "./helpers";
import { fakeModel, useFakeOpenAi } from "./support/fake-openai";
import { schemaModel } from "./support/schema-model";

let rt: Runtime | null = null;
const fake = useFakeOpenAi({
  afterEach: async () => {
    await rt?.close();
    rt = null;
  },
});

const sleeps: number[] = [];
const model = (retries = 1) => fakeModel(fake, { OPENAI_MODEL: "schema-1", SWITCHYARD_LLM_BACKOFF_MS: "10", SWITCHYARD_LLM_MAX_RETRIES: String(retries) }, async (ms) => void sleeps.push(ms));
const settled = (r: RunView) => r.status !== "running";
const calls = async (runId: string) => (await rt!.db.modelCall.findMany({ where: { runId }, orderBy: { createdAt: "asc" } })).map((c) => ({ state: c.state ?? "", purpose: c.purpose, ok: c.ok, adapter: c.adapter, output: c.output ?? "" }));

describe("domain-agent with a model", () => {
  it("ROUTE, PLAN, ANALYZE, SYNTHESIZE, EVALUATE and OBSERVE call the model and use its replies", async () => {
    const m = schemaModel();
    fake.setDefault({ reply: m.reply });
    rt = await workflowRuntime("domain-agent", { model: model() });
    const { run } = await rt.engine.start("domain-agent", { text: "how did I sleep this week?", today: "2026-11-23" });
    const done = await rt.engine.waitFor(run.id, settled, 30_000);
    expect(done.status).toBe("completed");
    const c = done.context as AgentContext;
    const made = await calls(run.id);
    expect(made.every((x) => x.ok && x.adapter === "schema-1 @ endpoint 1")).toBe(true);
    expect(new Set(made.map((x) => `${x.state}:${x.purpose}`))).toEqual(new Set(["ROUTE:route", "PLAN:plan", "ANALYZE:analyze", "SYNTHESIZE:synthesize", "EVALUATE:evaluate", "OBSERVE:observe"]));
    // the model's words are the result: its route reason, plan reason, verdict reason, answer, evaluation and observation
    expect(c.route?.reason).toMatch(/^model#\d+/);
    expect(c.plan?.reason).toMatch(/^model#\d+/);
    expect(c.analysis?.reason).toMatch(/^model#\d+/);
    expect(c.answer?.text).toMatch(/^model#\d+ .*This is the model's answer/);
    expect(c.answer?.tokens).toBeGreaterThan(0);
    expect(c.evaluation?.reasons[0]).toMatch(/^model#\d+/);
    expect(c.observation?.reason).toMatch(/^model#\d+/);
  }, 60_000);

  it("CLARIFY asks the model's question (and the reply is not thrown away)", async () => {
    const m = schemaModel({ plan: (g) => ({ ...g, decision: "CLARIFY", gap: { need: "body_weight_kg", question: "planned question?" } }) });
    fake.setDefault({ reply: m.reply });
    rt = await workflowRuntime("domain-agent", { model: model() });
    const { run } = await rt.engine.start("domain-agent", { text: "am I eating enough protein?", today: "2026-11-23" });
    const w = await rt.engine.waitFor(run.id, settled, 30_000);
    expect(w.state).toEqual(["WAIT_USER"]);
    const c = w.context as AgentContext;
    expect(c.clarification?.question).toMatch(/^model#\d+/);
    expect(c.clarification?.question).not.toBe("planned question?");
    const review = (await rt.store.listReviews({ runId: run.id, status: "pending" }))[0]!;
    expect(review.prompt).toBe(c.clarification?.question);
    expect((await calls(run.id)).filter((x) => x.purpose === "clarify")).toHaveLength(1);
  }, 60_000);

  it("a reply that never matches its schema: retried with backoff, then a person retries or aborts", async () => {
    const m = schemaModel();
    fake.setDefault({ reply: m.reply });
    // every route reply is invalid (confidence out of range): request + repair, twice (one retry)
    const bad = { reply: () => ({ inputType: "QUERY", domains: [], confidence: 7, logText: "", queryText: "q", corrections: [], reason: "r" }) };
    fake.script(bad, bad, bad, bad);
    sleeps.length = 0;
    rt = await workflowRuntime("domain-agent", { model: model(1) });
    const { run } = await rt.engine.start("domain-agent", { text: "how did I sleep this week?", today: "2026-11-23" });
    const err = await rt.engine.waitFor(run.id, settled, 30_000);
    expect(err.status).toBe("waiting");
    expect(err.state).toEqual(["ERROR"]);
    expect((err.context as AgentContext).error).toMatchObject({ state: "ROUTE", category: "LLM" });
    expect(sleeps).toHaveLength(1);
    expect(fake.requests.filter((r) => r.method === "POST")).toHaveLength(4);
    const review = (await rt.store.listReviews({ runId: run.id, status: "pending" }))[0]!;
    expect(review.prompt).toMatch(/stopped in ROUTE/);
    await rt.engine.decide(review.id, { decision: "retry" });
    const done = await rt.engine.waitFor(run.id, settled, 30_000);
    expect(done.status).toBe("completed");
    expect((done.context as AgentContext).answer?.text).toMatch(/^model#/);
  }, 60_000);
});

describe("swiss-army with a model", () => {
  const request = "Write a TypeScript function that retries a fetch with exponential backoff";
  // a request analysis whose request_type is not one of the seed's four: fails its schema, request and repair
  const bad = { reply: () => ({ intent: "retry fetch", request_type: "poem", estimated_complexity: "medium", parameters: [] }) };

  it("REQUEST_RECEIVED (parse), EXECUTING and CONTEXT_UPDATE (pattern extraction) call the model; its words are the output and the patterns", async () => {
    const m = schemaModel();
    fake.setDefault({ reply: m.reply });
    rt = await workflowRuntime("swiss-army", { model: model() });
    const { run } = await rt.engine.start("swiss-army", { request });
    const r = await rt.engine.waitFor(run.id, (x) => x.state[0] === "HUMAN_REVIEW", 30_000);
    const made = await calls(run.id);
    expect(made.map((x) => `${x.state}:${x.purpose}`)).toEqual(["REQUEST_RECEIVED:parse", "EXECUTING:execute", "CONTEXT_UPDATE:extract-patterns"]);
    expect(made.every((x) => x.ok && x.adapter === "schema-1 @ endpoint 1")).toBe(true);
    const c = r.context as SwissContext;
    expect(c.records.request?.metadata.intent).toMatch(/^model#\d+/);
    expect(c.output).toMatch(/^model#\d+ .*This is the model's answer/);
    expect(c.records.execution?.adapter).toBe("schema-1 @ endpoint 1");
    expect(c.tokens).toBeGreaterThan(0);
    expect(c.records.execution_result?.result.patterns_discovered.some((p) => /^model#\d+/.test(p))).toBe(true);
    // the review shows the model's output
    const review = (await rt.store.listReviews({ runId: run.id, status: "pending" }))[0]!;
    expect((review.payload as { output: string }).output).toBe(c.output);
  }, 60_000);

  it("a reply that never matches its schema: retried with backoff, then a person retries REQUEST_RECEIVED", async () => {
    const m = schemaModel();
    fake.setDefault({ reply: m.reply });
    fake.script(bad, bad, bad, bad);
    sleeps.length = 0;
    rt = await workflowRuntime("swiss-army", { model: model(1) });
    const { run } = await rt.engine.start("swiss-army", { request });
    const err = await rt.engine.waitFor(run.id, (r) => r.state[0] === "ERROR", 30_000);
    expect(err.status).toBe("waiting");
    const c = err.context as SwissContext;
    expect(c.error).toMatchObject({ state: "REQUEST_RECEIVED", category: "recoverable", model_error: "LLM" });
    expect(c.last).toBeNull(); // the cycle is not over: it waits for a person
    expect(sleeps).toHaveLength(1); // one retry with backoff
    expect(fake.requests.filter((r) => r.method === "POST")).toHaveLength(4); // (request + repair) × 2
    const review = (await rt.store.listReviews({ runId: run.id, status: "pending" }))[0]!;
    expect(review.prompt).toMatch(/stopped in REQUEST_RECEIVED/);
    expect(review.payload).toMatchObject({ kind: "intervention" });
    await rt.engine.decide(review.id, { decision: "retry", reviewer: "ana" });
    const r = await rt.engine.waitFor(run.id, (x) => x.state[0] === "HUMAN_REVIEW", 30_000);
    const done = r.context as SwissContext;
    expect(done.error).toBeNull();
    // the retried analysis and the output are the model's
    expect(done.records.request?.metadata.intent).toMatch(/^model#\d+/);
    expect(done.output).toMatch(/^model#\d+ .*This is the model's answer/);
    const reasons = (await rt.store.transitions(run.id)).map((t) => t.reason);
    expect(reasons).toContain("Model error after retries: ask a person");
    expect(reasons).toContain("Retry REQUEST_RECEIVED");
  }, 60_000);

  it("an endpoint down at EXECUTING: a person aborts, the cycle ends aborted with the model error and keeps the run alive", async () => {
    const m = schemaModel();
    fake.setDefault({ reply: m.reply });
    rt = await workflowRuntime("swiss-army", { model: model(1) });
    // the analysis answers; every later POST (the streamed execution and its retry) is a 503
    fake.script({ reply: m.reply }, { status: 503, message: "overloaded" }, { status: 503, message: "overloaded" }, { status: 503, message: "overloaded" }, { status: 503, message: "overloaded" });
    const { run } = await rt.engine.start("swiss-army", { request });
    const err = await rt.engine.waitFor(run.id, (r) => r.state[0] === "ERROR", 30_000);
    expect((err.context as SwissContext).error).toMatchObject({ state: "EXECUTING", model_error: "LLM", message: expect.stringMatching(/overloaded/) });
    const review = (await rt.store.listReviews({ runId: run.id, status: "pending" }))[0]!;
    await rt.engine.decide(review.id, { decision: "abort" });
    const idle = await rt.engine.waitFor(run.id, (r) => r.state[0] === "IDLE" && !!(r.context as SwissContext).last, 30_000);
    expect(idle.status).toBe("waiting"); // back in IDLE for the next request, not a failed run
    const last = (idle.context as SwissContext).last!;
    expect(last.outcome).toBe("aborted");
    expect(last.error?.message).toMatch(/model error in EXECUTING/);
  }, 60_000);
});

describe("deep-research with a model", () => {
  const plan = (_g: unknown, prompt: string) => {
    const topic = /Topic: (.*)/.exec(prompt)?.[1] ?? "topic";
    return {
      topic,
      dimensions: ["model dimension"],
      tasks: [
        { id: "P1", type: "Planning", description: "model decomposition", status: "PENDING", dependsOn: [], query: topic },
        { id: "S1", type: "Search", description: "model search", status: "BLOCKED", dependsOn: ["P1"], query: "durable workflow recovery", dimension: "model dimension", critical: true },
        { id: "R1", type: "Read", description: "model read", status: "BLOCKED", dependsOn: ["S1"], query: "workflow runs restart recover", dimension: "model dimension" },
      ],
      estimatedIterations: 3,
    };
  };

  it("the planner, search and read sub-agents, the conflict judge, the reflector and the writer are the model", async () => {
    const m = schemaModel({ research_plan: plan });
    fake.setDefault({ reply: m.reply });
    rt = await workflowRuntime("deep-research", { model: model(), clock: new ManualClock(Date.parse("2026-11-23T09:00:00Z")) });
    const { run } = await rt.engine.start("deep-research", { topic: "How do durable workflow engines recover from crashes?", config: { checkinEvery: 0, maxReflections: 1 } });
    const w = await rt.engine.waitFor(run.id, settled, 30_000);
    expect(w.state).toEqual(["PLANNING.approval"]);
    await rt.engine.decide(w.reviewId!, { decision: "approve" });
    const done = await rt.engine.waitFor(run.id, settled, 60_000);
    expect(done.state).toEqual(["COMPLETED"]);
    const c = done.context as ResearchContext;
    const made = await calls(run.id);
    const by = (purpose: string) => made.filter((x) => x.purpose === purpose).map((x) => x.state.split(".")[0]);
    expect(by("plan")).toEqual(["PLANNING"]);
    expect(by("search-queries").every((s) => s === "RESEARCHING")).toBe(true);
    expect(by("search-queries").length).toBeGreaterThanOrEqual(2); // S1, and the gap's search task
    expect(by("read")).toEqual(["RESEARCHING"]);
    expect(by("judge-conflict").length).toBeGreaterThanOrEqual(1);
    // round 1 finds the model's gap and conflict; round 2 is the last allowed (maxReflections 1)
    expect(by("reflect")).toEqual(["REFLECTING", "REFLECTING"]);
    expect(by("synthesize")).toEqual(["SYNTHESIZING"]);
    // the model's facts (Fact-NNN with its confidence and source), and its report
    expect(c.facts.length).toBeGreaterThan(0);
    expect(c.facts.every((f) => /^model#\d+/.test(f.statement) && /^S\d{2}$/.test(f.source) && /^Fact-\d{3}$/.test(f.id))).toBe(true);
    expect(c.tasks.some((t) => t.type === "Conflict" && t.status === "COMPLETED")).toBe(true);
    expect(c.reflections[0]!.notes).toMatch(/^model#/);
    expect(c.report).toMatch(/^model#\d+ .*\[S01\]/);
    expect(c.reportAdapter).toBe("schema-1 @ endpoint 1");
    expect(c.tokens).toBeGreaterThan(0);
  }, 90_000);
});

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
      const c = done.context as import("../workflows/processing-modes/types").ModesContext;
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
    const c = done.context as import("../workflows/processing-modes/types").ModesContext;
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
    const c = done.context as import("../workflows/processing-modes/types").ModesContext;
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
    const c = done.context as import("../workflows/processing-modes/types").ModesContext;
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

describe("conversation with a model", () => {
  it("the conversation has no model step: stage detection is keyword scoring, and no call is made even with an endpoint", async () => {
    fake.setDefault({ reply: schemaModel().reply });
    rt = await workflowRuntime("conversation", { model: model(), seedGuide: false });
    const { run } = await rt.engine.start("conversation", { task: "Fix the failing login test" });
    await rt.engine.send(run.id, { type: "MESSAGE", text: "I will read the files and examine the tests first" });
    await rt.engine.send(run.id, { type: "MESSAGE", text: "Now implement the change and fix the bug" });
    const r = await rt.engine.getRun(run.id);
    expect(r.state.length).toBeGreaterThan(0);
    expect(await calls(run.id)).toEqual([]);
    expect(fake.requests).toEqual([]);
  }, 60_000);
});
