import Link from "next/link";
import { listReviews } from "@/lib/api/reviews";
import { shortId } from "@/lib/format";
import { getRun } from "@/lib/api/runs";
import { runName } from "@/lib/machines/run-name";
import { Since } from "@/components/ui/since";
import { OfflineNotice } from "@/components/ui/offline-notice";
import { deriveGraph } from "@/lib/graph/derive";
import { findWorkflow } from "@/lib/machines/registry";
import { getRuntime } from "@/lib/runtime";
import { DecisionPanel } from "@/components/runs/decision-panel";
import { LiveRefresh } from "@/components/ui/live-refresh";
import { requireViewer } from "@/app/session";

export const dynamic = "force-dynamic";
export const metadata = { title: "Review queue" };

export default async function ReviewQueue() {
  await requireViewer();
  const rt = await getRuntime();
  const reviews = await listReviews(rt, { status: "pending", limit: 500 });
  // what each run is about, once per run
  const names = new Map<string, string | null>();
  for (const id of new Set(reviews.map((r) => r.runId))) {
    const run = await getRun(rt, id).catch(() => null);
    names.set(id, run ? runName(findWorkflow(run.workflow, run.input), run) : null);
  }
  const now = rt.clock.now();
  return (
    <div className="mx-auto max-w-4xl space-y-4">
      <LiveRefresh />
      <div>
        <h1 className="text-xl font-semibold tracking-tight">Review queue</h1>
        <p className="text-sm text-slate-500">
          {reviews.length === 0 ? "Nothing is waiting for a person right now." : `${reviews.length} decision${reviews.length === 1 ? "" : "s"} waiting, oldest first.`}
        </p>
      </div>
      {rt.model.offline && reviews.length > 0 && <OfflineNotice />}
      <ol className="space-y-4" data-testid="review-queue">
        {reviews.map((r) => {
          const def = findWorkflow(r.workflow);
          const state = def ? deriveGraph(def.machine).states.find((s) => s.id === r.state) : undefined;
          return (
            <li key={r.id} className="rounded-xl border border-slate-200 bg-white p-4 shadow-sm" data-review={r.id} data-run={r.runId}>
              <div className="mb-3 flex flex-wrap items-center gap-2 text-xs text-slate-500">
                <span className={`rounded-full px-2 py-0.5 font-semibold ${r.ageMs > 3_600_000 ? "bg-amber-100 text-amber-900" : "bg-slate-100 text-slate-700"}`} data-testid="review-age">
                  waiting <Since from={r.createdAt} now={now} />
                </span>
                <span>{def?.title ?? r.workflow}</span>
                <span>·</span>
                <Link href={`/runs/${r.runId}`} className="min-w-0 max-w-full truncate text-blue-700 hover:underline" data-testid="review-run" title={r.runId}>
                  {names.get(r.runId) ?? `run ${shortId(r.runId)}`}
                </Link>
                <span>·</span>
                <span className="font-mono">{r.state}</span>
                <span className="ml-auto">{r.kind.replace(/_/g, " ")}</span>
              </div>
              <DecisionPanel review={{ ...r, payload: r.payload as Record<string, unknown> }} decisions={state?.decisions} compact />
            </li>
          );
        })}
      </ol>
    </div>
  );
}
