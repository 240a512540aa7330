"use client";
// Bulk actions on the runs list: the ticked rows (the same boxes Compare reads), or every run
// matching the list's filter, aborted or retried (a failed run forked at its failed step, as its
// page's "Retry from" does) with POST /api/runs/bulk; one line per run that could not be.
import { useRouter } from "next/navigation";
import { useState } from "react";

interface Result {
  id: string;
  ok: boolean;
  runId?: string;
  error?: string;
}

const MAX = 1_000;

export function BulkBar({ filter, total }: { filter: Record<string, string>; total: number }) {
  const router = useRouter();
  const [all, setAll] = useState(false);
  const [reason, setReason] = useState("");
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ text: string; failures: string[] } | null>(null);
  const picked = () => [...document.querySelectorAll<HTMLInputElement>('input[name="pick"]:checked')].map((i) => i.value);

  const run = async (action: "abort" | "retry") => {
    const ids = picked();
    if (!all && ids.length === 0) return setOutcome({ text: "Tick some runs first, or choose all matching this filter.", failures: [] });
    const count = all ? total : ids.length;
    if (!window.confirm(`${action === "abort" ? "Abort" : "Retry"} ${count} run${count === 1 ? "" : "s"}?`)) return;
    setBusy(true);
    setOutcome(null);
    const body = { action, ...(all ? { filter } : { ids }), ...(action === "abort" && reason.trim() ? { reason: reason.trim() } : {}) };
    const res = await fetch("/api/runs/bulk", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }).catch(() => null);
    const data = (await res?.json().catch(() => null)) as { results?: Result[]; error?: string } | null;
    setBusy(false);
    if (!res?.ok || !data?.results) return setOutcome({ text: data?.error ?? `the request failed${res ? ` (HTTP ${res.status})` : ""}`, failures: [] });
    const ok = data.results.filter((r) => r.ok).length;
    const failed = data.results.filter((r) => !r.ok);
    const done = action === "abort" ? "aborted" : "retried";
    setOutcome({ text: failed.length ? `${ok} of ${data.results.length} ${done}; ${failed.length} could not be:` : `${ok} ${done}.`, failures: failed.map((f) => `${f.id.slice(0, 8)}: ${f.error ?? "failed"}`) });
    router.refresh();
  };

  const button = "rounded-md px-2 py-1 font-medium ring-1 disabled:opacity-50";
  return (
    <div className="flex flex-wrap items-center gap-2 text-xs text-slate-500 dark:text-slate-400" data-testid="bulk-bar">
      <span>Ticked runs:</span>
      <label className="flex items-center gap-1" title={total > MAX ? `at most ${MAX} at once: narrow the filter` : undefined}>
        <input type="checkbox" checked={all} disabled={total > MAX || total === 0} onChange={(e) => setAll(e.target.checked)} data-testid="bulk-all" /> all {total} matching this filter
      </label>
      <input value={reason} onChange={(e) => setReason(e.target.value)} placeholder="reason (abort)" maxLength={2_000} className="w-36 rounded-md border border-slate-300 bg-white px-2 py-1 dark:border-slate-600 dark:bg-slate-900" data-testid="bulk-reason" />
      <button type="button" disabled={busy} onClick={() => run("abort")} className={`${button} bg-white text-red-700 ring-red-200 hover:bg-red-50 dark:bg-slate-900 dark:text-red-400`} data-testid="bulk-abort">
        Abort
      </button>
      <button type="button" disabled={busy} onClick={() => run("retry")} className={`${button} bg-white text-blue-700 ring-blue-200 hover:bg-blue-50 dark:bg-slate-900 dark:text-blue-400`} data-testid="bulk-retry">
        Retry failed
      </button>
      {busy && <span>working…</span>}
      {outcome && (
        <div className="w-full text-slate-700 dark:text-slate-300" role="status" data-testid="bulk-outcome">
          <p>{outcome.text}</p>
          {outcome.failures.length > 0 && (
            <ul className="list-disc pl-5 text-red-700 dark:text-red-400">
              {outcome.failures.map((f) => (
                <li key={f}>{f}</li>
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}
