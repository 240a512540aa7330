// domain-agent on an OpenAI-compatible endpoint (the local protocol server): every thinking step
// asks the model for a zod-validated object, the answer is the model's, usage is recorded per
// state; a model that keeps answering out of schema ends the run in FAILED with the reason.
import { describe, expect, it } from "vitest";
import { parseLog } from "../domains/parse";
import { saveEntries } from "../domains/store";
import { ManualClock } from "../../../lib/engine/clock";
import type { AgentContext } from "../types";
import type { Runtime } from "../../../lib/runtime";
import { workflowRuntime } from "../../../test/helpers";
import { fakeModel, useFakeOpenAi } from "../../../test/support/fake-openai";

let rt: Runtime | null = null;
const fake = useFakeOpenAi({
  afterEach: async () => {
    await rt?.close();
    rt = null;
  },
});

const TODAY = "2026-11-23";
const model = () => fakeModel(fake);
const QUESTION = "How did I sleep this week?";

describe("domain-agent on an OpenAI-compatible endpoint", () => {
  it("routes, plans, analyzes, answers, evaluates and observes through the model", async () => {
    rt = await workflowRuntime("domain-agent", { model: model(), clock: new ManualClock(Date.parse(`${TODAY}T08:00:00Z`)) });
    const entries = parseLog(["2026-11-21: slept 5 h", "2026-11-22: slept 6 h", "2026-11-14: slept 8 h"].join("\n"), { today: TODAY });
    await saveEntries(rt.db, "seed", entries, entries.map(() => null), rt.clock.now());
    fake.script(
      { reply: { inputType: "QUERY", domains: ["sleep"], confidence: 0.93, logText: "", queryText: QUESTION, corrections: [], reason: "a question about sleep" } },
      { reply: { decision: "RETRIEVE", reason: "sleep hours this week vs last", expand: null, gap: null } },
      { reply: { verdict: "SUFFICIENT", gap: null, reason: "two nights this week, one before" } },
      { reply: "You slept 5.5 h a night this week, down from 8 h [1]." },
      { reply: { verdict: "PASS", score: 0.9, reasons: ["answers with numbers and a citation"] } },
      { reply: { decision: "skip", reason: "nothing durable learned", changes: [] } },
    );
    const { run } = await rt.engine.start("domain-agent", { text: QUESTION, today: TODAY });
    const r = await rt.engine.waitFor(run.id, (x) => x.status !== "running");
    const c = r.context as AgentContext;
    expect(c.error).toBeNull();
    expect(r.status).toBe("completed");
    expect(c.route).toMatchObject({ inputType: "QUERY", confidence: 0.93, adapter: "fake-1 @ endpoint 1" });
    expect(c.plan).toMatchObject({ decision: "RETRIEVE", reason: "sleep hours this week vs last", adapter: "fake-1 @ endpoint 1" });
    // the statistics are computed, the model only judges them
    expect(c.analysis?.findings[0]?.statement).toMatch(/Sleep averaged 5\.5 h over this week \(2 values\) vs 8 h/);
    expect(c.answer).toMatchObject({ text: "You slept 5.5 h a night this week, down from 8 h [1].", adapter: "fake-1 @ endpoint 1" });
    expect(c.evaluation?.verdict).toBe("PASS");
    expect(c.observation).toMatchObject({ decision: "skip", reason: "nothing durable learned" });
    // the findings reached the model, and each call is recorded against its state
    const analyzeCall = fake.requests.filter((q) => q.path.endsWith("/chat/completions"))[2]!;
    expect(JSON.stringify(analyzeCall.body.messages)).toContain("Sleep averaged 5.5 h");
    const calls = await rt.db.modelCall.findMany({ where: { runId: run.id }, orderBy: { createdAt: "asc" } });
    expect(calls.map((x) => x.state)).toEqual(["ROUTE", "PLAN", "ANALYZE", "SYNTHESIZE", "EVALUATE", "OBSERVE"]);
  });

  it("a model that answers ROUTE out of schema (first reply and its repair, then the retry's) waits in ERROR for a person, with the reason", async () => {
    rt = await workflowRuntime("domain-agent", { model: model() });
    fake.setDefault({ reply: { inputType: "MAYBE" } });
    const { run } = await rt.engine.start("domain-agent", { text: QUESTION, today: TODAY });
    const r = await rt.engine.waitFor(run.id, (x) => x.status !== "running");
    expect(r.status).toBe("waiting");
    expect(r.state).toEqual(["ERROR"]);
    expect((r.context as AgentContext).error).toMatchObject({ state: "ROUTE", category: "LLM" });
    expect((r.context as AgentContext).error?.message).toMatch(/inputType/);
    const review = (await rt.store.listReviews({ runId: run.id, status: "pending" }))[0]!;
    expect(review.prompt).toMatch(/stopped in ROUTE/);
    // abort ends the run (what was produced is kept)
    await rt.engine.decide(review.id, { decision: "abort" });
    expect((await rt.engine.waitFor(run.id, (x) => x.status !== "running" && x.status !== "waiting")).state).toEqual(["FAILED"]);
  });
});
