import type { ModeSummary } from "./mode-metrics";
import { TableHead } from "@/components/ui/table-head";

/** RecordMetrics per mode, for the processing-modes workflow page. */
export function ModeMetricsPanel({ modes }: { modes: ModeSummary[] }) {
  return (
    <div className="rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-4">
      <h2 className="mb-2 text-sm font-semibold">Metrics per mode</h2>
      <table className="w-full text-xs" data-testid="mode-metrics">
        <TableHead columns={["Mode", { label: "Requests", right: true }, { label: "Latency avg / p95", right: true }, { label: "Model answers used", right: true }, { label: "Cache hits", right: true }, { label: "Errors", right: true }]} />
        <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
          {modes.map((m) => (
            <tr key={m.mode} data-mode={m.mode}>
              <td className="py-1.5 pr-2">
                <span className="font-mono">{m.mode}</span> <span className="text-[11px] text-slate-600 dark:text-slate-400">{m.level}</span>
              </td>
              <td className="py-1.5 text-right">{m.requests}</td>
              <td className="py-1.5 text-right font-mono">{m.requests ? `${m.avgLatencyMs} / ${m.p95LatencyMs} ms` : "—"}</td>
              <td className="py-1.5 text-right">{m.requests ? m.avgLlmCalls : "—"}</td>
              <td className="py-1.5 text-right">{m.cacheHitRate === null ? <span className="text-slate-600 dark:text-slate-400">no cache</span> : m.requests ? `${Math.round(m.cacheHitRate * 100)} %` : "—"}</td>
              <td className={`py-1.5 text-right ${m.errors ? "font-semibold text-red-700 dark:text-red-400" : ""}`} title={Object.entries(m.errorsByCategory).map(([k, v]) => `${k}: ${v}`).join(", ")}>
                {m.errors}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
