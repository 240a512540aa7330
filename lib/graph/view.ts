// Where the diagram looks by itself: the whole machine when it fits at a readable zoom (its
// smallest text drawn at 11 px or more); otherwise, at a readable zoom, the part that matters
// now: the active states with where they came from and where they can go next, or the start.
import { READABLE_ZOOM, type Layout } from "./layout";

export interface Viewport {
  x: number;
  y: number;
  zoom: number;
}

export interface DiagramFocus {
  active: string[];
  last?: string | null;
}

/** The largest zoom the diagram picks by itself when the whole machine fits. */
const MAX_AUTO_ZOOM = 1.15;
/** Room kept free around the machine (screen px). */
const PAD = 16;

/** A state id and its ancestors ("A.B.C" → "A", "A.B", "A.B.C"). */
export const withAncestors = (id: string) => id.split(".").map((_, i, parts) => parts.slice(0, i + 1).join("."));

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

export const fitsReadably = (l: Layout, w: number, h: number) => Math.min((w - 2 * PAD) / (l.width || 1), (h - 2 * PAD) / (l.height || 1)) >= READABLE_ZOOM;

/**
 * The view the diagram opens on: the whole machine when it fits readably; otherwise, at a
 * readable zoom, the focus (the active state with the state it came from and those it can go to
 * next, or the start), never leaving the active state out.
 */
export function chooseView(l: Layout, w: number, h: number, focus: Box | null, must: Box | null): Viewport {
  const fit = Math.min((w - 2 * PAD) / (l.width || 1), (h - 2 * PAD) / (l.height || 1), MAX_AUTO_ZOOM);
  if (fit >= READABLE_ZOOM) return { zoom: fit, x: (w - l.width * fit) / 2, y: (h - l.height * fit) / 2 };
  const f = focus ?? { x: 0, y: 0, w: l.width, h: 0 };
  const zoom = Math.max(READABLE_ZOOM, Math.min(1, (w - 2 * PAD) / (f.w || 1), (h - 2 * PAD) / (f.h || 1)));
  const axis = (c: number, len: number, view: number, keep: [number, number] | null) => {
    const half = view / zoom / 2;
    const margin = PAD / zoom;
    if (len * zoom <= view - 2 * PAD) return len / 2;
    let v = Math.min(Math.max(c, half - margin), len - half + margin);
    if (keep) v = Math.min(Math.max(v, keep[1] - half + margin), keep[0] + half - margin);
    return v;
  };
  const cx = axis(f.x + f.w / 2, l.width, w, must ? [must.x, must.x + must.w] : null);
  const cy = axis(focus ? f.y + f.h / 2 : 0, l.height, h, must ? [must.y, must.y + must.h] : null);
  return { zoom, x: w / 2 - cx * zoom, y: h / 2 - cy * zoom };
}

/** The focus of the view: the active states, where the run came from and where it can go next; or the start. */
export function focusOf(l: Layout, s: DiagramFocus): { focus: Box | null; must: Box | null } {
  const abs = absoluteBoxes(l);
  const active = s.active.map((a) => abs.get(a)).filter((b): b is Box => !!b);
  if (active.length > 0) {
    const around = new Set<string>();
    for (const e of l.edges) {
      if (s.active.some((a) => a === e.source || a.startsWith(`${e.source}.`))) around.add(e.target);
      if (e.id === s.last) around.add(e.source);
    }
    const near = [...around].map((id) => abs.get(id)).filter((b): b is Box => !!b);
    return { focus: union([...active, ...near]), must: union(active) };
  }
  const start = l.nodes.find((n) => !n.parent && n.state.initial) ?? l.nodes[0];
  if (!start) return { focus: null, must: null };
  const next = l.edges.filter((e) => e.source === start.id).map((e) => abs.get(e.target)).filter((b): b is Box => !!b);
  const first = abs.get(start.id)!;
  return { focus: union([first, ...next]), must: first };
}

