"use client";
import { useState } from "react";
import { useWorkflowViews } from "./workflow-views";

/** Views of a run's own domain (the workflow's tabs: a research DAG, an answer, files …). */
export function RunViews({ workflow, runId, context, version }: { workflow: string; runId: string; context: unknown; version: number }) {
  const views = useWorkflowViews(workflow);
  const tabs = views?.tabs?.(context) ?? [];
  // the first tab opens first (e.g. a report once there is one); a tab the user picked stays picked
  const [picked, setTab] = useState<string | null>(null);
  if (tabs.length === 0 || !views?.Tab) return null;
  const tab = picked && tabs.some((t) => t.id === picked) ? picked : tabs[0].id;
  const Tab = views.Tab;
  return (
    <div className="rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900" data-testid="run-views">
      <div className="flex flex-wrap gap-1 border-b border-slate-100 dark:border-slate-800 px-3 pt-2">
        {tabs.map((t) => (
          <button key={t.id} onClick={() => setTab(t.id)} className={`rounded-t-md px-3 py-1.5 text-sm ${tab === t.id ? "border border-b-white border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 font-semibold" : "text-slate-500 dark:text-slate-400 hover:text-slate-800 dark:hover:text-slate-200"}`}>
            {t.label}
            {t.count !== undefined ? ` (${t.count})` : ""}
          </button>
        ))}
      </div>
      <div className="p-3">
        <Tab tab={tab} runId={runId} context={context} version={version} />
      </div>
    </div>
  );
}
