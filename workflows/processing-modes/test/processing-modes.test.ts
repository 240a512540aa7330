// Processing-modes (workflows/processing-modes/guide.md) through the real engine on SQLite: the request lifecycle (RouteRequest → CheckRuntime
// → ModelRuntime | AgentRuntime → RecordMetrics), each mode's own states, the System 1 response
// cache (hit, miss, expiry, flag off, System 2 bypass), the router, the sandboxed CODE mode,
// DEEP_RESEARCH's own states, retry_with_backoff by error class, and the ERROR review.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../../lib/engine/clock";
import type { RunView } from "../../../lib/engine/views";
import { cacheKey } from "../effects/cache";
import { classifyMode } from "../effects/router";
import { offlineStage } from "../effects/thinking";
import { modeMetrics } from "../mode-metrics";
import { THINKING_STAGES, type ModesContext } from "../types";
import { flush, workflowRuntime, type Overrides, type RuntimeOverrides } from "../../../test/helpers";
import { EffectError } from "../../../lib/engine/effect-error";

let rt: Awaited<ReturnType<typeof workflowRuntime>> | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
});

function modesRuntime(opts: RuntimeOverrides = {}) {
  return workflowRuntime("processing-modes", { clock: new ManualClock(Date.parse("2026-11-23T09:00:00Z")), ...opts });
}

const settled = (r: RunView) => r.status !== "running";
const ctxOf = (r: RunView) => r.context as ModesContext;

async function run(input: Record<string, unknown>, actors?: Overrides) {
  rt ??= await modesRuntime({ actors });
  const { run } = await rt.engine.start("processing-modes", input);
  return rt.engine.waitFor(run.id, settled, 20_000);
}

async function visited(runId: string): Promise<string[]> {
  return (await rt!.store.transitions(runId)).flatMap((t) => t.to);
}

async function path(runId: string): Promise<string[]> {
  return (await rt!.store.transitions(runId)).map((t) => `${t.from.join(",") || "*"}>${t.to.join(",")}: ${t.reason}`);
}

describe("processing-modes: the request lifecycle and the System 1 cache", () => {
  it("CHAT: RouteRequest → CheckRuntime → ModelRuntime (CacheCheck miss → BuildPrompt → CallLLM → CachePut) → RecordMetrics → Done", async () => {
    const r = await run({ query: "hello, how do reviews work?", mode: "CHAT" });
    expect(r.status).toBe("completed");
    expect(await visited(r.id)).toEqual([
      "RouteRequest",
      "CheckRuntime",
      "ModelRuntime.CacheCheck",
      "ModelRuntime.ProcessorExec.SelectProcessor",
      "ModelRuntime.ProcessorExec.CHAT.BuildPrompt",
      "ModelRuntime.ProcessorExec.CHAT.CallLLM",
      "ModelRuntime.ProcessorExec.CHAT.ReturnResult",
      "ModelRuntime.ProcessorExec.Processed",
      "ModelRuntime.CachePut",
      "ModelRuntime.Completed",
      "RecordMetrics",
      "Done",
    ]);
    const c = ctxOf(r);
    expect(c.routing).toMatchObject({ mode: "CHAT", level: "System 1", runtime: "ModelRuntime", routedBy: "explicit", confidence: 1 });
    expect(c.cache).toMatchObject({ status: "miss", key: cacheKey("CHAT", "hello, how do reviews work?") });
    expect(c.prompt).toMatch(/^System: .*\nUser: hello, how do reviews work\?$/);
    expect(c.result?.adapter).toBe("offline engine");
    // the offline engine answered: that is not an LLM call
    expect(c.metrics).toMatchObject({ mode: "CHAT", llmCalls: 0, cacheHit: false, ok: true, errorCategory: null });
  });

  it("the same System 1 request again is a cache HIT (no model call), until the TTL passes", async () => {
    rt = await modesRuntime();
    const first = await run({ query: "What does the review queue show?", mode: "KNOWLEDGE" });
    const second = await run({ query: "What does the review queue show?", mode: "KNOWLEDGE" });
    expect(await visited(second.id)).toEqual(["RouteRequest", "CheckRuntime", "ModelRuntime.CacheCheck", "ModelRuntime.CacheHit", "RecordMetrics", "Done"]);
    expect(ctxOf(second).result).toEqual({ ...ctxOf(first).result, cached: true });
    expect(ctxOf(second).metrics).toMatchObject({ cacheHit: true, llmCalls: 0 });
    // 300 s later the entry has expired: a miss, processed and stored again
    rt.clock.advance(300_001);
    const third = await run({ query: "What does the review queue show?", mode: "KNOWLEDGE" });
    expect(ctxOf(third).cache?.status).toBe("miss");
    expect(await visited(third.id)).toContain("ModelRuntime.CachePut");
    expect(await rt.db.responseCache.count()).toBe(1);
    // a different mode is a different key
    const chat = await run({ query: "What does the review queue show?", mode: "CHAT" });
    expect(ctxOf(chat).cache?.status).toBe("miss");
    // RecordMetrics, per mode
    const m = await modeMetrics(rt.db);
    expect(m.find((x) => x.mode === "KNOWLEDGE")).toMatchObject({ requests: 3, cacheHitRate: 0.333, errors: 0 });
    expect(m.find((x) => x.mode === "KNOWLEDGE")!.avgLlmCalls).toBe(0);
    expect(m.find((x) => x.mode === "CHAT")).toMatchObject({ requests: 1, cacheHitRate: 0 });
    expect(m.find((x) => x.mode === "THINKING")).toMatchObject({ requests: 0, cacheHitRate: null });
  });

  it("system1.enable_cache off: CHAT skips the cache (disabled) and stores nothing", async () => {
    rt = await modesRuntime({ env: { SWITCHYARD_SYSTEM1_CACHE: "off" } as unknown as NodeJS.ProcessEnv });
    const { startRun } = await import("../../../lib/api/runs");
    const a = await startRun(rt, "processing-modes", { query: "hi there", mode: "CHAT" });
    const r = await rt.engine.waitFor(a.id, settled);
    expect(ctxOf(r).config.enableCache).toBe(false);
    expect(ctxOf(r).cache?.status).toBe("disabled");
    expect(await visited(r.id)).not.toContain("ModelRuntime.CachePut");
    expect(await rt.db.responseCache.count()).toBe(0);
  });

  it("System 2 (THINKING) bypasses the cache and stores each of the five stages", async () => {
    const q = "Should we shard the database now, or add read replicas first?";
    const r = await run({ query: q, mode: "THINKING" });
    expect(ctxOf(r).cache?.status).toBe("bypassed");
    const v = await visited(r.id);
    expect(v.filter((s) => s.includes(".THINKING."))).toEqual([...THINKING_STAGES.map((s) => `ModelRuntime.ProcessorExec.THINKING.${s}`), "ModelRuntime.ProcessorExec.THINKING.Answered"]);
    expect(v).not.toContain("ModelRuntime.CachePut");
    const c = ctxOf(r);
    expect(c.stages.map((s) => s.stage)).toEqual([...THINKING_STAGES]);
    expect(c.stages[0]!.text).toMatch(/The request asks for a decision \(should\)/);
    expect(c.result?.text).toMatch(/\*\*Question:\*\* Should we shard/);
    // offline, no stage called a model: no LLM calls, no tokens; each stage is one offline answer, one offline row
    expect(c.metrics?.llmCalls).toBe(0);
    const rows = await rt!.db.modelCall.findMany({ where: { runId: r.id } });
    expect(rows.filter((x) => x.purpose.startsWith("thinking")).map((x) => [x.adapter, x.promptTokens + x.completionTokens])).toEqual(c.stages.map(() => ["offline engine", 0]));
    expect(rows.every((x) => x.adapter === "offline engine")).toBe(true);
    expect(c.stages.every((s) => s.adapter === "offline engine")).toBe(true);
    // a second identical request is processed again (no cache for System 2)
    const again = await run({ query: q, mode: "THINKING" });
    expect(ctxOf(again).cache?.status).toBe("bypassed");
  });

  it("offline THINKING quotes a stored passage only when it shares the request's key terms", () => {
    const p = (text: string) => ({ id: "kb:1", title: "Guide", url: "docs/guide/x.md", text, score: 1, via: "knowledge store" });
    const q = "Should we shard the database or add read replicas?";
    expect(offlineStage("DeepReasoning", q, [], [p("On first use, the store imports the guide. Read it first.")])).toMatch(/No stored document speaks to these terms/);
    expect(offlineStage("DeepReasoning", q, [], [p("Read replicas take load off the primary database before you shard.")])).toMatch(/\[1\] Read replicas take load off the primary database/);
  });

  it("KNOWLEDGE: embeddings (BM25 terms offline) → top-k passages from the knowledge store → a grounded answer citing them", async () => {
    const r = await run({ query: "How does Switchyard resume runs after a restart?", mode: "KNOWLEDGE" });
    const c = ctxOf(r);
    expect(c.embedding).toMatchObject({ adapter: "BM25 terms (no embeddings endpoint)", dims: 0 });
    expect(c.embedding?.terms).toEqual(expect.arrayContaining(["resume", "restart"]));
    expect(c.passages.length).toBeGreaterThan(0);
    expect(c.passages[0]!.url).toMatch(/^docs\/guide\//);
    expect(c.result?.citations.length).toBeGreaterThan(0);
    expect(c.result?.text).toMatch(/What the sources say:/);
    expect(c.result?.citations.every((x) => c.passages.some((p) => p.id === x.id))).toBe(true);
  });
});

describe("processing-modes: SEARCH runs its queries concurrently", () => {
  let inFlight = 0;
  let maxInFlight = 0;
  const seen: string[] = [];
  let base = "";
  const server = http.createServer((req, res) => {
    const q = new URL(req.url!, "http://x").searchParams.get("q") ?? "";
    seen.push(q);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    setTimeout(() => {
      inFlight--;
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ results: [{ url: `https://ex.example/${seen.length}`, title: `Result for ${q}`, content: `About ${q}: replicas serve reads while the primary takes writes.`, score: 1 }] }));
    }, 150);
  });
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("GenerateSearchQueries (2–3) → ExecuteSearches (at once) → SynthesizeResults → CallLLM", async () => {
    rt = await modesRuntime({ env: { SWITCHYARD_SEARCH_URL: base } as unknown as NodeJS.ProcessEnv });
    const r = await run({ query: "latest news on PostgreSQL read replicas lag", mode: "SEARCH" });
    const c = ctxOf(r);
    expect(c.searches.length).toBeGreaterThanOrEqual(2);
    expect(c.searches.length).toBeLessThanOrEqual(3);
    expect(seen).toEqual(expect.arrayContaining(c.searches.map((s) => s.query)));
    expect(maxInFlight).toBe(c.searches.length);
    expect(c.searches.every((s) => s.results === 1 && s.via === "web (searxng)")).toBe(true);
    expect(c.passages.map((p) => p.url).sort()).toEqual(c.passages.map((p) => p.url).sort());
    expect(c.result?.citations.length).toBeGreaterThan(0);
    expect(await visited(r.id)).toEqual(expect.arrayContaining(["ModelRuntime.ProcessorExec.SEARCH.GenerateSearchQueries", "ModelRuntime.ProcessorExec.SEARCH.ExecuteSearches", "ModelRuntime.ProcessorExec.SEARCH.SynthesizeResults", "ModelRuntime.ProcessorExec.SEARCH.CallLLM"]));
    expect(c.cache?.status).toBe("bypassed");
  });
});

describe("processing-modes: the router", () => {
  it.each([
    ["Run this:\n```js\n[1,2,3].map(x => x * 2)\n```", "CODE"],
    ["Write a python script to compute primes", "CODE"],
    ["Do deep research and write a comprehensive report on vector databases", "DEEP_RESEARCH"],
    ["Search the latest news about WebAssembly", "SEARCH"],
    ["Think step by step: should we rewrite the service, pros and cons?", "THINKING"],
    ["hello there, thanks!", "CHAT"],
    ["According to the Switchyard documentation, what does the review queue do?", "KNOWLEDGE"],
  ])("%j → %s", (query, mode) => {
    expect(classifyMode(query, 0).mode).toBe(mode);
  });

  it("records a classified routing decision with its confidence when no mode is given", async () => {
    const r = await run({ query: "Search the latest news about WebAssembly" });
    expect(ctxOf(r).routing).toMatchObject({ mode: "SEARCH", level: "System 2", routedBy: "classified", adapter: "offline engine" });
    expect(ctxOf(r).routing!.confidence).toBeGreaterThan(0.5);
    expect(ctxOf(r).routing!.reason).toMatch(/search/);
  });

  it("an unknown mode is refused with the list of modes", async () => {
    rt = await modesRuntime();
    await expect(rt.engine.start("processing-modes", { query: "x", mode: "DANCE" })).rejects.toThrow(/mode must be one of CHAT, KNOWLEDGE, SEARCH, CODE, THINKING, DEEP_RESEARCH/);
  });
});

describe("processing-modes: CODE in the sandbox", () => {
  it("a code block in the request runs: FormatSuccess with stdout and the return value", async () => {
    const r = await run({ query: "Run this:\n```js\nconsole.log('squares');\n[1, 2, 3].map((x) => x * x)\n```", mode: "CODE" });
    const c = ctxOf(r);
    expect(c.code).toMatchObject({ language: "javascript", source: "request" });
    expect(c.execution).toMatchObject({ ok: true, exitCode: 0, stdout: "squares\n", returnValue: [1, 4, 9] });
    expect(await visited(r.id)).toContain("ModelRuntime.ProcessorExec.CODE.FormatSuccess");
    expect(c.result?.text).toMatch(/exit 0/);
    expect(r.status).toBe("completed");
  });

  it("a throwing program: FormatError with stderr and the message; an endless loop is stopped by the timeout", async () => {
    rt = await modesRuntime();
    const bad = await run({ query: "```js\nthrow new Error('boom')\n```", mode: "CODE" });
    expect(await visited(bad.id)).toContain("ModelRuntime.ProcessorExec.CODE.FormatError");
    expect(ctxOf(bad).execution).toMatchObject({ ok: false, exitCode: 1 });
    expect(ctxOf(bad).result?.text).toMatch(/boom/);
    const loop = await run({ query: "```js\nwhile (true) {}\n```", mode: "CODE", config: { codeTimeoutMs: 300 } });
    expect(ctxOf(loop).execution).toMatchObject({ ok: false, exitCode: 124 });
    expect(ctxOf(loop).execution?.error?.kind).toBe("timeout");
    expect(loop.status).toBe("completed");
  });

  it("a program that throws a 50 MB message ends in FormatError; the process running the engine lives", async () => {
    rt = await modesRuntime();
    const r = await run({ query: "```js\nthrow new Error('A'.repeat(5e7))\n```", mode: "CODE", config: { codeMemoryMb: 256 } });
    expect(await visited(r.id)).toContain("ModelRuntime.ProcessorExec.CODE.FormatError");
    expect(ctxOf(r).execution).toMatchObject({ ok: false, exitCode: 1, truncated: true });
    expect(ctxOf(r).execution?.error?.message).toMatch(/^Error: A{4096}… \(49995904 more characters\)$/);
    expect(r.status).toBe("completed");
  });

  it("offline, without a code block, the request fails with a BUSINESS error that says what to do", async () => {
    const r = await run({ query: "write code that sorts a list", mode: "CODE" });
    expect(r.status).toBe("failed");
    expect(ctxOf(r).error).toMatchObject({ state: "CODE.GenerateCode", category: "BUSINESS" });
    expect(ctxOf(r).error?.message).toMatch(/```js/);
    expect(ctxOf(r).metrics).toMatchObject({ ok: false, errorCategory: "BUSINESS" });
    expect(await visited(r.id)).toEqual(expect.arrayContaining(["RecordMetrics", "Failed"]));
  });
});

describe("processing-modes: AgentRuntime (DEEP_RESEARCH's own states)", () => {
  const SEED_STATES = [
    "AgentRuntime.WorkflowInit.InitWorkflow",
    "AgentRuntime.RetryableExec.RetryBoundary.WriteReportPlan",
    "AgentRuntime.RetryableExec.RetryBoundary.GenerateSearchQueries",
    "AgentRuntime.RetryableExec.RetryBoundary.ExecuteSearchTasks.SearchTask",
    "AgentRuntime.RetryableExec.RetryBoundary.ExecuteSearchTasks.ProcessResult",
    "AgentRuntime.RetryableExec.RetryBoundary.WriteFinalReport",
    "AgentRuntime.WorkflowComplete",
  ];

  it("offline: InitWorkflow → RetryBoundary { WriteReportPlan → GenerateSearchQueries → ExecuteSearchTasks { SearchTask ⇄ ProcessResult } → WriteFinalReport } → WorkflowComplete, no model call", async () => {
    const r = await run({ query: "How does Switchyard resume runs after a restart?", mode: "DEEP_RESEARCH" });
    expect(r.status).toBe("completed");
    const states = await visited(r.id);
    // each of the seed's states is entered, in the seed's order
    const firsts = SEED_STATES.map((s) => states.indexOf(s));
    expect(firsts.every((i) => i >= 0), JSON.stringify(states)).toBe(true);
    expect([...firsts].sort((x, y) => x - y)).toEqual(firsts);
    const c = ctxOf(r);
    const tasks = c.research!.tasks;
    expect(tasks.length).toBeGreaterThanOrEqual(2);
    // SearchTask ⇄ ProcessResult: once per task, and "Next task" between them
    expect(states.filter((s) => s.endsWith(".SearchTask"))).toHaveLength(tasks.length);
    expect(states.filter((s) => s.endsWith(".ProcessResult"))).toHaveLength(tasks.length);
    expect((await path(r.id)).filter((x) => x.endsWith(": Next task"))).toHaveLength(tasks.length - 1);
    // the seed's intermediate_results["workflow_state"], steps [plan, search, synthesize]
    expect(c.workflow).toMatchObject({ steps: ["plan", "search", "synthesize"], status: "completed", completed: ["plan", "search", "synthesize"], attempts: 1, errors: [] });
    const output = (await rt!.engine.getRun(r.id)).output as { intermediate_results: { workflow_state: unknown } };
    expect(output.intermediate_results.workflow_state).toMatchObject({ steps: ["plan", "search", "synthesize"], status: "completed" });
    // the report cites the registry's sources as [S01] … and says the offline engine assembled it
    expect(c.result?.text).toMatch(/^# /);
    expect(c.result?.text).toContain("Assembled by the offline engine");
    expect(c.result?.text).toMatch(/\[S0\d\]/);
    expect(c.result?.adapter).toBe("offline engine");
    expect(c.result?.citations.length).toBeGreaterThan(0);
    expect(c.research!.sources.every((s, i) => s.id === `S${String(i + 1).padStart(2, "0")}`)).toBe(true);
    // offline: no call claims to be a model's (the plan, tasks, summaries and report are offline rows)
    expect(c.metrics?.llmCalls).toBe(0);
    expect(await rt!.db.modelCall.count({ where: { runId: r.id, adapter: { not: "offline engine" } } })).toBe(0);
    expect(await rt!.db.modelCall.count({ where: { runId: r.id, purpose: "final-report" } })).toBe(1);
  });

  it("the WorkflowState's current step is lit as the run goes: plan, search, synthesize", async () => {
    const seen: string[] = [];
    rt = await modesRuntime();
    const { run: r } = await rt.engine.start("processing-modes", { query: "research durable timers in workflow engines", mode: "DEEP_RESEARCH" });
    rt.engine.bus.subscribe(r.id, (m) => {
      if (m.type !== "run") return;
      const cur = (m.run.context as ModesContext).workflow?.current;
      if (cur && seen.at(-1) !== cur) seen.push(cur);
    });
    const done = await rt.engine.waitFor(r.id, settled, 20_000);
    expect(done.status).toBe("completed");
    expect(seen).toEqual(["plan", "search", "synthesize"]);
  });

  const failing = (categories: string[]) => {
    let i = 0;
    return async () => {
      const category = categories[i++];
      if (category) throw new EffectError(`attempt ${i} failed (${category})`, { category });
      return { title: "Plan", sections: [{ heading: "One", covers: "durable timers" }, { heading: "Two", covers: "recovery" }], adapter: "test" };
    };
  };

  it("retry_with_backoff: NETWORK and LLM errors take ErrorClassify → RetryableExec after 1 s then 2 s, and the third attempt succeeds", async () => {
    rt = await modesRuntime({ actors: { writeReportPlan: failing(["NETWORK", "LLM"]) } });
    const { run: r } = await rt.engine.start("processing-modes", { query: "research durable timers", mode: "DEEP_RESEARCH" });
    let v = await rt.engine.waitFor(r.id, (x) => x.state.includes("AgentRuntime.ErrorClassify.ErrorHandling"));
    expect(ctxOf(v).workflow?.errors).toEqual([{ attempt: 1, category: "NETWORK", message: "attempt 1 failed (NETWORK)" }]);
    rt.clock.advance(999);
    await flush();
    expect((await rt.engine.getRun(r.id)).state).toEqual(["AgentRuntime.ErrorClassify.ErrorHandling"]);
    rt.clock.advance(1);
    v = await rt.engine.waitFor(r.id, (x) => x.state.includes("AgentRuntime.ErrorClassify.ErrorHandling") && ctxOf(x).workflow!.attempts === 2);
    rt.clock.advance(1_999);
    await flush();
    expect((await rt.engine.getRun(r.id)).state).toEqual(["AgentRuntime.ErrorClassify.ErrorHandling"]);
    rt.clock.advance(1);
    const done = await rt.engine.waitFor(r.id, settled, 20_000);
    expect(done.status).toBe("completed");
    expect(ctxOf(done).workflow).toMatchObject({ status: "completed", attempts: 3 });
    expect(ctxOf(done).workflow?.errors.map((e) => e.category)).toEqual(["NETWORK", "LLM"]);
    // the seed's edge: ErrorClassify → RetryableExec, its delay the backoff
    const retries = (await rt.store.transitions(r.id)).filter((t) => t.reason === "Retryable (network/LLM): retried after the backoff");
    expect(retries).toHaveLength(2);
    expect(retries.every((t) => t.from.join() === "AgentRuntime.ErrorClassify.ErrorHandling" && t.to.join() === "AgentRuntime.RetryableExec.RetryBoundary.WriteReportPlan")).toBe(true);
    // the run row counts its retries as they commit (the runs list's "retrying" filter reads it)
    expect((await rt.store.getRun(r.id))!.retries).toBe(2);
  });

  it.each(["BUSINESS", "RESOURCE_LIMIT", "UNKNOWN"])("a %s error is not retried: ErrorHandling → WorkflowFailed with the category recorded", async (category) => {
    rt = await modesRuntime({ actors: { writeReportPlan: failing([category]) } });
    const { run: r } = await rt.engine.start("processing-modes", { query: "research durable timers", mode: "DEEP_RESEARCH" });
    const done = await rt.engine.waitFor(r.id, settled);
    expect(done.status).toBe("failed");
    expect(await visited(r.id)).toEqual(expect.arrayContaining(["AgentRuntime.ErrorClassify.ErrorHandling", "AgentRuntime.WorkflowFailed", "RecordMetrics", "Failed"]));
    expect(ctxOf(done).workflow).toMatchObject({ status: "failed", attempts: 1 });
    expect(ctxOf(done).error).toMatchObject({ category });
    expect(ctxOf(done).metrics).toMatchObject({ ok: false, errorCategory: category });
    const row = await rt.db.modeRequest.findUnique({ where: { id: r.id } });
    expect(row).toMatchObject({ mode: "DEEP_RESEARCH", level: "Agent", ok: false, errorCategory: category });
  });

  it("after max_retries=2 a third model error asks a person, whose retry runs the boundary again", async () => {
    rt = await modesRuntime({ actors: { writeReportPlan: failing(["NETWORK", "NETWORK", "LLM", "LLM"]) } });
    const start = async () => {
      const { run: r } = await rt!.engine.start("processing-modes", { query: "research durable timers", mode: "DEEP_RESEARCH" });
      for (let i = 1; i <= 2; i++) {
        await rt!.engine.waitFor(r.id, (x) => x.state.includes("AgentRuntime.ErrorClassify.ErrorHandling") && ctxOf(x).workflow!.attempts === i);
        rt!.clock.advance(1_000 * 2 ** (i - 1));
      }
      return rt!.engine.waitFor(r.id, (x) => x.state[0] === "ERROR");
    };
    const w = await start();
    expect(w.status).toBe("waiting");
    expect(ctxOf(w).error).toMatchObject({ category: "LLM", retry: "AgentRuntime.RetryableExec" });
    const review = (await rt.store.listReviews({ runId: w.id, status: "pending" }))[0]!;
    expect(review.prompt).toMatch(/DEEP_RESEARCH request stopped in AgentRuntime.RetryableExec/);
    // the 4th attempt fails too (LLM): straight back to the person, no more automatic retries
    await rt.engine.decide(review.id, { decision: "retry" });
    const again = await rt.engine.waitFor(w.id, (x) => x.state[0] === "ERROR" && ctxOf(x).workflow!.attempts === 4);
    const review2 = (await rt.store.listReviews({ runId: w.id, status: "pending" }))[0]!;
    await rt.engine.decide(review2.id, { decision: "retry" });
    const done = await rt.engine.waitFor(again.id, settled, 20_000);
    expect(done.status).toBe("completed");
    expect(ctxOf(done).workflow).toMatchObject({ status: "completed", attempts: 5 });
  });

  it("a person aborts after the model error: the request fails, the WorkflowState says failed, the metrics record the category", async () => {
    rt = await modesRuntime({ actors: { writeReportPlan: failing(["LLM", "LLM", "LLM"]) } });
    const { run: r } = await rt.engine.start("processing-modes", { query: "research durable timers", mode: "DEEP_RESEARCH", config: { maxRetries: 0 } });
    const w = await rt.engine.waitFor(r.id, (x) => x.state[0] === "ERROR");
    const review = (await rt.store.listReviews({ runId: r.id, status: "pending" }))[0]!;
    await rt.engine.decide(review.id, { decision: "abort", feedback: "not worth it" });
    const done = await rt.engine.waitFor(w.id, settled);
    expect(done.status).toBe("failed");
    expect(ctxOf(done).workflow).toMatchObject({ status: "failed", attempts: 1 });
    expect(ctxOf(done).error?.message).toMatch(/not worth it/);
    expect(ctxOf(done).metrics).toMatchObject({ ok: false, errorCategory: "LLM" });
  });
});

describe("processing-modes: a model error in a ModelRuntime processor", () => {
  it("waits in ERROR; retry runs the step again and the request completes", async () => {
    let calls = 0;
    const chat = async () => {
      calls++;
      if (calls === 1) throw new EffectError("endpoint 1: invalid_output after retries", { category: "LLM" });
      return { text: "second time lucky", adapter: "test", citations: [], cached: false };
    };
    rt = await modesRuntime({ actors: { chat } });
    const { run: r } = await rt.engine.start("processing-modes", { query: "hello there", mode: "CHAT" });
    const w = await rt.engine.waitFor(r.id, (x) => x.state[0] === "ERROR");
    expect(ctxOf(w).error).toMatchObject({ state: "CHAT.CallLLM", category: "LLM", retry: "ModelRuntime.ProcessorExec.CHAT" });
    const review = (await rt.store.listReviews({ runId: r.id, status: "pending" }))[0]!;
    await rt.engine.decide(review.id, { decision: "retry" });
    const done = await rt.engine.waitFor(r.id, settled);
    expect(done.status).toBe("completed");
    expect(ctxOf(done).result?.text).toBe("second time lucky");
  });

  it("THINKING retries the stage that failed, keeping the stages before it", async () => {
    let failed = false;
    const think = async (input: { stage: string }) => {
      if (input.stage === "DeepReasoning" && !failed) {
        failed = true;
        throw new EffectError("503 overloaded", { category: "NETWORK" });
      }
      return { stage: input.stage, text: `${input.stage} text`, adapter: "test" };
    };
    rt = await modesRuntime({ actors: { think } });
    const { run: r } = await rt.engine.start("processing-modes", { query: "should we shard now?", mode: "THINKING" });
    await rt.engine.waitFor(r.id, (x) => x.state[0] === "ERROR");
    const review = (await rt.store.listReviews({ runId: r.id, status: "pending" }))[0]!;
    await rt.engine.decide(review.id, { decision: "retry" });
    const done = await rt.engine.waitFor(r.id, settled);
    expect(done.status).toBe("completed");
    expect(ctxOf(done).stages.map((s) => s.stage)).toEqual([...THINKING_STAGES]);
  });
});
