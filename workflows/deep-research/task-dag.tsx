"use client";
import { Background, Controls, Handle, MarkerType, Position, ReactFlow, type Edge, type Node, type NodeProps } from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { memo, useEffect, useMemo, useState } from "react";
import type { Task } from "@/lib/research/types";

const STATUS: Record<Task["status"], string> = {
  PENDING: "border-slate-400 bg-white dark:bg-slate-900",
  BLOCKED: "border-slate-200 dark:border-slate-700 bg-slate-50 dark:bg-slate-800/60 text-slate-600 dark:text-slate-400",
  IN_PROGRESS: "border-blue-600 bg-blue-50 ring-4 ring-blue-500/20",
  COMPLETED: "border-emerald-600 bg-emerald-50",
  FAILED: "border-red-500 bg-red-50",
};
const BADGE: Record<Task["status"], string> = {
  PENDING: "bg-slate-100 dark:bg-slate-800 text-slate-700 dark:text-slate-300",
  BLOCKED: "bg-slate-100 dark:bg-slate-800 text-slate-600 dark:text-slate-400",
  IN_PROGRESS: "bg-blue-600 text-white",
  COMPLETED: "bg-emerald-700 text-white",
  FAILED: "bg-red-600 text-white",
};

const hidden = "!h-1 !w-1 !min-h-0 !min-w-0 !border-0 !bg-transparent";

const TaskNode = memo(function TaskNode({ data }: NodeProps) {
  const t = (data as { task: Task }).task;
  return (
    <div data-task={t.id} data-status={t.status} className={`h-full w-full rounded-lg border-2 px-2 py-1.5 text-[11px] ${STATUS[t.status]}`} title={`${t.description}${t.error ? `\n${t.error}` : ""}`}>
      <Handle type="target" position={Position.Left} className={hidden} isConnectable={false} />
      <div className="flex items-center justify-between gap-1">
        <span className="font-mono font-bold">{t.id}</span>
        <span className={`rounded px-1 text-[9px] font-semibold ${BADGE[t.status]}`}>{t.status}</span>
      </div>
      <div className="mt-0.5 line-clamp-2 leading-tight">{t.description}</div>
      <Handle type="source" position={Position.Right} className={hidden} isConnectable={false} />
    </div>
  );
});

const nodeTypes = { task: TaskNode };
const W = 190;
const H = 62;

/** The research task DAG, live: one node per task coloured by status, edges for DependsOn. */
export function TaskDag({ tasks }: { tasks: Task[] }) {
  const shape = tasks.map((t) => `${t.id}:${t.dependsOn.join("+")}`).join("|");
  // positions with the shape they were computed for: the flow remounts (and fits the view) only
  // once the new layout is ready, so added tasks never flash at the origin
  const [layout, setLayout] = useState<{ shape: string; positions: Record<string, { x: number; y: number }> } | null>(null);
  useEffect(() => {
    let cancelled = false;
    (async () => {
      const { default: ELK } = await import("elkjs/lib/elk.bundled.js");
      const elk = new ELK();
      const ids = new Set(tasks.map((t) => t.id));
      const out = await elk.layout({
        id: "root",
        layoutOptions: { "elk.algorithm": "layered", "elk.direction": "RIGHT", "elk.layered.spacing.nodeNodeBetweenLayers": "50", "elk.spacing.nodeNode": "18", "elk.separateConnectedComponents": "false" },
        children: tasks.map((t) => ({ id: t.id, width: W, height: H })),
        edges: tasks.flatMap((t) => t.dependsOn.filter((d) => ids.has(d)).map((d) => ({ id: `${d}->${t.id}`, sources: [d], targets: [t.id] }))),
      });
      if (!cancelled) setLayout({ shape, positions: Object.fromEntries((out.children ?? []).map((c) => [c.id, { x: c.x ?? 0, y: c.y ?? 0 }])) });
    })();
    return () => {
      cancelled = true;
    };
    // re-layout only when the graph's shape changes, not on status updates
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [shape]);
  const nodes: Node[] = useMemo(
    () => (layout ? tasks.filter((t) => layout.positions[t.id]).map((t) => ({ id: t.id, type: "task", position: layout.positions[t.id]!, data: { task: t }, style: { width: W, height: H }, draggable: false })) : []),
    [tasks, layout],
  );
  const edges: Edge[] = useMemo(
    () =>
      tasks.flatMap((t) =>
        t.dependsOn.filter((d) => layout?.positions[d] && layout.positions[t.id]).map((d) => ({
          id: `${d}->${t.id}`,
          source: d,
          target: t.id,
          markerEnd: { type: MarkerType.ArrowClosed, width: 14, height: 14 },
          animated: t.status === "IN_PROGRESS",
          style: { stroke: t.status === "BLOCKED" ? "#cbd5e1" : "#64748b" },
        })),
      ),
    [tasks, layout],
  );
  if (tasks.length === 0) return <p className="p-4 text-sm text-slate-600 dark:text-slate-400">The task DAG appears once the plan is approved.</p>;
  return (
    <div className="h-[420px] w-full" data-testid="task-dag">
      {layout && (
        <ReactFlow key={layout.shape} nodes={nodes} edges={edges} nodeTypes={nodeTypes} fitView minZoom={0.2} nodesDraggable={false} nodesConnectable={false} proOptions={{ hideAttribution: true }}>
          <Background gap={20} color="#e2e8f0" />
          <Controls showInteractive={false} />
        </ReactFlow>
      )}
    </div>
  );
}
