"use client";
import type { ResearchContext } from "./types";
import { ArtifactsPanel } from "@/components/runs/artifacts-panel";
import { Markdown } from "@/components/ui/markdown";
import type { RunViewProps, WorkflowViews } from "@/components/runs/workflow-views";
import { KnowledgeGraph, SourceRegistry } from "./knowledge-graph";
import { TaskDag } from "./task-dag";
import { CheckinPayload, EscalationPayload, PlanPayload } from "./review-views";

function Tab({ tab, runId, context, version }: RunViewProps & { tab: string }) {
  const c = context as ResearchContext;
  if (tab === "report" && c.report) {
    return (
      <div tabIndex={0} className="max-h-[640px] overflow-auto px-2" data-testid="report">
        <p className="mb-2 text-xs text-slate-600 dark:text-slate-400">
          report.md · written by {c.reportAdapter ?? "unknown adapter"} ·{" "}
          <a className="text-blue-700 dark:text-blue-400 underline" href={`/api/runs/${runId}/artifacts/report.md?download=1`}>
            Download
          </a>
        </p>
        <Markdown text={c.report} />
      </div>
    );
  }
  if (tab === "dag") return <TaskDag tasks={c.tasks ?? []} />;
  if (tab === "graph") return <KnowledgeGraph facts={c.facts ?? []} sources={c.sources ?? []} />;
  if (tab === "sources") return <SourceRegistry sources={c.sources ?? []} />;
  if (tab === "files") return <ArtifactsPanel runId={runId} version={version} />;
  return null;
}

const views: WorkflowViews = {
  tabs: (context) => {
    const c = context as ResearchContext;
    return [
      ...(c.report ? [{ id: "report", label: "Report" }] : []),
      { id: "dag", label: "Task DAG" },
      { id: "graph", label: "Knowledge graph", count: c.facts?.length ?? 0 },
      { id: "sources", label: "Sources", count: c.sources?.length ?? 0 },
      { id: "files", label: "Files" },
    ];
  },
  Tab,
  reviews: { plan: PlanPayload, checkin: CheckinPayload, escalation: EscalationPayload, intervention: EscalationPayload },
};
export default views;
