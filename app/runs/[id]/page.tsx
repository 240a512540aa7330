import { runTransitions } from "@/lib/api/runs";
import { loadRunPage } from "./load";
import { listReviews } from "@/lib/api/reviews";
import { deriveGraph } from "@/lib/graph/derive";
import { RunLive } from "@/components/runs/run-live";
import type { ReviewInfo } from "@/components/runs/decision-panel";
import { requireViewer } from "@/app/session";

export const dynamic = "force-dynamic";

export async function generateMetadata({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return { title: `Run ${id.slice(0, 8)}` };
}

export default async function RunPage({ params }: { params: Promise<{ id: string }> }) {
  await requireViewer();
  const { id } = await params;
  const { rt, run, def, layout } = await loadRunPage(id);
  const [transitions, reviews, alerts] = await Promise.all([runTransitions(rt, id, 0, 10_000, true), listReviews(rt, { runId: id, status: "pending", limit: 1 }), rt.alerts.openByState(def.id)]);
  const review = reviews[0] ? ({ ...reviews[0], payload: reviews[0].payload as Record<string, unknown> } satisfies ReviewInfo) : null;
  return (
    <RunLive
      initialRun={run}
      initialTransitions={transitions}
      initialReview={review}
      layout={layout}
      states={deriveGraph(def.machine).states}
      title={def.title}
      eventFields={def.eventFields ?? {}}
      flow={def.flow ?? null}
      alerts={alerts}
    />
  );
}
