// State hooks (lib/engine/hooks.ts): the hook events one committed transition yields, and how
// StateHooks dispatches them (order, stage matching, a throwing handler).
import { describe, expect, it } from "vitest";
import { RunBus, type BusMessage } from "../lib/engine/bus";
import { hookEvents, StateHooks, type HookEvent } from "../lib/engine/hooks";

const run = { id: "run-1", workflow: "wf" };
const t = (seq: number, from: string, to: string) => ({ seq, from, to, event: "GO", reason: "because", at: "2026-01-01T00:00:00.000Z" });
const label = (e: HookEvent) => `${e.hook}${e.stage ? `:${e.stage}` : ""}`;

describe("hookEvents", () => {
  it("fires exits, then the transition, then entries", () => {
    const es = hookEvents(run, t(3, "A,B.X", "B.Y,C"));
    expect(es.map(label)).toEqual(["on_exit:A", "on_exit:B.X", "on_transition", "on_enter:B.Y", "on_enter:C"]);
    for (const e of es) {
      expect(e).toMatchObject({ runId: "run-1", workflow: "wf", seq: 3, from: ["A", "B.X"], to: ["B.Y", "C"], event: "GO", reason: "because" });
    }
  });

  it("the first transition only enters; a self-transition fires nothing", () => {
    expect(hookEvents(run, t(1, "", "IDLE")).map(label)).toEqual(["on_transition", "on_enter:IDLE"]);
    expect(hookEvents(run, t(2, "EXECUTING", "EXECUTING"))).toEqual([]);
  });
});

/** A bus with the state hooks attached to it. */
function attached() {
  const bus = new RunBus();
  const hooks = new StateHooks(() => {});
  hooks.attach(bus);
  return { bus, hooks };
}

/** The bus message of a run's first commit (its xstate.init into IDLE). */
const started = (id: string, workflow: string): BusMessage => ({
  type: "run",
  run: { id, workflow } as never,
  transitions: [{ seq: 1, from: "", to: "IDLE", event: "xstate.init", reason: "run started", at: "2026-01-01T00:00:00.000Z", durationMs: 0 }],
});

describe("StateHooks", () => {
  it("matches on_enter/on_exit by id path or last segment, and a throwing handler does not stop the others", () => {
    const logged: string[] = [];
    const hooks = new StateHooks((m) => logged.push(m));
    const seen: string[] = [];
    hooks.onAny((e) => void seen.push(`any ${label(e)}`));
    hooks.onEnter("CacheHit", (e) => void seen.push(`enter-last ${e.stage}`));
    hooks.onEnter("ModelRuntime.CacheHit", (e) => void seen.push(`enter-path ${e.stage}`));
    hooks.onEnter("Runtime.CacheHit", () => void seen.push("enter-partial (must not fire)"));
    hooks.onExit("IDLE", () => {
      throw new Error("boom");
    });
    hooks.onExit("IDLE", (e) => void seen.push(`exit ${e.stage}`));
    hooks.onTransition(async () => {
      throw new Error("async boom");
    });
    const off = hooks.onTransition((e) => void seen.push(`transition ${e.seq}`));
    for (const e of hookEvents(run, t(2, "IDLE", "ModelRuntime.CacheHit"))) hooks.fire(e);
    expect(seen).toEqual([
      "any on_exit:IDLE",
      "exit IDLE",
      "any on_transition",
      "transition 2",
      "any on_enter:ModelRuntime.CacheHit",
      "enter-last ModelRuntime.CacheHit",
      "enter-path ModelRuntime.CacheHit",
    ]);
    expect(logged).toContain("on_exit handler failed");
    off();
    seen.length = 0;
    for (const e of hookEvents(run, t(3, "ModelRuntime.CacheHit", "IDLE"))) hooks.fire(e);
    expect(seen).not.toContain("transition 3");
    expect(seen).toContain("any on_transition");
  });

  it("derives hook events from the bus's committed transitions and republishes them", async () => {
    const { bus, hooks } = attached();
    const fired: string[] = [];
    const published: string[] = [];
    hooks.onAny((e) => void fired.push(label(e)));
    bus.subscribe("run-1", (m) => void (m.type === "hook" && published.push(`${m.hook}${m.stage ? `:${m.stage}` : ""}`)));
    bus.publish("run-1", started("run-1", "wf"));
    await Promise.resolve();
    expect(fired).toEqual(["on_transition", "on_enter:IDLE"]);
    expect(published).toEqual(["on_transition", "on_enter:IDLE"]);
  });

  it("a handler that wants nothing of a workflow is not called, and its runs' hook events are not derived", async () => {
    const { bus, hooks } = attached();
    const fired: string[] = [];
    const asked: string[] = [];
    hooks.onAny((e) => void fired.push(`${e.workflow} ${label(e)}`), { wants: (wf) => (asked.push(wf), wf === "wanted") });
    bus.publish("run-1", started("run-1", "other"));
    expect(fired).toEqual([]);
    expect(new Set(asked)).toEqual(new Set(["other"]));
    expect(asked.length).toBeLessThanOrEqual(3); // per commit and handler, not per hook event
    bus.publish("run-2", started("run-2", "wanted"));
    expect(fired).toEqual(["wanted on_transition", "wanted on_enter:IDLE"]);
  });

  it("relays hook events to the run's own watchers only: the all-runs stream carries summaries", async () => {
    const { bus } = attached();
    const all: string[] = [];
    const own: string[] = [];
    bus.subscribe("*", (m) => void all.push(m.type));
    bus.publish("run-1", started("run-1", "wf"));
    const off = bus.subscribe("run-2", (m) => void own.push(m.type));
    bus.publish("run-2", started("run-2", "wf"));
    off();
    expect(all).toEqual(["run", "run"]);
    expect(own).toEqual(["run", "hook", "hook"]);
  });
});
