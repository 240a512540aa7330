// Every model call is recorded (tokens, latency, adapter, outcome) per run and state, and a
// completed call is replayed from the journal when its effect re-runs with the same key. Each
// offline engine answer records one offline row, never journaled (lib/llm/recording.ts).
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { bindModel } from "../lib/llm/bound";
import { ModelError } from "../lib/llm/errors";
import { OfflineModel } from "../lib/llm/offline";
import { RecordingModel } from "../lib/llm/recording";
import type { GenerateRequest, ModelPort, ObjectRequest, ObjectResult } from "../lib/llm/types";
import { runUsage } from "../lib/metrics/model-usage";
import type { Runtime } from "../lib/runtime";
import { loopRuntime } from "./helpers";

let rt: Runtime | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
});

class Counting implements ModelPort {
  readonly name = "counting";
  readonly offline = false;
  calls = 0;
  fail: ModelError | null = null;
  async generate(req: GenerateRequest) {
    this.calls++;
    if (this.fail) throw this.fail;
    return { text: `answer to ${req.prompt}`, adapter: "m1 @ endpoint 1", usage: { promptTokens: 11, completionTokens: 7, estimated: false }, latencyMs: 5, citations: [], attempts: 1 };
  }
  async generateObject<T>(req: ObjectRequest<T>): Promise<ObjectResult<T>> {
    const object = z.parse(req.schema, await req.offline());
    const { purpose, prompt } = req;
    return { ...(await this.generate({ purpose, prompt })), object, text: JSON.stringify(object) };
  }
}

describe("model call journal", () => {
  it("records usage and replays a completed call with the same key instead of repeating it", async () => {
    rt = await loopRuntime();
    const inner = new Counting();
    const model = new RecordingModel(inner, rt.db, rt.clock);
    const req = { purpose: "execute", prompt: "q", runId: "r1", state: "WORK", key: "r1:execute:7" };
    const a = await model.generate(req);
    const b = await model.generate(req);
    expect(inner.calls).toBe(1);
    expect(b).toMatchObject({ text: a.text, replayed: true, usage: { promptTokens: 11, completionTokens: 7 } });
    await model.generate({ ...req, key: undefined });
    expect(inner.calls).toBe(2);
    const usage = await runUsage(rt.db, "r1");
    expect(usage.total).toMatchObject({ calls: 2, promptTokens: 22, completionTokens: 14 });
    expect(usage.byState).toEqual([expect.objectContaining({ state: "WORK", calls: 2 })]);
  });

  it("records a failed call with its category and does not journal it", async () => {
    rt = await loopRuntime();
    const inner = new Counting();
    inner.fail = new ModelError("rate limited", { category: "LLM", code: "rate_limited", status: 429, endpoint: "endpoint 1", attempts: 3 });
    const model = new RecordingModel(inner, rt.db, rt.clock);
    const req = { purpose: "execute", prompt: "q", runId: "r2", state: "WORK", key: "r2:k" };
    await expect(model.generate(req)).rejects.toMatchObject({ category: "LLM" });
    inner.fail = null;
    await model.generate(req);
    expect(inner.calls).toBe(2);
    const calls = await rt.db.modelCall.findMany({ where: { runId: "r2" }, orderBy: { createdAt: "asc" } });
    expect(calls.map((c) => [c.ok, c.errorCategory, c.attempts])).toEqual([
      [false, "LLM", 3],
      [true, null, 1],
    ]);
  });

  it("validates replayed objects against the schema", async () => {
    rt = await loopRuntime();
    const model = new RecordingModel(new Counting(), rt.db, rt.clock);
    const req = { purpose: "plan", prompt: "p", key: "k-obj", schema: z.object({ steps: z.array(z.string()) }), schemaName: "plan", offline: () => ({ steps: ["a", "b"] }) };
    const first = await model.generateObject(req);
    const again = await model.generateObject(req);
    expect(again.object).toEqual(first.object);
    expect(again.replayed).toBe(true);
  });

  it("offline: every answer the offline engine gives in a call's place (its own text, the passages quoted, an object, think's offline branch) records one offline row, no tokens, counted as offline; a throw records none", async () => {
    rt = await loopRuntime();
    const model = new RecordingModel(new OfflineModel(), rt.db, rt.clock);
    const at = { runId: "r3", state: "S", key: "k-off" };
    const own = await model.generate({ purpose: "own", prompt: "p", ...at, offline: async () => ({ text: "the step's text", citations: ["c1"] }) });
    expect(own).toMatchObject({ text: "the step's text", citations: ["c1"], adapter: "offline engine", usage: { promptTokens: 0, completionTokens: 0 } });
    const quoted = await model.generate({ purpose: "quote", prompt: "How are runs resumed?", ...at, passages: [{ id: "g1", title: "Guide", text: "Runs are resumed from their last committed snapshot after a restart." }] });
    expect(quoted.text).toMatch(/Written by the offline engine/);
    expect(quoted.citations).toEqual(["g1"]);
    const obj = await model.generateObject({ purpose: "obj", prompt: "p", ...at, schema: z.object({ n: z.number() }), schemaName: "n", offline: () => ({ n: 1 }) });
    expect(obj.object).toEqual({ n: 1 });
    const bound = bindModel(() => model, { ...at, signal: new AbortController().signal });
    let withModel = 0;
    const thought = await bound.think("sub-agent", async () => ++withModel, () => 42);
    expect([thought, withModel]).toEqual([42, 0]);
    // no answer, no row: the throw is the step's
    await expect(model.generateObject({ purpose: "cannot", prompt: "p", ...at, schema: z.object({ n: z.number() }), schemaName: "n", offline: () => { throw new Error("needs a model"); } })).rejects.toThrow("needs a model");
    await expect(bound.think("cannot-think", async () => 0, () => { throw new Error("nothing found"); })).rejects.toThrow("nothing found");
    const rows = await rt.db.modelCall.findMany({ where: { runId: "r3" }, orderBy: { purpose: "asc" } });
    expect(rows.map((r) => [r.purpose, r.key, r.adapter, r.promptTokens, r.completionTokens, r.ok, r.output])).toEqual([
      ["obj", "k-off#obj", "offline engine", 0, 0, true, null],
      ["own", "k-off#own", "offline engine", 0, 0, true, null],
      ["quote", "k-off#quote", "offline engine", 0, 0, true, null],
      ["sub-agent", "k-off#sub-agent", "offline engine", 0, 0, true, null],
    ]);
    const usage = await runUsage(rt.db, "r3");
    expect(usage.total).toMatchObject({ calls: 0, offline: 4, promptTokens: 0, completionTokens: 0 });
    expect(usage.calls.every((c) => c.offline)).toBe(true);

    // the effect runs again (a restart): answered again by the step, not replayed, and recorded once
    const again = await model.generate({ purpose: "own", prompt: "p", ...at, offline: () => "the step's text" });
    expect(again.replayed).toBeUndefined();
    await bound.think("sub-agent", async () => 0, () => 42);
    expect(await rt.db.modelCall.count({ where: { runId: "r3" } })).toBe(4);

    // a model connected since answers in the offline answer's place: its row replaces the offline one, and is journaled
    const inner = new Counting();
    const withAModel = new RecordingModel(inner, rt.db, rt.clock);
    const answered = await withAModel.generate({ purpose: "own", prompt: "p", ...at });
    expect(answered).toMatchObject({ text: "answer to p", adapter: "m1 @ endpoint 1" });
    expect(await withAModel.generate({ purpose: "own", prompt: "p", ...at })).toMatchObject({ text: "answer to p", replayed: true });
    expect(inner.calls).toBe(1);
    expect((await runUsage(rt.db, "r3")).total).toMatchObject({ calls: 1, offline: 3, promptTokens: 11, completionTokens: 7 });
  });
});
