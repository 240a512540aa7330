// AgentRuntime's retry_with_backoff against the local OpenAI-compatible protocol server: the
// model endpoint fails DEEP_RESEARCH's WriteReportPlan with a server error (classified LLM:
// retried after the 1 s backoff, ErrorClassify → RetryableExec), then with a context-length error
// (not retryable: the request fails at once with that category). Plus CODE with a Python block, on the offline engine.
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../lib/engine/clock";
import type { ModesContext } from "../types";
import type { Runtime } from "../../../lib/runtime";
import { flush, workflowRuntime } from "../../../test/helpers";
import { fakeModel, useFakeOpenAi } from "../../../test/support/fake-openai";

let rt: (Runtime & { clock: ManualClock }) | null = null;
const fake = useFakeOpenAi({
  afterEach: async () => {
    await rt?.close();
    rt = null;
  },
});

const model = () => fakeModel(fake);
const ctxOf = (r: { context: unknown }) => r.context as ModesContext;

describe("processing-modes AgentRuntime on a failing model endpoint", () => {
  it("an LLM error is retried with backoff (ErrorClassify → RetryableExec, the boundary from WriteReportPlan); a context-length error is not", async () => {
    fake.setDefault({ status: 500, message: "upstream exploded" });
    rt = await workflowRuntime("processing-modes", { model: model(), clock: new ManualClock(Date.parse("2026-11-23T09:00:00Z")) });
    const { run } = await rt.engine.start("processing-modes", { query: "How do durable timers survive restarts?", mode: "DEEP_RESEARCH" });
    const waiting = await rt.engine.waitFor(run.id, (x) => x.state.includes("AgentRuntime.ErrorClassify.ErrorHandling"), 20_000);
    const first = ctxOf(waiting).workflow!.errors[0]!;
    expect(first.category).toBe("LLM");
    expect(first.message).toMatch(/500|upstream exploded/);
    // the failed call was WriteReportPlan's, made by this run (no child run)
    const failedCall = await rt.db.modelCall.findFirst({ where: { runId: run.id, ok: false } });
    expect(failedCall).toMatchObject({ purpose: "report-plan", state: "AgentRuntime.RetryableExec.RetryBoundary.WriteReportPlan" });
    expect(await rt.db.run.count({ where: { parentId: run.id } })).toBe(0);
    // the endpoint now refuses the prompt as too long: retrying cannot help
    fake.setDefault({ status: 400, message: "This model's maximum context length is 10 tokens", code: "context_length_exceeded" });
    const calls = fake.requests.length;
    rt.clock.advance(1_000);
    const done = await rt.engine.waitFor(run.id, (x) => x.status !== "running", 20_000);
    await flush();
    expect(fake.requests.length).toBeGreaterThan(calls);
    expect(done.status).toBe("failed");
    const w = ctxOf(done).workflow!;
    expect(w.attempts).toBe(2);
    expect(w.status).toBe("failed");
    expect(w.errors.map((e) => e.category)).toEqual(["LLM", "RESOURCE_LIMIT"]);
    expect(ctxOf(done).error?.category).toBe("RESOURCE_LIMIT");
    // no usage row claims a model call that was not made or not used
    expect(ctxOf(done).metrics?.llmCalls).toBe(0);
  });
});

describe("processing-modes CODE with Python", () => {
  it("a ```python block runs in Pyodide: FormatSuccess with stdout and the last expression", async () => {
    rt = await workflowRuntime("processing-modes", {});
    const { run } = await rt.engine.start("processing-modes", { query: "```python\nimport math\nprint('py ok')\nmath.factorial(5)\n```", mode: "CODE", config: { codeTimeoutMs: 20_000 } });
    const done = await rt.engine.waitFor(run.id, (x) => x.status !== "running", 60_000);
    const c = ctxOf(done);
    expect(c.code?.language).toBe("python");
    expect(c.execution).toMatchObject({ exitCode: 0, stdout: "py ok\n", returnValue: 120 });
    expect(c.execution?.engine).toMatch(/pyodide/);
  }, 90_000);
});
