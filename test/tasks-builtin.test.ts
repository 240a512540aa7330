// A built-in's effect sent to an external queue by a setting (SWITCHYARD_EXTERNAL_EFFECTS): the
// setting is read and checked at boot; every built-in declares its effects' output schemas; a test
// worker answers the loop fixture's WORK over the API and the run goes on with its output; a
// malformed worker result fails the effect with a classified error, never a crash. (Each workflow
// sends its own effects out in its folder: workflows/<id>/test/external-*.test.ts.)
import { afterEach, describe, expect, it } from "vitest";
import type { RunView } from "../lib/engine/views";
import { externalRoutesFromEnv, routeEffects } from "../lib/tasks/settings";
import { builtInEntries, builtInOutputs, findWorkflow } from "../lib/machines/registry";
import type { Runtime } from "../lib/runtime";
import { loopOutputs } from "./fixtures/workflows/loop/effects";
import { loop, type LoopContext } from "./fixtures/workflows/loop/machine";
import { loopRuntime, workflowRuntime } from "./helpers";
import { effectOutputs, taskWorker } from "./support/task-worker";

const KEY = Symbol.for("switchyard.runtime");
let rt: (Runtime & { clock: unknown }) | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
  delete (globalThis as Record<symbol, unknown>)[KEY];
});
const settled = (r: RunView) => r.status !== "running";

describe("SWITCHYARD_EXTERNAL_EFFECTS", () => {
  it("is read as <workflow>.<effect>=<queue>, and refused with a message when malformed or unknown", async () => {
    expect(externalRoutesFromEnv({ SWITCHYARD_EXTERNAL_EFFECTS: " a-b.x=q1 , c-d.y.z=q.2 " } as never)).toEqual([
      { workflow: "a-b", effect: "x", queue: "q1" },
      { workflow: "c-d", effect: "y.z", queue: "q.2" },
    ]);
    expect(() => externalRoutesFromEnv({ SWITCHYARD_EXTERNAL_EFFECTS: "loop=q" } as never)).toThrow(/is not <workflow>\.<effect>=<queue>/);
    expect(() => externalRoutesFromEnv({ SWITCHYARD_EXTERNAL_EFFECTS: "a-b.x=Q" } as never)).toThrow(/not <workflow>/);
    expect(() => externalRoutesFromEnv({ SWITCHYARD_EXTERNAL_EFFECTS: "a-b.x=q,a-b.x=r" } as never)).toThrow(/given twice/);
    await expect(loopRuntime({ env: { SWITCHYARD_EXTERNAL_EFFECTS: "loop.nope=q" } as never })).rejects.toThrow(/loop has no effect "nope" \(its effects: .*work/);
    await expect(loopRuntime({ env: { SWITCHYARD_EXTERNAL_EFFECTS: "no-such-flow.x=q" } as never })).rejects.toThrow(/no built-in workflow "no-such-flow"/);
  });

  it("refuses at boot an effect whose workflow declares no output schema for it", async () => {
    const outputs = { loop: { work: loopOutputs.work } };
    const effects = { loop: { actors: { work: async () => ({}), fetch: async () => ({}) } } } as never;
    const routes = (e: string) => externalRoutesFromEnv({ SWITCHYARD_EXTERNAL_EFFECTS: e } as never);
    expect(() => routeEffects(effects, routes("loop.fetch=q"), () => null as never, outputs)).toThrow(/loop\.fetch cannot be sent to a worker: its workflow declares no output schema for it \(effects that can: work/);
    expect(() => routeEffects(effects, routes("loop.work=q"), () => null as never, outputs)).not.toThrow();
    // every effect of the loop declares its output: each can be sent out
    const names = Object.keys(loop.machine.implementations.actors).sort();
    expect(names).toEqual(["fetch", "work"]);
    expect(Object.keys(builtInOutputs().loop!).sort()).toEqual(names);
  });

  it("every effect of every built-in declares its output schema, so the setting accepts any <workflow>.<effect>", () => {
    const outputs = builtInOutputs();
    const effects: Record<string, { actors: Record<string, () => Promise<unknown>> }> = {};
    const all: string[] = [];
    // the built-ins with effects of their own (a stage machine's steps are not sent out this way)
    const withEffects = builtInEntries().filter((e) => e.effects).map((e) => e.definition);
    expect(withEffects.length).toBeGreaterThanOrEqual(3);
    for (const w of withEffects) {
      const names = Object.keys(w.machine.implementations.actors ?? {}).sort();
      expect(Object.keys(outputs[w.id] ?? {}).sort(), `${w.id}'s output schemas`).toEqual(names);
      effects[w.id] = { actors: Object.fromEntries(names.map((n) => [n, async () => ({})])) };
      all.push(...names.map((n) => `${w.id}.${n}=q-${all.length}`));
    }
    expect(all.length).toBeGreaterThanOrEqual(2 + 2 + 4);
    const routed = routeEffects(effects as never, externalRoutesFromEnv({ SWITCHYARD_EXTERNAL_EFFECTS: all.join(",") } as never), () => null as never, outputs);
    // each effect was replaced by the external one
    for (const w of withEffects) for (const n of Object.keys(effects[w.id]!.actors)) expect(routed[w.id]!.actors[n], `${w.id}.${n}`).not.toBe(effects[w.id]!.actors[n]);
  });

  it("the fixtures' own effect outputs pass their schemas (a worker answering as the workflow does is accepted)", async () => {
    const runs: Record<string, { input: unknown; decide?: string }[]> = {
      loop: [{ input: { request: "Summarise the release notes" } }],
      nest: [{ input: { topic: "a bird box" }, decide: "approve" }],
      hello: [{ input: { name: "Ada" } }],
    };
    for (const [wf, inputs] of Object.entries(runs)) {
      const check = effectOutputs(findWorkflow(wf)!.machine, builtInOutputs()[wf]!, wf);
      const r = await workflowRuntime(wf, { seedGuide: false });
      try {
        for (const { input, decide } of inputs) {
          const { run } = await r.engine.start(wf, input);
          const waiting = await r.engine.waitFor(run.id, settled, 20_000);
          if (decide) await r.engine.decide(waiting.reviewId!, { decision: decide });
          await r.engine.waitFor(run.id, (x) => x.status === "completed" || !!x.reviewId, 20_000);
          check.check(await r.store.transitions(run.id));
        }
      } finally {
        await r.close();
      }
      expect(check.bad).toEqual([]);
      // the runs reached every effect of the workflow
      expect([...check.seen].sort(), wf).toEqual(Object.keys(builtInOutputs()[wf]!).sort());
    }
  }, 60_000);

  it("the loop's WORK answered by a worker outside Switchyard: its output is the result reviewed; an output that breaks the schema is refused (BUSINESS)", async () => {
    rt = await loopRuntime({ env: { SWITCHYARD_EXTERNAL_EFFECTS: "loop.work=writers" } as never });
    (globalThis as Record<symbol, unknown>)[KEY] = Promise.resolve(rt);
    let bad = true;
    const w = taskWorker<{ cycle: number; request: string }>(() => {
      if (bad) {
        bad = false;
        return { output: "a summary", tokens: -1, adapter: 7 };
      }
      return { output: "The release notes, in short.", tokens: 42, adapter: "team-writer" };
    }, "writers");
    try {
      const { run } = await rt.engine.start("loop", { request: "Summarise the release notes" });
      const first = await rt.engine.waitFor(run.id, settled, 20_000);
      // the malformed output fails WORK with the schema's message, classified BUSINESS
      const log = (await rt.store.transitions(run.id)).map((t) => JSON.stringify(t.payload ?? null)).join("\n");
      expect(log).toMatch(/the worker's output for loop\.work is not valid: /);
      expect(log).toMatch(/tokens: /);
      expect(log).toMatch(/adapter: /);
      expect(log).toMatch(/"category":"BUSINESS"/);
      // the cycle ended (back to IDLE) with nothing of the refused output in the run's context
      expect(first.state).toEqual(["IDLE"]);
      expect((first.context as LoopContext).output).toBe("");
      expect((first.context as LoopContext).last?.outcome).toBe("failed");
      await rt.engine.send(run.id, { type: "REQUEST", request: "Summarise the release notes again" });
      const done = await rt.engine.waitFor(run.id, (r) => r.state.includes("REVIEW"), 20_000);
      const ctx = done.context as LoopContext;
      expect(ctx).toMatchObject({ output: "The release notes, in short.", tokens: 42, adapter: "team-writer" });
      // the task input is the effect's typed input
      expect(w.seen.map((t) => t.input)).toEqual([
        { cycle: 1, request: "Summarise the release notes", hits: 3 },
        { cycle: 2, request: "Summarise the release notes again", hits: 4 },
      ]);
      const rows = await rt.tasks.store.list({ runId: run.id });
      expect(rows.length).toBe(w.seen.length);
      expect(rows.every((r) => r.effect === "work" && r.workflow === "loop" && r.queue === "writers")).toBe(true);
    } finally {
      await w.stop();
    }
  }, 40_000);
});
