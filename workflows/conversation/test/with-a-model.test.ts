// conversation with a model endpoint configured: the model does the thinking wherever the seed puts an
// LLM. A local OpenAI-compatible server answers each structured-output request with an object
// generated from the request's JSON Schema (test/support/schema-model): which states called the
// model, and that its words reach the result.
import { describe, expect, it } from "vitest";
import type { Runtime } from "../../../lib/runtime";
import { workflowRuntime } from "../../../test/helpers";
import { modelHarness } from "../../../test/support/model-harness";
import { schemaModel } from "../../../test/support/schema-model";

let rt: Runtime | null = null;
const { fake, model, calls } = modelHarness(
  () => rt,
  async () => {
    await rt?.close();
    rt = null;
  },
);

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
