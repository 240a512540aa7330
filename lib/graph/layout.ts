// Layout of a workflow graph with ELK (layered, hierarchical): node positions relative to
// their parent (as React Flow wants them) and edge routes with label positions in absolute
// coordinates. Parallel transitions between the same two states become one edge with one
// label line each; targetless transitions are listed on their state instead of as loops.
import ELK from "elkjs/lib/elk.bundled.js";
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
}

export interface LaidEdge {
  id: string;
  source: string;
  target: string;
  transitions: GraphTransition[];
  /** absolute route: start, bend points, end */
  points: { x: number; y: number }[];
  label: { x: number; y: number; width: number; height: number } | null;
}

export interface Layout {
  nodes: LaidNode[];
  edges: LaidEdge[];
  width: number;
  height: number;
}

export const NODE_W = 210;
export const NODE_H = 68;
const LINE_H = 15;
const CHAR_W = 6.2;

/** One label line per transition: its condition, then [guard] and the timer's delay; the event name is in the tooltip. */
export function labelLine(t: GraphTransition): string {
  const text = t.description ?? eventLabel(t.event);
  const extra: string[] = [];
  // a stage machine's edges all carry the same rules guard (lib/flows): naming it on each says nothing
  if (t.guard && t.guard !== "stageRules") extra.push(`[${t.guard}]`);
  if (t.kind === "after" && t.delayMs !== null) extra.push(`after ${t.delayMs >= 1000 ? `${t.delayMs / 1000} s` : `${t.delayMs} ms`}`);
  return extra.length ? `${text} ${extra.join(" ")}` : text;
}

const elk = new ELK();

/** Centre the label on the route's longest segment, so it sits on its own edge. */
function onLongestSegment(points: { x: number; y: number }[], width: number, height: number) {
  let best = -1;
  let mid = points[0] ?? { x: 0, y: 0 };
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1];
    const b = points[i];
    const len = Math.hypot(b.x - a.x, b.y - a.y);
    if (len > best) {
      best = len;
      mid = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
    }
  }
  return { x: mid.x - width / 2, y: mid.y - height / 2, width, height };
}

export async function layoutGraph(graph: WorkflowGraph, direction: "DOWN" | "RIGHT" = "DOWN"): Promise<Layout> {
  const byId = new Map(graph.states.map((s) => [s.id, s]));
  const internal = new Map<string, GraphTransition[]>();
  const aborts = new Map<string, GraphTransition[]>();
  const grouped = new Map<string, GraphTransition[]>();
  // a state that many states fail into (FAILED, ERROR) would draw an edge from each of them
  const errorSources = new Map<string, Set<string>>();
  for (const t of graph.transitions) if (t.kind === "error" && !t.internal) errorSources.set(t.target, (errorSources.get(t.target) ?? new Set()).add(t.source));
  const sinks = new Set([...errorSources].filter(([, from]) => from.size >= 3).map(([target]) => target));
  const errors = new Map<string, GraphTransition[]>();
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
      aborts.set(t.source, [...(aborts.get(t.source) ?? []), t]);
      continue;
    }
    const key = `${t.source}->${t.target}`;
    grouped.set(key, [...(grouped.get(key) ?? []), t]);
  }

  const elkNodes = new Map<string, ElkNode>();
  const root: ElkNode = {
    id: "__root",
    layoutOptions: {
      "elk.algorithm": "layered",
      "elk.direction": direction,
      "elk.hierarchyHandling": "INCLUDE_CHILDREN",
      "elk.layered.spacing.nodeNodeBetweenLayers": "36",
      "elk.spacing.nodeNode": "36",
      "elk.spacing.edgeNode": "24",
      "elk.spacing.edgeEdge": "14",
      "elk.spacing.edgeLabel": "4",
      "elk.edgeRouting": "ORTHOGONAL",
      "elk.layered.nodePlacement.strategy": "BRANDES_KOEPF",
      "elk.layered.nodePlacement.bk.fixedAlignment": "BALANCED",
      // keep the seed's order: the first-declared states lead, back edges (errors, aborts) go up
      "elk.layered.cycleBreaking.strategy": "MODEL_ORDER",
      "elk.layered.considerModelOrder.strategy": "NODES_AND_EDGES",
      "elk.layered.mergeEdges": "false",
      "elk.json.edgeCoords": "ROOT",
      "elk.json.shapeCoords": "PARENT",
    },
    children: [],
    edges: [],
  };
  for (const s of graph.states) {
    const lines = (internal.get(s.id)?.length ?? 0) + (aborts.has(s.id) ? 1 : 0) + (errors.has(s.id) ? 1 : 0);
    const node: ElkNode = { id: s.id, width: NODE_W, height: NODE_H + (lines ? 8 + lines * LINE_H : 0), children: [] };
    if (s.type === "compound" || s.type === "parallel") {
      delete node.width;
      delete node.height;
      node.layoutOptions = {
        "elk.padding": `[top=${36 + lines * LINE_H},left=16,bottom=16,right=16]`,
        "elk.direction": s.type === "parallel" ? "RIGHT" : direction,
      };
    }
    elkNodes.set(s.id, node);
  }
  for (const s of graph.states) {
    const parent = s.parent ? elkNodes.get(s.parent)! : root;
    parent.children!.push(elkNodes.get(s.id)!);
  }
  for (const [key, ts] of grouped) {
    // unlabelled transitions (a stage machine's plain moves) get no label box
    const lines = [...new Set(ts.map(labelLine))].filter((l) => l !== "");
    const width = Math.min(260, Math.max(...lines.map((l) => l.length)) * CHAR_W + 12);
    const height = lines.length * LINE_H + 6;
    const edge: ElkExtendedEdge = {
      id: key,
      sources: [ts[0].source],
      targets: [ts[0].target],
      labels: lines.length ? [{ id: `${key}#label`, text: lines.join("\n"), width, height }] : [],
    };
    root.edges!.push(edge);
  }

  const out = await elk.layout(root);

  const nodes: LaidNode[] = [];
  const visit = (n: ElkNode, parent: string | null) => {
    for (const c of n.children ?? []) {
      const state = byId.get(c.id)!;
      nodes.push({ id: c.id, state, parent, x: c.x ?? 0, y: c.y ?? 0, width: c.width ?? NODE_W, height: c.height ?? NODE_H, internal: internal.get(c.id) ?? [], aborts: aborts.get(c.id) ?? [], errors: errors.get(c.id) ?? [] });
      visit(c, c.id);
    }
  };
  visit(out, null);

  const edges: LaidEdge[] = [];
  for (const e of (out.edges ?? []) as ElkExtendedEdge[]) {
    const ts = grouped.get(e.id)!;
    const points: { x: number; y: number }[] = [];
    for (const sec of e.sections ?? []) {
      points.push(sec.startPoint, ...(sec.bendPoints ?? []), sec.endPoint);
    }
    const l = e.labels?.[0];
    edges.push({
      id: e.id,
      source: ts[0].source,
      target: ts[0].target,
      transitions: ts,
      points,
      label: l ? onLongestSegment(points, l.width ?? 0, l.height ?? 0) : null,
    });
  }
  return { nodes, edges, width: out.width ?? 0, height: out.height ?? 0 };
}
