"use client";
import { useEffect, useState } from "react";
import { formatDuration } from "@/lib/format";
import { TableHead } from "@/components/ui/table-head";

interface Usage {
  total: { calls: number; offline?: number; promptTokens: number; completionTokens: number; latencyMs: number; estimated: boolean };
  calls: { id: string; state: string | null; purpose: string; adapter: string; promptTokens: number; completionTokens: number; estimated: boolean; latencyMs: number; attempts: number; ok: boolean; errorCategory: string | null; error: string | null }[];
}

/** Which model (or the offline engine) did the thinking, at what cost; refreshed as the run moves. */
export function UsagePanel({ runId, version }: { runId: string; version: number }) {
  const [usage, setUsage] = useState<Usage | null>(null);
  useEffect(() => {
    const t = setTimeout(() => {
      fetch(`/api/runs/${runId}/usage`)
        .then((r) => (r.ok ? r.json() : null))
        .then((u) => u && setUsage(u))
        .catch(() => {});
    }, 150);
    return () => clearTimeout(t);
  }, [runId, version]);
  if (!usage || usage.calls.length === 0) return null;
  const adapters = [...new Set(usage.calls.map((c) => c.adapter))];
  return (
    <div className="rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-4" data-testid="usage-panel">
      <h2 className="mb-1 text-sm font-semibold">Model usage</h2>
      <p className="mb-2 text-xs text-slate-600 dark:text-slate-400">
        {usage.total.calls} model call{usage.total.calls === 1 ? "" : "s"}
        {usage.total.offline ? ` · ${usage.total.offline} step${usage.total.offline === 1 ? "" : "s"} by the offline engine (no model, no tokens)` : ""} · {usage.total.promptTokens + usage.total.completionTokens} tokens{usage.total.estimated ? " (estimated)" : ""} · {formatDuration(usage.total.latencyMs)} ·{" "}
        <span className="font-medium text-slate-700 dark:text-slate-300" data-testid="adapters">{adapters.join(", ")}</span>
      </p>
      <table className="w-full table-fixed text-[11px]">
        <TableHead columns={["State", "Purpose", { label: "Tokens in/out", right: true }, { label: "Latency", right: true }]} />
        <tbody>
          {usage.calls.slice(-12).map((c) => (
            <tr key={c.id} className={c.ok ? "" : "text-red-700 dark:text-red-400"} title={c.error ?? c.adapter}>
              {/* the leaf of a nested state path says which state called; the full path is in the tooltip */}
              <td className="truncate pr-2 font-mono" title={c.state ?? undefined}>{c.state?.split(".").pop() ?? "—"}</td>
              <td>{c.purpose}{c.attempts > 1 ? ` (${c.attempts} tries)` : ""}{c.ok ? "" : ` · ${c.errorCategory}`}</td>
              <td className="text-right font-mono">{c.promptTokens}/{c.completionTokens}</td>
              <td className="text-right font-mono">{c.latencyMs} ms</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
