// /evals/{id} (guide 19 §4): an evaluation's report: agreement per review state (also painted on
// the diagram), the regressions (each linked to the compare view: the source run against the
// candidate's replay of it), the decisions that are not cases, tokens and time.
import Link from "@/components/ui/link";
import { notFound } from "next/navigation";
import { evalDefinition, getEval, type EvalReport } from "@/lib/change/evals";
import { layoutOf } from "@/lib/change/definitions";
import { isEngineError } from "@/lib/engine/errors";
import { formatDuration, shortId } from "@/lib/format";
import { findWorkflow } from "@/lib/machines/registry";
import { getRuntime } from "@/lib/runtime";
import type { DiagramOverlay } from "@/components/diagram/workflow-diagram";
import { EvalDiagram } from "@/components/change/eval-diagram";
import { RefreshWhile } from "@/components/change/refresh-while";
import { requireViewer } from "@/app/session";

export const dynamic = "force-dynamic";
export const metadata = { title: "Evaluation · Switchyard" };

const pct = (x: number | null) => (x === null ? "—" : `${(x * 100).toFixed(1)}%`);
const tone = (x: number | null) => (x === null ? "info" : x >= 0.9 ? "good" : x >= 0.6 ? "warn" : "bad");
const REASON: Record<string, string> = { path: "never reached this review", differs: "shows another value than the one approved or corrected", unchanged: "shows the value the reviewer rejected" };

export default async function EvalPage({ params }: { params: Promise<{ id: string }> }) {
  await requireViewer();
  const { id } = await params;
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(id)) notFound();
  const rt = await getRuntime();
  let r: EvalReport;
  try {
    r = await getEval(rt, id);
  } catch (e) {
    if (isEngineError(e) && e.status === 404) notFound();
    throw e;
  }
  const def = (await evalDefinition(rt, id)) ?? findWorkflow(r.workflow);
  const layout = def ? await layoutOf(def) : null;
  const names = new Map(layout?.graph.states.map((s) => [s.id, s.name]) ?? []);
  const overlay: DiagramOverlay = {
    nodes: Object.fromEntries(Object.entries(r.byState).map(([state, s]) => [state, [{ label: `${pct(s.agreement)} agree`, tone: tone(s.agreement), title: `${s.agree} of ${s.cases} cases agree` }]])),
  };
  const agree = Object.values(r.byState).reduce((n, s) => n + s.agree, 0);
  return (
    <div className="space-y-4">
      <RefreshWhile active={r.status === "running"} />
      <div>
        <p className="text-xs text-slate-600 dark:text-slate-400">
          <Link href="/evals" className="hover:underline">Evals</Link> · <span className="font-mono">{shortId(r.id)}</span>
        </p>
        <h1 className="text-xl font-semibold tracking-tight">
          {def?.title ?? r.workflow}: {r.candidate.version === null ? "a candidate definition" : `v${r.candidate.version}`}
        </h1>
      </div>
      <div className="grid grid-cols-3 gap-2 sm:gap-3" data-testid="eval-summary">
        <div className="rounded-xl border border-slate-200 bg-white p-3 dark:border-slate-700 dark:bg-slate-900">
          <div className="text-lg font-semibold tabular-nums sm:text-2xl" data-testid="eval-agreement">{r.status === "running" ? "…" : pct(r.agreement)}</div>
          <div className="text-[11px] text-slate-600 sm:text-xs dark:text-slate-400">agreement ({agree} of {r.done} cases)</div>
        </div>
        <div className="rounded-xl border border-slate-200 bg-white p-3 dark:border-slate-700 dark:bg-slate-900">
          <div className="text-lg font-semibold tabular-nums sm:text-2xl">{r.status === "running" ? `${r.done} / ${r.cases}` : r.cases}</div>
          <div className="text-[11px] text-slate-600 sm:text-xs dark:text-slate-400">{r.status === "running" ? "cases scored so far" : "cases (reviews people decided)"}</div>
        </div>
        <div className="rounded-xl border border-slate-200 bg-white p-3 dark:border-slate-700 dark:bg-slate-900">
          <div className="text-lg font-semibold tabular-nums sm:text-2xl">{r.tokens}</div>
          <div className="text-[11px] text-slate-600 sm:text-xs dark:text-slate-400">tokens the candidate spent · {formatDuration(r.ms)}</div>
        </div>
      </div>
      {layout && <EvalDiagram layout={layout} overlay={overlay} />}
      <div className="grid gap-4 lg:grid-cols-2">
        <section className="rounded-xl border border-slate-200 bg-white p-4 dark:border-slate-700 dark:bg-slate-900">
          <h2 className="mb-2 text-sm font-semibold">Per review state</h2>
          <table className="w-full text-sm" data-testid="eval-states">
            <thead className="text-left text-xs text-slate-600 dark:text-slate-400">
              <tr>
                <th className="py-1 font-medium">State</th>
                <th className="py-1 text-right font-medium">Cases</th>
                <th className="py-1 text-right font-medium">Agree</th>
                <th className="py-1 text-right font-medium">Agreement</th>
              </tr>
            </thead>
            <tbody>
              {Object.entries(r.byState).map(([state, s]) => (
                <tr key={state} data-state={state} className="border-t border-slate-100 dark:border-slate-800">
                  <td className="py-1 font-mono">{names.get(state) ?? state}</td>
                  <td className="py-1 text-right tabular-nums">{s.cases}</td>
                  <td className="py-1 text-right tabular-nums">{s.agree}</td>
                  <td className="py-1 text-right font-medium tabular-nums">{pct(s.agreement)}</td>
                </tr>
              ))}
              {Object.keys(r.byState).length === 0 && (
                <tr>
                  <td colSpan={4} className="py-3 text-center text-slate-600 dark:text-slate-400">{r.status === "running" ? "Scoring…" : "No case: no review of this workflow was decided by a person yet."}</td>
                </tr>
              )}
            </tbody>
          </table>
          <p className="mt-2 text-xs text-slate-600 dark:text-slate-400">
            Approve agrees when the candidate shows the approved value, edit when it shows the corrected one, reject (and request-changes) when it shows something else. Equal: text by {r.equality.text}; JSON by {r.equality.json}.
          </p>
        </section>
        <section className="rounded-xl border border-slate-200 bg-white p-4 dark:border-slate-700 dark:bg-slate-900">
          <h2 className="mb-2 text-sm font-semibold">Regressions ({r.regressions.length})</h2>
          {r.regressions.length === 0 ? (
            <p className="text-sm text-slate-600 dark:text-slate-400">{r.status === "running" ? "None so far." : "None: the candidate agrees with every decision."}</p>
          ) : (
            <ul className="space-y-1.5 text-sm" data-testid="eval-regressions">
              {r.regressions.map((g, i) => (
                <li key={i} className="flex flex-wrap items-baseline gap-x-2">
                  <span className="font-mono">{names.get(g.state) ?? g.state}</span>
                  <span className="text-slate-600 dark:text-slate-300">
                    {g.decision}: {REASON[g.reason] ?? g.reason}
                  </span>
                  {g.replayId ? (
                    <Link href={`/runs/${g.runId}/compare/${g.replayId}`} className="text-blue-700 underline dark:text-blue-400" data-testid="regression-compare">
                      compare {shortId(g.runId)} with the candidate
                    </Link>
                  ) : (
                    <Link href={`/runs/${g.runId}`} className="text-blue-700 underline dark:text-blue-400">run {shortId(g.runId)}</Link>
                  )}
                </li>
              ))}
            </ul>
          )}
          {r.skipped.length > 0 && (
            <p className="mt-3 text-xs text-slate-600 dark:text-slate-400">
              Not cases (other decisions): {r.skipped.map((s) => `${s.decision} at ${names.get(s.state) ?? s.state}`).join(", ")}.
            </p>
          )}
        </section>
      </div>
    </div>
  );
}
