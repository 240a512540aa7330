import Link from "@/components/ui/link";
import { deriveGraph } from "@/lib/graph/derive";
import { listWorkflows } from "@/lib/machines/registry";
import { getRuntime } from "@/lib/runtime";
import { requireViewer } from "@/app/session";
import { workflowSwitches } from "@/lib/flows/status";

export const dynamic = "force-dynamic";
export const metadata = { title: "Workflows" };

export default async function Workflows() {
  await requireViewer();
  const rt = await getRuntime();
  const switches = await workflowSwitches(rt.db);
  // a deleted workflow leaves the catalog (its runs still link to its page)
  const workflows = listWorkflows().filter((w) => !switches.get(w.id)?.deletedAt);
  const counts = await Promise.all(workflows.map((w) => rt.store.countByStatus(w.id)));
  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-xl font-semibold tracking-tight">Workflows</h1>
          <p className="text-sm text-slate-600 dark:text-slate-400">Each workflow is one state machine; its diagram, API description and metrics are derived from it.</p>
        </div>
        <Link href="/workflows/new" className="rounded-md bg-blue-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-blue-700" data-testid="new-workflow">New workflow</Link>
      </div>
      <div className="grid gap-4 md:grid-cols-2 xl:grid-cols-3" data-testid="workflow-catalog">
        {workflows.map((w, i) => {
          const g = deriveGraph(w.machine);
          const c = counts[i];
          return (
            <Link key={w.id} href={`/workflows/${w.id}`} className="block rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-4 hover:border-blue-400 hover:shadow-sm" data-workflow={w.id}>
              <div className="flex items-baseline justify-between gap-2">
                <h2 className="font-semibold">{w.title}</h2>
                <span className="font-mono text-xs text-slate-600 dark:text-slate-400">{w.id}</span>
              </div>
              <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{w.description}</p>
              <div className="mt-3 flex flex-wrap gap-2 text-xs text-slate-600 dark:text-slate-400">
                <span>{g.states.length} states</span>
                <span>·</span>
                <span>{g.transitions.length} transitions</span>
                <span>·</span>
                <span>{g.states.filter((s) => s.human).length} human step(s)</span>
                <span>·</span>
                <span>{w.seed === "user-defined" ? "user-defined" : "built in"}</span>
                {switches.get(w.id)?.disabled && (
                  <span className="rounded bg-amber-100 px-1.5 font-medium text-amber-900" data-testid="workflow-disabled">
                    disabled: no new runs
                  </span>
                )}
              </div>
              <div className="mt-2 text-xs text-slate-600 dark:text-slate-400">
                {c.running} running · {c.waiting} waiting · {c.completed} completed · {c.failed} failed · {c.aborted} aborted
              </div>
            </Link>
          );
        })}
      </div>
    </div>
  );
}
