import type { CycleOutcome } from "./types";
import { cycleFile } from "./artifacts";

const STYLE: Record<CycleOutcome["outcome"], string> = {
  approved: "bg-emerald-100 text-emerald-900",
  rejected: "bg-red-100 text-red-800",
  aborted: "bg-amber-100 text-amber-900",
  failed: "bg-red-100 text-red-800",
  invalid: "bg-amber-100 text-amber-900",
};

/** Each finished cycle of a swiss-army run, newest first: the request, its decision and the output that was decided on. */
export function CycleHistory({ runId, history }: { runId: string; history: CycleOutcome[] }) {
  if (history.length === 0) return <p className="text-sm text-slate-600 dark:text-slate-400">No cycle has finished yet.</p>;
  return (
    <ol className="space-y-3" data-testid="cycle-history">
      {history.map((c) => (
        <li key={`${c.request_id}-${c.at}`} data-cycle={c.cycle ?? c.request_id} className="rounded-lg border border-slate-200 dark:border-slate-700 p-3 text-sm">
          <div className="flex flex-wrap items-center gap-2">
            <span className="font-semibold text-slate-900 dark:text-slate-100">Request #{c.cycle ?? "?"}</span>
            <span className={`rounded-full px-2 py-0.5 text-xs font-semibold ${STYLE[c.outcome] ?? "bg-slate-100 dark:bg-slate-800"}`}>{c.outcome}</span>
            <time className="text-xs text-slate-600 dark:text-slate-400" dateTime={new Date(c.at).toISOString()} title={new Date(c.at).toISOString()}>
              {new Date(c.at).toISOString().slice(0, 16).replace("T", " ")} UTC
            </time>
            <a className="ml-auto text-xs text-blue-700 dark:text-blue-400 underline" href={`/api/runs/${runId}/artifacts/${cycleFile(c)}`}>
              Full output
            </a>
          </div>
          <p className="mt-1 line-clamp-2 text-slate-700 dark:text-slate-300">{c.content}</p>
          {c.feedback && <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">Reviewer: “{c.feedback}”</p>}
          {c.error?.message && <p className="mt-1 text-xs text-red-700 dark:text-red-400">{c.error.message}</p>}
          {c.result_preview && <pre tabIndex={0} className="mt-2 max-h-48 overflow-auto whitespace-pre-wrap rounded-md bg-slate-50 dark:bg-slate-800/60 px-2 py-1.5 font-mono text-xs text-slate-800 dark:text-slate-200">{c.result_preview}</pre>}
        </li>
      ))}
    </ol>
  );
}
