// domain-agent with a model endpoint configured: the model does the thinking wherever the seed puts an
// LLM. A local OpenAI-compatible server answers each structured-output request with an object
// generated from the request's JSON Schema (test/support/schema-model): which states called the
// model, and that its words reach the result.
import { describe, expect, it } from "vitest";
import type { RunView } from "../../../lib/engine/views";
import type { Runtime } from "../../../lib/runtime";
import { workflowRuntime } from "../../../test/helpers";
import { modelHarness } from "../../../test/support/model-harness";
import { schemaModel } from "../../../test/support/schema-model";
import type { AgentContext } from "../types";

let rt: Runtime | null = null;
const { fake, sleeps, model, calls } = modelHarness(
  () => rt,
  async () => {
    await rt?.close();
    rt = null;
  },
);
const settled = (r: RunView) => r.status !== "running";

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
