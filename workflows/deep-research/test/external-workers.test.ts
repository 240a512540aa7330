// deep-research's effects sent to an external queue by a setting: its sub-agent (researchTask)
// becomes a task on "research-agents" with its typed input; a test worker answers over the API and
// the mission runs on its results; a malformed worker result fails the call with a classified error
// and the mission retries the task or escalates, never hangs.
import { afterEach, describe, expect, it } from "vitest";
import type { RunView } from "../../../lib/engine/views";
import type { Runtime } from "../../../lib/runtime";
import { builtInOutputs } from "../../../lib/machines/registry";
import { externalRoutesFromEnv, routeEffects } from "../../../lib/tasks/settings";
import { ISSUES_MAX } from "../../../lib/tasks/effect";
import { taskWorker, type Claimed as TaskClaim } from "../../../test/support/task-worker";
import { deepResearch } from "../machine";
import { researchOutputs } from "../outputs";
import type { Plan, Task } from "../research/types";
import type { ResearchContext } from "../types";
import { researchRuntime } from "./support";

const KEY = Symbol.for("switchyard.runtime");
const settled = (r: RunView) => r.status !== "running";
const ENV = { SWITCHYARD_EXTERNAL_EFFECTS: "deep-research.researchTask=research-agents" } as unknown as NodeJS.ProcessEnv;
const TOPIC = "How does Switchyard keep timers durable?";
let rt: (Runtime & { clock: unknown }) | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
  delete (globalThis as Record<symbol, unknown>)[KEY];
});

const plan: Plan = {
  topic: TOPIC,
  dimensions: ["Mechanisms"],
  tasks: [
    { id: "P1", type: "Planning", description: "decompose", status: "PENDING", dependsOn: [], query: TOPIC },
    { id: "S1", type: "Search", description: "search mechanisms", status: "PENDING", dependsOn: ["P1"], query: "durable timers", dimension: "Mechanisms", critical: true },
    { id: "R1", type: "Read", description: "read mechanisms", status: "PENDING", dependsOn: ["S1"], query: "resume runs", dimension: "Mechanisms" },
  ],
  estimatedIterations: 3,
};
const fixedPlan = async () => ({ plan, missionId: "DR-20261123-001", rationale: "test plan", adapter: "test", tokens: 5 });

type Claimed = TaskClaim<{ task: Task; topic: string; attempt: number }>;

/** A worker over the HTTP routes: answers each sub-agent task with `answer` until stopped. */
const worker = (answer: (t: Claimed) => unknown, queue = "research-agents") => taskWorker<Claimed["input"]>(answer, queue);

const result = (t: Claimed) => ({
  taskId: t.input.task.id,
  attempt: t.input.attempt,
  approach: "team agent",
  query: t.input.task.query ?? t.input.task.description,
  sources: [{ url: `https://team.example/${t.input.task.id}`, title: `Team source ${t.input.task.id}`, type: "HTML", raw: "<p>x</p>" }],
  facts: t.input.task.type === "Planning" ? [] : [{ statement: `The team's agent found ${t.input.task.id} about ${t.input.task.dimension}.`, source: 0, confidence: "High" }],
  notes: "",
  tokens: 7,
  toolsUsed: 1,
});

async function approved(r: Runtime) {
  (globalThis as Record<symbol, unknown>)[KEY] = Promise.resolve(r);
  const { run } = await r.engine.start("deep-research", { topic: TOPIC, config: { checkinEvery: 0 } });
  const waiting = await r.engine.waitFor(run.id, settled);
  expect(waiting.state).toEqual(["PLANNING.approval"]);
  await r.engine.decide(waiting.reviewId!, { decision: "approve", reviewer: "ana" });
  return run.id;
}


describe("deep-research's sub-agents on external workers", () => {
  it("every effect of deep-research declares its output schema, so each can be sent out; one without a schema is refused at boot", async () => {
    const outputs = { "deep-research": { researchTask: researchOutputs.researchTask } };
    const effects = { "deep-research": { actors: { researchTask: async () => ({}), plan: async () => ({}) } } } as never;
    const routes = (e: string) => externalRoutesFromEnv({ SWITCHYARD_EXTERNAL_EFFECTS: e } as never);
    expect(() => routeEffects(effects, routes("deep-research.plan=q"), () => null as never, outputs)).toThrow(/deep-research\.plan cannot be sent to a worker: its workflow declares no output schema for it \(effects that can: researchTask/);
    expect(() => routeEffects(effects, routes("deep-research.researchTask=q"), () => null as never, outputs)).not.toThrow();
    const names = Object.keys(deepResearch.machine.implementations.actors).sort();
    expect(names).toEqual(["plan", "reflect", "researchTask", "synthesize"]);
    expect(Object.keys(builtInOutputs()["deep-research"]!).sort()).toEqual(names);
    await expect(researchRuntime({ env: { SWITCHYARD_EXTERNAL_EFFECTS: "deep-research.nope=q" } as never })).rejects.toThrow(/deep-research has no effect "nope" \(its effects: .*researchTask/);
  });

  it("deep-research's sub-agent answered by a worker outside Switchyard: one task per sub-agent call, its results in the report", async () => {
    rt = await researchRuntime({ env: ENV, actors: { plan: fixedPlan as never } });
    const w = worker(result);
    const runId = await approved(rt);
    const done = await rt.engine.waitFor(runId, settled, 20_000);
    await w.stop();
    expect(done.state).toEqual(["COMPLETED"]);
    const ctx = done.context as ResearchContext;
    expect(ctx.tasks.filter((t) => ["P1", "S1", "R1"].includes(t.id)).map((t) => t.status)).toEqual(["COMPLETED", "COMPLETED", "COMPLETED"]);
    expect(ctx.facts.map((f) => f.statement)).toContain("The team's agent found S1 about Mechanisms.");
    // the task input is the effect's typed input
    const s1 = w.seen.find((t) => t.input.task.id === "S1")!;
    expect(s1).toMatchObject({ runId, input: { topic: TOPIC, attempt: 1, task: { id: "S1", type: "Search", query: "durable timers" } }, attempt: 1 });
    const rows = await rt.tasks.store.list({ runId });
    expect(rows.length).toBe(w.seen.length);
    expect(rows.every((r) => r.status === "done" && r.effect === "researchTask" && r.workflow === "deep-research" && r.queue === "research-agents")).toBe(true);
    expect(new Set(rows.map((r) => r.key)).size).toBe(rows.length);
  }, 40_000);
  it.each([
    {
      what: "a worker answering with something not an object fails the sub-agent call with a classified error (and the mission retries it)",
      malformed: (_good: Record<string, unknown>): unknown => ["not", "an", "object"],
      message: /must be a JSON object \(got an array\)/,
    },
    {
      what: "a sub-agent result without taskId fails the call with the schema's message (BUSINESS), and the mission retries it",
      malformed: ({ taskId: _, ...rest }: Record<string, unknown>): unknown => rest,
      message: /the worker's output for deep-research\.researchTask is not valid: taskId: /,
    },
  ])("$what", async ({ malformed, message }) => {
    rt = await researchRuntime({ env: ENV, actors: { plan: fixedPlan as never } });
    let bad = true;
    const w = worker((t) => {
      if (t.input.task.id === "S1" && bad) {
        bad = false;
        return malformed(result(t));
      }
      return result(t);
    });
    const runId = await approved(rt);
    const done = await rt.engine.waitFor(runId, settled, 20_000);
    await w.stop();
    expect(done.state).toEqual(["COMPLETED"]);
    const s1 = (done.context as ResearchContext).tasks.find((t) => t.id === "S1")!;
    expect(s1.attempts).toBe(2);
    const log = (await rt.store.transitions(runId)).map((t) => JSON.stringify(t.payload ?? null)).join("\n");
    expect(log).toMatch(message);
    expect(log).toMatch(/"category":"BUSINESS"/);
  }, 40_000);
  it("a sub-agent answering with wrong types every time: the critical task fails and the mission escalates to the reviewer (no hang)", async () => {
    rt = await researchRuntime({ env: ENV, actors: { plan: fixedPlan as never } });
    const w = worker((t) => (t.input.task.id === "S1" ? { ...result(t), attempt: "first", facts: [{ statement: 42, source: 0, confidence: "Sure" }] } : result(t)));
    const runId = await approved(rt);
    const done = await rt.engine.waitFor(runId, settled, 20_000);
    await w.stop();
    expect(done.state).toEqual(["RESEARCHING.escalated"]);
    const ctx = done.context as ResearchContext;
    const s1 = ctx.tasks.find((t) => t.id === "S1")!;
    expect(s1.status).toBe("FAILED");
    expect(s1.attempts).toBe(2);
    expect(ctx.escalation?.error).toMatch(/not valid: attempt: .*expected number/);
    expect(ctx.escalation?.error).toMatch(/facts\.0\.statement: /);
    expect(ctx.escalation?.error).toMatch(/facts\.0\.confidence: /);
    // nothing the worker sent reached the mission's facts
    expect(ctx.facts.some((f) => f.task === "S1")).toBe(false);
    // the issues are quoted up to the task error's cap, not the whole of what the worker sent
    expect(ctx.escalation!.error.split(" is not valid: ")[1]!.length).toBeLessThanOrEqual(ISSUES_MAX);
  }, 40_000);
});
