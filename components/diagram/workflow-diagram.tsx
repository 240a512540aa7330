"use client";
import { Background, Controls, MarkerType, ReactFlow, useReactFlow, useStore, type Edge, type Node } from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { useEffect, useMemo, useRef } from "react";
import type { Layout } from "@/lib/graph/layout";
import { GroupNode, StateNode, type NodeStatus } from "./state-node";
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

function statusOf(id: string, s: DiagramStatus): NodeStatus {
  const activeHere = s.active.some((a) => a === id || a.startsWith(`${id}.`));
  if (activeHere) return s.waiting ? "waiting" : "active";
  if (s.failed?.includes(id)) return "failed";
  if (s.visited?.includes(id)) return "visited";
  return "idle";
}

/** The smallest zoom at which a state's name and description can still be read. */
const READABLE_ZOOM = 0.7;

/**
 * Keeps the active state in view at a readable zoom (the whole machine when it fits at that zoom),
 * panning smoothly as the run moves; a user who pans or zooms takes over for a while.
 */
function Follow({ layout, active }: { layout: Layout; active: string[] }) {
  const flow = useReactFlow();
  const width = useStore((s) => s.width);
  const height = useStore((s) => s.height);
  const touched = useRef(0);
  const first = useRef(true);
  useEffect(() => {
    const el = document.querySelector(".react-flow__pane");
    const mark = () => (touched.current = Date.now());
    el?.addEventListener("wheel", mark, { passive: true });
    el?.addEventListener("pointerdown", mark);
    return () => {
      el?.removeEventListener("wheel", mark);
      el?.removeEventListener("pointerdown", mark);
    };
  }, []);
  const target = active.join();
  useEffect(() => {
    if (!width || !height) return;
    if (Date.now() - touched.current < 15_000) return;
    const abs = new Map<string, { x: number; y: number; w: number; h: number }>();
    for (const n of layout.nodes) {
      const p = n.parent ? abs.get(n.parent) : undefined;
      abs.set(n.id, { x: (p?.x ?? 0) + n.x, y: (p?.y ?? 0) + n.y, w: n.width, h: n.height });
    }
    const boxes = active.map((a) => abs.get(a)).filter((b): b is NonNullable<typeof b> => !!b);
    const zoom = Math.max(READABLE_ZOOM, Math.min(1, (width - 32) / (layout.width || 1)));
    if ((layout.height * zoom <= height - 32 && layout.width * zoom <= width - 32) || boxes.length === 0) {
      void flow.fitView({ padding: 0.06, duration: first.current ? 0 : 300 });
    } else {
      const cx = boxes.reduce((s, b) => s + b.x + b.w / 2, 0) / boxes.length;
      const cy = boxes.reduce((s, b) => s + b.y + b.h / 2, 0) / boxes.length;
      const halfH = (height / zoom) / 2;
      const y = Math.min(Math.max(cy, halfH - 16), layout.height - halfH + 16);
      // lean towards the middle of the machine, but never so far that the active state leaves the view
      const halfW = width / zoom / 2;
      const boxW = Math.max(...boxes.map((b) => b.w));
      const slack = Math.max(0, halfW - boxW / 2 - 24);
      const x = Math.min(Math.max(layout.width / 2 + (cx - layout.width / 2) * 0.25, cx - slack), cx + slack);
      void flow.setCenter(x, y, { zoom, duration: first.current ? 0 : 400 });
    }
    first.current = false;
  }, [flow, layout, target, width, height, active]);
  return null;
}

export function WorkflowDiagram({
  layout,
  status,
  className,
  follow = false,
  alerts,
}: {
  layout: Layout;
  status?: DiagramStatus;
  className?: string;
  follow?: boolean;
  /** state id → the messages of its open alerts (lib/alerts); those nodes get a red "⚠ alert" badge */
  alerts?: Record<string, string>;
}) {
  const s = status ?? { active: [] };
  const alertKey = alerts ? JSON.stringify(alerts) : "";
  const key = `${s.active.join()}|${s.waiting}|${s.visited?.join()}|${s.failed?.join()}|${s.taken?.join()}|${s.last}|${s.abortedFrom?.join()}|${alertKey}`;
  const nodes: Node[] = useMemo(
    () =>
      layout.nodes.map((n) => ({
        id: n.id,
        type: n.state.type === "compound" || n.state.type === "parallel" ? "group" : "state",
        position: { x: n.x, y: n.y },
        ...(n.parent ? { parentId: n.parent } : {}),
        data: { state: n.state, internal: n.internal, aborts: n.aborts, errors: n.errors, status: statusOf(n.id, s), abortTaken: !!s.abortedFrom?.includes(n.id), alert: alerts?.[n.id] ?? null },
        style: { width: n.width, height: n.height },
        draggable: false,
        selectable: false,
      })),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [layout, key],
  );
  const edges: Edge[] = useMemo(
    () =>
      layout.edges.map((e) => ({
        id: e.id,
        source: e.source,
        target: e.target,
        type: "transition",
        markerEnd: { type: MarkerType.ArrowClosed, width: 16, height: 16, color: e.id === s.last ? "#2563eb" : s.taken?.includes(e.id) ? "#1e40af" : "#64748b" },
        data: { points: e.points, label: e.label, transitions: e.transitions, taken: !!s.taken?.includes(e.id), last: e.id === s.last },
        zIndex: e.id === s.last ? EDGE_Z.last : s.taken?.includes(e.id) ? EDGE_Z.taken : EDGE_Z.rest,
      })),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [layout, key],
  );
  return (
    <div className={className ?? "h-[640px] w-full"} data-testid="diagram">
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        edgeTypes={edgeTypes}
        fitView
        fitViewOptions={{ padding: 0.06 }}
        minZoom={0.2}
        maxZoom={2}
        nodesDraggable={false}
        nodesConnectable={false}
        elementsSelectable={false}
        proOptions={{ hideAttribution: true }}
      >
        <Background gap={24} color="#e2e8f0" />
        <Controls showInteractive={false} />
        {follow && <Follow layout={layout} active={s.active} />}
      </ReactFlow>
    </div>
  );
}
