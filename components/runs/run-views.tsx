"use client";
import { useState } from "react";
import type { ResearchContext } from "@/lib/machines/deep-research.types";
import type { AgentContext } from "@/lib/machines/domain-agent.types";
import { AgentAnswer, AgentEntries, AgentObserver, AgentReasoning } from "@/components/agent/agent-views";
import { ModeResultView, ModeRouting, ModeWork } from "@/components/modes/mode-views";
import type { ModesContext } from "@/lib/machines/processing-modes.types";
import { KnowledgeGraph, SourceRegistry } from "@/components/research/knowledge-graph";
import { TaskDag } from "@/components/research/task-dag";
import { Markdown } from "@/components/ui/markdown";
import { CycleHistory } from "@/components/swiss/cycle-history";
import type { SwissContext } from "@/lib/machines/swiss-army.types";
import { ArtifactsPanel } from "./artifacts-panel";

/** Views of a run's own domain, by workflow (the research DAG, knowledge graph, sources, files). */
export function RunViews({ workflow, runId, context, version }: { workflow: string; runId: string; context: unknown; version: number }) {
  const c = context as ResearchContext;
  const a = context as AgentContext;
  const tabs =
    workflow === "deep-research"
      ? [...(c.report ? ["Report"] : []), "Task DAG", "Knowledge graph", "Sources", "Files"]
      : workflow === "domain-agent"
        ? [...(a.answer || a.inputType !== "LOG" ? ["Answer"] : []), "Reasoning", ...(a.parsed?.length || a.inputType !== "QUERY" ? ["Entries"] : []), "Observer"]
        : workflow === "processing-modes"
          ? ["Result", "Routing & metrics", "What the mode did"]
          : workflow === "swiss-army"
            ? ["Cycles", "Files"]
            : [];
  const s = context as SwissContext;
  // the report opens first once there is one; a tab the user picked stays picked
  const [picked, setTab] = useState<string | null>(null);
  if (tabs.length === 0) return null;
  const tab = picked && tabs.includes(picked) ? picked : tabs[0];
  return (
    <div className="rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900" data-testid="run-views">
      <div className="flex flex-wrap gap-1 border-b border-slate-100 dark:border-slate-800 px-3 pt-2">
        {tabs.map((t) => (
          <button key={t} onClick={() => setTab(t)} className={`rounded-t-md px-3 py-1.5 text-sm ${tab === t ? "border border-b-white border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 font-semibold" : "text-slate-500 dark:text-slate-400 hover:text-slate-800 dark:hover:text-slate-200"}`}>
            {t}
            {t === "Cycles" ? ` (${s.history?.length ?? 0})` : t === "Knowledge graph" ? ` (${c.facts?.length ?? 0})` : t === "Sources" ? ` (${c.sources?.length ?? 0})` : t === "Entries" ? ` (${a.parsed?.length ?? 0})` : ""}
          </button>
        ))}
      </div>
      <div className="p-3">
        {tab === "Report" && c.report && (
          <div className="max-h-[640px] overflow-auto px-2" data-testid="report">
            <p className="mb-2 text-xs text-slate-500 dark:text-slate-400">
              report.md · written by {c.reportAdapter ?? "unknown adapter"} ·{" "}
              <a className="text-blue-700 dark:text-blue-400 hover:underline" href={`/api/runs/${runId}/artifacts/report.md?download=1`}>
                Download
              </a>
            </p>
            <Markdown text={c.report} />
          </div>
        )}
        {tab === "Cycles" && <CycleHistory runId={runId} history={s.history ?? []} />}
        {tab === "Task DAG" && <TaskDag tasks={c.tasks ?? []} />}
        {tab === "Knowledge graph" && <KnowledgeGraph facts={c.facts ?? []} sources={c.sources ?? []} />}
        {tab === "Sources" && <SourceRegistry sources={c.sources ?? []} />}
        {tab === "Files" && <ArtifactsPanel runId={runId} version={version} />}
        {tab === "Answer" && <AgentAnswer c={a} />}
        {tab === "Reasoning" && <AgentReasoning c={a} />}
        {tab === "Entries" && <AgentEntries c={a} />}
        {tab === "Observer" && <AgentObserver c={a} />}
        {tab === "Result" && <ModeResultView c={context as ModesContext} />}
        {tab === "Routing & metrics" && <ModeRouting c={context as ModesContext} />}
        {tab === "What the mode did" && <ModeWork c={context as ModesContext} />}
      </div>
    </div>
  );
}
