"use client";
import { useState } from "react";
import type { ResearchContext } from "@/lib/machines/deep-research.types";
import { KnowledgeGraph, SourceRegistry } from "@/components/research/knowledge-graph";
import { TaskDag } from "@/components/research/task-dag";
import { ArtifactsPanel } from "./artifacts-panel";

/** Views of a run's own domain, by workflow (the research DAG, knowledge graph, sources, files). */
export function RunViews({ workflow, runId, context, version }: { workflow: string; runId: string; context: unknown; version: number }) {
  const tabs = workflow === "deep-research" ? ["Task DAG", "Knowledge graph", "Sources", "Files"] : [];
  const [tab, setTab] = useState(tabs[0]);
  if (tabs.length === 0) return null;
  const c = context as ResearchContext;
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
        {tab === "Task DAG" && <TaskDag tasks={c.tasks ?? []} />}
        {tab === "Knowledge graph" && <KnowledgeGraph facts={c.facts ?? []} sources={c.sources ?? []} />}
        {tab === "Sources" && <SourceRegistry sources={c.sources ?? []} />}
        {tab === "Files" && <ArtifactsPanel runId={runId} version={version} />}
      </div>
    </div>
  );
}
