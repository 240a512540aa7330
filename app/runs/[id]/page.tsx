import { getRun, runTransitions } from "@/lib/api/runs";
import { viewsOf } from "@/app/catalog";
import { findWorkflow } from "@/lib/machines/registry";
import { runName } from "@/lib/machines/run-name";
import { OfflineNotice } from "@/components/ui/offline-notice";
import { loadRunPage } from "./load";
import { runTitle } from "./title";
import { listReviews } from "@/lib/api/reviews";
import { deriveGraph } from "@/lib/graph/derive";
import { RunLive } from "@/components/runs/run-live";
import { runFailure } from "@/lib/api/failure";
import type { ReviewInfo } from "@/components/runs/decision-panel";
import { WorkflowViewsProvider, type WorkflowViews } from "@/components/runs/workflow-views";
import { requireViewer } from "@/app/session";

export const dynamic = "force-dynamic";

export async function generateMetadata({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return { title: await runTitle(id) };
}


export default async function RunPage({ params }: { params: Promise<{ id: string }> }) {
  await requireViewer();
  const { id } = await params;
  const { rt, run, def, layout } = await loadRunPage(id);
  const [transitions, reviews, alerts, views] = await Promise.all([runTransitions(rt, id, 0, 10_000, true), listReviews(rt, { runId: id, status: "pending", limit: 1 }), rt.alerts.openByState(def.id), viewsOf(def.id)]);
  const parent = run.parentId ? await getRun(rt, run.parentId).catch(() => null) : null;
  const review = reviews[0] ? ({ ...reviews[0], payload: reviews[0].payload as Record<string, unknown> } satisfies ReviewInfo) : null;
  return (
    <WorkflowViewsProvider views={{ [def.id]: views as WorkflowViews | null }}>
    <RunLive
      initialRun={run}
      initialTransitions={transitions}
      initialReview={review}
      layout={layout}
      states={deriveGraph(def.machine).states}
      title={def.title}
      name={runName(def, run)}
      subtitle={run.subtitle}
      parentName={parent ? runName(findWorkflow(parent.workflow, parent.input), parent) : null}
      eventFields={def.eventFields ?? {}}
      flow={def.flow ?? null}
      alerts={alerts}
      notice={rt.model.offline ? <OfflineNotice /> : null}
      result={def.result?.(run.context) ?? null}
      failure={runFailure(run, transitions, def.flow)}
    />
    </WorkflowViewsProvider>
  );
}
