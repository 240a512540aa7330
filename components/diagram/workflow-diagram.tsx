"use client";
import { Background, Controls, MarkerType, ReactFlow, type Edge, type Node } from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { useMemo } from "react";
import type { Layout } from "@/lib/graph/layout";
import { GroupNode, StateNode, type NodeStatus } from "./state-node";
import { TransitionEdge } from "./transition-edge";

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
}

function statusOf(id: string, s: DiagramStatus): NodeStatus {
  const activeHere = s.active.some((a) => a === id || a.startsWith(`${id}.`));
  if (activeHere) return s.waiting ? "waiting" : "active";
  if (s.failed?.includes(id)) return "failed";
  if (s.visited?.includes(id)) return "visited";
  return "idle";
}

export function WorkflowDiagram({ layout, status, className }: { layout: Layout; status?: DiagramStatus; className?: string }) {
  const s = status ?? { active: [] };
  const key = `${s.active.join()}|${s.waiting}|${s.visited?.join()}|${s.failed?.join()}|${s.taken?.join()}|${s.last}`;
  const nodes: Node[] = useMemo(
    () =>
      layout.nodes.map((n) => ({
        id: n.id,
        type: n.state.type === "compound" || n.state.type === "parallel" ? "group" : "state",
        position: { x: n.x, y: n.y },
        ...(n.parent ? { parentId: n.parent } : {}),
        data: { state: n.state, internal: n.internal, aborts: n.aborts, status: statusOf(n.id, s), abortTaken: n.aborts.some((a) => s.taken?.includes(`${a.source}->${a.target}`)) },
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
        zIndex: e.id === s.last ? 10 : s.taken?.includes(e.id) ? 5 : 0,
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
      </ReactFlow>
    </div>
  );
}
