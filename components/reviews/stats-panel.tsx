// The workflow page's compact decision analytics (GET /api/workflows/{id}/reviews/stats): per review
// state, decisions by kind, approve rate, time to decision, the busiest reviewers and, for quorum
// reviews, agreement. Windows are links (?reviews=1h|24h|7d|all), so it works without JavaScript.
import Link from "@/components/ui/link";
import { formatDuration } from "@/lib/format";
import { STATS_WINDOWS, type ReviewStats, type StatsWindow } from "@/lib/reviews/stats";
import type { GraphState } from "@/lib/graph/derive";
import { StateName } from "@/components/ui/state-name";

const pct = (x: number | null | undefined) => (x === null || x === undefined ? "—" : `${Math.round(x * 100)}%`);

export function ReviewStatsPanel({ stats, states, href }: { stats: ReviewStats; states: Pick<GraphState, "id" | "name" | "parent">[]; href: (w: StatsWindow) => string }) {
  const rows = Object.entries(stats.states);
  if (rows.length === 0) return null;
  return (
    <div className="rounded-xl border border-slate-200 bg-white p-4 dark:border-slate-700 dark:bg-slate-900" data-testid="review-stats">
      <div className="mb-2 flex flex-wrap items-baseline justify-between gap-2">
        <h2 className="text-sm font-semibold">Review decisions</h2>
        <nav className="flex gap-1 text-xs" aria-label="Review decisions window">
          {(Object.keys(STATS_WINDOWS) as StatsWindow[]).map((w) => (
            <Link key={w} href={href(w)} scroll={false} aria-current={w === stats.window ? "true" : undefined} className={`rounded px-1.5 py-0.5 ${w === stats.window ? "bg-slate-800 text-white dark:bg-slate-200 dark:text-slate-900" : "text-blue-700 underline-offset-2 hover:underline dark:text-blue-400"}`}>
              {w}
            </Link>
          ))}
        </nav>
      </div>
      <ul className="space-y-3 text-xs">
        {rows.map(([state, s]) => {
          const reviewers = Object.entries(s.reviewers).sort((a, b) => b[1] - a[1]);
          return (
            <li key={state} data-state={state} className="space-y-1">
              <div className="flex flex-wrap items-baseline gap-x-2">
                <span className="font-mono font-medium" title={state}>
                  <StateName id={state} states={states} withGroup="always" />
                </span>
                <span className="text-slate-600 dark:text-slate-400">{s.total ? `${s.total} decision${s.total === 1 ? "" : "s"} by people` : "no decisions in this window"}</span>
              </div>
              {s.total > 0 && (
                <>
                  <div className="flex flex-wrap gap-1">
                    {Object.entries(s.decisions).map(([d, n]) => (
                      <span key={d} className="rounded bg-slate-100 px-1.5 py-0.5 text-slate-700 dark:bg-slate-800 dark:text-slate-200" data-decision={d}>
                        {d} {n} · {pct(s.rates[d])}
                      </span>
                    ))}
                  </div>
                  <div className="text-slate-600 dark:text-slate-400">
                    time to decision p50 {formatDuration(s.timeToDecisionMs.p50)} · p95 {formatDuration(s.timeToDecisionMs.p95)}
                    {s.agreement !== null && (
                      <>
                        {" "}
                        · agreement {pct(s.agreement)} of {s.rounds} round{s.rounds === 1 ? "" : "s"}
                      </>
                    )}
                  </div>
                  <div className="truncate text-slate-600 dark:text-slate-400" title={reviewers.map(([n, c]) => `${n}: ${c}`).join(", ")}>
                    by {reviewers.slice(0, 4).map(([n, c]) => `${n} ${c}`).join(", ")}
                    {reviewers.length > 4 ? ` and ${reviewers.length - 4} more` : ""}
                  </div>
                </>
              )}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
