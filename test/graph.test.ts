// Machine → diagram: compound and parallel states become groups with their children inside,
// guards and delays reach the edge labels, ABORT is listed on its states, and the run's
// history marks visited states and taken edges.
import { setup } from "xstate";
import { describe, expect, it } from "vitest";
import { deriveGraph } from "../lib/graph/derive";
import { elkGraphOf, groupsOf, isLongChain, labelLine, layoutGraph, MIN_FONT, READABLE_ZOOM, visibleIdOf } from "../lib/graph/layout";
import { absoluteBoxes, chooseView, focusOf } from "../lib/graph/view";
import { builtInWorkflows } from "../lib/machines/registry";
import { historyStatus } from "../lib/graph/status";
import { loopMachine } from "./fixtures/workflows/loop/machine";
import { nestMachine } from "./fixtures/workflows/nest/machine";
import { flowMachine } from "../lib/flows/machine";
import { checkFlowSource } from "../lib/flows/validate";
import type { FlowConfig } from "../lib/flows/types";
import { POST_PIPELINE } from "./support/post-pipeline";

const nested = setup({ guards: { ready: () => true }, delays: { patience: 2_500 } }).createMachine({
  id: "nested",
  initial: "A",
  states: {
    A: { on: { GO: { target: "SPLIT", guard: "ready", description: "Both at once" } } },
    SPLIT: {
      type: "parallel",
      states: {
        LEFT: { initial: "L1", states: { L1: { on: { NEXT: "L2" } }, L2: { type: "final" } } },
        RIGHT: { initial: "R1", states: { R1: { after: { patience: "R2" } }, R2: { type: "final" } } },
      },
      onDone: "DONE",
    },
    DONE: { type: "final" },
  },
});

describe("diagram derivation", () => {
  it("describes compound and parallel states with their parents", () => {
    const g = deriveGraph(nested);
    const byId = Object.fromEntries(g.states.map((s) => [s.id, s]));
    expect(byId.SPLIT.type).toBe("parallel");
    expect(byId["SPLIT.LEFT"]).toMatchObject({ type: "compound", parent: "SPLIT", name: "LEFT" });
    expect(byId["SPLIT.LEFT.L1"]).toMatchObject({ parent: "SPLIT.LEFT", initial: true });
    expect(g.transitions).toContainEqual(expect.objectContaining({ source: "A", target: "SPLIT", guard: "ready", description: "Both at once" }));
    expect(g.transitions).toContainEqual(expect.objectContaining({ source: "SPLIT.RIGHT.R1", target: "SPLIT.RIGHT.R2", kind: "after", delay: "patience", delayMs: 2_500 }));
  });

  it("lays children out inside their group, regions side by side", async () => {
    const l = await layoutGraph(deriveGraph(nested));
    const node = (id: string) => l.nodes.find((n) => n.id === id)!;
    const left = node("SPLIT.LEFT");
    const right = node("SPLIT.RIGHT");
    expect(left.parent).toBe("SPLIT");
    // child positions are relative to their parent and fit inside it
    const l1 = node("SPLIT.LEFT.L1");
    expect(l1.x + l1.width).toBeLessThanOrEqual(left.width);
    expect(l1.y + l1.height).toBeLessThanOrEqual(left.height);
    // parallel regions are placed beside each other, not stacked
    expect(Math.abs(left.y - right.y)).toBeLessThan(Math.min(left.height, right.height));
    // parents come before children (React Flow needs that order)
    const order = l.nodes.map((n) => n.id);
    expect(order.indexOf("SPLIT")).toBeLessThan(order.indexOf("SPLIT.LEFT"));
    const edge = l.edges.find((e) => e.id === "A->SPLIT")!;
    expect(edge.points.length).toBeGreaterThanOrEqual(2);
    expect(labelLine(edge.transitions[0])).toBe("Both at once [ready]");
  });

  it("a timer edge whose description already names its delay does not repeat it", () => {
    const timed = setup({}).createMachine({
      initial: "WAIT",
      states: { WAIT: { after: { 30_000: { target: "FAILED", description: "timed out after 30 s" }, 5_000: { target: "NUDGE", description: "nudge" } } }, NUDGE: {}, FAILED: {} },
    });
    const labels = deriveGraph(timed).transitions.filter((t) => t.kind === "after").map(labelLine);
    expect(labels.sort()).toEqual(["nudge after 5 s", "timed out after 30 s"]);
  });

  it("a step's timeout is shown in readable units on its node (86400 s as 24 h)", () => {
    const r = checkFlowSource("yaml", POST_PIPELINE);
    const states = deriveGraph(flowMachine((r as { config: FlowConfig }).config)).states;
    expect(states.find((s) => s.id === "REVIEW")!.timeout).toBe("24 h");
    expect(states.find((s) => s.id === "PUBLISH")!.timeout).toBe("30 s");
  });

  it("lists an abort on each state it leaves instead of drawing an edge from each", async () => {
    const l = await layoutGraph(deriveGraph(loopMachine));
    for (const s of ["FETCH", "WORK", "ERROR", "REVIEW"]) {
      expect(l.nodes.find((n) => n.id === s)!.aborts.map((a) => a.target)).toEqual(["IDLE"]);
    }
    expect(l.nodes.find((n) => n.id === "IDLE")!.aborts).toEqual([]);
    expect(l.edges.filter((e) => e.transitions.some((t) => t.event === "ABORT"))).toEqual([]);
    const fetch = l.edges.find((e) => e.id === "FETCH->WORK")!;
    expect(fetch.transitions.map(labelLine)).toEqual(["Fetched", "Fetch timed out (proceed anyway) after 5 s"]);
  });

  it("lists the moves of each of a parallel state's steps into a failure state on the step, not as edges", async () => {
    const l = await layoutGraph(deriveGraph(nestMachine));
    const node = (id: string) => l.nodes.find((n) => n.id === id)!;
    for (const s of ["PLAN.drafting", "BUILD.LEFT.Call", "BUILD.LEFT.Store", "BUILD.RIGHT.Call"]) expect(node(s).errors.map((t) => t.target), s).toEqual(["FAILED"]);
    expect(l.edges.filter((e) => e.target === "FAILED")).toEqual([]);
    // the regions sit side by side
    const left = node("BUILD.LEFT");
    const right = node("BUILD.RIGHT");
    expect(left.x + left.width <= right.x || right.x + right.width <= left.x).toBe(true);
  });

  it("a chain of 30 states wraps to the canvas's shape: wide for landscape, tall for portrait", async () => {
    const states = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`S${i}`, i < 29 ? { on: { NEXT: `S${i + 1}` } } : { type: "final" as const }]));
    const g = deriveGraph(setup({}).createMachine({ id: "chain", initial: "S0", states }));
    const wide = await layoutGraph(g, { aspect: "landscape" });
    const tall = await layoutGraph(g, { aspect: "portrait" });
    expect(wide.width).toBeGreaterThan(wide.height);
    expect(tall.height).toBeGreaterThan(tall.width);
    // not one column: the tall one too is cut into more than one
    expect(new Set(tall.nodes.map((n) => Math.round(n.x))).size).toBeGreaterThan(1);
  });

  it("marks visited states, taken edges, the last edge and failed states from history", () => {
    const t = (seq: number, from: string, to: string, event: string, reason: string, source = from) => ({
      seq,
      from,
      to,
      event,
      reason,
      at: "2026-01-01T00:00:00.000Z",
      durationMs: 1,
      payload: { edge: { source, targets: [to] } },
    });
    const h = historyStatus([
      t(1, "", "IDLE", "xstate.init", "run started", ""),
      t(2, "IDLE", "REQUEST_RECEIVED", "REQUEST", "User submits request"),
      t(3, "REQUEST_RECEIVED", "CONTEXT_SEARCH", "xstate.done.actor.parse", "Request validated"),
      t(4, "CONTEXT_SEARCH", "IDLE", "xstate.error.actor.search", "Critical error"),
    ]);
    expect(h.visited.sort()).toEqual(["CONTEXT_SEARCH", "IDLE", "REQUEST_RECEIVED"]);
    expect(h.taken).toContain("IDLE->REQUEST_RECEIVED");
    expect(h.last).toBe("CONTEXT_SEARCH->IDLE");
    expect(h.failed).toEqual(["CONTEXT_SEARCH"]);
  });
});

describe("a readable diagram", () => {
  type Rect = { x: number; y: number; w: number; h: number; name: string };
  const hit = (a: Rect, b: Rect) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
  const boxesOf = (l: Awaited<ReturnType<typeof layoutGraph>>) => {
    const abs = absoluteBoxes(l);
    const nodes: Rect[] = l.nodes.map((n) => {
      const b = abs.get(n.id)!;
      // a group: only its header holds text, its children are checked on their own
      const group = l.nodes.some((c) => c.parent === n.id);
      return { ...b, h: group ? 36 : b.h, name: `node ${n.id}` };
    });
    const labels: Rect[] = l.edges.filter((e) => e.label).map((e) => ({ x: e.label!.x, y: e.label!.y, w: e.label!.width, h: e.label!.height, name: `label ${e.id}` }));
    return { nodes, labels };
  };

  for (const wf of builtInWorkflows()) {
    it(`${wf.id}: ELK places every edge label clear of the other labels and of the states, whole or with groups collapsed`, async () => {
      const g = deriveGraph(wf.machine);
      for (const collapsed of [[], groupsOf(g).filter((s) => !s.parent).map((s) => s.id)]) {
        const l = await layoutGraph(g, { collapsed });
        const { nodes, labels } = boxesOf(l);
        const bad: string[] = [];
        for (let i = 0; i < labels.length; i++) {
          for (let j = i + 1; j < labels.length; j++) if (hit(labels[i], labels[j])) bad.push(`${labels[i].name} × ${labels[j].name}`);
          for (const n of nodes) if (hit(labels[i], n)) bad.push(`${labels[i].name} × ${n.name}`);
        }
        expect(bad, `collapsed: ${collapsed.join()}`).toEqual([]);
        // each label row fits its box (12 px monospace, 0.6 em a character)
        for (const e of l.edges) if (e.label) for (const r of e.label.rows) expect(r.text.length * 7.2 + 16).toBeLessThanOrEqual(e.label.width);
      }
    });
  }

  it("a collapsed group is one node with the count of its states; edges into its insides end on it", async () => {
    const g = deriveGraph(nestMachine);
    const inside = g.states.filter((s) => s.id.startsWith("PLAN.")).length;
    expect(inside).toBe(2);
    const l = await layoutGraph(g, { collapsed: ["PLAN"] });
    const node = l.nodes.find((n) => n.id === "PLAN")!;
    expect(node.hidden).toBe(inside);
    expect(l.nodes.filter((n) => n.id.startsWith("PLAN."))).toEqual([]);
    const ids = new Set(l.nodes.map((n) => n.id));
    for (const e of l.edges) expect(ids.has(e.source) && ids.has(e.target), e.id).toBe(true);
    // PLAN.approval → BUILD leaves the group; PLAN.approval → PLAN.drafting (rejected) stays inside it
    expect(l.edges.some((e) => e.source === "PLAN" && e.target === "BUILD")).toBe(true);
    expect(l.edges.some((e) => e.source === "PLAN" && e.target === "PLAN")).toBe(false);
    const shown = visibleIdOf(g, ["PLAN"]);
    expect(shown("PLAN.approval")).toBe("PLAN");
    expect(shown("BUILD.LEFT.Call")).toBe("BUILD.LEFT.Call");
    // collapsing the parallel state hides its regions and their steps, and the move into it ends on it
    const built = await layoutGraph(g, { collapsed: ["BUILD"] });
    expect(built.nodes.find((n) => n.id === "BUILD")!.hidden).toBe(g.states.filter((s) => s.id.startsWith("BUILD.")).length);
    expect(built.edges.some((e) => e.target === "BUILD")).toBe(true);
    expect(built.edges.some((e) => e.source === "BUILD" && e.target === "DONE")).toBe(true);
  });

  it("the view it picks by itself never draws 12 px text under 11 px, and shows the start or the active state", async () => {
    expect(MIN_FONT * READABLE_ZOOM).toBeGreaterThanOrEqual(11);
    for (const wf of builtInWorkflows()) {
      const l = await layoutGraph(deriveGraph(wf.machine));
      const abs = absoluteBoxes(l);
      for (const [w, h] of [[900, 760], [1400, 900], [360, 480]]) {
        // its top left corner in view, and all of it when it is smaller than the view
        const inView = (id: string, v: { x: number; y: number; zoom: number }) => {
          const b = abs.get(id)!;
          const [x, y] = [b.x * v.zoom + v.x, b.y * v.zoom + v.y];
          return x >= -1 && y >= -1 && x + Math.min(b.w * v.zoom, w - 16) <= w + 1 && y + Math.min(b.h * v.zoom, h - 16) <= h + 1;
        };
        const start = focusOf(l, { active: [] });
        const v = chooseView(l, w, h, start.focus, start.must);
        expect(v.zoom, `${wf.id} ${w}×${h}`).toBeGreaterThanOrEqual(READABLE_ZOOM);
        const first = l.nodes.find((n) => !n.parent && n.state.initial)!;
        expect(inView(first.id, v), `${wf.id} ${w}×${h}: the start is in view`).toBe(true);
        // a run in its last atomic state: that state is in view
        const last = [...l.nodes].reverse().find((n) => n.state.type === "atomic")!;
        const f = focusOf(l, { active: [last.id] });
        const r = chooseView(l, w, h, f.focus, f.must);
        expect(r.zoom).toBeGreaterThanOrEqual(READABLE_ZOOM);
        expect(inView(last.id, r), `${wf.id} ${w}×${h}: ${last.id} is in view`).toBe(true);
      }
    }
  });
});
