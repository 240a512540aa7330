import { notFound } from "next/navigation";
import { listReviews } from "@/lib/api/reviews";
import { getRun, runTransitions } from "@/lib/api/runs";
import { isEngineError } from "@/lib/engine/errors";
import { deriveGraph } from "@/lib/graph/derive";
import { workflowLayout } from "@/lib/graph";
import { findWorkflow } from "@/lib/machines/registry";
import { getRuntime } from "@/lib/runtime";
import { RunLive } from "@/components/runs/run-live";
import type { FlowConfig } from "@/lib/flows/types";
import type { ReviewInfo } from "@/components/runs/decision-panel";

export const dynamic = "force-dynamic";

export async function generateMetadata({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return { title: `Run ${id.slice(0, 8)}` };
}

export default async function RunPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(id)) notFound();
  const rt = await getRuntime();
  let run;
  try {
    run = await getRun(rt, id);
  } catch (e) {
    if (isEngineError(e) && e.status === 404) notFound();
    throw e;
  }
  const def = findWorkflow(run.workflow, run.input);
  const layout = def ? await workflowLayout(def.id, run.input) : null;
  if (!def || !layout) notFound();
  const [transitions, reviews] = await Promise.all([runTransitions(rt, id, 0, 10_000, true), listReviews(rt, { runId: id, status: "pending", limit: 1 })]);
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
      flow={(def as { flow?: FlowConfig }).flow ?? null}
    />
  );
}
