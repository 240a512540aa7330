"use client";
// The compare view's diagram: both runs' paths on one machine (run A blue, run B amber and dashed,
// both violet), each state tagged with the run(s) that visited it, the first divergence outlined.
import { WorkflowDiagram, type DiagramOverlay } from "@/components/diagram/workflow-diagram";
import type { Layout } from "@/lib/graph/layout";

export function CompareDiagram({ layout, overlay }: { layout: Layout; overlay: DiagramOverlay }) {
  return (
    <div className="overflow-hidden rounded-xl border border-slate-200 bg-white dark:border-slate-700 dark:bg-slate-900">
      <div className="flex flex-wrap items-center gap-3 border-b border-slate-100 px-4 py-2 text-[12px] text-slate-600 dark:border-slate-800 dark:text-slate-300" data-testid="compare-legend">
        <span className="font-medium text-slate-800 dark:text-slate-200">Both paths</span>
        <span className="inline-flex items-center gap-1"><span className="inline-block h-1 w-5 rounded bg-[var(--path-a)]" /> run A</span>
        <span className="inline-flex items-center gap-1"><span className="inline-block h-1 w-5 rounded bg-[var(--path-b)]" /> run B</span>
        <span className="inline-flex items-center gap-1"><span className="inline-block h-1 w-5 rounded bg-[var(--path-both)]" /> both</span>
        <span className="inline-flex items-center gap-1"><span className="inline-block h-3 w-3 rounded border-2 border-red-500" /> first divergence</span>
      </div>
      <WorkflowDiagram layout={layout} overlay={overlay} className="h-[520px] w-full" />
    </div>
  );
}
