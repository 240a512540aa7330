// The fleet in numbers beside its diagram: runs by status in the window, and per state the runs
// there now (a link to them), visits, time in state, failures and stuck runs.
import Link from "@/components/ui/link";
import type { Fleet } from "@/lib/fleet/fleet";
import type { GraphState } from "@/lib/graph/derive";
import { formatDuration } from "@/lib/format";
import { TableHead } from "@/components/ui/table-head";
import { StateName } from "@/components/ui/state-name";

export function FleetPanel({ fleet, states }: { fleet: Fleet; states: GraphState[] }) {
  const rows = Object.entries(fleet.states).filter(([, s]) => s.now.running + s.now.waiting + s.entered + s.failedHere > 0);
  const runs = (state: string) => `/?workflow=${encodeURIComponent(fleet.workflow)}&state=${encodeURIComponent(state)}`;
  return (
    <div className="rounded-xl border border-slate-200 bg-white p-4 dark:border-slate-700 dark:bg-slate-900" data-testid="fleet-panel">
      <h2 className="mb-1 text-sm font-semibold">Fleet{fleet.version !== null ? ` · v${fleet.version}` : ""}</h2>
      <p className="mb-2 text-xs text-slate-500 dark:text-slate-400" data-testid="fleet-runs">
        now {fleet.runs.running} running, {fleet.runs.waiting} waiting · in the window ({fleet.window}) {fleet.runs.completed} completed, {fleet.runs.failed} failed, {fleet.runs.aborted} aborted
      </p>
      {rows.length === 0 ? (
        <p className="text-xs text-slate-500 dark:text-slate-400">No runs in this window yet.</p>
      ) : (
        <div className="overflow-x-auto">
          <table className="w-full text-xs" data-testid="fleet-states">
            <TableHead columns={["State", { label: "Now", right: true }, { label: "Entered", right: true }, { label: "p50 / p95", right: true }, { label: "Failed", right: true }, { label: "Stuck", right: true }]} />
            <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
              {rows.map(([id, s]) => (
                <tr key={id} data-fleet-state={id} className={s.stuck || s.failedHere ? "bg-red-50/60 dark:bg-red-950/30" : undefined}>
                  <td className="truncate py-1.5 pr-2 font-mono" title={id}>
                    <Link href={runs(id)} className="text-blue-700 hover:underline dark:text-blue-400"><StateName id={id} states={states} /></Link>
                  </td>
                  <td className="py-1.5 text-right" data-cell="now">{s.now.running + s.now.waiting}</td>
                  <td className="py-1.5 text-right" data-cell="entered">{s.entered}</td>
                  <td className="py-1.5 text-right font-mono" data-cell="dwell">{s.dwellMs ? `${formatDuration(s.dwellMs.p50)} / ${formatDuration(s.dwellMs.p95)}` : "—"}</td>
                  <td className={`py-1.5 text-right ${s.failedHere ? "font-semibold text-red-700 dark:text-red-400" : ""}`} data-cell="failed">{s.failedHere}</td>
                  <td className={`py-1.5 text-right ${s.stuck ? "font-semibold text-red-700 dark:text-red-400" : ""}`} data-cell="stuck">{s.stuck}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
