// deep-research with a model endpoint configured: the model does the thinking wherever the seed puts an
// LLM. A local OpenAI-compatible server answers each structured-output request with an object
// generated from the request's JSON Schema (test/support/schema-model): which states called the
// model, and that its words reach the result.
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../lib/engine/clock";
import type { RunView } from "../../../lib/engine/views";
import type { Runtime } from "../../../lib/runtime";
import { workflowRuntime } from "../../../test/helpers";
import { modelHarness } from "../../../test/support/model-harness";
import { schemaModel } from "../../../test/support/schema-model";
import type { ResearchContext } from "../types";

let rt: Runtime | null = null;
const { fake, model, calls } = modelHarness(
  () => rt,
  async () => {
    await rt?.close();
    rt = null;
  },
);
const settled = (r: RunView) => r.status !== "running";

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
