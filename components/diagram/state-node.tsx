"use client";
import { Handle, Position, type NodeProps } from "@xyflow/react";
import { memo } from "react";
import type { GraphState, GraphTransition } from "@/lib/graph/derive";
import { labelLine } from "@/lib/graph/layout";
import type { OverlayTag, OverlayTone } from "@/lib/graph/overlay";

export type NodeStatus = "active" | "waiting" | "failed" | "visited" | "idle";

export interface StateNodeData extends Record<string, unknown> {
  state: GraphState;
  internal: GraphTransition[];
  aborts: GraphTransition[];
  errors: GraphTransition[];
  status: NodeStatus;
  /** an abort out of this state was taken */
  abortTaken: boolean;
  /** the messages of the state's open alerts (lib/alerts), one a line; absent when none is open */
  alert?: string | null;
  /** a collapsed group: how many states it holds */
  hidden?: number;
  /** closes an open group (a collapsed one opens on a click on it: the diagram's onNodeClick); absent when it cannot */
  onToggle?: (id: string) => void;
  /** tags an overlay paints on the state (two runs' paths, agreement, runs landing here, a version diff) */
  tags?: OverlayTag[];
  /** outlined by an overlay (a comparison's first divergence) */
  outlined?: boolean;
}

const tagTone: Record<OverlayTone, string> = {
  a: "bg-blue-600 text-white",
  b: "bg-amber-600 text-white",
  both: "bg-violet-600 text-white",
  good: "bg-emerald-700 text-white",
  bad: "bg-red-600 text-white",
  warn: "bg-amber-500 text-slate-950",
  info: "bg-slate-700 text-white dark:bg-slate-300 dark:text-slate-900",
};

/**
 * The overlay's tags over the node's top edge (their titles are the tooltips): paths and notes on
 * the left, a "bad" verdict (a divergence) on the right, clear of the edges arriving at the middle.
 */
function OverlayTags({ tags }: { tags: NonNullable<StateNodeData["tags"]> }) {
  const tag = (t: OverlayTag, i: number) => (
    <span key={i} title={t.title ?? t.label} data-tone={t.tone} className={`shrink-0 whitespace-nowrap rounded-full px-1.5 py-px text-[12px] font-semibold leading-4 shadow-sm ring-2 ring-white dark:ring-slate-900 ${tagTone[t.tone]}`}>
      {t.label}
    </span>
  );
  const right = tags.filter((t) => t.tone === "bad");
  const left = tags.filter((t) => t.tone !== "bad");
  return (
    <span data-testid="node-tags">
      {left.length > 0 && <span className={`absolute -top-3 left-2 z-10 flex gap-1 overflow-hidden ${right.length ? "max-w-[calc(50%-0.75rem)]" : "max-w-[calc(100%-1rem)]"}`}>{left.map(tag)}</span>}
      {right.length > 0 && <span className="absolute -top-3 right-2 z-10 flex max-w-[calc(50%-0.75rem)] justify-end gap-1 overflow-hidden">{right.map(tag)}</span>}
    </span>
  );
}

const frame: Record<NodeStatus, string> = {
  active: "border-blue-600 bg-blue-50 ring-4 ring-blue-500/25 shadow-lg shadow-blue-500/20 dark:border-blue-400 dark:bg-blue-950",
  waiting: "border-emerald-600 bg-emerald-50 ring-4 ring-emerald-500/25 shadow-lg shadow-emerald-500/20 dark:border-emerald-400 dark:bg-emerald-950",
  failed: "border-red-500 bg-red-50 dark:border-red-400 dark:bg-red-950",
  visited: "border-slate-400 bg-white dark:border-slate-500 dark:bg-slate-900",
  idle: "border-slate-200 bg-white dark:border-slate-700 dark:bg-slate-900",
};

const hidden = "!h-1 !w-1 !min-h-0 !min-w-0 !border-0 !bg-transparent";

// Every text in the diagram is at least 12 px (MIN_FONT in lib/graph/layout.ts): the diagram
// never zooms out so far that any of it is drawn under 11 px.
function StateNodeView({ data }: NodeProps) {
  const { state, internal, aborts, errors = [], status, abortTaken, alert, hidden: count, tags, outlined } = data as StateNodeData;
  const live = status === "active" || status === "waiting";
  const collapsed = count !== undefined;
  return (
    <div
      data-state={state.id}
      data-status={status}
      data-collapsed={collapsed ? count : undefined}
      data-alert={alert ? "open" : undefined}
      title={collapsed ? `${state.name}: ${count} states inside. Click to open.` : undefined}
      data-outlined={outlined ? "" : undefined}
      className={`relative flex h-full w-full flex-col rounded-xl border-2 px-3 py-2 transition-colors ${frame[status]} ${collapsed ? "cursor-pointer border-double !border-4 py-1.5 hover:bg-slate-50 dark:hover:bg-slate-800" : ""} ${alert || outlined ? "outline outline-2 outline-offset-2 outline-red-400" : ""} ${outlined ? "!outline-4 !outline-red-500" : ""}`}
    >
      {alert && <AlertBadge message={alert} />}
      {tags && tags.length > 0 && <OverlayTags tags={tags} />}
      <Handle type="target" position={Position.Top} className={hidden} isConnectable={false} />
      <div className="flex min-w-0 items-center gap-2">
        {live && (
          <span className="relative flex h-2.5 w-2.5 shrink-0">
            <span className={`absolute inline-flex h-full w-full animate-ping rounded-full opacity-75 ${status === "waiting" ? "bg-emerald-400" : "bg-blue-400"}`} />
            <span className={`relative inline-flex h-2.5 w-2.5 rounded-full ${status === "waiting" ? "bg-emerald-600" : "bg-blue-600"}`} />
          </span>
        )}
        {status === "failed" && <span className="h-2.5 w-2.5 shrink-0 rounded-full bg-red-500" />}
        <span className="truncate font-mono text-[14px] font-semibold leading-5 text-slate-900 dark:text-slate-100">{state.name}</span>
      </div>
      <div className="flex min-w-0 items-center text-[12px] leading-4 text-slate-600 dark:text-slate-400">
        {collapsed ? <span className="truncate font-medium text-slate-600 dark:text-slate-300">▸ {count} states inside · open</span> : state.summary && <span className="truncate">{state.summary}</span>}
      </div>
      <div className="mt-auto flex min-w-0 gap-1 overflow-hidden">
        {state.human && <span className="shrink-0 whitespace-nowrap rounded bg-emerald-100 px-1.5 text-[12px] font-medium leading-4 text-emerald-800 dark:bg-emerald-900 dark:text-emerald-100">human review</span>}
        {state.timeout && <span className="shrink-0 whitespace-nowrap rounded bg-amber-100 px-1.5 text-[12px] font-medium leading-4 text-amber-800 dark:bg-amber-900 dark:text-amber-100">max {state.timeout}</span>}
        {state.invokes.map((i) => (
          <span key={i} className="min-w-0 truncate rounded bg-slate-100 px-1.5 font-mono text-[12px] leading-4 text-slate-600 dark:bg-slate-800 dark:text-slate-300">{i}()</span>
        ))}
      </div>
      {(internal.length > 0 || aborts.length > 0 || errors.length > 0) && (
        <ul className="mt-1 border-t border-dashed border-slate-300 pt-1 text-[12px] leading-4 text-slate-600 dark:border-slate-600 dark:text-slate-400">
          {internal.map((t) => (
            <li key={t.id} className="truncate" title={labelLine(t)}>↻ {labelLine(t)}</li>
          ))}
          {errors.length > 0 && (
            <li className="truncate text-red-700 dark:text-red-400" title={errors.map((t) => t.description ?? "on error").join("; ")}>
              ✕ on error → {[...new Set(errors.map((t) => t.target))].join(", ")}
            </li>
          )}
          {aborts.length > 0 && (
            <li className={`truncate ${abortTaken ? "font-semibold text-amber-700 dark:text-amber-300" : ""}`} title="ABORT: the seed's global abort">
              ⤺ ABORT → {[...new Set(aborts.map((a) => a.target))].join(", ")}
            </li>
          )}
        </ul>
      )}
      <Handle type="source" position={Position.Bottom} className={hidden} isConnectable={false} />
    </div>
  );
}

/** A red "⚠ alert" tag on the node's top right corner; the alert messages are its tooltip. */
function AlertBadge({ message }: { message: string }) {
  return (
    <span title={message} data-testid="node-alert" className="absolute -right-2 -top-3 z-10 cursor-help rounded-full bg-red-600 px-1.5 py-px text-[12px] font-semibold leading-4 text-white shadow-sm ring-2 ring-white dark:ring-slate-900">
      ⚠ alert
    </span>
  );
}

function GroupNodeView({ data }: NodeProps) {
  const { state, status, alert, onToggle, tags } = data as StateNodeData;
  return (
    <div data-state={state.id} data-status={status} data-alert={alert ? "open" : undefined} className={`relative h-full w-full rounded-2xl border-2 border-dashed ${status === "active" || status === "waiting" ? "border-blue-500 bg-blue-50/40 dark:bg-blue-950/40" : "border-slate-300 bg-slate-50/60 dark:border-slate-600 dark:bg-slate-800/40"}`}>
      {alert && <AlertBadge message={alert} />}
      {tags && tags.length > 0 && <OverlayTags tags={tags} />}
      <Handle type="target" position={Position.Top} className={hidden} isConnectable={false} />
      <div className="flex items-center gap-2 px-3 py-1.5">
        <span className="truncate font-mono text-[13px] font-semibold leading-5 text-slate-700 dark:text-slate-200">{state.name}</span>
        {state.type === "parallel" && <span className="whitespace-nowrap text-[12px] leading-4 text-slate-600 dark:text-slate-400">parallel regions</span>}
        {onToggle && (
          <button type="button" data-testid="group-collapse" onClick={() => onToggle(state.id)} className="nodrag nopan ml-auto whitespace-nowrap rounded border border-slate-300 bg-white px-1.5 text-[12px] leading-4 text-slate-600 hover:bg-slate-100 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-300 dark:hover:bg-slate-800">
            ▾ collapse
          </button>
        )}
      </div>
      <Handle type="source" position={Position.Bottom} className={hidden} isConnectable={false} />
    </div>
  );
}

export const StateNode = memo(StateNodeView);
export const GroupNode = memo(GroupNodeView);
