"use client";
// An evaluation's agreement painted on the review states of the candidate's diagram.
import { WorkflowDiagram, type DiagramOverlay } from "@/components/diagram/workflow-diagram";
import type { Layout } from "@/lib/graph/layout";

export function EvalDiagram({ layout, overlay }: { layout: Layout; overlay: DiagramOverlay }) {
  return (
    <div className="overflow-hidden rounded-xl border border-slate-200 bg-white dark:border-slate-700 dark:bg-slate-900">
      <div className="flex flex-wrap items-center gap-3 border-b border-slate-100 px-4 py-2 text-[12px] text-slate-600 dark:border-slate-800 dark:text-slate-300">
        <span className="font-medium text-slate-800 dark:text-slate-200">Agreement per review</span>
        <span className="inline-flex items-center gap-1"><span className="inline-block h-3 w-3 rounded-full bg-emerald-700" /> 90% or more</span>
        <span className="inline-flex items-center gap-1"><span className="inline-block h-3 w-3 rounded-full bg-amber-500" /> 60% or more</span>
        <span className="inline-flex items-center gap-1"><span className="inline-block h-3 w-3 rounded-full bg-red-600" /> less</span>
      </div>
      <WorkflowDiagram layout={layout} overlay={overlay} className="h-[460px] w-full" />
    </div>
  );
}
