// The OpenAI path end to end: a swiss-army run whose EXECUTING step streams from an
// OpenAI-compatible endpoint (the local protocol server), with usage recorded and shown.
import { describe, expect, it } from "vitest";
import type { SwissContext } from "../types";
import { runUsage } from "../../../lib/metrics/model-usage";
import type { Runtime } from "../../../lib/runtime";
import { inState } from "../../../test/helpers";
import { swissRuntime } from "./support";
import { fakeModel, useFakeOpenAi } from "../../../test/support/fake-openai";

let rt: Runtime | null = null;
const fake = useFakeOpenAi({
  afterEach: async () => {
    await rt?.close();
    rt = null;
  },
});

const model = () => fakeModel(fake);

describe("swiss-army on an OpenAI-compatible endpoint", () => {
  it("streams EXECUTING from the model, cites the context, and records usage as tokens_used", async () => {
    // REQUEST_RECEIVED's analysis is a structured reply; EXECUTING's a streamed text
    const analysis = { intent: "model: retrying fetch", request_type: "code", estimated_complexity: "medium", parameters: [{ name: "language", value: "typescript" }] };
    const patterns = { patterns: [{ name: "Model: jittered retries", why: "the output applies it" }] };
    const structured: Record<string, object> = { request_analysis: analysis, patterns };
    fake.setDefault({ reply: (body) => (body.response_format ? structured[body.response_format.json_schema.name]! : "Wrap the call in a retry loop with exponential backoff and jitter [1]. Honour Retry-After."), chunkDelayMs: 1 });
    rt = await swissRuntime({ model: model() });
    const progress: string[] = [];
    const { run } = await rt.engine.start("swiss-army", { request: "Write a TypeScript function that retries a fetch with exponential backoff" });
    rt.engine.bus.subscribe(run.id, (m) => m.type === "progress" && progress.push(m.message));
    const r = await rt.engine.waitFor(run.id, inState("HUMAN_REVIEW"));
    const ctx = r.context as SwissContext;
    expect(ctx.output).toBe("Wrap the call in a retry loop with exponential backoff and jitter [1]. Honour Retry-After.");
    // the request was read by the model: its intent is the model's words
    expect(ctx.records.request?.metadata.intent).toBe("model: retrying fetch");
    expect((await runUsage(rt.db, run.id)).calls.map((c) => [c.state, c.purpose])).toEqual([
      ["REQUEST_RECEIVED", "parse"],
      ["EXECUTING", "execute"],
      ["CONTEXT_UPDATE", "extract-patterns"],
    ]);
    // CONTEXT_UPDATE's pattern extraction is the model's
    expect(ctx.records.execution_result?.result.patterns_discovered).toEqual(["Model: jittered retries"]);
    expect(ctx.records.execution?.adapter).toBe("fake-1 @ endpoint 1");
    expect(ctx.records.execution?.patterns_applied).toEqual(["Retry with exponential backoff"]);
    // the request was streamed and carried the retrieved pattern as numbered context
    const chat = fake.requests.find((q) => q.path.endsWith("/chat/completions") && q.body.stream)!;
    expect(chat.body.stream).toBe(true);
    expect(JSON.stringify(chat.body.messages)).toContain("[1] Retry with exponential backoff");
    expect(progress.join("")).toContain("exponential backoff and jitter");
    const usage = await runUsage(rt.db, run.id);
    const call = usage.calls.find((c) => c.state === "EXECUTING")!;
    expect(call).toMatchObject({ adapter: "fake-1 @ endpoint 1", estimated: false, ok: true });
    expect(ctx.records.execution_result?.result.metrics.tokens_used).toBe(call.promptTokens + call.completionTokens);
    // the final text is stored with the transition that follows EXECUTING
    const t = (await rt.store.transitions(run.id)).find((x) => x.reason === "Task complete")!;
    expect(JSON.stringify(t.payload)).toContain("exponential backoff and jitter");
  });

  it("a model endpoint failing for good ends EXECUTING in the seed's error path with the classified error", async () => {
    fake.script({ reply: { intent: "retry fetch", request_type: "code", estimated_complexity: "medium", parameters: [] } });
    fake.setDefault({ status: 400, message: "This model's maximum context length is 10 tokens", code: "context_length_exceeded" });
    rt = await swissRuntime({ model: model() });
    const { run } = await rt.engine.start("swiss-army", { request: "Write a TypeScript function that retries a fetch with exponential backoff" });
    const r = await rt.engine.waitFor(run.id, (x) => inState("IDLE")(x) && x.seq > 4);
    expect((r.context as SwissContext).error?.message).toMatch(/context length/i);
    const usage = await runUsage(rt.db, run.id);
    expect(usage.calls.at(-1)).toMatchObject({ ok: false, errorCategory: "RESOURCE_LIMIT" });
  });
});
