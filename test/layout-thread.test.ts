// Diagram layout off the server's thread: ELK runs in a worker thread with a deadline; a
// pathological definition (30 stages, 1,000 transitions) gets the simple fallback layout when the
// deadline comes, and the event loop keeps turning while ELK works. The deadline is injected: the
// test says when time is up, nothing here reads a clock.
import { afterAll, describe, expect, it } from "vitest";
import type { GraphState, GraphTransition, WorkflowGraph } from "../lib/graph/derive";
import { deriveGraph } from "../lib/graph/derive";
import { layoutOffThread, stopLayoutThread, type LayoutEvent } from "../lib/graph/elk-thread";
import { clearLayoutCache, layoutPackOf } from "../lib/graph";
import { absoluteBoxes, collapsedAround } from "../lib/graph/view";
import { chipSize, elkGraphOf, fallbackLayout, groupsOf, unpackLayouts, variantKey } from "../lib/graph/layout";
import { loopMachine } from "./fixtures/workflows/loop/machine";
import { findWorkflow } from "../lib/machines/registry";

afterAll(() => stopLayoutThread());

/** `n` stages, `m` transitions between them (each with its own label), in a fixed pseudo-random order. */
function pathological(n: number, m: number): WorkflowGraph {
  const state = (i: number): GraphState => ({ id: `S${i}`, name: `STAGE_${i}`, type: "atomic", parent: null, initial: i === 0, human: false, decisions: [], tags: [], summary: null, description: null, timeout: null, invokes: [] });
  const states = Array.from({ length: n }, (_, i) => state(i));
  const transitions: GraphTransition[] = [];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  for (let k = 0; k < m; k++) {
    const source = `S${next()}`;
    const target = `S${next()}`;
    transitions.push({ id: `t${k}`, source, target, event: `MOVE_${k}`, kind: "event", guard: null, delay: null, delayMs: null, description: `move number ${k} when the score is high`, internal: false });
  }
  return { states, transitions };
}

type Rect = { x: number; y: number; w: number; h: number };
const overlap = (a: Rect, b: Rect) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
/** a deadline that never comes: what ELK does is not raced against this machine's load */
const never = () => new Promise<void>(() => {});

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

describe("layout off the request thread", () => {
  it("a pathological definition does not hold the event loop: the deadline gives the fallback layout and stops ELK", async () => {
    const g = pathological(30, 1000);
    // the fallback draws one straight edge per pair of states the transitions join
    const pairs = new Set(g.transitions.map((t) => `${t.source}>${t.target}`)).size;
    let timeUp!: () => void;
    const events: LayoutEvent[] = [];
    let done = false;
    const p = layoutOffThread(g, [{ aspect: "landscape" }, { aspect: "portrait" }], { deadline: () => new Promise<void>((r) => (timeUp = r)), onEvent: (e) => events.push(e) }).then((ls) => {
      done = true;
      return ls;
    });
    // ELK works on it in its thread while this thread keeps turning
    await expect.poll(() => events.map((e) => e.kind), { timeout: 30_000 }).toEqual(["started"]);
    await turns(50);
    expect(done).toBe(false);
    timeUp();
    const ls = await p;
    expect(events.map((e) => e.kind)).toEqual(["started", "deadline"]);
    expect(ls.map((l) => l.fallback)).toEqual([true, true]);
    // the fallback still draws every state, inside its size, and an edge per pair of states
    for (const l of ls) {
      expect(l.nodes).toHaveLength(30);
      for (const b of absoluteBoxes(l).values()) expect(b.x + b.w <= l.width && b.y + b.h <= l.height).toBe(true);
      expect(l.edges).toHaveLength(pairs);
      expect(l.edges.every((e) => e.points.length === 2)).toBe(true);
      // the labels it found room for are clear of the states and of each other
      const labels = l.edges.flatMap((e) => (e.label ? [e.label] : []));
      expect(labels.length).toBeGreaterThan(10);
      const boxes = [...absoluteBoxes(l).values()];
      for (const [i, a] of labels.entries()) {
        expect(boxes.some((b) => overlap({ x: a.x, y: a.y, w: a.width, h: a.height }, b))).toBe(false);
        expect(labels.slice(i + 1).some((b) => overlap({ x: a.x, y: a.y, w: a.width, h: a.height }, { x: b.x, y: b.y, w: b.width, h: b.height }))).toBe(false);
      }
    }
    // portrait is taller than wide, landscape wider than tall
    expect(ls[0].width).toBeGreaterThan(ls[0].height);
    expect(ls[1].height).toBeGreaterThan(ls[1].width);
    // the thread was replaced: the next layout is ELK's again
    const [again] = await layoutOffThread(deriveGraph(loopMachine), [{}], { deadline: never });
    expect(again.fallback).toBeUndefined();
    expect(again.nodes.map((n) => n.id)).toContain("REVIEW");
  });

  it("an ordinary definition is laid out by ELK before the deadline", async () => {
    const events: LayoutEvent[] = [];
    const [l] = await layoutOffThread(deriveGraph(loopMachine), [{ aspect: "portrait" }], { deadline: never, onEvent: (e) => events.push(e) });
    expect(events.at(-1)).toMatchObject({ kind: "done", laidOut: 1, fallback: 0 });
    expect(l.aspect).toBe("portrait");
    expect(l.edges.some((e) => e.label && e.label.rows.length > 0)).toBe(true);
  });

  it("the server's pack holds both aspect buckets with groups open and collapsed, each detailed and as the overview, and is cached", async () => {
    clearLayoutCache();
    const def = findWorkflow("nest")!;
    const events: LayoutEvent[] = [];
    const pack = await layoutPackOf(def, { deadline: never, onEvent: (e) => events.push(e) });
    const groups = groupsOf(pack.graph).map((g) => g.id).sort();
    const four = [`landscape:${groups.join(",")}`, "landscape:", `portrait:${groups.join(",")}`, "portrait:"];
    expect(pack.variants.map((v) => `${v.aspect}:${v.collapsed.join(",")}${v.overview ? ":overview" : ""}`).sort()).toEqual([...four, ...four.map((k) => `${k}:overview`)].sort());
    // the overview: no label boxes taking room (a label has a place to show on hover), chips as wide as their names
    for (const v of pack.variants.filter((x) => x.overview)) {
      const detailed = pack.variants.find((x) => !x.overview && x.aspect === v.aspect && x.collapsed.join() === v.collapsed.join())!;
      expect(v.width * v.height).toBeLessThan(detailed.width * detailed.height);
      for (const n of v.nodes.filter((x) => !x.state.type.match(/compound|parallel/) || x.hidden !== undefined)) expect(n.width).toBe(chipSize(n.state.name, n.hidden).width);
    }
    // one batch laid them all out; asking again is answered from the cache
    expect(events.filter((e) => e.kind === "started")).toHaveLength(1);
    const again = await layoutPackOf(def, { deadline: never, onEvent: (e) => events.push(e) });
    expect(events.filter((e) => e.kind === "started")).toHaveLength(1);
    expect(unpackLayouts(again)[0].graph).toBe(pack.graph);
  });

  it("a run's page also gets its own pair: every group collapsed but those the run is in, laid out ahead", async () => {
    clearLayoutCache();
    const def = findWorkflow("nest")!;
    const active = ["BUILD", "BUILD.LEFT", "BUILD.LEFT.Store"];
    const pack = await layoutPackOf(def, {}, active);
    const around = collapsedAround(pack.graph, active);
    expect(around).not.toContain("BUILD");
    expect(around).not.toContain("BUILD.LEFT");
    expect(around).toContain("BUILD.RIGHT");
    expect(around).toContain("PLAN");
    const mine = pack.variants.filter((v) => variantKey(v.collapsed) === variantKey(around));
    expect(mine.map((v) => `${v.aspect}${v.overview ? ":overview" : ""}`).sort()).toEqual(["landscape", "landscape:overview", "portrait", "portrait:overview"]);
    // the run's state is drawn in it, its group open
    for (const v of mine) expect(v.nodes.some((n) => n.id === "BUILD.LEFT.Store")).toBe(true);
    // a run at the top level (every group collapsed) needs nothing beyond the standard four (each twice)
    expect((await layoutPackOf(def, {}, ["DONE"])).variants).toHaveLength(8);
  });

  it("the fallback draws each label under its edge's state, headed by where it leads, clear of the states and of each other", () => {
    const l = fallbackLayout(elkGraphOf(deriveGraph(loopMachine), {}));
    const labelled = l.edges.filter((e) => e.transitions.some((t) => t.description));
    const placed = labelled.filter((e) => e.label);
    expect(placed).toHaveLength(labelled.length);
    expect(l.edges.find((e) => e.id === "REVIEW->IDLE")!.label!.rows.map((r) => r.text)).toEqual(["→ IDLE", "User approves", "User rejects"]);
    const boxes = [...absoluteBoxes(l).values()];
    for (const [i, e] of placed.entries()) {
      const a = { x: e.label!.x, y: e.label!.y, w: e.label!.width, h: e.label!.height };
      expect(e.label!.rows.length).toBeGreaterThan(0);
      expect(boxes.some((b) => overlap(a, b)), e.id).toBe(false);
      for (const f of placed.slice(i + 1)) expect(overlap(a, { x: f.label!.x, y: f.label!.y, w: f.label!.width, h: f.label!.height }), `${e.id} × ${f.id}`).toBe(false);
      // inside the drawing
      expect(a.x >= 0 && a.y >= 0 && a.x + a.w <= l.width && a.y + a.h <= l.height).toBe(true);
    }
  });

  it("the fallback lays a group's states inside it", () => {
    const g = deriveGraph(findWorkflow("nest")!.machine);
    const l = fallbackLayout(elkGraphOf(g, {}));
    const abs = absoluteBoxes(l);
    for (const n of l.nodes) {
      if (!n.parent) continue;
      const [c, p] = [abs.get(n.id)!, abs.get(n.parent)!];
      expect(c.x >= p.x && c.y >= p.y && c.x + c.w <= p.x + p.w && c.y + c.h <= p.y + p.h, n.id).toBe(true);
    }
  });
});

describe("the layout deadline setting", () => {
  it("reads SWITCHYARD_LAYOUT_DEADLINE_MS within 100 – 120,000 ms, else 2 s", async () => {
    const { deadlineFrom } = await import("../lib/graph/elk-thread");
    expect(deadlineFrom(undefined)).toBe(2_000);
    expect(deadlineFrom("5000")).toBe(5_000);
    for (const bad of ["", "abc", "99", "120001", "1.5", "-3"]) expect(deadlineFrom(bad), bad).toBe(2_000);
  });
});
