// Layout of a workflow graph with ELK (layered, hierarchical): node positions relative to
// their parent (as React Flow wants them) and edge routes in absolute coordinates. ELK places
// the edge labels too (each is a box of known size it keeps clear of nodes and other labels).
// Parallel transitions between the same two states become one edge with one label line each;
// targetless transitions are listed on their state instead of as loops. Groups named in
// `collapsed` are drawn as one node with a count of the states inside; edges to and from their
// insides end on that node. A fan of one event from one state to many (domain-agent's RETRY from
// ERROR) is listed on its state too. The aspect bucket wraps a long chain to the canvas's shape.
//
// The work is split so ELK itself can run anywhere: `elkGraphOf` builds ELK's JSON graph,
// `layoutFrom` reads ELK's answer back; `layoutGraph` runs ELK in this thread (the browser, the
// flow editor), lib/graph/elk-thread.ts in a worker thread with a deadline (the server), and
// `fallbackLayout` is the simple layout drawn when ELK does not answer in time.
import type { ElkExtendedEdge, ElkNode } from "elkjs/lib/elk-api";
import { eventLabel, type GraphState, type GraphTransition, type WorkflowGraph } from "./derive";

export interface LaidNode {
  id: string;
  state: GraphState;
  parent: string | null;
  x: number;
  y: number;
  width: number;
  height: number;
  /** targetless transitions handled in this state */
  internal: GraphTransition[];
  /** the global-abort transitions out of this state, listed on the node instead of drawn */
  aborts: GraphTransition[];
  /** error transitions into a shared failure state, listed on the node instead of drawn */
  errors: GraphTransition[];
  /** a fan of one event to many states (RETRY to each step), listed on the node instead of drawn */
  fans?: GraphTransition[];
  /** a collapsed group: how many states it holds (drawn as one node) */
  hidden?: number;
}

/** One drawn line of an edge label: a transition's label line, or a wrapped piece of it. */
export interface LabelRow {
  text: string;
  /** the transition it belongs to (its colour and tooltip) */
  transition: string;
}

export interface LaidEdge {
  id: string;
  source: string;
  target: string;
  transitions: GraphTransition[];
  /** absolute route: start, bend points, end */
  points: { x: number; y: number }[];
  /** absolute box ELK placed the label in, and its rows */
  label: { x: number; y: number; width: number; height: number; rows: LabelRow[] } | null;
}

export interface Layout {
  nodes: LaidNode[];
  edges: LaidEdge[];
  width: number;
  height: number;
  /** the graph it was laid out from (so a client can lay it out again with groups collapsed) */
  graph: WorkflowGraph;
  /** the groups drawn collapsed */
  collapsed: string[];
  /** the canvas shape it was laid out for */
  aspect?: Aspect;
  /** drawn by the simple fallback layout (ELK did not answer in time) */
  fallback?: boolean;
  /** the overview layout: compact chips sized to their names, no label boxes (drawn below a readable zoom) */
  overview?: boolean;
}

/** A canvas wider than tall is landscape; layouts are made (and cached) for each. */
export type Aspect = "landscape" | "portrait";
export const aspectOf = (w: number, h: number): Aspect => (w >= h ? "landscape" : "portrait");
/** the width / height ELK wraps a long chain to */
const ASPECT_RATIO: Record<Aspect, number> = { landscape: 1.5, portrait: 0.6 };

export interface LayoutOptions {
  direction?: "DOWN" | "RIGHT";
  collapsed?: string[];
  aspect?: Aspect;
  /** lay out the overview (chips, no label boxes) instead of the detailed diagram */
  overview?: boolean;
}

/** Layouts sent to a page: one graph and its laid-out variants (groups open or collapsed, each aspect). */
export interface LayoutPack {
  graph: WorkflowGraph;
  variants: Omit<Layout, "graph">[];
}

export const packLayouts = (graph: WorkflowGraph, layouts: Layout[]): LayoutPack => ({ graph, variants: layouts.map(({ graph: _g, ...v }) => v) });
export const unpackLayouts = (p: LayoutPack): Layout[] => p.variants.map((v) => ({ ...v, graph: p.graph }));
/** The cache key of a variant: its collapsed groups, its aspect, and whether it is the overview. */
export const variantKey = (collapsed: string[], aspect: Aspect = "landscape", overview = false) => `${[...collapsed].sort().join(",")}|${aspect}${overview ? "|overview" : ""}`;

export const NODE_W = 210;
export const NODE_H = 72;
/** Diagram text is never smaller than this (px at zoom 1); the diagram never picks a zoom that draws it under 11 px. */
export const MIN_FONT = 12;
/** The smallest zoom the diagram picks by itself: MIN_FONT × zoom ≥ 11 px. */
export const READABLE_ZOOM = 11.04 / MIN_FONT;
/**
 * The overview's chip text (px at zoom 1): a chip is as wide as its name set in this size, so the
 * name scales with the diagram and is drawn whole at any zoom where it is 11 px or more on screen
 * (from 11 / CHIP_FONT, 39 %). Below that zoom it stays 11 px on screen and is cut to its chip.
 */
export const CHIP_FONT = 28;
/** The overview's chip: padding on each side and the status dot with its gap, in CHIP_FONT units. */
const CHIP_PAD = 0.5;
const CHIP_DOT = 0.75;
/** a chip's size in the overview layout: its whole name (and a collapsed group's count) on one line */
export function chipSize(name: string, hidden?: number): { width: number; height: number } {
  const chars = name.length + (hidden !== undefined ? 2 + String(hidden).length + 1 : 0);
  // (a monospace character is 0.6 em; a little more so that rounding at any zoom never cuts the last one)
  return { width: Math.ceil((chars * 0.6 + 0.3 + 2 * CHIP_PAD + CHIP_DOT) * CHIP_FONT), height: Math.ceil(CHIP_FONT * 1.3 + 2 * CHIP_PAD * CHIP_FONT) };
}
/** room under an overview group's header for the tags over its first states' top edges */
const GROUP_TAG_ROOM = 24;
/** Line height of node lists and edge labels (px). */
export const LINE_H = 16;
/** Edge labels are set in a 12 px monospace font: every character is 0.6 em wide. */
const CHAR_W = 7.3;
/** a label line longer than this wraps at a word boundary */
const MAX_CHARS = 28;

/** One label line per transition: its condition, then [guard] and the timer's delay; the event name is in the tooltip. */
export function labelLine(t: GraphTransition): string {
  const text = t.description ?? eventLabel(t.event);
  const extra: string[] = [];
  // a stage machine's edges all carry the same rules guard (lib/flows): naming it on each says nothing;
  // a step's when: guard (lib/steps) is labelled by its own expression ("when …")
  if (t.guard && t.guard !== "stageRules" && t.guard !== "whenTrue") extra.push(`[${t.guard}]`);
  // a description that already names the delay ("timed out after 30 s") is not followed by it again
  const delay = t.kind === "after" && t.delayMs !== null ? `after ${t.delayMs >= 1000 ? `${t.delayMs / 1000} s` : `${t.delayMs} ms`}` : null;
  if (delay && !text.includes(delay)) extra.push(delay);
  return extra.length ? `${text} ${extra.join(" ")}` : text;
}

/** A line cut at word boundaries into pieces of at most `max` characters (a longer word is cut). */
export function wrapLine(line: string, max = MAX_CHARS): string[] {
  const out: string[] = [];
  let cur = "";
  for (const word of line.split(/\s+/).filter(Boolean)) {
    let w = word;
    while (w.length > max) {
      if (cur) out.push(cur);
      out.push(w.slice(0, max));
      w = w.slice(max);
      cur = "";
    }
    if (!cur) cur = w;
    else if (cur.length + 1 + w.length <= max) cur += ` ${w}`;
    else {
      out.push(cur);
      cur = w;
    }
  }
  if (cur) out.push(cur);
  return out;
}

/** The groups (compound and parallel states) of a graph, outermost first. */
export function groupsOf(graph: WorkflowGraph): GraphState[] {
  const depth = (s: GraphState) => s.id.split(".").length;
  return graph.states.filter((s) => s.type === "compound" || s.type === "parallel").sort((a, b) => depth(a) - depth(b));
}

/** state id → the id it is drawn as: itself, or the outermost collapsed group holding it. */
export function visibleIdOf(graph: WorkflowGraph, collapsed: Iterable<string>): (id: string) => string {
  const set = new Set(collapsed);
  const parent = new Map(graph.states.map((s) => [s.id, s.parent]));
  const memo = new Map<string, string>();
  return (id: string) => {
    const hit = memo.get(id);
    if (hit !== undefined) return hit;
    let shown = id;
    for (let p = parent.get(id) ?? null; p; p = parent.get(p) ?? null) if (set.has(p)) shown = p;
    memo.set(id, shown);
    return shown;
  };
}

/** The graph as drawn with `collapsed` groups: their insides gone, transitions re-pointed at the group. */
function collapse(graph: WorkflowGraph, collapsed: string[]): { graph: WorkflowGraph; hidden: Map<string, number> } {
  if (collapsed.length === 0) return { graph, hidden: new Map() };
  const shown = visibleIdOf(graph, collapsed);
  const hidden = new Map<string, number>();
  const states: GraphState[] = [];
  for (const s of graph.states) {
    const v = shown(s.id);
    if (v === s.id) states.push(collapsed.includes(s.id) ? { ...s, type: "atomic" } : s);
    else hidden.set(v, (hidden.get(v) ?? 0) + 1);
  }
  const transitions: GraphTransition[] = [];
  for (const t of graph.transitions) {
    const source = shown(t.source);
    const target = shown(t.target);
    // moves inside a collapsed group, and its states' own targetless transitions, are not drawn
    if (source !== t.source && (t.internal || source === target)) continue;
    if (source === target && !t.internal && t.source !== t.target) continue;
    transitions.push(source === t.source && target === t.target ? t : { ...t, source, target });
  }
  return { graph: { states, transitions }, hidden };
}

/** What reading ELK's answer back needs (kept on the calling thread; only the ELK graph travels). */
export interface ElkJob {
  root: ElkNode;
  full: WorkflowGraph;
  graph: WorkflowGraph;
  collapsed: string[];
  aspect: Aspect;
  hidden: Map<string, number>;
  overview: boolean;
  internal: Map<string, GraphTransition[]>;
  aborts: Map<string, GraphTransition[]>;
  errors: Map<string, GraphTransition[]>;
  fans: Map<string, GraphTransition[]>;
  grouped: Map<string, GraphTransition[]>;
  rowsOf: Map<string, LabelRow[]>;
}

const isGroup = (s: GraphState) => s.type === "compound" || s.type === "parallel";
/** a state with this many edges of one event to different states lists them instead of drawing them */
const FAN = 4;

/** Top-level states from this many on, when they mostly form one long path, are wrapped to the canvas's shape. */
const WRAP_FROM = 8;

/**
 * A machine that is mostly one long path (a stage chain): its longest path forward (in the seed's
 * order, back edges left out) passes through most of its top-level states. Only such a chain is
 * wrapped into columns; wrapping a branching machine cuts its branches apart with long edges.
 */
export function isLongChain(graph: WorkflowGraph, drawn: GraphTransition[]): boolean {
  const top = graph.states.filter((s) => !s.parent).map((s) => s.id);
  if (top.length < WRAP_FROM) return false;
  const order = new Map(top.map((id, i) => [id, i]));
  const topOf = (id: string) => id.split(".")[0];
  const next = new Map<number, Set<number>>();
  for (const t of drawn) {
    const [a, b] = [order.get(topOf(t.source)), order.get(topOf(t.target))];
    if (a === undefined || b === undefined || b <= a) continue;
    next.set(a, (next.get(a) ?? new Set()).add(b));
  }
  // longest path in a DAG whose edges all go forward in the seed's order
  const longest = top.map(() => 1);
  for (let i = top.length - 1; i >= 0; i--) for (const j of next.get(i) ?? []) longest[i] = Math.max(longest[i], 1 + longest[j]);
  return Math.max(...longest) >= 0.75 * top.length;
}

/** The ELK graph of a workflow graph, with what `layoutFrom` needs to read the answer. */
export function elkGraphOf(full: WorkflowGraph, opts: LayoutOptions = {}): ElkJob {
  const direction = opts.direction ?? "DOWN";
  const aspect = opts.aspect ?? "landscape";
  const overview = !!opts.overview;
  const collapsed = [...new Set(opts.collapsed ?? [])].filter((id) => full.states.some((s) => s.id === id && isGroup(s))).sort();
  const { graph, hidden } = collapse(full, collapsed);
  const internal = new Map<string, GraphTransition[]>();
  const aborts = new Map<string, GraphTransition[]>();
  const grouped = new Map<string, GraphTransition[]>();
  // a state that many states fail into (FAILED, ERROR) would draw an edge from each of them
  // (counted on the whole graph, so collapsing a group does not change how failures are drawn)
  const errorSources = new Map<string, Set<string>>();
  for (const t of full.transitions) if (t.kind === "error" && !t.internal) errorSources.set(t.target, (errorSources.get(t.target) ?? new Set()).add(t.source));
  const sinks = new Set([...errorSources].filter(([, from]) => from.size >= 3).map(([target]) => target));
  // one event from one state to many states (RETRY back to each step) would draw a fan of long edges
  const fanTargets = new Map<string, Set<string>>();
  for (const t of graph.transitions) if (!t.internal && t.kind === "event" && t.event !== "ABORT") fanTargets.set(`${t.source}\u0000${t.event}`, (fanTargets.get(`${t.source}\u0000${t.event}`) ?? new Set()).add(t.target));
  const errors = new Map<string, GraphTransition[]>();
  const fans = new Map<string, GraphTransition[]>();
  for (const t of graph.transitions) {
    if (t.kind === "error" && sinks.has(t.target)) {
      errors.set(t.source, [...(errors.get(t.source) ?? []), t]);
      continue;
    }
    if (t.internal) {
      internal.set(t.source, [...(internal.get(t.source) ?? []), t]);
      continue;
    }
    if (t.event === "ABORT") {
      // "abort from any state" would draw an edge from every state: list it on the state instead
      const mine = aborts.get(t.source) ?? [];
      if (!mine.some((a) => a.target === t.target)) aborts.set(t.source, [...mine, t]);
      continue;
    }
    if (t.kind === "event" && (fanTargets.get(`${t.source}\u0000${t.event}`)?.size ?? 0) >= FAN) {
      fans.set(t.source, [...(fans.get(t.source) ?? []), t]);
      continue;
    }
    const key = `${t.source}->${t.target}`;
    grouped.set(key, [...(grouped.get(key) ?? []), t]);
  }

  const elkNodes = new Map<string, ElkNode>();
  const wrap = isLongChain(graph, [...grouped.values()].map((ts) => ts[0]));
  const root: ElkNode = {
    id: "__root",
    layoutOptions: {
      "elk.algorithm": "layered",
      "elk.direction": direction,
      "elk.hierarchyHandling": "INCLUDE_CHILDREN",
      // (the overview's chips are closer: no label sits between them)
      "elk.layered.spacing.nodeNodeBetweenLayers": overview ? "36" : "32",
      "elk.layered.spacing.edgeNodeBetweenLayers": overview ? "18" : "16",
      "elk.spacing.nodeNode": overview ? "28" : "28",
      "elk.spacing.edgeNode": overview ? "14" : "16",
      "elk.spacing.edgeEdge": overview ? "10" : "10",
      "elk.spacing.edgeLabel": "6",
      "elk.spacing.labelLabel": "8",
      "elk.edgeRouting": "ORTHOGONAL",
      // ELK places each label in the middle of its edge, beside it, clear of nodes and other labels
      "elk.edgeLabels.placement": "CENTER",
      "elk.edgeLabels.inline": "false",
      "elk.layered.edgeLabels.sideSelection": "SMART_DOWN",
      "elk.layered.edgeLabels.centerLabelPlacementStrategy": "SPACE_EFFICIENT_LAYER",
      "elk.layered.nodePlacement.strategy": "BRANDES_KOEPF",
      "elk.layered.nodePlacement.bk.fixedAlignment": "BALANCED",
      // keep the seed's order: the first-declared states lead, back edges (errors, aborts) go up
      "elk.layered.cycleBreaking.strategy": "MODEL_ORDER",
      "elk.layered.considerModelOrder.strategy": "NODES_AND_EDGES",
      "elk.layered.mergeEdges": "false",
      "elk.json.edgeCoords": "ROOT",
      "elk.json.shapeCoords": "PARENT",
      "elk.aspectRatio": String(ASPECT_RATIO[aspect]),
      // a long chain is cut into columns (landscape) or kept tall and narrow (portrait)
      // (a branching machine instead has its long edges shortened after placement, so it takes less
      // room at Fit; that compaction would undo the wrapping)
      ...(wrap ? { "elk.layered.wrapping.strategy": "MULTI_EDGE", "elk.layered.wrapping.additionalEdgeSpacing": "16" } : { "elk.layered.compaction.postCompaction.strategy": "EDGE_LENGTH" }),
    },
    children: [],
    edges: [],
  };
  for (const s of graph.states) {
    // (a chip lists nothing: its name alone)
    const lines = overview ? 0 : (internal.get(s.id)?.length ?? 0) + (aborts.has(s.id) ? 1 : 0) + (errors.has(s.id) ? 1 : 0) + (fans.has(s.id) ? 1 : 0);
    const node: ElkNode = overview ? { id: s.id, ...chipSize(s.name, hidden.get(s.id)), children: [] } : { id: s.id, width: NODE_W, height: NODE_H + (lines ? 8 + lines * LINE_H : 0), children: [] };
    if (isGroup(s)) {
      delete node.width;
      delete node.height;
      node.layoutOptions = {
        "elk.padding": overview ? `[top=${chipSize(s.name).height + GROUP_TAG_ROOM},left=12,bottom=12,right=12]` : `[top=${40 + (lines ? 8 + lines * LINE_H : 0)},left=16,bottom=16,right=16]`,
        "elk.direction": s.type === "parallel" ? "RIGHT" : direction,
      };
    }
    elkNodes.set(s.id, node);
  }
  for (const s of graph.states) {
    const parent = s.parent && elkNodes.has(s.parent) ? elkNodes.get(s.parent)! : root;
    parent.children!.push(elkNodes.get(s.id)!);
  }
  const rowsOf = new Map<string, LabelRow[]>();
  for (const [key, ts] of grouped) {
    // unlabelled transitions (a stage machine's plain moves) get no label box
    const rows: LabelRow[] = [];
    const seen = new Set<string>();
    for (const t of ts) {
      const line = labelLine(t);
      // a lone move that is always taken says nothing by "Always"
      if (line === "" || seen.has(line) || (ts.length === 1 && /^always$/i.test(line))) continue;
      seen.add(line);
      for (const text of wrapLine(line)) rows.push({ text, transition: t.id });
    }
    rowsOf.set(key, rows);
    const width = Math.ceil(Math.max(0, ...rows.map((r) => r.text.length)) * CHAR_W + 16);
    const height = rows.length * LINE_H + 6;
    // the main path stays straight and points down; error, timer and back edges give way
    const side = ts.every((t) => t.kind === "error" || t.kind === "after" || /retry|fail|error|abort/i.test(`${t.event} ${t.description ?? ""}`));
    const edge: ElkExtendedEdge = {
      id: key,
      sources: [ts[0].source],
      targets: [ts[0].target],
      // (the overview gives labels no room: they are drawn only on hover, over the diagram)
      labels: rows.length && !overview ? [{ id: `${key}#label`, text: rows.map((r) => r.text).join("\n"), width, height }] : [],
      layoutOptions: side ? { "elk.layered.priority.direction": "0", "elk.layered.priority.straightness": "0" } : { "elk.layered.priority.direction": "10", "elk.layered.priority.straightness": "10" },
    };
    root.edges!.push(edge);
  }
  return { root, full, graph, collapsed, aspect, hidden, overview, internal, aborts, errors, fans, grouped, rowsOf };
}

/** ELK's answer for a job, read back into a Layout. */
export function layoutFrom(out: ElkNode, job: ElkJob): Layout {
  const byId = new Map(job.graph.states.map((s) => [s.id, s]));
  const nodes: LaidNode[] = [];
  const visit = (n: ElkNode, parent: string | null) => {
    for (const c of n.children ?? []) {
      const state = byId.get(c.id)!;
      const node: LaidNode = { id: c.id, state, parent, x: c.x ?? 0, y: c.y ?? 0, width: c.width ?? NODE_W, height: c.height ?? NODE_H, internal: job.internal.get(c.id) ?? [], aborts: job.aborts.get(c.id) ?? [], errors: job.errors.get(c.id) ?? [] };
      if (job.fans.has(c.id)) node.fans = job.fans.get(c.id);
      if (job.hidden.has(c.id)) node.hidden = job.hidden.get(c.id);
      nodes.push(node);
      visit(c, c.id);
    }
  };
  visit(out, null);

  const edges: LaidEdge[] = [];
  for (const e of (out.edges ?? []) as ElkExtendedEdge[]) {
    const ts = job.grouped.get(e.id)!;
    const points: { x: number; y: number }[] = [];
    for (const sec of e.sections ?? []) {
      points.push(sec.startPoint, ...(sec.bendPoints ?? []), sec.endPoint);
    }
    let l = e.labels?.[0];
    // the overview's label (shown on hover only): centred on the middle of the route
    const rows = job.rowsOf.get(e.id) ?? [];
    if (!l && job.overview && rows.length && points.length >= 2) {
      const width = Math.ceil(Math.max(...rows.map((r) => r.text.length)) * CHAR_W + 16);
      const height = rows.length * LINE_H + 6;
      const mid = midpoint(points);
      l = { id: `${e.id}#label`, x: mid.x - width / 2, y: mid.y - height / 2, width, height };
    }
    edges.push({
      id: e.id,
      source: ts[0].source,
      target: ts[0].target,
      transitions: ts,
      points,
      label: l ? { x: l.x ?? 0, y: l.y ?? 0, width: l.width ?? 0, height: l.height ?? 0, rows: job.rowsOf.get(e.id) ?? [] } : null,
    });
  }
  return { nodes, edges, width: out.width ?? 0, height: out.height ?? 0, graph: job.full, collapsed: job.collapsed, aspect: job.aspect, ...(job.overview ? { overview: true } : {}) };
}

/** The point halfway along a polyline. */
function midpoint(points: { x: number; y: number }[]): { x: number; y: number } {
  const seg = points.slice(1).map((p, i) => Math.hypot(p.x - points[i].x, p.y - points[i].y));
  let left = seg.reduce((a, b) => a + b, 0) / 2;
  for (let i = 0; i < seg.length; i++) {
    if (left <= seg[i] || i === seg.length - 1) {
      const k = seg[i] ? Math.min(1, left / seg[i]) : 0;
      return { x: points[i].x + (points[i + 1].x - points[i].x) * k, y: points[i].y + (points[i + 1].y - points[i].y) * k };
    }
    left -= seg[i];
  }
  return points[0];
}

/**
 * The simple layout drawn when ELK does not answer in time: each group's states in rows in the
 * seed's order (as many columns as the aspect asks), groups sized around them, straight edges
 * from the bottom of one state to the top of the next. Each state's outgoing labels are stacked
 * under it, each headed by the state it leads to (a straight edge alone would not say which
 * label is whose); the rows are spaced to hold them.
 */
export function fallbackLayout(job: ElkJob): Layout {
  const GAP = 150;
  const ROW_GAP = 40;
  const PAD = 16;
  const HEAD = 40;
  const names = new Map(job.graph.states.map((s) => [s.id, s.name]));
  // the label stack under each state: its outgoing edges' labels, each with the target first
  const rowsOf = new Map<string, LabelRow[]>();
  const stack = new Map<string, { edge: string; width: number; height: number }[]>();
  for (const e of (job.root.edges ?? []) as ElkExtendedEdge[]) {
    const rows = job.rowsOf.get(e.id) ?? [];
    if (rows.length === 0) continue;
    const to = wrapLine(`→ ${names.get(e.targets[0]) ?? e.targets[0]}`).map((text) => ({ text, transition: rows[0].transition }));
    const all = [...to, ...rows];
    rowsOf.set(e.id, all);
    const box = { edge: e.id, width: Math.ceil(Math.max(...all.map((r) => r.text.length)) * CHAR_W + 16), height: all.length * LINE_H + 6 };
    stack.set(e.sources[0], [...(stack.get(e.sources[0]) ?? []), box]);
  }
  const below = (id: string) => (stack.get(id) ?? []).reduce((a, b) => a + b.height + 4, 0);
  const place = (n: ElkNode) => {
    const kids = n.children ?? [];
    for (const c of kids) if (c.children?.length) place(c);
    for (const c of kids) {
      c.width ??= NODE_W;
      c.height ??= NODE_H;
    }
    if (kids.length === 0) return;
    // as many columns as make the rows about the aspect's shape (a state is wider than tall)
    const cellW = kids.reduce((a, c) => a + c.width!, 0) / kids.length + GAP;
    // (a row is as tall as its tallest state with its labels)
    const cellH = Math.max(...kids.map((c) => c.height! + below(c.id))) + ROW_GAP;
    const cols = Math.max(1, Math.round(Math.sqrt((kids.length * (n.id === "__root" ? ASPECT_RATIO[job.aspect] : 1) * cellH) / cellW)));
    let x = n.id === "__root" ? 0 : PAD;
    let y = n.id === "__root" ? 0 : HEAD;
    let rowH = 0;
    let w = 0;
    kids.forEach((c, i) => {
      if (i > 0 && i % cols === 0) {
        x = n.id === "__root" ? 0 : PAD;
        y += rowH + ROW_GAP;
        rowH = 0;
      }
      c.x = x;
      c.y = y;
      x += c.width! + GAP;
      rowH = Math.max(rowH, c.height! + below(c.id));
      w = Math.max(w, x - GAP);
    });
    n.width = w + (n.id === "__root" ? 0 : PAD);
    n.height = y + rowH + (n.id === "__root" ? 0 : PAD);
  };
  const root = structuredClone(job.root);
  place(root);
  const abs = new Map<string, { x: number; y: number; w: number; h: number }>();
  const walk = (n: ElkNode, ox: number, oy: number) => {
    for (const c of n.children ?? []) {
      abs.set(c.id, { x: ox + c.x!, y: oy + c.y!, w: c.width!, h: c.height! });
      walk(c, ox + c.x!, oy + c.y!);
    }
  };
  walk(root, 0, 0);
  const at = new Map<string, { x: number; y: number }>();
  for (const [id, boxes] of stack) {
    const b = abs.get(id)!;
    let y = b.y + b.h + 4;
    for (const box of boxes) {
      at.set(box.edge, { x: b.x + b.w / 2 + 6, y });
      root.width = Math.max(root.width!, b.x + b.w / 2 + 6 + box.width);
      y += box.height + 4;
    }
  }
  for (const e of (root.edges ?? []) as ElkExtendedEdge[]) {
    const a = abs.get(e.sources[0])!;
    const b = abs.get(e.targets[0])!;
    e.sections = [{ id: `${e.id}#s`, startPoint: { x: a.x + a.w / 2, y: a.y + a.h }, endPoint: { x: b.x + b.w / 2, y: b.y }, bendPoints: [] }];
    const p = at.get(e.id);
    const rows = rowsOf.get(e.id);
    e.labels = p && rows ? [{ id: `${e.id}#label`, x: p.x, y: p.y, width: Math.ceil(Math.max(...rows.map((r) => r.text.length)) * CHAR_W + 16), height: rows.length * LINE_H + 6 }] : [];
  }
  const l = layoutFrom(root, { ...job, rowsOf });
  return { ...l, fallback: true };
}

/**
 * ELK for this thread, loaded the first time a layout is made here: in the browser that is only
 * when a variant the server did not lay out is asked for (a group opened, the other aspect) or in
 * the flow editor, so a page with a diagram does not fetch and run ELK's 1.4 MB for nothing.
 */
let elk: Promise<{ layout(graph: ElkNode): Promise<ElkNode> }> | null = null;

/** Lays a graph out with ELK in this thread (the browser; tests). */
export async function layoutGraph(full: WorkflowGraph, opts: LayoutOptions = {}): Promise<Layout> {
  const job = elkGraphOf(full, opts);
  // (a failed load, a network error, is tried again by the next layout)
  elk ??= import("elkjs/lib/elk.bundled.js").then(
    ({ default: ELK }) => new ELK(),
    (e: unknown) => {
      elk = null;
      throw e;
    },
  );
  return layoutFrom(await (await elk).layout(job.root), job);
}
