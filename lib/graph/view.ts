// Where the diagram looks: Fit is the whole machine, always (detail comes with zoom: the nodes
// draw compact chips and hide edge labels below a readable zoom, lib/graph's READABLE_ZOOM). A
// run opens on the state that waits for a person, else its newest active state: that state whole
// with its neighbours, at a zoom where all its text is 11 px or more.
import type { WorkflowGraph } from "./derive";
import { groupsOf, READABLE_ZOOM, type Layout } from "./layout";

export interface Viewport {
  x: number;
  y: number;
  zoom: number;
}

export interface DiagramFocus {
  active: string[];
  last?: string | null;
  /** the active state that waits for a person, when one does */
  waitingOn?: string | null;
}

/** The largest zoom the diagram picks by itself when the whole machine fits. */
const MAX_AUTO_ZOOM = 1.15;
/** Room kept free around the machine (screen px). */
const PAD = 16;

/** A state id and its ancestors ("A.B.C" → "A", "A.B", "A.B.C"). */
export const withAncestors = (id: string) => id.split(".").map((_, i, parts) => parts.slice(0, i + 1).join("."));

/**
 * The groups drawn collapsed when a machine is too large to read with every group open: all but
 * those holding a state the run is in or went through (`states`). The browser picks this variant
 * and the server lays it out ahead, so both must agree: one function.
 */
export function collapsedAround(graph: WorkflowGraph, active: string[]): string[] {
  const keep = new Set(active.flatMap(withAncestors));
  return groupsOf(graph)
    .map((g) => g.id)
    .filter((id) => !keep.has(id))
    .sort();
}

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}
const union = (boxes: Box[]): Box | null => {
  if (boxes.length === 0) return null;
  const x = Math.min(...boxes.map((b) => b.x));
  const y = Math.min(...boxes.map((b) => b.y));
  return { x, y, w: Math.max(...boxes.map((b) => b.x + b.w)) - x, h: Math.max(...boxes.map((b) => b.y + b.h)) - y };
};

export function absoluteBoxes(l: Layout): Map<string, Box> {
  const abs = new Map<string, Box>();
  for (const n of l.nodes) {
    const p = n.parent ? abs.get(n.parent) : undefined;
    abs.set(n.id, { x: (p?.x ?? 0) + n.x, y: (p?.y ?? 0) + n.y, w: n.width, h: n.height });
  }
  return abs;
}

/** The largest zoom Fit picks (a small machine is not blown up). */
export const MAX_FIT_ZOOM = MAX_AUTO_ZOOM;

/** The zoom at which a box of `w`×`h` fills the canvas (with room around it). */
export const fitZoom = (bw: number, bh: number, w: number, h: number) => Math.min((w - 2 * PAD) / (bw || 1), (h - 2 * PAD) / (bh || 1));

/** The canvas height Fit uses at width `w` (the machine's height at its Fit zoom, with room around it), at most `h`. */
export function fitHeight(bw: number, bh: number, w: number, h: number): number {
  return Math.min(h, Math.ceil(bh * Math.min(fitZoom(bw, bh, w, h), MAX_AUTO_ZOOM) + 2 * PAD));
}

/** The whole machine, centred. */
export function fitView(l: Layout, w: number, h: number): Viewport {
  return boxView({ x: 0, y: 0, w: l.width, h: l.height }, w, h);
}

/** A box filling the canvas, centred (at most `max`, MAX_FIT_ZOOM unless told; `min` keeps a readable zoom, centred on the box). */
export function boxView(b: Box, w: number, h: number, min = 0, max = MAX_AUTO_ZOOM): Viewport {
  const zoom = Math.max(min, Math.min(fitZoom(b.w, b.h, w, h), max));
  return { zoom, x: w / 2 - (b.x + b.w / 2) * zoom, y: h / 2 - (b.y + b.h / 2) * zoom };
}

/**
 * The view a run opens on: the whole machine when it is readable whole; otherwise, at a readable
 * zoom, the focus (the state with its neighbours), never leaving the state itself out.
 */
export function chooseView(l: Layout, w: number, h: number, focus: Box | null, must: Box | null): Viewport {
  const fit = fitView(l, w, h);
  if (fit.zoom >= READABLE_ZOOM || !focus) return fit;
  const f = focus;
  const zoom = Math.max(READABLE_ZOOM, Math.min(1, fitZoom(f.w, f.h, w, h)));
  const axis = (c: number, len: number, view: number, keep: [number, number] | null) => {
    const half = view / zoom / 2;
    const margin = PAD / zoom;
    if (len * zoom <= view - 2 * PAD) return len / 2;
    let v = Math.min(Math.max(c, half - margin), len - half + margin);
    if (keep) v = Math.min(Math.max(v, keep[1] - half + margin), keep[0] + half - margin);
    return v;
  };
  // a focus too large to show whole at a readable zoom: the state itself in the middle (its
  // neighbours' edges lead off every side), not pushed to a corner by the machine's edge (a state
  // larger than the view, a group, keeps its top left corner in view instead)
  if (must && fitZoom(f.w, f.h, w, h) < zoom && fitZoom(must.w, must.h, w, h) >= zoom) return { zoom, x: w / 2 - (must.x + must.w / 2) * zoom, y: h / 2 - (must.y + must.h / 2) * zoom };
  const cx = axis(f.x + f.w / 2, l.width, w, must ? [must.x, must.x + must.w] : null);
  const cy = axis(f.y + f.h / 2, l.height, h, must ? [must.y, must.y + must.h] : null);
  return { zoom, x: w / 2 - cx * zoom, y: h / 2 - cy * zoom };
}

/** The state a run's view centres on: one waiting for a person, else the newest active one (the last edge's target). */
export function focusState(l: Layout, s: DiagramFocus): string | null {
  const drawn = new Set(l.nodes.map((n) => n.id));
  const active = s.active.filter((a) => drawn.has(a));
  if (active.length === 0) return null;
  if (s.waitingOn) {
    const w = active.find((a) => a === s.waitingOn || s.waitingOn!.startsWith(`${a}.`));
    if (w) return w;
  }
  const lastTarget = s.last?.split("->")[1];
  // the deepest active state (a parallel run's region state rather than its group)
  const leaves = active.filter((a) => !active.some((b) => b.startsWith(`${a}.`)));
  return leaves.find((a) => a === lastTarget) ?? leaves.at(-1) ?? active[0];
}

/** The focus of the view: the focus state with the states it came from and can go to; or the start. */
export function focusOf(l: Layout, s: DiagramFocus): { focus: Box | null; must: Box | null } {
  const abs = absoluteBoxes(l);
  const id = focusState(l, s);
  if (id) {
    const inside = (x: string) => x === id || x.startsWith(`${id}.`);
    const near = new Set<string>();
    for (const e of l.edges) {
      if (inside(e.source)) near.add(e.target);
      if (inside(e.target)) near.add(e.source);
    }
    near.delete(id);
    const must = abs.get(id)!;
    // neighbours inside the state's own group box would only repeat it
    const boxes = [...near].map((n) => abs.get(n)).filter((b): b is Box => !!b);
    return { focus: union([must, ...boxes]), must };
  }
  const start = l.nodes.find((n) => !n.parent && n.state.initial) ?? l.nodes[0];
  if (!start) return { focus: null, must: null };
  const next = l.edges.filter((e) => e.source === start.id).map((e) => abs.get(e.target)).filter((b): b is Box => !!b);
  const first = abs.get(start.id)!;
  return { focus: union([first, ...next]), must: first };
}

/**
 * The overview (compact chips sized to their names, lib/graph's `overview` layouts) is drawn below
 * a readable zoom, and a view of it is never chosen above this zoom (its names are large already).
 */
export const MAX_OVERVIEW_ZOOM = 0.6;

/**
 * A view of a box in the detailed layout when that is readable (its text 11 px or more), else of
 * the same box in the overview (at most `max`, MAX_OVERVIEW_ZOOM unless told, and under a
 * readable zoom, so the overview is what is drawn there). `boxIn` gives the box in a layout (none: that layout cannot show it).
 */
export function readableView(detail: Layout, overview: Layout | null, boxIn: (l: Layout) => Box | undefined, w: number, h: number, max = MAX_OVERVIEW_ZOOM): { view: Viewport; overview: boolean } | null {
  const d = boxIn(detail);
  const dv = d ? boxView(d, w, h) : null;
  if (dv && dv.zoom >= READABLE_ZOOM) return { view: dv, overview: false };
  const o = overview ? boxIn(overview) : undefined;
  if (o) return { view: boxView(o, w, h, 0, Math.min(max, READABLE_ZOOM - 0.01)), overview: true };
  return dv ? { view: dv, overview: false } : null;
}

/** Fit: the whole machine, in the detailed layout when it is readable whole, else in the overview. */
export const fitBoth = (detail: Layout, overview: Layout | null, w: number, h: number) => readableView(detail, overview, (l) => ({ x: 0, y: 0, w: l.width, h: l.height }), w, h)!;
