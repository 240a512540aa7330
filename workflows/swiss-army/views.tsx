"use client";
import type { SwissContext } from "./types";
import { ArtifactsPanel } from "@/components/runs/artifacts-panel";
import type { RunViewProps, WorkflowViews } from "@/components/runs/workflow-views";
import { CycleHistory } from "./cycle-history";
import { ResultPayload } from "./review-views";

function Tab({ tab, runId, context, version }: RunViewProps & { tab: string }) {
  const s = context as SwissContext;
  if (tab === "cycles") return <CycleHistory runId={runId} history={s.history ?? []} />;
  if (tab === "files") return <ArtifactsPanel runId={runId} version={version} />;
  return null;
}

const views: WorkflowViews = {
  tabs: (context) => [
    { id: "cycles", label: "Cycles", count: (context as SwissContext).history?.length ?? 0 },
    { id: "files", label: "Files" },
  ],
  Tab,
  // the result review's payload has no kind
  reviews: { default: ResultPayload },
};
export default views;
