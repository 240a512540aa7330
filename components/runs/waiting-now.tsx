"use client";
// What the run waits on (GET /api/runs/{id}'s waitingFor): kept current (read again after each
// commit the page hears of, and every few seconds while it waits: a worker's claim or heartbeat
// is no commit), listed in the Now card and painted as a badge on the waiting node.
import { useEffect, useMemo, useState } from "react";
import type { WaitingFor } from "@/lib/api/waiting";
import type { DiagramOverlay, OverlayTone } from "@/lib/graph/overlay";
import { waitingBadge, waitingDetail } from "@/lib/fleet/waiting-text";

const POLL_MS = 5_000;

/** The run's waitingFor, fetched again when `seq` moves and every 5 s until the run ends. */
export function useWaitingFor(runId: string, seq: number, initial: WaitingFor[] | undefined, terminal: boolean): WaitingFor[] {
  const [waiting, setWaiting] = useState<WaitingFor[]>(initial ?? []);
  useEffect(() => {
    if (terminal) {
      setWaiting([]);
      return;
    }
    let cancelled = false;
    const read = () =>
      fetch(`/api/runs/${encodeURIComponent(runId)}`)
        .then((res) => (res.ok ? res.json() : null))
        .then((run: { waitingFor?: WaitingFor[] } | null) => {
          if (!cancelled && run?.waitingFor) setWaiting(run.waitingFor);
        })
        .catch(() => {});
    void read();
    const t = setInterval(read, POLL_MS);
    return () => {
      cancelled = true;
      clearInterval(t);
    };
  }, [runId, seq, terminal]);
  return waiting;
}

function useNow(): number | null {
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(t);
  }, []);
  return now;
}

const tone: Record<WaitingFor["kind"], OverlayTone> = { review: "good", timer: "info", task: "warn", event: "good", effect: "info" };

/** The badges on the waiting nodes (an overlay of the diagram). */
export function useWaitingOverlay(waiting: WaitingFor[]): DiagramOverlay | undefined {
  const now = useNow();
  const key = JSON.stringify(waiting);
  return useMemo(() => {
    if (!waiting.length || now === null) return undefined;
    // one badge per node (the first thing it waits on); its tooltip lists them all
    const nodes: NonNullable<DiagramOverlay["nodes"]> = {};
    for (const w of waiting) {
      const tag = nodes[w.state]?.[0];
      if (tag) tag.title = `${tag.title}\n${waitingDetail(w, now)}`;
      else nodes[w.state] = [{ label: waitingBadge(w, now), tone: tone[w.kind], title: waitingDetail(w, now) }];
    }
    return { nodes };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, now === null ? null : Math.floor(now / 15_000)]);
}

/** The Now card's lines: what each active state waits on. */
export function WaitingNow({ waiting }: { waiting: WaitingFor[] }) {
  const now = useNow();
  if (!waiting.length) return null;
  // the state is named when the run waits in more than one
  const several = new Set(waiting.map((w) => w.state)).size > 1;
  return (
    <ul className="mt-3 space-y-1 text-sm" data-testid="waiting-for">
      {waiting.map((w, i) => (
        <li key={i} className="flex flex-wrap items-baseline gap-x-2" data-kind={w.kind} data-state={w.state}>
          <span className="rounded bg-slate-100 px-1.5 py-px text-[11px] font-semibold uppercase tracking-wide text-slate-600 dark:bg-slate-800 dark:text-slate-300">{w.kind}</span>
          {several && <span className="font-mono text-xs text-slate-500 dark:text-slate-400">{w.stateName}</span>}
          <span className="text-slate-800 dark:text-slate-200" suppressHydrationWarning>
            {now === null ? "…" : waitingDetail(w, now)}
          </span>
        </li>
      ))}
    </ul>
  );
}
