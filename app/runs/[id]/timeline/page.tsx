import { notFound } from "next/navigation";
import { getRun, runTransitions } from "@/lib/api/runs";
import { isEngineError } from "@/lib/engine/errors";
import { deriveGraph } from "@/lib/graph/derive";
import { workflowLayout } from "@/lib/graph";
import { findWorkflow } from "@/lib/machines/registry";
import { getRuntime } from "@/lib/runtime";
import { TimelineLive } from "@/components/timeline/timeline-live";

export const dynamic = "force-dynamic";

export async function generateMetadata({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return { title: `Timeline ${id.slice(0, 8)}` };
}

export default async function TimelinePage({ params }: { params: Promise<{ id: string }> }) {
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
  const transitions = await runTransitions(rt, id, 0, 100_000, true);
  return <TimelineLive runId={id} title={def.title} workflow={def.id} status={run.status} transitions={transitions} states={deriveGraph(def.machine).states} layout={layout} />;
}
