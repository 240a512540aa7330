// swiss-army's EXECUTING reports the tokens the model port recorded for its call (a model's call;
// offline, its row is the offline engine's with no tokens: offline-usage.test.ts).
import { afterEach, describe, expect, it } from "vitest";
import { runUsage } from "../../../lib/metrics/model-usage";
import type { Runtime } from "../../../lib/runtime";
import { inState } from "../../../test/helpers";
import { WordModel } from "../../../test/support/word-model";
import { swissRuntime } from "./support";

let rt: Runtime | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
});

describe("swiss-army model usage", () => {
  it("fills the swiss-army tokens_used from the recorded usage of EXECUTING", async () => {
    rt = await swissRuntime({ model: new WordModel() });
    const { run } = await rt.engine.start("swiss-army", { request: "Write a TypeScript function that retries a fetch with exponential backoff" });
    const r = await rt.engine.waitFor(run.id, inState("HUMAN_REVIEW"));
    const usage = await runUsage(rt.db, run.id);
    const execute = usage.calls.find((c) => c.state === "EXECUTING")!;
    expect(execute.adapter).toBe("word-model @ test");
    expect(execute.promptTokens + execute.completionTokens).toBeGreaterThan(0);
    const ctx = r.context as { records: { execution_result: { result: { metrics: { tokens_used: number } } } } };
    expect(ctx.records.execution_result.result.metrics.tokens_used).toBe(execute.promptTokens + execute.completionTokens);
  });
});
