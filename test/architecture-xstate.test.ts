// The engine steps runs through XState's public API. The one field XState does not document
// that it still reads (which transitions a microstep took) is read in lib/engine/xstate-scope.ts
// alone; no other file reaches into a snapshot's, an inspection event's or an actor's private
// fields. The active states come from the public getStateNodes and agree with getMeta().
import { describe, expect, it } from "vitest";
import { setup } from "xstate";
import { activeLeaves, activeNodes, initialStep, step } from "../lib/engine/step";
import { read, sourceFiles } from "./support/source-files";

const PRIVATE = /\._(nodes|transitions|snapshot)\b/;
const SELF = "test/architecture-xstate.test.ts";

describe("the engine on XState's public API", () => {
  it("only lib/engine/xstate-scope.ts reads a private XState field", () => {
    const hits = sourceFiles().filter((f) => f !== SELF && PRIVATE.test(read(f)));
    expect(hits).toEqual(["lib/engine/xstate-scope.ts"]);
  });

  it("the active states and the transitions taken, on a machine with nested and parallel states", () => {
    const machine = setup({ types: {} as { events: { type: "GO" } | { type: "BACK" } } }).createMachine({
      id: "m",
      initial: "idle",
      states: {
        idle: { meta: { label: "idle" }, on: { GO: { target: "busy", description: "start work" } } },
        busy: {
          type: "parallel",
          meta: { label: "busy" },
          states: {
            left: { initial: "a", states: { a: { always: { target: "b", guard: () => true } }, b: {} } },
            right: { initial: "c", states: { c: { meta: { label: "c" } } } },
          },
          on: { BACK: "idle" },
        },
      },
    });
    const first = initialStep(machine, undefined);
    expect(activeLeaves(first.snapshot)).toEqual(["idle"]);
    const next = step(machine, first.snapshot, { type: "GO" });
    expect(activeLeaves(next.snapshot)).toEqual(["busy.left.b", "busy.right.c"]);
    expect(activeNodes(next.snapshot).map((n) => n.id)).toEqual(["m", "m.busy", "m.busy.left", "m.busy.left.b", "m.busy.right", "m.busy.right.c"]);
    // every node with meta is one getMeta() reports
    const meta = next.snapshot.getMeta() as Record<string, unknown>;
    expect(activeNodes(next.snapshot).filter((n) => n.meta).map((n) => n.id)).toEqual(Object.keys(meta));
    expect(next.transitions.map((t) => [t.source, t.targets, t.reason])).toEqual([
      ["idle", ["busy"], "start work"],
      ["busy.left.a", ["busy.left.b"], "guard (inline)"],
    ]);
    expect(step(machine, next.snapshot, { type: "GO" }).transitions).toEqual([]);
  });
});
