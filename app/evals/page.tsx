// /evals (guide 19 §4): evaluations of candidate versions against the decisions reviewers made,
// newest first, and a form to start one.
import Link from "@/components/ui/link";
import { listEvals } from "@/lib/change/evals";
import { listWorkflows, userVersions } from "@/lib/machines/registry";
import { getRuntime } from "@/lib/runtime";
import { Ago } from "@/components/ui/since";
import { EvalForm } from "@/components/change/eval-form";
import { RefreshWhile } from "@/components/change/refresh-while";
import { requireViewer } from "@/app/session";

export const dynamic = "force-dynamic";
export const metadata = { title: "Evals · Switchyard" };

const pct = (x: number | null) => (x === null ? "—" : `${(x * 100).toFixed(1)}%`);

export default async function EvalsPage() {
  await requireViewer();
  const rt = await getRuntime();
  const evals = await listEvals(rt);
  const now = rt.clock.now();
  const workflows = listWorkflows().map((w) => ({ id: w.id, title: w.title, versions: userVersions(w.id) }));
  return (
    <div className="space-y-4">
      <RefreshWhile active={evals.some((e) => e.status === "running")} />
      <div>
        <h1 className="text-xl font-semibold tracking-tight">Evals</h1>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          Every review a person decided is a test case: each case&apos;s run is replayed on the candidate (nothing is sent out) and the value the candidate shows at each review is scored against the decision. The same from CI: <code className="font-mono text-xs">npm run eval</code>.
        </p>
      </div>
      <div className="rounded-xl border border-slate-200 bg-white p-4 dark:border-slate-700 dark:bg-slate-900">
        <h2 className="mb-2 text-sm font-semibold">Evaluate a version</h2>
        <EvalForm workflows={workflows} />
      </div>
      <div tabIndex={0} className="overflow-x-auto rounded-xl border border-slate-200 bg-white dark:border-slate-700 dark:bg-slate-900">
        <table className="w-full text-sm" data-testid="evals-table">
          <thead className="bg-slate-50 text-left text-xs text-slate-600 dark:bg-slate-800 dark:text-slate-400">
            <tr>
              <th className="px-3 py-2 font-medium">Workflow</th>
              <th className="px-3 py-2 font-medium">Candidate</th>
              <th className="px-3 py-2 text-right font-medium">Cases</th>
              <th className="px-3 py-2 text-right font-medium">Agreement</th>
              <th className="hidden px-3 py-2 font-medium sm:table-cell">Started</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
            {evals.length === 0 && (
              <tr>
                <td colSpan={5} className="px-3 py-8 text-center text-slate-600 dark:text-slate-400">No evaluation yet.</td>
              </tr>
            )}
            {evals.map((e) => (
              <tr key={e.id} data-eval={e.id}>
                <td className="px-3 py-2">
                  <Link href={`/evals/${e.id}`} className="text-blue-700 underline dark:text-blue-400">{e.workflow}</Link>
                </td>
                <td className="px-3 py-2 text-xs">{e.candidate.version === null ? "definition (not registered)" : `v${e.candidate.version}`}</td>
                <td className="px-3 py-2 text-right tabular-nums">{e.status === "running" ? `${e.done} of ${e.cases}` : e.cases}</td>
                <td className="px-3 py-2 text-right font-medium tabular-nums">{e.status === "running" ? "running…" : pct(e.agreement)}</td>
                <td className="hidden px-3 py-2 text-xs text-slate-600 sm:table-cell dark:text-slate-400"><Ago at={e.createdAt} now={now} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
