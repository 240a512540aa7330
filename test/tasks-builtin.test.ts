// A built-in's effect sent to an external queue by a setting: deep-research's
// sub-agent (researchTask) becomes a task on "research-agents" with its typed input; a test
// worker answers over the API and the mission runs on its results. The setting is checked at
// boot; a malformed worker result fails the effect with a classified error, never a crash.
import { afterEach, describe, expect, it } from "vitest";
import type { RunView } from "../lib/engine/views";
import type { ResearchContext } from "../workflows/deep-research/types";
import type { Plan, Task } from "../workflows/deep-research/research/types";
import { externalRoutesFromEnv, routeEffects } from "../lib/tasks/settings";
import { builtInEntries, builtInOutputs, findWorkflow } from "../lib/machines/registry";
import { researchOutputs } from "../workflows/deep-research/outputs";
import { deepResearch } from "../workflows/deep-research/machine";
import type { Runtime } from "../lib/runtime";
import { researchRuntime, swissRuntime, workflowRuntime } from "./helpers";
import type { SwissContext } from "../workflows/swiss-army/types";

const KEY = Symbol.for("switchyard.runtime");
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
const settled = (r: RunView) => r.status !== "running";

type Claimed = { id: string; runId: string; stage: string; input: { task: Task; topic: string; attempt: number }; attempt: number; leaseToken: string };

/** A worker over the HTTP routes: answers each task with `answer` until stopped. */
function worker(answer: (t: Claimed) => unknown, queue = "research-agents") {
  let stop = false;
  const seen: Claimed[] = [];
  const done = (async () => {
    const claim = (await import("../app/api/tasks/claim/route")) as { POST: (r: Request) => Promise<Response> };
    const complete = (await import("../app/api/tasks/[id]/complete/route")) as { POST: (r: Request, c: unknown) => Promise<Response> };
    while (!stop) {
      const res = await claim.POST(new Request("http://localhost:3000/api/tasks/claim", { method: "POST", headers: { host: "localhost:3000", "content-type": "application/json" }, body: JSON.stringify({ queue, worker: "team-agent", waitMs: 200 }) }));
      if (res.status === 204) continue;
      const t = (await res.json()) as Claimed;
      seen.push(t);
      const out = await complete.POST(new Request(`http://localhost:3000/api/tasks/${t.id}/complete`, { method: "POST", headers: { host: "localhost:3000", "content-type": "application/json" }, body: JSON.stringify({ output: answer(t), leaseToken: t.leaseToken, worker: "team-agent", attempt: t.attempt }) }), { params: Promise.resolve({ id: t.id }) });
      expect(out.status).toBe(200);
    }
  })();
  return { seen, stop: async () => ((stop = true), await done) };
}

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

describe("SWITCHYARD_EXTERNAL_EFFECTS", () => {
  it("is read as <workflow>.<effect>=<queue>, and refused with a message when malformed or unknown", async () => {
    expect(externalRoutesFromEnv({ SWITCHYARD_EXTERNAL_EFFECTS: " a-b.x=q1 , c-d.y.z=q.2 " } as never)).toEqual([
      { workflow: "a-b", effect: "x", queue: "q1" },
      { workflow: "c-d", effect: "y.z", queue: "q.2" },
    ]);
    expect(() => externalRoutesFromEnv({ SWITCHYARD_EXTERNAL_EFFECTS: "deep-research=q" } as never)).toThrow(/is not <workflow>\.<effect>=<queue>/);
    expect(() => externalRoutesFromEnv({ SWITCHYARD_EXTERNAL_EFFECTS: "a-b.x=Q" } as never)).toThrow(/not <workflow>/);
    expect(() => externalRoutesFromEnv({ SWITCHYARD_EXTERNAL_EFFECTS: "a-b.x=q,a-b.x=r" } as never)).toThrow(/given twice/);
    await expect(researchRuntime({ env: { SWITCHYARD_EXTERNAL_EFFECTS: "deep-research.nope=q" } as never })).rejects.toThrow(/deep-research has no effect "nope" \(its effects: .*researchTask/);
    await expect(researchRuntime({ env: { SWITCHYARD_EXTERNAL_EFFECTS: "no-such-flow.x=q" } as never })).rejects.toThrow(/no built-in workflow "no-such-flow"/);
  });

  it("refuses at boot an effect whose workflow declares no output schema for it", async () => {
    const outputs = { "deep-research": { researchTask: researchOutputs.researchTask } };
    const effects = { "deep-research": { actors: { researchTask: async () => ({}), plan: async () => ({}) } } } as never;
    const routes = (e: string) => externalRoutesFromEnv({ SWITCHYARD_EXTERNAL_EFFECTS: e } as never);
    expect(() => routeEffects(effects, routes("deep-research.plan=q"), () => null as never, outputs)).toThrow(/deep-research\.plan cannot be sent to a worker: its workflow declares no output schema for it \(effects that can: researchTask/);
    expect(() => routeEffects(effects, routes("deep-research.researchTask=q"), () => null as never, outputs)).not.toThrow();
    // every effect of deep-research declares its output: each can be sent out
    const names = Object.keys(deepResearch.machine.implementations.actors).sort();
    expect(names).toEqual(["plan", "reflect", "researchTask", "synthesize"]);
    expect(Object.keys(builtInOutputs()["deep-research"]!).sort()).toEqual(names);
  });

  it("every effect of every built-in declares its output schema, so the setting accepts any <workflow>.<effect>", () => {
    const outputs = builtInOutputs();
    const effects: Record<string, { actors: Record<string, () => Promise<unknown>> }> = {};
    const all: string[] = [];
    // the built-ins with effects of their own (a stage machine's steps are not sent out this way)
    const withEffects = builtInEntries().filter((e) => e.effects).map((e) => e.definition);
    expect(withEffects.length).toBeGreaterThanOrEqual(4);
    for (const w of withEffects) {
      const names = Object.keys(w.machine.implementations.actors ?? {}).sort();
      expect(Object.keys(outputs[w.id] ?? {}).sort(), `${w.id}'s output schemas`).toEqual(names);
      effects[w.id] = { actors: Object.fromEntries(names.map((n) => [n, async () => ({})])) };
      all.push(...names.map((n) => `${w.id}.${n}=q-${all.length}`));
    }
    expect(all.length).toBeGreaterThanOrEqual(4 + 4 + 11 + 18);
    const routed = routeEffects(effects as never, externalRoutesFromEnv({ SWITCHYARD_EXTERNAL_EFFECTS: all.join(",") } as never), () => null as never, outputs);
    // each effect was replaced by the external one
    for (const w of withEffects) for (const n of Object.keys(effects[w.id]!.actors)) expect(routed[w.id]!.actors[n], `${w.id}.${n}`).not.toBe(effects[w.id]!.actors[n]);
  });

  it("the built-ins' own effect outputs pass their schemas (a worker answering as the built-in does is accepted)", async () => {
    type Node = { invoke?: { id: string; src: unknown }[]; states?: Record<string, Node> };
    const runs: Record<string, unknown[]> = {
      "swiss-army": [{ request: "Write a Go program that counts words in a file" }, { request: "Explain the retry policy" }],
      "domain-agent": [{ text: "slept 4 h, resting HR 66\nwhy is my sleep worse this week?", today: "2026-11-20" }, { text: "ran 10 km in 52 min, HR avg 150", today: "2026-11-20" }, { text: "how much protein should I eat?", today: "2026-11-20" }],
      "processing-modes": [
        { query: "hello there" },
        { query: "What does the guide say about timers?", mode: "KNOWLEDGE" },
        { query: "latest news on durable timers", mode: "SEARCH" },
        { query: "Run this:\n```js\n[1, 2, 3].map((x) => x * x)\n```", mode: "CODE" },
        { query: "think hard about queues", mode: "THINKING" },
        { query: "research durable workflow engines", mode: "DEEP_RESEARCH" },
      ],
    };
    for (const [wf, inputs] of Object.entries(runs)) {
      const schemas = builtInOutputs()[wf]!;
      // an invoke's id names the transition's event (xstate.done.actor.<id>), its src the effect
      const srcs = new Map<string, string>();
      const walk = (n: Node) => {
        for (const i of n.invoke ?? []) srcs.set(i.id, String(i.src));
        for (const c of Object.values(n.states ?? {})) walk(c);
      };
      walk((findWorkflow(wf)!.machine as unknown as { root: Node }).root);
      const r = await workflowRuntime(wf);
      const seen = new Set<string>();
      const bad: string[] = [];
      try {
        for (const input of inputs) {
          const { run } = await r.engine.start(wf, input);
          await r.engine.waitFor(run.id, settled, 20_000);
          for (const t of await r.store.transitions(run.id)) {
            const m = /^xstate\.done\.actor\.(.+)$/.exec(t.event);
            if (!m) continue;
            const effect = srcs.get(m[1]!) ?? m[1]!;
            seen.add(effect);
            const parsed = schemas[effect]?.safeParse((t.payload as { output?: unknown }).output);
            if (!parsed?.success) bad.push(`${wf}.${effect}: ${parsed ? parsed.error.issues.map((i) => `${i.path.join(".")} ${i.message}`).join("; ") : "no schema"}`);
          }
        }
      } finally {
        await r.close();
      }
      expect(bad).toEqual([]);
      // the runs reached every effect of the workflow
      expect([...seen].sort(), wf).toEqual(Object.keys(schemas).sort());
    }
  }, 60_000);

  it("swiss-army's EXECUTING answered by a worker outside Switchyard: its output is the result reviewed; an output that breaks the schema is refused (BUSINESS)", async () => {
    rt = await swissRuntime({ env: { SWITCHYARD_EXTERNAL_EFFECTS: "swiss-army.execute=coders" } as never });
    (globalThis as Record<symbol, unknown>)[KEY] = Promise.resolve(rt);
    const seen: { requestId: string; content: string }[] = [];
    let bad = true;
    const w = worker((t) => {
      const input = t.input as unknown as { requestId: string; content: string };
      seen.push(input);
      const record = { type: "execution", request_id: input.requestId, status: "completed", progress_updates: ["team coder wrote it"], patterns_applied: [], execution_duration_ms: 12, result_preview: "func main() {}", adapter: "team-coder" };
      if (bad) {
        bad = false;
        return { output: "package main", record: { ...record, status: "done" }, tokens_used: -1 };
      }
      return { output: "package main\n\nfunc main() {}", record, tokens_used: 42 };
    }, "coders");
    try {
    const { run } = await rt.engine.start("swiss-army", { request: "Write a Go program that prints nothing" });
    const first = await rt.engine.waitFor(run.id, settled, 20_000);
    // the malformed output fails EXECUTING with the schema's message, classified BUSINESS
    const log = (await rt.store.transitions(run.id)).map((t) => JSON.stringify(t.payload ?? null)).join("\n");
    expect(log).toMatch(/the worker's output for swiss-army\.execute is not valid: /);
    expect(log).toMatch(/record\.status: /);
    expect(log).toMatch(/tokens_used: /);
    // the cycle ended (back to IDLE) with nothing of the refused output in the run's context
    expect(first.state).toEqual(["IDLE"]);
    expect((first.context as SwissContext).output).toBe("");
    expect((first.context as SwissContext).last?.outcome).toBe("failed");
    await rt.engine.send(run.id, { type: "REQUEST", request: "Write a Go program that prints nothing" });
    const done = await rt.engine.waitFor(run.id, (r) => r.state.includes("HUMAN_REVIEW"), 20_000);
    const ctx = done.context as SwissContext;
    expect(ctx.output).toBe("package main\n\nfunc main() {}");
    expect(ctx.records.execution).toMatchObject({ adapter: "team-coder", request_id: seen[1]!.requestId });
    expect(seen[0]!.content).toContain("Write a Go program");
    const rows = await rt.tasks.store.list({ runId: run.id });
    expect(rows.length).toBe(seen.length);
    expect(rows.every((r) => r.effect === "execute" && r.workflow === "swiss-army" && r.queue === "coders")).toBe(true);
    } finally {
      await w.stop();
    }
  }, 40_000);

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

  // a malformed answer on S1's first attempt: the call fails as BUSINESS with the schema's message,
  // and the mission retries the task (its second attempt gets a good answer)
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
    expect(ctx.escalation!.error.length).toBeLessThan(600);
  }, 40_000);
});
