"use client";
// The workflow's state machine as a diagram. Everything in it is drawn readable: the diagram
// never picks a zoom at which its smallest text (MIN_FONT) is under 11 px. When the whole
// machine would not fit at that zoom, groups (compound and parallel states) are drawn collapsed
// into one node with a count, opened on click; the groups holding the run's active or visited
// states stay open. What does not fit is a pan away: the view opens on the start (a workflow) or
// on the active state with where it came from and where it can go next (a run).
import { Background, MarkerType, ReactFlow, ReactFlowProvider, useReactFlow, useStore, type Edge, type Node } from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { groupsOf, layoutGraph, visibleIdOf, type Layout } from "@/lib/graph/layout";
import { chooseView, fitsReadably, focusOf, withAncestors } from "@/lib/graph/view";
import type { DiagramOverlay } from "@/lib/graph/overlay";
import { GroupNode, StateNode, type NodeStatus } from "./state-node";

export type { DiagramOverlay, OverlayTone } from "@/lib/graph/overlay";
import { EDGE_Z, TransitionEdge } from "./transition-edge";

const nodeTypes = { state: StateNode, group: GroupNode };
const edgeTypes = { transition: TransitionEdge };

export interface DiagramStatus {
  active: string[];
  /** the active states wait for a human */
  waiting?: boolean;
  visited?: string[];
  failed?: string[];
  /** edge ids "source->target" that were taken; the last one is animated */
  taken?: string[];
  last?: string | null;
  abortedFrom?: string[];
}

/** The arrowhead's size in stroke widths: 16 at the usual width; under the fleet overlay's traffic widths, the same on screen. */
function markerSize(traffic: Record<string, number> | null, id: string): number {
  if (!traffic) return 16;
  const weight = (traffic[id] ?? 0) / Math.max(1, ...Object.values(traffic));
  return Math.max(4, 20 / (1 + 7 * weight));
}

function statusOf(id: string, s: DiagramStatus): NodeStatus {
  const activeHere = s.active.some((a) => a === id || a.startsWith(`${id}.`));
  if (activeHere) return s.waiting ? "waiting" : "active";
  if (s.failed?.includes(id)) return "failed";
  if (s.visited?.includes(id)) return "visited";
  return "idle";
}

/** The run's status in terms of what is drawn: states inside a collapsed group count as the group. */
function mapStatus(s: DiagramStatus, shown: (id: string) => string): DiagramStatus {
  const ids = (l?: string[]) => (l ? [...new Set(l.map(shown))] : l);
  const edge = (e: string) => {
    const [a, b] = e.split("->");
    return `${shown(a)}->${shown(b ?? "")}`;
  };
  return { ...s, active: ids(s.active) ?? [], visited: ids(s.visited), failed: ids(s.failed), abortedFrom: ids(s.abortedFrom), taken: s.taken?.map(edge), last: s.last ? edge(s.last) : s.last };
}

export function WorkflowDiagram(props: Parameters<typeof Diagram>[0]) {
  return (
    <ReactFlowProvider>
      <Diagram {...props} />
    </ReactFlowProvider>
  );
}

function Diagram({
  layout,
  status,
  className,
  follow = false,
  alerts,
  autoCollapse = true,
  overlay,
  onStateClick,
}: {
  layout: Layout;
  status?: DiagramStatus;
  className?: string;
  /** move the view along with the run's active state */
  follow?: boolean;
  /** state id → the messages of its open alerts (lib/alerts); those nodes get a red "⚠ alert" badge */
  alerts?: Record<string, string>;
  /** collapse groups when the whole machine would not fit readably (the flow editor shows everything it edits) */
  autoCollapse?: boolean;
  /** tags, path colours and an outline painted over the machine */
  overlay?: DiagramOverlay;
  /** a click on a state (not on a collapsed group, which opens it) */
  onStateClick?: (id: string) => void;
}) {
  const statusKey = JSON.stringify(status ?? null);
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const s = useMemo(() => status ?? { active: [] }, [statusKey]);
  const canvas = useRef<HTMLDivElement>(null);
  const [size, setSize] = useState<{ w: number; h: number } | null>(null);
  useEffect(() => {
    const el = canvas.current;
    if (!el) return;
    const measure = () => setSize((old) => (old && old.w === el.clientWidth && old.h === el.clientHeight ? old : { w: el.clientWidth, h: el.clientHeight }));
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  // which groups are drawn collapsed: the person's choice, else collapsed only when needed
  const [overrides, setOverrides] = useState<Record<string, boolean>>({});
  const [shown, setShown] = useState<{ layout: Layout; decided: boolean }>({ layout, decided: false });
  const cache = useMemo(() => new Map<string, Promise<Layout>>(), [layout]);
  const groups = useMemo(() => groupsOf(layout.graph), [layout]);
  const keepOpen = useMemo(() => [...new Set([...s.active, ...(s.visited ?? [])].flatMap(withAncestors))].sort().join(), [s]);
  const overridesKey = JSON.stringify(overrides);
  useEffect(() => {
    if (!size) return;
    let cancelled = false;
    const keep = new Set(keepOpen.split(","));
    const get = (ids: string[]) => {
      if (ids.length === 0) return Promise.resolve(layout);
      const key = [...ids].sort().join();
      let p = cache.get(key);
      if (!p) {
        p = layoutGraph(layout.graph, { collapsed: ids });
        cache.set(key, p);
      }
      return p;
    };
    const closed = groups.filter((g) => overrides[g.id] === false).map((g) => g.id);
    const candidates = autoCollapse ? groups.filter((g) => overrides[g.id] === undefined && !keep.has(g.id)).map((g) => g.id) : [];
    const depth = (id: string) => id.split(".").length;
    const attempts = [closed];
    for (const d of [...new Set(candidates.map(depth))].sort((a, b) => b - a)) attempts.push([...closed, ...candidates.filter((id) => depth(id) >= d)]);
    void (async () => {
      let pick = layout;
      for (const ids of attempts) {
        pick = await get(ids);
        if (fitsReadably(pick, size.w, size.h)) break;
      }
      if (!cancelled) setShown({ layout: pick, decided: true });
    })().catch(() => !cancelled && setShown({ layout, decided: true }));
    return () => {
      cancelled = true;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [layout, size?.w, size?.h, keepOpen, overridesKey, autoCollapse, groups, cache]);

  const l = shown.layout;
  const toggle = useCallback((id: string) => {
    setOverrides((o) => ({ ...o, [id]: l.collapsed.includes(id) }));
  }, [l]);
  const visible = useMemo(() => visibleIdOf(l.graph, l.collapsed), [l]);
  const m = useMemo(() => mapStatus(s, visible), [s, visible]);
  const alertsShown = useMemo(() => {
    if (!alerts) return undefined;
    const out: Record<string, string> = {};
    for (const [id, msg] of Object.entries(alerts)) out[visible(id)] = out[visible(id)] ? `${out[visible(id)]}\n${msg}` : msg;
    return out;
  }, [alerts, visible]);
  const collapsible = new Set(groups.map((g) => g.id));
  const overlayKey = JSON.stringify(overlay ?? null);
  const painted = useMemo(() => {
    const tags: Record<string, NonNullable<DiagramOverlay["nodes"]>[string]> = {};
    for (const [id, list] of Object.entries(overlay?.nodes ?? {})) (tags[visible(id)] ??= []).push(...list);
    const edges: Record<string, "a" | "b" | "both"> = {};
    for (const [id, path] of Object.entries(overlay?.edges ?? {})) {
      const [a, b] = id.split("->");
      const shown = `${visible(a!)}->${visible(b ?? "")}`;
      edges[shown] = edges[shown] && edges[shown] !== path ? "both" : path;
    }
    const traffic: Record<string, number> = {};
    for (const [id, n] of Object.entries(overlay?.traffic ?? {})) {
      const [a, b] = id.split("->");
      const shown = `${visible(a!)}->${visible(b ?? "")}`;
      traffic[shown] = (traffic[shown] ?? 0) + n;
    }
    return { tags, edges, outline: overlay?.outline ? visible(overlay.outline) : null, traffic: overlay?.traffic ? traffic : null };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [overlayKey, visible]);

  const nodes: Node[] = useMemo(
    () =>
      l.nodes.map((n) => ({
        id: n.id,
        type: (n.state.type === "compound" || n.state.type === "parallel") && n.hidden === undefined ? "group" : "state",
        position: { x: n.x, y: n.y },
        ...(n.parent ? { parentId: n.parent } : {}),
        data: {
          state: n.state,
          internal: n.internal,
          aborts: n.aborts,
          errors: n.errors,
          status: statusOf(n.id, m),
          abortTaken: !!m.abortedFrom?.includes(n.id),
          alert: alertsShown?.[n.id] ?? null,
          tags: painted.tags[n.id],
          outlined: painted.outline === n.id,
          hidden: n.hidden,
          onToggle: collapsible.has(n.id) ? toggle : undefined,
        },
        style: { width: n.width, height: n.height },
        draggable: false,
        selectable: false,
      })),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [l, m, alertsShown, toggle, painted],
  );
  const edges: Edge[] = useMemo(
    () =>
      l.edges.map((e) => {
        const taken = !!m.taken?.includes(e.id);
        const last = e.id === m.last;
        const next = !taken && m.active.some((a) => a === e.source || a.startsWith(`${e.source}.`));
        return {
          id: e.id,
          source: e.source,
          target: e.target,
          type: "transition",
          // (a marker is drawn in stroke widths: a traffic-thick edge keeps an arrowhead of the usual size)
          markerEnd: { type: MarkerType.ArrowClosed, width: markerSize(painted.traffic, e.id), height: markerSize(painted.traffic, e.id), color: last ? "var(--edge-last)" : taken ? "var(--edge-taken)" : "var(--edge-marker)" },
          data: { points: e.points, label: e.label, transitions: e.transitions, taken, last, next, path: painted.edges[e.id], ...(painted.traffic ? { traffic: painted.traffic[e.id] ?? 0, weight: (painted.traffic[e.id] ?? 0) / Math.max(1, ...Object.values(painted.traffic)) } : {}) },
          zIndex: last ? EDGE_Z.last : taken || painted.edges[e.id] ? EDGE_Z.taken : EDGE_Z.rest,
        };
      }),
    [l, m, painted],
  );

  // with no active state, the view opens on what an overlay points at (the divergence, the states it tags)
  const focus = useMemo(() => {
    if (m.active.length || (!painted.outline && Object.keys(painted.tags).length === 0)) return m;
    return { ...m, active: painted.outline ? [painted.outline] : Object.keys(painted.tags) };
  }, [m, painted]);
  const [ready, setReady] = useState(false);
  const applyView = useRef<((force: boolean) => void) | null>(null);
  return (
    <div className={`flex flex-col ${className ?? "h-[640px] w-full"}`} data-testid="diagram" data-ready={ready ? "" : undefined}>
      <Toolbar
        collapsed={l.collapsed.length}
        groups={groups.length}
        onOpenAll={() => setOverrides(Object.fromEntries(groups.map((g) => [g.id, true])))}
        onCollapseAll={() => setOverrides(Object.fromEntries(groups.filter((g) => !g.parent).map((g) => [g.id, false])))}
        onFit={() => size && applyView.current?.(true)}
      />
      <div ref={canvas} className={`min-h-0 flex-1 transition-opacity ${ready ? "opacity-100" : "opacity-0"}`}>
        <ReactFlow
          nodes={nodes}
          edges={edges}
          nodeTypes={nodeTypes}
          edgeTypes={edgeTypes}
          minZoom={0.2}
          maxZoom={2}
          nodesDraggable={false}
          nodesConnectable={false}
          elementsSelectable={false}
          onNodeClick={(_, node) => ((node.data as { hidden?: number }).hidden !== undefined ? toggle(node.id) : onStateClick?.(node.id))}
          proOptions={{ hideAttribution: true }}
          colorMode="system"
        >
          <Background gap={24} color="var(--diagram-dots)" />
          {size && shown.decided && <AutoView layout={l} status={focus} follow={follow} size={size} onApplied={() => setReady(true)} apply={applyView} />}
        </ReactFlow>
      </div>
    </div>
  );
}

/**
 * Sets the view (chooseView) when the drawn layout or the canvas changes, and with `follow` when
 * the run moves; a person who pans or zooms takes over for a while.
 */
function AutoView({ layout, status, follow, size, onApplied, apply }: { layout: Layout; status: DiagramStatus; follow: boolean; size: { w: number; h: number }; onApplied: () => void; apply: { current: ((force: boolean) => void) | null } }) {
  const flow = useReactFlow();
  const dom = useStore((st) => st.domNode);
  const touched = useRef(0);
  const first = useRef(true);
  useEffect(() => {
    const el = dom?.querySelector(".react-flow__pane");
    const mark = () => (touched.current = Date.now());
    el?.addEventListener("wheel", mark, { passive: true });
    el?.addEventListener("pointerdown", mark);
    return () => {
      el?.removeEventListener("wheel", mark);
      el?.removeEventListener("pointerdown", mark);
    };
  }, [dom]);
  const target = follow ? `${status.active.join()}|${status.last}` : "";
  useEffect(() => {
    apply.current = (force: boolean) => {
      if (!force && !first.current && Date.now() - touched.current < 15_000) return;
      const { focus, must } = focusOf(layout, status);
      const view = chooseView(layout, size.w, size.h, focus, must);
      void flow.setViewport(view, { duration: first.current || force ? 0 : 300 }).then(() => {
        first.current = false;
        onApplied();
      });
    };
    apply.current(false);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [flow, layout, size.w, size.h, target]);
  return null;
}

function Toolbar({ collapsed, groups, onOpenAll, onCollapseAll, onFit }: { collapsed: number; groups: number; onOpenAll: () => void; onCollapseAll: () => void; onFit: () => void }) {
  const flow = useReactFlow();
  const zoom = useStore((st) => st.transform[2]);
  const button = "rounded border border-slate-300 bg-white px-2 py-0.5 text-[12px] leading-4 text-slate-700 hover:bg-slate-100 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-200 dark:hover:bg-slate-800";
  return (
    <div className="flex flex-wrap items-center gap-1.5 border-b border-slate-200 bg-slate-50 px-2 py-1.5 dark:border-slate-700 dark:bg-slate-900" data-testid="diagram-toolbar">
      <button type="button" className={button} onClick={() => void flow.zoomOut({ duration: 150 })} aria-label="Zoom out">−</button>
      <span className="w-11 text-center text-[12px] tabular-nums text-slate-500 dark:text-slate-400" data-testid="diagram-zoom">{Math.round(zoom * 100)}%</span>
      <button type="button" className={button} onClick={() => void flow.zoomIn({ duration: 150 })} aria-label="Zoom in">+</button>
      <button type="button" className={button} onClick={onFit} title="The whole machine if it fits readably, else the part that matters now">Fit</button>
      {groups > 0 &&
        (collapsed > 0 ? (
          <button type="button" className={button} onClick={onOpenAll}>Open all groups</button>
        ) : (
          <button type="button" className={button} onClick={onCollapseAll}>Collapse groups</button>
        ))}
      <span className="ml-auto hidden text-[12px] text-slate-400 sm:inline">drag to pan · scroll to zoom{collapsed > 0 ? " · click a group to open it" : ""}</span>
    </div>
  );
}
