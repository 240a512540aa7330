// swiss-army with a model endpoint configured: the model does the thinking wherever the seed puts an
// LLM. A local OpenAI-compatible server answers each structured-output request with an object
// generated from the request's JSON Schema (test/support/schema-model): which states called the
// model, and that its words reach the result.
import { describe, expect, it } from "vitest";
import type { Runtime } from "../../../lib/runtime";
import { workflowRuntime } from "../../../test/helpers";
import { modelHarness } from "../../../test/support/model-harness";
import { schemaModel } from "../../../test/support/schema-model";
import type { SwissContext } from "../types";

let rt: Runtime | null = null;
const { fake, sleeps, model, calls } = modelHarness(
  () => rt,
  async () => {
    await rt?.close();
    rt = null;
  },
);

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
