// Many runs on one time axis: a lane per run from its start to its end (or now), coloured by
// status, with the current state written on the bar. Shows the dashboard's current page of runs.
import Link from "@/components/ui/link";
import { formatDuration, formatTime, shortId } from "@/lib/format";

interface LaneRun {
  id: string;
  workflow: string;
  status: string;
  state: string[];
  createdAt: string;
  finishedAt: string | null;
  reviewId?: string | null;
}

const tone: Record<string, string> = {
  running: "fill-blue-500",
  waiting: "fill-emerald-500",
  completed: "fill-slate-400",
  failed: "fill-red-500",
  aborted: "fill-amber-500",
};

export function RunsGantt({ runs, now }: { runs: LaneRun[]; now: number }) {
  if (runs.length === 0) return null;
  const starts = runs.map((r) => Date.parse(r.createdAt));
  const ends = runs.map((r) => (r.finishedAt ? Date.parse(r.finishedAt) : now));
  const t0 = Math.min(...starts);
  const t1 = Math.max(t0 + 1, ...ends);
  const W = 1000;
  const LABEL = 230;
  const H = 22;
  const x = (ms: number) => LABEL + ((ms - t0) / (t1 - t0)) * (W - LABEL - 10);
  return (
    <div tabIndex={0} className="overflow-x-auto rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-2" data-testid="runs-gantt">
      <svg viewBox={`0 0 ${W} ${runs.length * H + 24}`} className="w-full min-w-[720px]">
        {[0, 0.25, 0.5, 0.75, 1].map((f) => (
          <g key={f}>
            <line x1={x(t0 + (t1 - t0) * f)} x2={x(t0 + (t1 - t0) * f)} y1={14} y2={runs.length * H + 24} className="stroke-slate-100" />
            <text x={x(t0 + (t1 - t0) * f)} y={10} textAnchor={f === 0 ? "start" : f === 1 ? "end" : "middle"} className="fill-slate-400 text-[10px]">
              {f === 0 ? formatTime(new Date(t0).toISOString()) : `+${formatDuration((t1 - t0) * f)}`}
            </text>
          </g>
        ))}
        {runs.map((r, i) => {
          const y = 18 + i * H;
          const x1 = x(starts[i]!);
          const x2 = Math.max(x1 + 4, x(ends[i]!));
          return (
            <g key={r.id} data-run={r.id}>
              <Link href={`/runs/${r.id}/timeline`}>
                <text x={4} y={y + 14} className="fill-blue-700 font-mono text-[11px]">{shortId(r.id)}</text>
              </Link>
              <text x={64} y={y + 14} className="fill-slate-500 text-[11px]">{r.workflow}</text>
              <rect x={x1} y={y + 3} width={x2 - x1} height={H - 7} rx={3} className={`${tone[r.status] ?? "fill-slate-300"} opacity-90`}>
                <title>{`${r.id} · ${r.workflow} · ${r.status}${r.reviewId ? " (waiting for a person)" : ""} · ${r.state.join(", ")} · ${formatDuration(ends[i]! - starts[i]!)}`}</title>
              </rect>
              {x2 - x1 > 80 && (
                <text x={x1 + 4} y={y + 13} className="pointer-events-none fill-white font-mono text-[10px]">{r.state.join(", ").slice(0, Math.floor((x2 - x1) / 6.5))}</text>
              )}
            </g>
          );
        })}
      </svg>
    </div>
  );
}
