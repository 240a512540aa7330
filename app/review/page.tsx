import { listReviews } from "@/lib/api/reviews";
import { shortId } from "@/lib/format";
import { runsByIds } from "@/lib/api/runs";
import { runName } from "@/lib/machines/run-name";
import { OfflineNotice } from "@/components/ui/offline-notice";
import { deriveGraph } from "@/lib/graph/derive";
import { viewsOf } from "@/app/catalog";
import { findWorkflow } from "@/lib/machines/registry";
import { getRuntime } from "@/lib/runtime";
import { ReviewQueue } from "@/components/runs/review-queue";
import { WorkflowViewsProvider, type WorkflowViews } from "@/components/runs/workflow-views";
import { LiveRefresh } from "@/components/ui/live-refresh";
import { requireViewer } from "@/app/session";

export const dynamic = "force-dynamic";
export const metadata = { title: "Review queue" };

export default async function ReviewQueuePage() {
  await requireViewer();
  const rt = await getRuntime();
  const reviews = await listReviews(rt, { status: "pending", limit: 500 });
  // what each run is about: every run in one query
  const runs = await runsByIds(rt, reviews.map((r) => r.runId));
  const names = new Map(runs.map((run) => [run.id, runName(findWorkflow(run.workflow, run.input), run)]));
  // each pending review's workflow's views (its review payloads)
  const workflows = [...new Set(reviews.map((r) => r.workflow))];
  const views = Object.fromEntries(await Promise.all(workflows.map(async (w) => [w, (await viewsOf(w)) as WorkflowViews | null] as const)));
  const now = rt.clock.now();
  return (
    <div className="mx-auto max-w-4xl space-y-4">
      <LiveRefresh />
      <div>
        <h1 className="text-xl font-semibold tracking-tight">Review queue</h1>
        <p className="text-sm text-slate-500 dark:text-slate-400">
          {reviews.length === 0 ? "Nothing is waiting for a person right now." : `${reviews.length} decision${reviews.length === 1 ? "" : "s"} waiting, oldest first.`}
        </p>
      </div>
      {rt.model.offline && reviews.length > 0 && <OfflineNotice />}
      <WorkflowViewsProvider views={views}>
      <ReviewQueue
        now={now}
        items={reviews.map((r) => {
          const def = findWorkflow(r.workflow);
          const state = def ? deriveGraph(def.machine).states.find((s) => s.id === r.state) : undefined;
          return {
            review: { ...r, payload: r.payload as Record<string, unknown> },
            decisions: state?.decisions,
            workflowTitle: def?.title ?? r.workflow,
            name: names.get(r.runId) ?? `run ${shortId(r.runId)}`,
          };
        })}
      />
      </WorkflowViewsProvider>
    </div>
  );
}
