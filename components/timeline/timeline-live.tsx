"use client";
// The timeline page's live wrapper: new transitions of a running run arrive over its SSE stream.
import Link from "next/link";
import { useEffect, useState } from "react";
import type { TransitionView } from "@/lib/engine/views";
import type { GraphState } from "@/lib/graph/derive";
import type { Layout } from "@/lib/graph/layout";
import { shortId } from "@/lib/format";
import { StatusBadge } from "@/components/ui/status-badge";
import { RunTimeline, type ModelTick } from "./run-timeline";

const TERMINAL = ["completed", "failed", "aborted"];

export function TimelineLive(props: { runId: string; title: string; workflow: string; status: string; transitions: TransitionView[]; states: GraphState[]; layout: Layout }) {
  const [transitions, setTransitions] = useState(props.transitions);
  const [status, setStatus] = useState(props.status);
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
    source.addEventListener("run", (e) => {
      const msg = JSON.parse((e as MessageEvent).data) as { run: { status: string }; transitions: TransitionView[] };
      setStatus(msg.run.status);
      setTransitions((prev) => {
        const have = new Set(prev.map((t) => t.seq));
        const add = msg.transitions.filter((t) => !have.has(t.seq));
        return add.length ? [...prev, ...add].sort((a, b) => a.seq - b.seq) : prev;
      });
    });
    return () => source.close();
  }, [props.runId, props.status]);
  return (
    <div className="space-y-3">
      <div>
        <div className="text-xs text-slate-500">
          <Link href="/" className="hover:underline">Runs</Link> / <Link href={`/runs/${props.runId}`} className="hover:underline">{shortId(props.runId)}</Link> / timeline
        </div>
        <h1 className="mt-1 flex items-center gap-2 text-xl font-semibold tracking-tight">
          Timeline of <span className="font-mono">{shortId(props.runId)}</span> <StatusBadge status={status} />
        </h1>
        <p className="text-xs text-slate-500">
          {props.title} · {transitions.length} transitions · drag the slider, use ← / →, or play the run back; click a bar to jump to its entry.
        </p>
      </div>
      <RunTimeline transitions={transitions} states={props.states} layout={props.layout} live={!TERMINAL.includes(status)} calls={calls} />
    </div>
  );
}
