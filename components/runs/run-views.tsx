"use client";
import { useState } from "react";
import type { ResearchContext } from "@/lib/machines/deep-research.types";
import { KnowledgeGraph, SourceRegistry } from "@/components/research/knowledge-graph";
import { TaskDag } from "@/components/research/task-dag";
import { Markdown } from "@/components/ui/markdown";
import { ArtifactsPanel } from "./artifacts-panel";

/** Views of a run's own domain, by workflow (the research DAG, knowledge graph, sources, files). */
export function RunViews({ workflow, runId, context, version }: { workflow: string; runId: string; context: unknown; version: number }) {
  const c = context as ResearchContext;
  const tabs = workflow === "deep-research" ? [...(c.report ? ["Report"] : []), "Task DAG", "Knowledge graph", "Sources", "Files"] : [];
  // the report opens first once there is one; a tab the user picked stays picked
  const [picked, setTab] = useState<string | null>(null);
  if (tabs.length === 0) return null;
  const tab = picked && tabs.includes(picked) ? picked : tabs[0];
  return (
    <div className="rounded-xl border border-slate-200 bg-white" data-testid="run-views">
      <div className="flex flex-wrap gap-1 border-b border-slate-100 px-3 pt-2">
        {tabs.map((t) => (
          <button key={t} onClick={() => setTab(t)} className={`rounded-t-md px-3 py-1.5 text-sm ${tab === t ? "border border-b-white border-slate-200 bg-white font-semibold" : "text-slate-500 hover:text-slate-800"}`}>
            {t}
            {t === "Knowledge graph" ? ` (${c.facts?.length ?? 0})` : t === "Sources" ? ` (${c.sources?.length ?? 0})` : ""}
          </button>
        ))}
      </div>
      <div className="p-3">
        {tab === "Report" && c.report && (
          <div className="max-h-[640px] overflow-auto px-2" data-testid="report">
            <p className="mb-2 text-xs text-slate-500">
              report.md · written by {c.reportAdapter ?? "unknown adapter"} ·{" "}
              <a className="text-blue-700 hover:underline" href={`/api/runs/${runId}/artifacts/report.md?download=1`}>
                Download
              </a>
            </p>
            <Markdown text={c.report} />
          </div>
        )}
        {tab === "Task DAG" && <TaskDag tasks={c.tasks ?? []} />}
        {tab === "Knowledge graph" && <KnowledgeGraph facts={c.facts ?? []} sources={c.sources ?? []} />}
        {tab === "Sources" && <SourceRegistry sources={c.sources ?? []} />}
        {tab === "Files" && <ArtifactsPanel runId={runId} version={version} />}
      </div>
    </div>
  );
}
