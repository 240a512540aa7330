"use client";
import { Chip } from "@/components/ui/chip";
import type { ReviewPayloadProps } from "@/components/runs/workflow-views";
import { GenericPayload } from "@/components/runs/review-payload";

/** A cycle's result for review: what kind of request, the context it used, then the output. */
export function ResultPayload({ payload: p, compact }: ReviewPayloadProps) {
  const patterns = (p.patterns_applied as string[] | undefined) ?? [];
  return (
    <>
      <div className="flex flex-wrap gap-1.5">
        {typeof p.request_type === "string" && <Chip label="type" value={p.request_type} />}
        {typeof p.complexity === "string" && <Chip label="complexity" value={p.complexity} />}
        {typeof p.results_count === "number" && <Chip label="context hits" value={p.results_count} />}
        {typeof p.context_relevance === "number" && <Chip label="relevance" value={p.context_relevance.toFixed(2)} tone={p.context_relevance >= 0.6 ? "emerald" : "amber"} />}
        {typeof p.adapter === "string" && <Chip label="written by" value={p.adapter} />}
        {p.partial === true && <Chip label="result" value="partial (timed out)" tone="amber" />}
        {typeof p.storage_status === "string" && <Chip label="saved" value={p.storage_status} tone={p.storage_status === "success" ? "slate" : "amber"} />}
      </div>
      {patterns.length > 0 && <p className="text-xs text-slate-600 dark:text-slate-400">Patterns applied: {patterns.join(", ")}</p>}
      <GenericPayload payload={p} compact={compact} />
    </>
  );
}
