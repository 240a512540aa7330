"use client";
// The mission timeline viewer: a Gantt lane per state (each visit a bar from entry to exit,
// human waits green, failed exits red, repeated visits marked), a cursor you drag, step with the
// arrow keys or play at x1 / x10 / x100, and the diagram replayed to the cursor's moment.
import { memo, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { WorkflowDiagram } from "@/components/diagram/workflow-diagram";
import type { TransitionView } from "@/lib/engine/views";
import type { GraphState } from "@/lib/graph/derive";
import { eventLabel } from "@/lib/graph/derive";
import type { Layout, LayoutPack } from "@/lib/graph/layout";
import { clockTime, durationTicks, formatDuration } from "@/lib/format";
import { lanesOf, replayIndex, visitsOf, type Visit } from "@/lib/timeline/replay";
import { FORK_EVENT } from "@/lib/engine/views";
import { CursorContext } from "./cursor-context";

const SPEEDS = [1, 10, 100] as const;
const NO_CALLS: never[] = [];
const LABEL_W = 190;
const LANE_H = 22;

function barTone(v: Visit, human: boolean): string {
  if (v.failed) return "fill-red-500";
  if (human) return "fill-emerald-500";
  if (v.nth > 1) return "fill-amber-500";
  return "fill-blue-500";
}

export interface ModelTick {
  state: string | null;
  purpose: string;
  promptTokens: number;
  completionTokens: number;
  latencyMs: number;
  ok: boolean;
  at: string;
}

export function RunTimeline({ transitions, states, layout, live, calls = NO_CALLS, stacked = false, runId, readOnly = false }: {
  transitions: TransitionView[];
  states: GraphState[];
  layout: Layout | LayoutPack;
  live: boolean;
  calls?: ModelTick[];
  stacked?: boolean;
  /** when given, the context at the cursor is fetched and the run can be forked there */
  runId?: string;
  readOnly?: boolean;
}) {
  const last = transitions.at(-1)?.seq ?? 0;
  const [cursor, setCursor] = useState(last);
  const [following, setFollowing] = useState(true);
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState<(typeof SPEEDS)[number]>(10);
  const box = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(900);

  // a live run: the cursor follows new transitions until the user moves it
  useEffect(() => {
    if (following) setCursor(last);
  }, [last, following]);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setWidth(el.clientWidth));
    ro.observe(el);
    setWidth(el.clientWidth);
    return () => ro.disconnect();
  }, []);

  const bySeq = useMemo(() => new Map(transitions.map((t, i) => [t.seq, i])), [transitions]);
  // play: wait the real gap between transitions, divided by the speed
  useEffect(() => {
    if (!playing) return;
    const i = bySeq.get(cursor) ?? -1;
    const next = transitions[i + 1];
    if (!next) {
      setPlaying(false);
      return;
    }
    const gap = i >= 0 ? Date.parse(next.at) - Date.parse(transitions[i]!.at) : 0;
    const t = setTimeout(() => setCursor(next.seq), Math.min(2_000, Math.max(16, gap / speed)));
    return () => clearTimeout(t);
  }, [playing, cursor, speed, transitions, bySeq]);

  const move = (seq: number) => {
    setFollowing(seq >= last);
    setCursor(Math.max(0, Math.min(last, seq)));
  };
  const step = (d: number) => {
    const i = bySeq.get(cursor) ?? -1;
    const t = transitions[Math.max(0, Math.min(transitions.length - 1, i + d))];
    if (t) move(d < 0 && i === 0 ? 0 : t.seq);
  };

  const lastRef = useRef(last);
  lastRef.current = last;
  // stable, so that the memoised bars do not re-render when the cursor moves
  const pick = useCallback((seq: number) => {
    setFollowing(seq >= lastRef.current);
    setCursor(Math.max(0, Math.min(lastRef.current, seq)));
  }, []);
  const visits = useMemo(() => visitsOf(transitions), [transitions]);
  const lanes = useMemo(() => lanesOf(visits), [visits]);
  const human = useMemo(() => new Set(states.filter((s) => s.human).map((s) => s.id)), [states]);
  const index = useMemo(() => replayIndex(transitions), [transitions]);
  const status = useMemo(() => index.statusAt(cursor), [index, cursor]);
  const start = transitions.length ? Date.parse(transitions[0]!.at) : 0;
  // "now" for a live run is taken when its history changes, not on every cursor move, and only
  // in the browser after hydration (the server's clock would draw a different axis: React #418)
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => setNow(live ? Date.now() : null), [transitions, live]);
  const end = Math.max(start + 1, transitions.length ? Date.parse(transitions.at(-1)!.at) : 1, now ?? 0);
  const plotW = Math.max(200, width - LABEL_W - 16);
  const x = (ms: number) => LABEL_W + ((ms - start) / (end - start)) * plotW;
  const at = transitions[bySeq.get(cursor) ?? -1];
  const cursorX = at ? x(Date.parse(at.at)) : LABEL_W;
  const height = lanes.length * LANE_H + 28;

  return (
    <div className="space-y-4" data-testid="run-timeline" data-cursor={cursor} data-active={status.active.join(",")}>
      <div
        className="rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-3 outline-none focus:ring-2 focus:ring-blue-300"
        tabIndex={0}
        aria-label="timeline: arrow keys step through the transitions"
        onKeyDown={(e) => {
          if (e.key === "ArrowRight") step(1);
          else if (e.key === "ArrowLeft") step(-1);
          else if (e.key === "Home") move(0);
          else if (e.key === "End") move(last);
          else if (e.key === " ") setPlaying((p) => !p);
          else return;
          e.preventDefault();
        }}
        data-testid="timeline-controls"
      >
        <div className="flex flex-wrap items-center gap-2 text-sm">
          <button onClick={() => step(-1)} className="rounded-md px-2 py-0.5 ring-1 ring-slate-200 dark:ring-slate-700 hover:bg-slate-50 dark:hover:bg-slate-800/60" aria-label="previous transition">◀</button>
          <button
            onClick={() => {
              if (!playing && cursor >= last) move(0);
              setFollowing(false);
              setPlaying(!playing);
            }}
            className="w-16 rounded-md bg-slate-900 px-2 py-0.5 text-white dark:bg-slate-200 dark:text-slate-900"
          >
            {playing ? "Pause" : "Play"}
          </button>
          <button onClick={() => step(1)} className="rounded-md px-2 py-0.5 ring-1 ring-slate-200 dark:ring-slate-700 hover:bg-slate-50 dark:hover:bg-slate-800/60" aria-label="next transition">▶</button>
          <select value={speed} onChange={(e) => setSpeed(Number(e.target.value) as (typeof SPEEDS)[number])} aria-label="speed" className="rounded-md border border-slate-300 dark:border-slate-600 px-1 py-0.5 text-xs">
            {SPEEDS.map((s) => (
              <option key={s} value={s}>x{s}</option>
            ))}
          </select>
          <input type="range" min={0} max={last} value={cursor} onChange={(e) => move(Number(e.target.value))} aria-label="scrub" className="min-w-[200px] flex-1" />
          <span className="font-mono text-xs text-slate-600 dark:text-slate-400" data-testid="cursor-label">
            #{cursor} / {last}
            {at ? ` · ${clockTime(at.at)}` : " · before start"}
          </span>
        </div>
        {at && (
          <p className="mt-2 text-xs text-slate-600 dark:text-slate-400" data-testid="cursor-transition">
            <span className="font-mono">{at.from || "start"} → {at.to}</span> · <span className="font-mono">{eventLabel(at.event)}</span> · {at.reason}
            {at.durationMs > 0 && ` · left after ${formatDuration(at.durationMs)}`}
          </p>
        )}
      </div>

      <div className={`grid items-start gap-4 ${stacked ? "" : "xl:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]"}`}>
        <div tabIndex={0} ref={box} className="overflow-x-auto rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-2">
          <div className="mb-1 flex flex-wrap gap-3 px-1 text-[11px] text-slate-600 dark:text-slate-400">
            <span className="inline-flex items-center gap-1"><span className="h-2 w-3 rounded-sm bg-blue-500" /> visit</span>
            <span className="inline-flex items-center gap-1"><span className="h-2 w-3 rounded-sm bg-emerald-500" /> waiting for a person</span>
            <span className="inline-flex items-center gap-1"><span className="h-2 w-3 rounded-sm bg-amber-500" /> repeated visit (retry / loop)</span>
            <span className="inline-flex items-center gap-1"><span className="h-2 w-3 rounded-sm bg-red-500" /> left by a failure</span>
            <span className="inline-flex items-center gap-1"><span className="h-3 w-0.5 bg-slate-400" /> event inside a state</span>
            <span className="inline-flex items-center gap-1"><span className="h-2 w-2 rotate-45 bg-violet-600" /> model call</span>
          </div>
          {/* the bars are a layer of their own (thousands of elements, repainted only when the history
              changes); the cursor and the lane names sit on a light overlay that moves with it */}
          <div className="relative select-none" style={{ width: LABEL_W + plotW + 8, height }} data-testid="gantt">
            <svg width={LABEL_W + plotW + 8} height={height} className="absolute left-0 top-0" style={{ willChange: "transform", contain: "strict" }}>
              <GanttLayer lanes={lanes} transitions={transitions} calls={calls} start={start} end={end} plotW={plotW} height={height} human={human} onPick={pick} />
            </svg>
            <svg width={LABEL_W + plotW + 8} height={height} className="pointer-events-none absolute left-0 top-0">
              {lanes.map((lane, li) => (
                <text key={lane.state} x={4} y={18 + li * LANE_H + 14} className={`font-mono text-[11px] ${status.active.includes(lane.state) ? "fill-blue-700 font-semibold" : "fill-slate-700"}`}>
                  {lane.state.length > 26 ? `…${lane.state.slice(-25)}` : lane.state}
                </text>
              ))}
              <line x1={cursorX} x2={cursorX} y1={12} y2={height} className="stroke-blue-700" strokeWidth={2} data-testid="gantt-cursor" />
            </svg>
          </div>
        </div>
        <div className="overflow-hidden rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900">
          <div className="border-b border-slate-100 dark:border-slate-800 px-3 py-1.5 text-[11px] text-slate-600 dark:text-slate-400">Diagram at #{cursor}</div>
          <WorkflowDiagram layout={layout} status={status} follow className="h-[460px] w-full" />
          {runId && <CursorContext runId={runId} seq={cursor} readOnly={readOnly} />}
          {at?.payload !== undefined && (
            <details className="border-t border-slate-100 dark:border-slate-800 px-3 py-2 text-xs" open>
              <summary className="cursor-pointer text-slate-600 dark:text-slate-400">Event data at #{cursor}</summary>
              <pre tabIndex={0} className="mt-1 max-h-48 overflow-auto whitespace-pre-wrap font-mono text-[11px] text-slate-700 dark:text-slate-300">{JSON.stringify(at.payload, null, 2)}</pre>
            </details>
          )}
        </div>
      </div>
    </div>
  );
}

/** Everything in the Gantt that does not depend on the cursor: grid, bars, event ticks, model calls. */
const GanttLayer = memo(function GanttLayer({ lanes, transitions, calls, start, end, plotW, height, human, onPick }: {
  lanes: { state: string; visits: Visit[] }[];
  transitions: TransitionView[];
  calls: ModelTick[];
  start: number;
  end: number;
  plotW: number;
  height: number;
  human: Set<string>;
  onPick: (seq: number) => void;
}) {
  const x = (ms: number) => LABEL_W + ((ms - start) / (end - start)) * plotW;
  const laneOf = new Map(lanes.map((l, i) => [l.state, i]));
  // round offsets; a label too close to the right edge to be centred on its line is left out
  const ticks = durationTicks(end - start);
  return (
    <g>
      {ticks.map((offset, i) => {
        const ms = start + offset;
        const label = `+${offset === 0 ? "0" : formatDuration(offset)}`;
        const room = LABEL_W + plotW - x(ms);
        return (
          <g key={i}>
            <line x1={x(ms)} x2={x(ms)} y1={14} y2={height} className="stroke-slate-100" />
            {(i === 0 || room >= label.length * 3) && (
              <text x={x(ms)} y={10} textAnchor={i === 0 ? "start" : "middle"} className="fill-slate-400 text-[10px]">{label}</text>
            )}
          </g>
        );
      })}
      {lanes.map((lane, li) => {
        const y = 18 + li * LANE_H;
        return (
          <g key={lane.state} data-lane={lane.state}>
            {lane.visits.map((v, vi) => {
              const x1 = x(v.start);
              const x2 = Math.max(x1 + 3, x(v.end ?? end));
              return (
                <rect key={vi} x={x1} y={y + 3} width={x2 - x1} height={LANE_H - 7} rx={3} className={`${barTone(v, human.has(lane.state))} cursor-pointer`} onClick={() => onPick(v.enterSeq)} data-visit={`${lane.state}#${v.nth}`}>
                  <title>{`${lane.state} (visit ${v.nth}) · ${clockTime(new Date(v.start).toISOString())} → ${v.end ? clockTime(new Date(v.end).toISOString()) : "now"} · ${formatDuration((v.end ?? end) - v.start)}${v.exitEvent ? `\nleft on ${eventLabel(v.exitEvent)}: ${v.exitReason}` : "\nstill active"}`}</title>
                </rect>
              );
            })}
          </g>
        );
      })}
      {transitions.map((t) => {
        if (t.from !== t.to || !t.from) return null;
        const li = t.from.split(",").map((s) => laneOf.get(s)).find((i) => i !== undefined);
        if (li === undefined) return null;
        const y = 18 + li * LANE_H;
        return (
          <line key={t.seq} x1={x(Date.parse(t.at))} x2={x(Date.parse(t.at))} y1={y + 1} y2={y + LANE_H - 2} className="stroke-slate-500" strokeWidth={1.5}>
            <title>{`#${t.seq} ${eventLabel(t.event)} · ${t.reason}`}</title>
          </line>
        );
      })}
      {transitions.map((t) =>
        t.event === FORK_EVENT ? (
          <g key={`fork-${t.seq}`} data-testid="fork-marker">
            <line x1={x(Date.parse(t.at))} x2={x(Date.parse(t.at))} y1={12} y2={height} className="stroke-violet-600" strokeWidth={2} strokeDasharray="4 3" />
            <text x={x(Date.parse(t.at)) + 3} y={22} className="fill-violet-700 text-[10px] font-semibold">fork</text>
            <title>{`#${t.seq} ${t.reason}`}</title>
          </g>
        ) : null,
      )}
      {calls.map((c, i) => {
        // a call is recorded against the state that invoked it: its lane, or the lane ending in that name
        const li = lanes.findIndex((l) => l.state === c.state || (c.state && l.state.endsWith(`.${c.state}`)));
        if (li < 0) return null;
        const cx = x(Date.parse(c.at));
        const cy = 18 + li * LANE_H + LANE_H / 2 - 1;
        return (
          <rect key={i} x={cx - 3.5} y={cy - 3.5} width={7} height={7} transform={`rotate(45 ${cx} ${cy})`} className={c.ok ? "fill-violet-600" : "fill-red-600"} data-testid="model-tick">
            <title>{`model call (${c.purpose}) · ${c.promptTokens} in / ${c.completionTokens} out tokens · ${c.latencyMs} ms${c.ok ? "" : " · failed"}`}</title>
          </rect>
        );
      })}
    </g>
  );
});
