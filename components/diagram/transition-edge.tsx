"use client";
import { BaseEdge, EdgeLabelRenderer, useStore, type EdgeProps, type ReactFlowState } from "@xyflow/react";
import { memo, useCallback, useState } from "react";
import type { GraphTransition } from "@/lib/graph/derive";
import type { LaidEdge } from "@/lib/graph/layout";
import { screenPx, useZoomMode } from "./zoom";

export interface TransitionEdgeData extends Record<string, unknown> {
  points: { x: number; y: number }[];
  /** the box ELK placed the label in (absolute) and its rows */
  label: LaidEdge["label"];
  transitions: GraphTransition[];
  taken: boolean;
  last: boolean;
  /** leaves an active state: a move the run can make next */
  next?: boolean;
  /** an overlay's path through it (a comparison: run a, run b or both) */
  path?: "a" | "b" | "both";
  /** the fleet overlay: how many times runs took it, and that against the busiest edge (0..1) */
  traffic?: number;
  weight?: number;
}

const pathColor = { a: "var(--path-a)", b: "var(--path-b)", both: "var(--path-both)" } as const;

type Tone = "error" | "abort" | "timer" | "human" | "normal";

export function toneOf(t: GraphTransition): Tone {
  if (t.event === "ABORT") return "abort";
  if (t.kind === "error" || /critical|fail|invalid/i.test(t.description ?? "")) return "error";
  if (t.kind === "after") return "timer";
  if (["APPROVE", "REJECT", "MODIFY"].includes(t.event)) return "human";
  return "normal";
}

// colours from CSS variables (app/globals.css), so edges and label rows stay readable in dark mode
const stroke: Record<Tone, string> = { error: "var(--edge-error)", abort: "var(--edge-abort)", timer: "var(--edge-timer)", human: "var(--edge-human)", normal: "var(--edge-normal)" };
const text: Record<Tone, string> = { error: "var(--edge-error-text)", abort: "var(--edge-abort-text)", timer: "var(--edge-timer-text)", human: "var(--edge-human-text)", normal: "var(--edge-normal-text)" };
const dash: Record<Tone, string | undefined> = { error: "5 4", abort: "2 4", timer: "6 3", human: undefined, normal: undefined };

/** Edges' stacking: the last edge taken over the others taken, those over the rest; labels above them all. */
export const EDGE_Z = { last: 10, taken: 5, rest: 0 } as const;
const LABEL_Z = EDGE_Z.last + 1;

/** A polyline through ELK's route with rounded corners. */
function roundedPath(points: { x: number; y: number }[], r = 10): string {
  if (points.length < 2) return "";
  let d = `M ${points[0].x} ${points[0].y}`;
  for (let i = 1; i < points.length - 1; i++) {
    const [a, b, c] = [points[i - 1], points[i], points[i + 1]];
    const l1 = Math.hypot(b.x - a.x, b.y - a.y);
    const l2 = Math.hypot(c.x - b.x, c.y - b.y);
    const k = Math.min(r, l1 / 2, l2 / 2);
    const p1 = { x: b.x - ((b.x - a.x) / (l1 || 1)) * k, y: b.y - ((b.y - a.y) / (l1 || 1)) * k };
    const p2 = { x: b.x + ((c.x - b.x) / (l2 || 1)) * k, y: b.y + ((c.y - b.y) / (l2 || 1)) * k };
    d += ` L ${p1.x} ${p1.y} Q ${b.x} ${b.y} ${p2.x} ${p2.y}`;
  }
  const last = points[points.length - 1];
  return `${d} L ${last.x} ${last.y}`;
}

/** A label box lies wholly inside the canvas at the current view (a label the canvas edge would cut is not drawn). */
const insideCanvas = (box: NonNullable<LaidEdge["label"]>) => (s: ReactFlowState) => {
  const [tx, ty, z] = s.transform;
  const [l, t] = [box.x * z + tx, box.y * z + ty];
  return l >= 0 && t >= 0 && l + box.width * z <= s.width && t + box.height * z <= s.height;
};

// An edge's label is drawn when its text is readable (the "detail" zoom) and wholly inside the
// canvas; otherwise it is drawn only while the edge is hovered or focused (Tab reaches every
// edge), then at 12 px on screen whatever the zoom, over the diagram.
function TransitionEdgeView({ id, data, markerEnd, sourceX, sourceY, targetX, targetY }: EdgeProps) {
  const d = data as TransitionEdgeData;
  const tone = toneOf(d.transitions[0]);
  const mode = useZoomMode();
  const [hot, setHot] = useState(false);
  const fits = useStore(useCallback((s: ReactFlowState) => (d.label ? insideCanvas(d.label)(s) : false), [d.label]));
  const shown = d.label ? (mode === "detail" && fits ? "placed" : hot ? "hot" : "hidden") : "hidden";
  const side = tone === "error" || tone === "abort" || tone === "timer";
  const points = d.points.length >= 2 ? d.points : [{ x: sourceX, y: sourceY }, { x: targetX, y: targetY }];
  const color = d.path ? pathColor[d.path] : d.last ? "var(--edge-last)" : d.taken ? "var(--edge-taken)" : stroke[tone];
  const byId = new Map(d.transitions.map((t) => [t.id, t]));
  const summary = d.transitions.map((t) => `${t.event}${t.guard ? ` [${t.guard}]` : ""}`).join(", ");
  return (
    <>
      <g
        tabIndex={0}
        role="img"
        aria-label={`${d.transitions[0].source} → ${d.transitions[0].target}: ${d.label?.rows.map((r) => r.text).join(" ") || summary}`}
        onMouseEnter={() => setHot(true)}
        onMouseLeave={() => setHot(false)}
        onFocus={() => setHot(true)}
        onBlur={() => setHot(false)}
        className="outline-none"
      >
        <path d={roundedPath(points)} fill="none" stroke="transparent" strokeWidth={16} />
      </g>
      <BaseEdge
        id={id}
        path={roundedPath(points)}
        markerEnd={markerEnd}
        className={d.last ? "edge-last" : undefined}
        style={{
          stroke: color,
          strokeWidth: d.weight !== undefined ? 1 + 7 * d.weight : d.path ? 3 : d.last ? 3 : d.taken ? 2.25 : d.next ? 2 : side ? 1 : 1.5,
          strokeDasharray: d.path ? (d.path === "b" ? "7 4" : undefined) : d.last ? "8 6" : dash[tone],
          opacity: d.weight !== undefined ? (d.traffic ? 0.55 + 0.45 * d.weight : 0.3) : d.taken || d.path || d.next || !side ? 1 : hot ? 0.9 : 0.5,
        }}
      />
      {d.label && (
        <EdgeLabelRenderer>
          <div
            data-edge={id}
            data-path={d.path}
            data-traffic={d.traffic}
            data-next={d.next ? "" : undefined}
            data-shown={shown}
            hidden={shown === "hidden"}
            onMouseEnter={() => setHot(true)}
            onMouseLeave={() => setHot(false)}
            className={`nodrag nopan pointer-events-auto absolute overflow-hidden whitespace-nowrap rounded-md border font-mono shadow-sm ${shown === "placed" ? "px-[7px] py-0.5 text-[12px] leading-4" : "shadow-md"} ${d.taken ? "border-blue-300 bg-blue-50 text-blue-900 dark:border-blue-700 dark:bg-blue-950 dark:text-blue-100" : d.next ? "border-blue-400 bg-white text-slate-700 dark:border-blue-500 dark:bg-slate-900 dark:text-slate-200" : "border-slate-200 bg-white/95 text-slate-600 dark:border-slate-700 dark:bg-slate-900/95 dark:text-slate-300"}`}
            style={
              shown === "placed"
                ? { transform: `translate(${d.label.x}px, ${d.label.y}px)`, width: d.label.width, height: d.label.height, zIndex: LABEL_Z }
                : // hovered below a readable zoom: centred on its place, 12 px on screen, above everything
                  { transform: `translate(${d.label.x + d.label.width / 2}px, ${d.label.y + d.label.height / 2}px) translate(-50%, -50%)`, fontSize: screenPx(12), lineHeight: screenPx(16), padding: `${screenPx(2)} ${screenPx(7)}`, zIndex: LABEL_Z + 10 }
            }
          >
            {d.label.rows.map((row, i) => {
              const t = byId.get(row.transition);
              return (
                <div key={i} title={t ? `${t.event}${t.guard ? ` [${t.guard}]` : ""}` : undefined} style={{ color: d.taken || !t ? undefined : text[toneOf(t)] }}>
                  {row.text}
                </div>
              );
            })}
          </div>
        </EdgeLabelRenderer>
      )}
    </>
  );
}

export const TransitionEdge = memo(TransitionEdgeView);
