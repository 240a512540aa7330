import { runForks, runTransitions } from "@/lib/api/runs";
import { isImportedRun } from "@/lib/engine/imported";
import { loadRunPage } from "../load";
import { runTitle } from "../title";
import { runName } from "@/lib/machines/run-name";
import { deriveGraph } from "@/lib/graph/derive";
import { TimelineLive } from "@/components/timeline/timeline-live";
import { requireViewer } from "@/app/session";

export const dynamic = "force-dynamic";

export async function generateMetadata({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return { title: await runTitle(id, "/timeline", "Timeline") };
}

export default async function TimelinePage({ params }: { params: Promise<{ id: string }> }) {
  await requireViewer();
  const { id } = await params;
  const { rt, run, def, layout } = await loadRunPage(id, "/timeline");
  const [transitions, forks] = await Promise.all([runTransitions(rt, id, 0, 100_000, true), runForks(rt, id)]);
  return (
    <TimelineLive
      runId={id}
      title={def.title}
      name={runName(def, run)}
      workflow={def.id}
      status={run.status}
      transitions={transitions}
      states={deriveGraph(def.machine).states}
      layout={layout}
      forkOf={run.forkOf ? { id: run.forkOf, seq: run.forkSeq ?? 0 } : null}
      forks={forks}
      readOnly={isImportedRun(id)}
    />
  );
}
