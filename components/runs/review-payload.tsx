"use client";
// A review's payload: the workflow's own view for the payload's kind (its views.tsx, through
// useReviewView), else the generic one: an error, warnings, the output as Markdown.
import { Markdown } from "@/components/ui/markdown";
import type { ReviewInfo } from "./decision-panel";
import { useReviewView, type ReviewPayloadProps } from "./workflow-views";

export function GenericPayload({ payload: p, compact }: ReviewPayloadProps) {
  const warnings = (p.warnings as string[] | undefined) ?? [];
  return (
    <>
      {p.kind === "intervention" && <pre tabIndex={0} className="max-h-48 overflow-auto whitespace-pre-wrap rounded-md border border-red-200 bg-red-50 p-2 text-[11px] text-red-900">{JSON.stringify(p.error, null, 2)}</pre>}
      {warnings.length > 0 && (
        <ul className="space-y-1 rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-xs text-amber-900">
          {warnings.map((w, i) => (
            <li key={i}>⚠ {w}</li>
          ))}
        </ul>
      )}
      {typeof p.output === "string" && p.output && (
        <div tabIndex={0} className={`overflow-y-auto rounded-lg border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-3 ${compact ? "max-h-56" : "max-h-[420px]"}`} data-testid="review-output">
          <Markdown text={p.output} />
        </div>
      )}
    </>
  );
}

/** The review's payload, rendered for its kind (a payload without a kind: the workflow's "default" view). */
export function ReviewPayload({ review, compact, onEdit }: { review: ReviewInfo & { workflow?: string }; compact?: boolean; onEdit?: ReviewPayloadProps["onEdit"] }) {
  const Own = useReviewView(review.workflow, review.payload.kind ?? "default");
  const View = Own ?? GenericPayload;
  return <View payload={review.payload} compact={compact} onEdit={onEdit} />;
}
