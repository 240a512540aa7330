"use client";
import { useState, useTransition } from "react";
import { decideAction, type ActionResult } from "@/app/runs/[id]/actions";
import { Markdown } from "@/components/ui/markdown";

export interface ReviewInfo {
  id: string;
  runId: string;
  kind: string;
  prompt: string;
  payload: Record<string, unknown>;
  createdAt: string;
}

function Chip({ label, value, tone = "slate" }: { label: string; value: React.ReactNode; tone?: "slate" | "amber" | "emerald" }) {
  const t = { slate: "bg-slate-100 text-slate-700", amber: "bg-amber-100 text-amber-900", emerald: "bg-emerald-100 text-emerald-900" }[tone];
  return (
    <span className={`inline-flex items-center gap-1 rounded-md px-2 py-0.5 text-[11px] ${t}`}>
      <span className="opacity-70">{label}</span>
      <span className="font-medium">{value}</span>
    </span>
  );
}

/** What a reviewer sees and decides: the result, how confident the agent is, and three buttons. */
export function DecisionPanel({ review, decisions = ["approve", "reject", "modify"], onDone, compact = false }: { review: ReviewInfo; decisions?: string[]; onDone?: (r: ActionResult) => void; compact?: boolean }) {
  const [feedback, setFeedback] = useState("");
  const [reviewer, setReviewer] = useState("");
  const [result, setResult] = useState<ActionResult | null>(null);
  const [pending, start] = useTransition();
  const p = review.payload;
  const warnings = (p.warnings as string[] | undefined) ?? [];
  const patterns = (p.patterns_applied as string[] | undefined) ?? [];
  const decide = (decision: string) =>
    start(async () => {
      const r = await decideAction({ reviewId: review.id, decision: decision as "approve", feedback, reviewer });
      setResult(r);
      onDone?.(r);
    });
  return (
    <div className="space-y-3" data-testid="decision-panel" data-review={review.id}>
      <p className="text-sm font-medium text-slate-900">{review.prompt}</p>
      <div className="flex flex-wrap gap-1.5">
        {typeof p.request_type === "string" && <Chip label="type" value={p.request_type} />}
        {typeof p.complexity === "string" && <Chip label="complexity" value={p.complexity} />}
        {typeof p.results_count === "number" && <Chip label="context hits" value={p.results_count} />}
        {typeof p.context_relevance === "number" && <Chip label="relevance" value={p.context_relevance.toFixed(2)} tone={p.context_relevance >= 0.6 ? "emerald" : "amber"} />}
        {typeof p.adapter === "string" && <Chip label="written by" value={p.adapter} />}
        {p.partial === true && <Chip label="result" value="partial (timed out)" tone="amber" />}
        {typeof p.storage_status === "string" && <Chip label="saved" value={p.storage_status} tone={p.storage_status === "success" ? "slate" : "amber"} />}
      </div>
      {patterns.length > 0 && <p className="text-xs text-slate-600">Patterns applied: {patterns.join(", ")}</p>}
      {warnings.length > 0 && (
        <ul className="space-y-1 rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-xs text-amber-900">
          {warnings.map((w, i) => (
            <li key={i}>⚠ {w}</li>
          ))}
        </ul>
      )}
      {typeof p.output === "string" && p.output && (
        <div className={`overflow-y-auto rounded-lg border border-slate-200 bg-white p-3 ${compact ? "max-h-56" : "max-h-[420px]"}`} data-testid="review-output">
          <Markdown text={p.output} />
        </div>
      )}
      <div className="grid gap-2 sm:grid-cols-[1fr_160px]">
        <textarea
          value={feedback}
          onChange={(e) => setFeedback(e.target.value)}
          rows={2}
          placeholder="Feedback (required to modify: what should change?)"
          aria-label="Feedback"
          className="w-full rounded-md border border-slate-300 px-2 py-1.5 text-sm"
        />
        <input value={reviewer} onChange={(e) => setReviewer(e.target.value)} placeholder="Your name (optional)" aria-label="Reviewer" className="h-9 rounded-md border border-slate-300 px-2 text-sm" />
      </div>
      {result?.fieldErrors?.feedback && <p className="text-xs text-red-600">{result.fieldErrors.feedback}</p>}
      <div className="flex flex-wrap gap-2">
        {decisions.includes("approve") && (
          <button disabled={pending} onClick={() => decide("approve")} className="rounded-md bg-emerald-600 px-4 py-1.5 text-sm font-medium text-white hover:bg-emerald-700 disabled:opacity-50">
            Approve
          </button>
        )}
        {decisions.includes("reject") && (
          <button disabled={pending} onClick={() => decide("reject")} className="rounded-md bg-white px-4 py-1.5 text-sm font-medium text-red-700 ring-1 ring-red-300 hover:bg-red-50 disabled:opacity-50">
            Reject
          </button>
        )}
        {decisions.includes("modify") && (
          <button disabled={pending} onClick={() => decide("modify")} className="rounded-md bg-white px-4 py-1.5 text-sm font-medium text-slate-800 ring-1 ring-slate-300 hover:bg-slate-50 disabled:opacity-50">
            Request changes
          </button>
        )}
        {pending && <span className="self-center text-xs text-slate-500">Sending…</span>}
      </div>
      {result && !result.ok && !result.fieldErrors && (
        <p className="rounded-md bg-red-50 px-2 py-1.5 text-xs text-red-700" role="alert">
          {result.status === 409 ? "Someone already decided this, or the run moved on: " : ""}
          {result.error}
        </p>
      )}
    </div>
  );
}
