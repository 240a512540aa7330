"use client";
// The run on a phone: a vertical path instead of a canvas — the states it went through (the
// last few), the state it is in now with what it waits for, and the moves it can make next. The
// diagram is one tap away ("Show the diagram").
import { useState } from "react";
import type { GraphState, WorkflowGraph } from "@/lib/graph/derive";
import { labelLine } from "@/lib/graph/layout";
import type { TransitionView } from "@/lib/engine/views";
import { isFailure } from "@/lib/graph/status";

/** How many earlier states the path lists before "… n earlier" (a tap lists them all): two, so a waiting state stays in a phone's first screen under its decision. */
const SHOWN = 2;

export function PathView({ graph, stateIds, transitions, waitingFor, terminal, onShowDiagram }: { graph: WorkflowGraph; stateIds: string[]; transitions: TransitionView[]; waitingFor: string | null; terminal: boolean; onShowDiagram: () => void }) {
  const byId = new Map<string, GraphState>(graph.states.map((s) => [s.id, s]));
  const name = (id: string) => byId.get(id)?.name ?? id;
  // the states entered, in order, without the current ones at the end
  const entered: { id: string; failed: boolean }[] = [];
  for (const t of transitions) {
    for (const id of t.to.split(",").filter(Boolean)) if (entered.at(-1)?.id !== id) entered.push({ id, failed: false });
    if (isFailure(t) && entered.length > 1) entered[entered.length - 2].failed = true;
  }
  while (entered.length && stateIds.includes(entered.at(-1)!.id)) entered.pop();
  const [all, setAll] = useState(false);
  const earlier = all ? 0 : Math.max(0, entered.length - SHOWN);
  const inside = (a: string, id: string) => a === id || a.startsWith(`${id}.`);
  const next = new Map<string, string[]>();
  for (const t of graph.transitions) {
    if (t.internal || t.event === "ABORT" || !stateIds.some((a) => inside(a, t.source))) continue;
    const labels = next.get(t.target) ?? [];
    const line = labelLine(t);
    if (line && !labels.includes(line)) labels.push(line);
    next.set(t.target, labels);
  }
  return (
    <section className="rounded-xl border border-slate-200 bg-white p-4 dark:border-slate-700 dark:bg-slate-900" data-testid="path-view" aria-label="The run's path">
      <div className="flex items-center justify-between gap-2">
        <h2 className="text-sm font-semibold">Path</h2>
        <button type="button" onClick={onShowDiagram} className="rounded-md border border-slate-300 px-2.5 py-1 text-xs text-slate-700 hover:bg-slate-50 dark:border-slate-600 dark:text-slate-200 dark:hover:bg-slate-800" data-testid="show-diagram">
          Show the diagram
        </button>
      </div>
      <ol className="mt-2 space-y-1 border-l-2 border-slate-200 pl-3 text-sm dark:border-slate-700">
        {earlier > 0 && (
          <li>
            <button type="button" onClick={() => setAll(true)} className="text-xs text-slate-600 hover:underline dark:text-slate-400" data-testid="path-earlier">
              … {earlier} earlier
            </button>
          </li>
        )}
        {entered.slice(earlier).map((s, i) => (
          <li key={i} data-testid="path-visited" className={`font-mono text-[13px] ${s.failed ? "text-red-700 dark:text-red-400" : "text-slate-500 dark:text-slate-400"}`}>
            {name(s.id)}
            {s.failed && " ✕"}
          </li>
        ))}
        {stateIds.map((id) => (
          <li key={id} data-testid="path-current" data-state={id} className="-ml-[19px] rounded-md border-l-4 border-emerald-500 bg-emerald-50 py-1.5 pl-3 pr-2 dark:bg-emerald-950/40">
            <div className="font-mono text-[14px] font-semibold text-slate-900 dark:text-slate-100">{name(id)}</div>
            <div className="text-xs text-slate-600 dark:text-slate-300">{terminal ? "where the run ended" : waitingFor ? `waiting for ${waitingFor}` : "running now"}</div>
          </li>
        ))}
      </ol>
      {!terminal && next.size > 0 && (
        <div className="mt-3">
          <div className="text-[11px] font-medium uppercase tracking-wide text-slate-600 dark:text-slate-400">Next moves</div>
          <ul className="mt-1 space-y-1 text-sm">
            {[...next].map(([target, labels]) => (
              <li key={target} data-testid="path-next" className="flex min-w-0 gap-2">
                <span className="shrink-0 font-mono text-[13px] text-slate-800 dark:text-slate-200">→ {name(target)}</span>
                {labels.length > 0 && <span className="min-w-0 truncate text-xs leading-5 text-slate-600 dark:text-slate-400" title={labels.join("; ")}>{labels.join("; ")}</span>}
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}
