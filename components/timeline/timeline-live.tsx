"use client";
// The timeline page's live wrapper: new transitions of a running run arrive over its SSE stream.
import Link from "@/components/ui/link";
import { useEffect, useState } from "react";
import type { TransitionView } from "@/lib/engine/views";
import type { GraphState } from "@/lib/graph/derive";
import type { Layout, LayoutPack } from "@/lib/graph/layout";
import { shortId } from "@/lib/format";
import { StatusBadge } from "@/components/ui/status-badge";
import { RunTimeline, type ModelTick } from "./run-timeline";
import { fetchTransitions, laterRun, mergeTransitions } from "@/components/runs/run-stream";

const TERMINAL = ["completed", "failed", "aborted"];

export interface ForkLink {
  id: string;
  seq: number;
  status: string;
}

export function TimelineLive(props: {
  runId: string;
  title: string;
  /** what the run is about (runName), shown instead of its id when there is one */
  name?: string | null;
  workflow: string;
  status: string;
  transitions: TransitionView[];
  states: GraphState[];
  layout: Layout | LayoutPack;
  forkOf?: { id: string; seq: number } | null;
  forks?: ForkLink[];
  readOnly?: boolean;
}) {
  const [transitions, setTransitions] = useState(props.transitions);
  // the run's status and the seq it was read at (its last transition's): an older reading never replaces a newer
  const [run, setRun] = useState({ status: props.status, seq: props.transitions.at(-1)?.seq ?? 0 });
  const status = run.status;
  const [calls, setCalls] = useState<ModelTick[]>([]);
  // model calls, refreshed as the run moves
  useEffect(() => {
    let cancelled = false;
    fetch(`/api/runs/${props.runId}/usage`)
      .then((r) => (r.ok ? r.json() : null))
      .then((u: { calls: ModelTick[] } | null) => !cancelled && u && setCalls(u.calls))
      .catch(() => {});
    return () => {
      cancelled = true;
    };
  }, [props.runId, transitions.length]);
  useEffect(() => {
    if (TERMINAL.includes(props.status)) return;
    const source = new EventSource(`/api/runs/${props.runId}/stream`);
    source.addEventListener("hello", (e) => {
      const { run: r } = JSON.parse((e as MessageEvent).data) as { run: { status: string; seq: number } };
      setRun((prev) => laterRun(prev, r));
      void fetchTransitions(props.runId).then((ts) => ts && setTransitions((prev) => mergeTransitions(prev, ts)));
    });
    source.addEventListener("run", (e) => {
      const msg = JSON.parse((e as MessageEvent).data) as { run: { status: string; seq: number }; transitions: TransitionView[] };
      setRun((prev) => laterRun(prev, msg.run));
      setTransitions((prev) => mergeTransitions(prev, msg.transitions));
    });
    return () => source.close();
  }, [props.runId, props.status]);
  return (
    <div className="space-y-3">
      <div>
        <div className="text-xs text-slate-600 dark:text-slate-400">
          <Link href="/" className="hover:underline">Runs</Link> / <Link href={`/runs/${props.runId}`} className="hover:underline">{props.name ?? shortId(props.runId)}</Link> / timeline
        </div>
        <h1 className="mt-1 flex min-w-0 flex-wrap items-center gap-x-2 text-xl font-semibold tracking-tight">
          Timeline of {props.name ? <span className="min-w-0 break-words">{props.name}</span> : <span className="font-mono">{shortId(props.runId)}</span>} <StatusBadge status={status} />
        </h1>
        <p className="text-xs text-slate-600 dark:text-slate-400">
          {props.title} · {transitions.length} transitions · drag the slider, use ← / →, or play the run back; click a bar to jump to its entry.
        </p>
        <ForkLinks forkOf={props.forkOf} forks={props.forks} />
      </div>
      <RunTimeline transitions={transitions} states={props.states} layout={props.layout} live={!TERMINAL.includes(status)} calls={calls} runId={props.runId} readOnly={props.readOnly} />
    </div>
  );
}

/** Where this run branched off its parent, and the runs that branched off it. */
export function ForkLinks({ forkOf, forks = [] }: { forkOf?: { id: string; seq: number } | null; forks?: ForkLink[] }) {
  if (!forkOf && !forks.length) return null;
  return (
    <div className="mt-1 flex flex-wrap items-center gap-x-3 gap-y-1 text-xs" data-testid="fork-links">
      {forkOf && (
        <span className="rounded-full bg-violet-50 px-2 py-0.5 text-violet-800 ring-1 ring-violet-200">
          forked from{" "}
          <Link href={`/runs/${forkOf.id}/timeline`} className="font-mono underline">
            {shortId(forkOf.id)}
          </Link>{" "}
          at #{forkOf.seq}
        </span>
      )}
      {forks.length > 0 && <span className="text-slate-600 dark:text-slate-400">Forks:</span>}
      {forks.map((f) => (
        <Link key={f.id} href={`/runs/${f.id}/timeline`} className="rounded-full bg-slate-50 dark:bg-slate-800/60 px-2 py-0.5 font-mono text-slate-700 dark:text-slate-300 ring-1 ring-slate-200 dark:ring-slate-700 hover:bg-slate-100 dark:hover:bg-slate-800">
          {shortId(f.id)} @#{f.seq} · {f.status}
        </Link>
      ))}
    </div>
  );
}
