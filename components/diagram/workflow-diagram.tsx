"use client";
// The workflow's state machine as a diagram you can read whole. Fit shows the whole machine,
// always; what a node and an edge label draw depends on the zoom (semantic zoom, zoom.tsx): full
// nodes and labels where their text is readable, compact chips below, labels then on hover or
// focus. A minimap shows where the view is. Layouts come from the server (lib/graph: both aspect
// buckets, groups open and collapsed) so the diagram appears with its page; other sets of
// collapsed groups are laid out here, the drawn layout staying until the new one is ready.
// A run opens on the state that waits for a person (else its newest active state) with its
// neighbours, readable; a collapsed group opens on click and the view zooms into it, with a
// breadcrumb back to the whole machine.
import { Background, MarkerType, MiniMap, ReactFlow, ReactFlowProvider, useReactFlow, useStore, type Edge, type Node, type ReactFlowState } from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import { aspectOf, CHIP_FONT, groupsOf, layoutGraph, READABLE_ZOOM, unpackLayouts, variantKey, visibleIdOf, type Aspect, type Layout, type LayoutPack } from "@/lib/graph/layout";
import { absoluteBoxes, boxView, chooseView, MAX_OVERVIEW_ZOOM, collapsedAround, fitBoth, fitHeight, fitZoom, focusOf, readableView, withAncestors, type Viewport } from "@/lib/graph/view";
import { tagsByNode, type DiagramOverlay, type OverlayTag } from "@/lib/graph/overlay";
import { ALERT_LABEL, GroupNode, StateNode, type NodeStatus } from "./state-node";
import { placeKey, placeTagRows, tagTextMeasure, type Box as TagBox, type NodePlaces, type TagRows } from "./tag-room";
import { modeOf, ZoomModeContext } from "./zoom";

export type { DiagramOverlay, OverlayTone } from "@/lib/graph/overlay";
import { EDGE_Z, TransitionEdge } from "./transition-edge";

// not "group": React Flow styles its own "group" type with a border of its own (a double border on ours)
const nodeTypes = { state: StateNode, stateGroup: GroupNode };
const edgeTypes = { transition: TransitionEdge };

/** The minimap (150×100 with its margin) is shown from this screen width (Tailwind's sm) on; views keep clear of it. */
const MINIMAP_FROM = 640;
const MINIMAP_ROOM = { w: 166, h: 116 };

/** `fitScreen` keeps the diagram within the first screen from this screen width on, down to this height (between it and a phone the page scrolls to its diagram). */
const FIT_SCREEN_FROM = 1024;
const FIT_SCREEN_MIN = 480;
/** a phone's canvas cut to the machine keeps at least this height */
const PHONE_CANVAS_MIN = 240;

/** The overview's names are drawn whole (CHIP_FONT at 11 px or more on screen) from this zoom on. */
const NAMES_WHOLE_ZOOM = 11 / CHIP_FONT;

/** With every group open the machine must fit at this zoom or more, else groups start collapsed. */
const OPEN_FIT_ZOOM = 0.5;

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

const minimapColor: Record<NodeStatus, string> = { active: "#2563eb", waiting: "#059669", failed: "#ef4444", visited: "#94a3b8", idle: "#e2e8f0" };

function Diagram({
  layout: given,
  status,
  className,
  follow = false,
  alerts,
  autoCollapse = true,
  overlay,
  badges,
  onStateClick,
  fitScreen = false,
}: {
  /** one layout (laid out again here for other groups and aspects), or the server's pack of them */
  layout: Layout | LayoutPack;
  status?: DiagramStatus;
  className?: string;
  /** move the view along with the run's active state */
  follow?: boolean;
  /** state id → the messages of its open alerts (lib/alerts); those nodes get a red "⚠ alert" badge */
  alerts?: Record<string, string>;
  /** collapse groups when the machine is too large to read with them open (the flow editor shows everything it edits) */
  autoCollapse?: boolean;
  /** tags, path colours and an outline painted over the machine */
  overlay?: DiagramOverlay;
  /** state id → more badges for its node (over its bottom edge) */
  badges?: Record<string, OverlayTag[]>;
  /** a click on a state (not on a collapsed group, which opens it) */
  onStateClick?: (id: string) => void;
  /** on a wide screen the diagram is no taller than what is left of the first screen below it (Fit never puts states below the fold); on a phone, than the machine needs */
  fitScreen?: boolean;
}) {
  const statusKey = JSON.stringify(status ?? null);
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const s = useMemo(() => status ?? { active: [] }, [statusKey]);
  const canvas = useRef<HTMLDivElement>(null);
  const outer = useRef<HTMLDivElement>(null);
  /** the canvas's height as the page sets it, while a phone's canvas is cut to the machine (its aspect decides the layout) */
  const natural = useRef<number | null>(null);
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
  const aspect: Aspect = size ? aspectOf(size.w, natural.current ?? size.h) : "landscape";

  // the layouts at hand: the server's, then those laid out here (a promise each, by variant key)
  const { base, cache } = useMemo(() => {
    const list = "variants" in given ? unpackLayouts(given) : [given];
    const cache = new Map<string, Promise<Layout>>();
    const ready = new Map<string, Layout>();
    for (const l of list) {
      ready.set(variantKey(l.collapsed, l.aspect ?? "landscape", l.overview), l);
      cache.set(variantKey(l.collapsed, l.aspect ?? "landscape", l.overview), Promise.resolve(l));
    }
    return { base: { list, ready, first: list.find((l) => !l.overview) ?? list[0] }, cache };
  }, [given]);
  const graph = base.list[0].graph;
  const groups = useMemo(() => groupsOf(graph), [graph]);
  /** a variant drawn now if it is at hand (the same groups in the other aspect will do while the right one is laid out) */
  const atHand = useCallback(
    (collapsed: string[], a: Aspect, overview = false) => base.ready.get(variantKey(collapsed, a, overview)) ?? base.list.find((l) => !!l.overview === overview && variantKey(l.collapsed) === variantKey(collapsed)) ?? null,
    [base],
  );
  const get = useCallback(
    (collapsed: string[], a: Aspect, overview = false) => {
      const key = variantKey(collapsed, a, overview);
      let p = cache.get(key);
      if (!p) {
        p = layoutGraph(graph, { collapsed, aspect: a, overview }).then((l) => {
          base.ready.set(key, l);
          return l;
        });
        cache.set(key, p);
      }
      return p;
    },
    [cache, graph, base],
  );

  // which groups are drawn collapsed: the person's choice, else all open when the machine is
  // readable enough with them open, else all but those holding the run's states (the variant the
  // server lays out ahead for a run's page)
  const [overrides, setOverrides] = useState<Record<string, boolean>>({});
  const around = useMemo(() => collapsedAround(graph, [...s.active, ...(s.visited ?? [])]).join(), [graph, s.active, s.visited]);
  const wanted = useMemo(() => {
    if (!size) return null;
    const closed = groups.filter((g) => overrides[g.id] === false).map((g) => g.id);
    const open = atHand(closed, aspect);
    const roomy = open && fitZoom(open.width, open.height, size.w, natural.current ?? size.h) >= OPEN_FIT_ZOOM;
    if (!autoCollapse || roomy) return closed;
    const shut = new Set(around.split(",").filter(Boolean));
    return [...closed, ...groups.filter((g) => overrides[g.id] === undefined && shut.has(g.id) && !closed.includes(g.id)).map((g) => g.id)];
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [size?.w, size?.h, aspect, around, JSON.stringify(overrides), autoCollapse, groups, atHand]);
  // each variant twice: the detailed diagram, and the overview drawn below a readable zoom
  const [shown, setShown] = useState<{ layout: Layout; overview: Layout | null; decided: boolean }>(() => ({ layout: base.first, overview: null, decided: false }));
  useEffect(() => {
    if (!wanted) return;
    // draw what is at hand at once (no blank canvas), the right variant when it is laid out
    const now = atHand(wanted, aspect);
    const over = atHand(wanted, aspect, true);
    const exact = (x: Layout | null) => !!x && ((x.aspect ?? "landscape") === aspect || !("variants" in given));
    const final = exact(now) && exact(over);
    if (now) setShown((old) => (old.layout === now && old.overview === over && old.decided === final ? old : { layout: now, overview: over, decided: final }));
    if (final) return;
    let cancelled = false;
    Promise.all([get(wanted, aspect), get(wanted, aspect, true).catch(() => null)])
      .then(([l, o]) => !cancelled && setShown({ layout: l, overview: o, decided: true }))
      .catch(() => !cancelled && setShown((old) => ({ ...old, decided: true })));
    return () => {
      cancelled = true;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [wanted?.join(), aspect, get, atHand]);

  // below a readable zoom the overview is drawn (chips sized to their names, closer together)
  const mode = useStore((st: ReactFlowState) => modeOf(st.transform[2]));
  const l = mode !== "detail" && shown.overview ? shown.overview : shown.layout;
  /** the layout Fit draws at this canvas: the one the phone's canvas is cut to */
  const fitted = size && shown.overview && fitBoth(shown.layout, shown.overview, size.w, size.h).overview ? shown.overview : shown.layout;
  // fitScreen: on a wide screen the diagram ends within the first screen; on a phone its canvas is
  // no taller than the machine needs at Fit (no blank band above and below a wide machine)
  useLayoutEffect(() => {
    const el = outer.current;
    const c = canvas.current;
    if (!fitScreen || !el || !c) return;
    const fit = () => {
      el.style.height = "";
      natural.current = null;
      if (window.matchMedia(`(min-width: ${FIT_SCREEN_FROM}px)`).matches) {
        // (from the page's top: where it sits when the page opens, wherever it is scrolled to now)
        const room = Math.floor(window.innerHeight - (el.getBoundingClientRect().top + window.scrollY) - 16);
        if (room < el.offsetHeight) el.style.height = `${Math.max(room, FIT_SCREEN_MIN)}px`;
        return;
      }
      if (window.matchMedia(`(min-width: ${MINIMAP_FROM}px)`).matches || c.clientHeight === 0) return;
      natural.current = c.clientHeight;
      const need = Math.max(PHONE_CANVAS_MIN, fitHeight(fitted.width, fitted.height, c.clientWidth, c.clientHeight));
      if (need < c.clientHeight - 8) el.style.height = `${el.offsetHeight - c.clientHeight + need}px`;
    };
    fit();
    window.addEventListener("resize", fit);
    return () => window.removeEventListener("resize", fit);
  }, [fitScreen, fitted]);
  const [openedGroup, setOpenedGroup] = useState<string | null>(null);
  const toggle = useCallback(
    (id: string) => {
      const opening = l.collapsed.includes(id);
      setOverrides((o) => ({ ...o, [id]: opening }));
      setOpenedGroup(opening ? id : null);
    },
    [l],
  );
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
  const badgesKey = JSON.stringify(badges ?? null);
  const painted = useMemo(() => {
    const tags = tagsByNode(overlay?.nodes ?? {}, visible, (id) => graph.states.find((st) => st.id === id)?.name ?? id);
    const extra: Record<string, OverlayTag[]> = {};
    for (const [id, list] of Object.entries(badges ?? {})) (extra[visible(id)] ??= []).push(...list);
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
    return { tags, extra, edges, outline: overlay?.outline ? visible(overlay.outline) : null, traffic: overlay?.traffic ? traffic : null };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [overlayKey, badgesKey, visible, graph]);

  const abs = useMemo(() => absoluteBoxes(l), [l]);
  // below a readable zoom, where each node's tags go (tag-room.ts): the rows of all nodes placed
  // together, once per zoom, each clear of the other states and of the rows placed before it
  const placeTags = useMemo(() => {
    const rows: TagRows[] = [];
    const obstacles: { id: string; box: TagBox }[] = [];
    for (const n of l.nodes) {
      const box = abs.get(n.id);
      if (!box) continue;
      const group = (n.state.type === "compound" || n.state.type === "parallel") && n.hidden === undefined;
      if (!group) obstacles.push({ id: n.id, box });
      const alert = alertsShown?.[n.id] ? [{ label: ALERT_LABEL, short: ALERT_LABEL }] : [];
      const top = [...(painted.tags[n.id] ?? []).map((t) => ({ label: t.label, short: t.short, mini: t.mini })), ...alert];
      const bottom = (painted.extra[n.id] ?? []).map((t) => ({ label: t.label, short: t.short, mini: t.mini }));
      if (top.length || bottom.length) rows.push({ id: n.id, box, top, bottom, side: !group && box.x + box.w / 2 > l.width / 2 ? "right" : "left", inside: !group && !!l.overview });
    }
    let measure: ((t: string) => number) | null = null;
    let at = Number.NaN;
    let placed = new Map<string, NodePlaces>();
    return (id: string, zoom: number) => {
      if (zoom !== at) {
        measure ??= tagTextMeasure();
        placed = placeTagRows(rows, obstacles, zoom, measure);
        at = zoom;
      }
      return placeKey(placed.get(id));
    };
  }, [l, abs, painted, alertsShown]);
  const nodes: Node[] = useMemo(
    () =>
      l.nodes.map((n) => ({
        id: n.id,
        type: (n.state.type === "compound" || n.state.type === "parallel") && n.hidden === undefined ? "stateGroup" : "state",
        position: { x: n.x, y: n.y },
        ...(n.parent ? { parentId: n.parent } : {}),
        data: {
          state: n.state,
          internal: n.internal,
          aborts: n.aborts,
          errors: n.errors,
          fans: n.fans,
          status: statusOf(n.id, m),
          abortTaken: !!m.abortedFrom?.includes(n.id),
          alert: alertsShown?.[n.id] ?? null,
          tags: painted.tags[n.id],
          badges: painted.extra[n.id],
          outlined: painted.outline === n.id,
          hidden: n.hidden,
          box: { w: n.width, h: n.height },
          overview: !!l.overview,
          side: (abs.get(n.id)?.x ?? n.x) + n.width / 2 > l.width / 2 ? "right" : "left",
          onToggle: collapsible.has(n.id) ? toggle : undefined,
          placeTags,
        },
        style: { width: n.width, height: n.height },
        // the size given, not only measured: the minimap draws a node only when its node object has one
        width: n.width,
        height: n.height,
        draggable: false,
        selectable: false,
      })),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [l, abs, m, alertsShown, toggle, painted, placeTags],
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

  // with no active state, the view opens on the state an overlay outlines (a comparison's divergence);
  // tags are notes on states (approve rates, the fleet's counts, where runs land): with them the
  // view still opens on the whole machine
  const focus = useMemo(() => {
    if (m.active.length || !painted.outline) return { ...m, waitingOn: m.waiting ? m.active.at(-1) : null };
    return { ...m, active: [painted.outline] };
  }, [m, painted]);
  const [ready, setReady] = useState(false);
  const view = useRef<ViewControl | null>(null);
  /** the layout a view AutoView set is for, while the drawn one still differs (no anchoring then) */
  const intended = useRef<"detail" | "overview" | null>(null);
  /** when the person last panned or zoomed (the view then stops moving by itself for a while) */
  const touched = useRef(0);
  const trail = openedGroup && l.nodes.some((n) => n.id === openedGroup && n.hidden === undefined) ? withAncestors(openedGroup) : [];
  return (
    <div ref={outer} className={`flex flex-col ${className ?? "h-[640px] w-full"}`} data-testid="diagram" data-ready={ready ? "" : undefined} data-layout={l.fallback ? "fallback" : "elk"}>
      <Toolbar
        collapsed={l.collapsed.length}
        groups={groups.length}
        trail={trail.map((id) => ({ id, name: l.nodes.find((n) => n.id === id)?.state.name ?? id }))}
        onOpenAll={() => {
          setOpenedGroup(null);
          setOverrides(Object.fromEntries(groups.map((g) => [g.id, true])));
        }}
        onCollapseAll={() => {
          setOpenedGroup(null);
          setOverrides(Object.fromEntries(groups.filter((g) => !g.parent).map((g) => [g.id, false])));
        }}
        onFit={() => {
          setOpenedGroup(null);
          view.current?.fit();
        }}
        onGroup={(id) => {
          setOpenedGroup(id);
          view.current?.box(id);
        }}
      />
      <div ref={canvas} className={`relative min-h-0 flex-1 transition-opacity ${ready ? "opacity-100" : "opacity-0"}`}>
        <ZoomModeContext.Provider value={mode}>
        <ReactFlow
          nodes={nodes}
          edges={edges}
          nodeTypes={nodeTypes}
          edgeTypes={edgeTypes}
          minZoom={0.02}
          maxZoom={2}
          nodesDraggable={false}
          nodesConnectable={false}
          elementsSelectable={false}
          // the person's own pan or zoom (a move with an input event; a click on a state is no move)
          onMove={(event) => {
            if (event) touched.current = Date.now();
          }}
          onNodeClick={(_, node) => {
            if ((node.data as { hidden?: number }).hidden !== undefined) toggle(node.id);
            else if (onStateClick) onStateClick(node.id);
            else if (node.type === "state") view.current?.node(node.id);
          }}
          proOptions={{ hideAttribution: true }}
          colorMode="system"
        >
          <Background gap={24} color="var(--diagram-dots)" />
          <MiniMap
            pannable
            zoomable
            ariaLabel="Minimap: the whole machine and where the view is"
            nodeColor={(n) => (n.type === "stateGroup" ? "transparent" : minimapColor[(n.data as { status: NodeStatus }).status] ?? "#e2e8f0")}
            nodeStrokeColor={(n) => (n.type === "stateGroup" ? "#94a3b8" : "transparent")}
            nodeBorderRadius={6}
            className="!m-2 hidden rounded-md border border-slate-200 !bg-white/90 sm:block dark:border-slate-700 dark:!bg-slate-900/90"
            style={{ width: 150, height: 100 }}
            data-testid="diagram-minimap"
          />
          <ZoomVar />
          {size && size.w > 0 && size.h > 0 && shown.decided && (
            <AutoView layout={shown.layout} overview={shown.overview} status={focus} follow={follow} size={size} opened={openedGroup} onApplied={() => setReady(true)} onMoving={(moving) => outer.current?.toggleAttribute("data-moving", moving)} control={view} touched={touched} intended={intended} />
          )}
          {size && <Anchor drawn={l} size={size} intended={intended} />}
        </ReactFlow>
        </ZoomModeContext.Provider>
      </div>
    </div>
  );
}

/** Keeps the --dz CSS variable (the zoom) on the diagram and the zoom mode in context for the nodes and labels. */
function ZoomVar() {
  const zoom = useStore((st: ReactFlowState) => st.transform[2]);
  const dom = useStore((st: ReactFlowState) => st.domNode);
  useEffect(() => {
    dom?.style.setProperty("--dz", String(zoom));
  }, [dom, zoom]);
  return null;
}

interface ViewControl {
  fit: () => void;
  box: (id: string) => void;
  node: (id: string) => void;
}

/**
 * Sets the view when the drawn layout or the canvas changes, and with `follow` when the run
 * moves: Fit on a workflow, the focus state on a run, the opened group after a click on it. A
 * person who pans or zooms takes over for a while.
 */
function AutoView({ layout, overview, status, follow, size, opened, onApplied, onMoving, control, touched, intended }: { layout: Layout; overview: Layout | null; status: DiagramStatus & { waitingOn?: string | null }; follow: boolean; size: { w: number; h: number }; opened: string | null; onApplied: () => void; onMoving: (moving: boolean) => void; control: { current: ViewControl | null }; touched: { current: number }; intended: { current: "detail" | "overview" | null } }) {
  const flow = useReactFlow();
  const first = useRef(true);
  /** the view change in progress (a newer one interrupts it: its promise never settles) */
  const moves = useRef(0);
  /** the opened group the view last zoomed into */
  const zoomedInto = useRef<string | null>(null);
  const target = follow ? `${status.active.join()}|${status.last}` : "";
  const abs = useMemo(() => absoluteBoxes(layout), [layout]);
  const absOver = useMemo(() => (overview ? absoluteBoxes(overview) : null), [overview]);
  // a view chosen here keeps clear of the minimap's corner: in the canvas without its strip on the
  // right or without its band at the bottom, whichever leaves the larger zoom
  const clear = useCallback(
    (pick: (w: number, h: number) => { x: number; y: number; zoom: number }) => {
      if (!window.matchMedia(`(min-width: ${MINIMAP_FROM}px)`).matches) return pick(size.w, size.h);
      const [a, b] = [pick(size.w - MINIMAP_ROOM.w, size.h), pick(size.w, size.h - MINIMAP_ROOM.h)];
      return a.zoom >= b.zoom ? a : b;
    },
    [size.w, size.h],
  );
  useEffect(() => {
    const go = (v: Viewport, animate: boolean) => {
      // the layout drawn at the new zoom: the drawn one switching to it is no zoom of the person's to anchor
      const to = v.zoom >= READABLE_ZOOM || !overview ? "detail" : "overview";
      const now = flow.getViewport().zoom >= READABLE_ZOOM || !overview ? "detail" : "overview";
      intended.current = to === now ? null : to;
      return goTo(v, animate);
    };
    // the diagram says `data-moving` from a view change's start until the frame after its end (the
    // drawn layout then matches the zoom): what reads the diagram whole waits for it to be gone
    const goTo = (v: Viewport, animate: boolean) => {
      const move = ++moves.current;
      onMoving(true);
      void flow.setViewport(v, { duration: animate && !first.current ? 300 : 0 }).then(() => {
        first.current = false;
        onApplied();
        requestAnimationFrame(() => requestAnimationFrame(() => move === moves.current && onMoving(false)));
      });
    };
    const groupBox = opened ? abs.get(opened) : undefined;
    // the whole machine: detailed where it is readable whole, else the overview
    const fit = () => clear((w, h) => fitBoth(layout, overview, w, h).view);
    // a box (an opened group): the same way, filling the canvas
    const boxOf = (id: string) => clear((w, h) => readableView(layout, overview, (x) => (x === layout ? abs : absOver)?.get(id), w, h, READABLE_ZOOM)?.view ?? boxView(abs.get(id)!, w, h));
    control.current = {
      fit: () => go(fit(), true),
      box: (id) => {
        if (abs.get(id)) go(boxOf(id), true);
      },
      node: (id) => {
        const b = abs.get(id);
        if (!b) return;
        // the state and its neighbours when they fit readably, else the state alone
        const { focus } = focusOf(layout, { active: [id] });
        go(clear((w, h) => boxView(focus && fitZoom(focus.w, focus.h, w, h) >= READABLE_ZOOM ? focus : b, w, h, READABLE_ZOOM)), true);
      },
    };
    // a group the person opened: its view once it is drawn open (they asked for it: even after a pan of theirs)
    const openedDrawn = !!groupBox && layout.nodes.some((n) => n.id === opened && n.hidden === undefined);
    if (opened && !openedDrawn && !first.current) return;
    if (openedDrawn && zoomedInto.current !== opened) {
      zoomedInto.current = opened;
      return go(boxOf(opened!), true);
    }
    if (!opened) zoomedInto.current = null;
    if (!first.current && Date.now() - touched.current < 15_000) return;
    if (openedDrawn) return go(boxOf(opened!), true);
    if (status.active.length === 0) return go(fit(), true);
    const { focus, must } = focusOf(layout, status);
    const v = clear((w, h) => chooseView(layout, w, h, focus, must));
    // the state with its neighbours: detailed where they fit readably, else in the overview where
    // they fit with their names whole (11 px or more), else the state detailed in the middle
    const whole = focus && clear((w, h) => boxView(focus, w, h)).zoom >= READABLE_ZOOM;
    const near = overview ? focusOf(overview, status).focus : null;
    const ov = near ? clear((w, h) => boxView(near, w, h, 0, MAX_OVERVIEW_ZOOM)) : null;
    if (v.zoom >= READABLE_ZOOM && (whole || !ov || ov.zoom < NAMES_WHOLE_ZOOM)) go(v, true);
    else if (ov && ov.zoom >= NAMES_WHOLE_ZOOM) go(ov, true);
    else go(v.zoom >= READABLE_ZOOM ? v : fit(), true);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [flow, layout, overview, size.w, size.h, target, opened]);
  return null;
}

/**
 * When the person's zoom crosses the readable zoom the drawn layout changes (overview ⇄ detailed):
 * the state nearest the canvas's middle stays where it was on screen, at the same zoom.
 */
function Anchor({ drawn, size, intended }: { drawn: Layout; size: { w: number; h: number }; intended: { current: "detail" | "overview" | null } }) {
  const flow = useReactFlow();
  const prev = useRef<Layout | null>(null);
  useLayoutEffect(() => {
    const was = prev.current;
    prev.current = drawn;
    if (!was || was === drawn || !!was.overview === !!drawn.overview) return;
    const kind = drawn.overview ? "overview" : "detail";
    if (intended.current === kind) {
      intended.current = null;
      return;
    }
    const { x, y, zoom } = flow.getViewport();
    const [cx, cy] = [(size.w / 2 - x) / zoom, (size.h / 2 - y) / zoom];
    const [from, to] = [absoluteBoxes(was), absoluteBoxes(drawn)];
    let best: string | null = null;
    let dist = Infinity;
    for (const n of was.nodes) {
      const b = from.get(n.id)!;
      // states rather than the groups around them
      if (!to.has(n.id) || drawn.nodes.some((m) => m.parent === n.id)) continue;
      const d = Math.hypot(b.x + b.w / 2 - cx, b.y + b.h / 2 - cy);
      if (d < dist) [best, dist] = [n.id, d];
    }
    if (!best) return;
    const [a, b] = [from.get(best)!, to.get(best)!];
    // the same point of the state under the canvas's middle (in proportion to its size)
    const nx = b.x + b.w / 2 + ((cx - a.x - a.w / 2) * b.w) / (a.w || 1);
    const ny = b.y + b.h / 2 + ((cy - a.y - a.h / 2) * b.h) / (a.h || 1);
    void flow.setViewport({ zoom, x: size.w / 2 - nx * zoom, y: size.h / 2 - ny * zoom });
  }, [drawn, flow, size.w, size.h, intended]);
  return null;
}

function Toolbar({ collapsed, groups, trail, onOpenAll, onCollapseAll, onFit, onGroup }: { collapsed: number; groups: number; trail: { id: string; name: string }[]; onOpenAll: () => void; onCollapseAll: () => void; onFit: () => void; onGroup: (id: string) => void }) {
  const flow = useReactFlow();
  const zoom = useStore((st) => st.transform[2]);
  const button = "rounded border border-slate-300 bg-white px-2 py-0.5 text-[12px] leading-4 text-slate-700 hover:bg-slate-100 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-200 dark:hover:bg-slate-800";
  return (
    <div className="flex flex-wrap items-center gap-1.5 border-b border-slate-200 bg-slate-50 px-2 py-1.5 dark:border-slate-700 dark:bg-slate-900" data-testid="diagram-toolbar">
      <button type="button" className={button} onClick={() => void flow.zoomOut({ duration: 150 })} aria-label="Zoom out">−</button>
      <span className="w-11 text-center text-[12px] tabular-nums text-slate-600 dark:text-slate-400" data-testid="diagram-zoom">{Math.round(zoom * 100)}%</span>
      <button type="button" className={button} onClick={() => void flow.zoomIn({ duration: 150 })} aria-label="Zoom in">+</button>
      <button type="button" className={button} onClick={onFit} title="The whole machine">Fit</button>
      {groups > 0 &&
        (collapsed > 0 ? (
          <button type="button" className={button} onClick={onOpenAll}>Open all groups</button>
        ) : (
          <button type="button" className={button} onClick={onCollapseAll}>Collapse groups</button>
        ))}
      {trail.length > 0 && (
        <nav aria-label="Group" data-testid="diagram-breadcrumb" className="flex min-w-0 items-center gap-1 text-[12px] text-slate-600 dark:text-slate-400">
          <button type="button" className="text-blue-700 underline dark:text-blue-400" onClick={onFit}>Whole machine</button>
          {trail.map((t, i) => (
            <span key={t.id} className="flex min-w-0 items-center gap-1">
              <span aria-hidden>›</span>
              {i < trail.length - 1 ? (
                <button type="button" className="truncate font-mono text-blue-700 underline dark:text-blue-400" onClick={() => onGroup(t.id)}>{t.name}</button>
              ) : (
                <span className="truncate font-mono text-slate-700 dark:text-slate-200" aria-current="location">{t.name}</span>
              )}
            </span>
          ))}
        </nav>
      )}
      <span className="ml-auto hidden text-[12px] text-slate-600 sm:inline dark:text-slate-400">drag to pan · scroll to zoom · click a state to zoom to it{collapsed > 0 ? " · click a group to open it" : ""}</span>
    </div>
  );
}
