"use client";
import { useState, useTransition } from "react";
import { decideAction, type ActionResult } from "@/app/runs/[id]/actions";
import { ReviewPayload } from "./review-payload";
import { StepDecisionPanel, stepReviewOf } from "@/components/steps/step-decision";
import { useOwnNameField, useReviewer } from "@/components/steps/reviewer";
import { DecisionBar } from "./decision-bar";

export interface ReviewInfo {
  id: string;
  runId: string;
  kind: string;
  prompt: string;
  payload: Record<string, unknown>;
  createdAt: string;
}

const BUTTONS: Record<string, { label: string; style: string }> = {
  answer: { label: "Send answer", style: "bg-emerald-700 text-white hover:bg-emerald-800" },
  decline: { label: "Decline (answer with what you have)", style: "bg-white dark:bg-slate-900 text-slate-800 dark:text-slate-200 ring-1 ring-slate-300 dark:ring-slate-600 hover:bg-slate-50 dark:hover:bg-slate-800/60" },
  approve: { label: "Approve", style: "bg-emerald-700 text-white hover:bg-emerald-800" },
  continue: { label: "Continue", style: "bg-emerald-700 text-white hover:bg-emerald-800" },
  retry: { label: "Retry", style: "bg-blue-600 text-white hover:bg-blue-700" },
  reject: { label: "Reject", style: "bg-white dark:bg-slate-900 text-red-700 dark:text-red-400 ring-1 ring-red-300 hover:bg-red-50 dark:hover:bg-red-950" },
  modify: { label: "Request changes", style: "bg-white dark:bg-slate-900 text-slate-800 dark:text-slate-200 ring-1 ring-slate-300 dark:ring-slate-600 hover:bg-slate-50 dark:hover:bg-slate-800/60" },
  synthesize: { label: "Synthesize now", style: "bg-white dark:bg-slate-900 text-slate-800 dark:text-slate-200 ring-1 ring-slate-300 dark:ring-slate-600 hover:bg-slate-50 dark:hover:bg-slate-800/60" },
  skip: { label: "Skip (compensating task)", style: "bg-white dark:bg-slate-900 text-slate-800 dark:text-slate-200 ring-1 ring-slate-300 dark:ring-slate-600 hover:bg-slate-50 dark:hover:bg-slate-800/60" },
  abort: { label: "Abort", style: "bg-white dark:bg-slate-900 text-red-700 dark:text-red-400 ring-1 ring-red-300 hover:bg-red-50 dark:hover:bg-red-950" },
};

type PanelProps = {
  review: ReviewInfo;
  decisions?: string[];
  /** called just before a decision is sent, and with its result */
  onSending?: () => void;
  onDone?: (r: ActionResult) => void;
  compact?: boolean;
  /** decided elsewhere: what was written stays, the decisions are off */
  closed?: boolean;
};

/** What a reviewer sees and decides; a review step of a user-defined workflow renders from its own data. */
export function DecisionPanel(props: PanelProps) {
  const step = stepReviewOf(props.review.payload);
  if (step) return <StepDecisionPanel review={props.review} step={step} compact={props.compact} closed={props.closed} onSending={props.onSending} onDone={props.onDone} />;
  return <KindDecisionPanel {...props} />;
}

/** The item rendered for its kind, feedback, and its decisions. */
function KindDecisionPanel({ review, decisions = ["approve", "reject", "modify"], onSending, onDone, compact = false, closed = false }: PanelProps) {
  const [feedback, setFeedback] = useState("");
  const { name: reviewer, setName: setReviewer, signedIn } = useReviewer();
  const ownField = useOwnNameField(signedIn);
  const [data, setData] = useState<{ value: Record<string, unknown> | null; error: string | null }>({ value: null, error: null });
  const [result, setResult] = useState<ActionResult | null>(null);
  const [pending, start] = useTransition();
  const decide = (decision: string) =>
    start(async () => {
      // an edit goes with approve as well as with "request changes": what the reviewer approves is what runs
      const carriesEdit = decision === "modify" || decision === "approve";
      if (carriesEdit && data.error) {
        setResult({ ok: false, status: 422, error: data.error, fieldErrors: { data: data.error } });
        return;
      }
      onSending?.();
      const r = await decideAction({ reviewId: review.id, decision, feedback, reviewer: signedIn ? undefined : reviewer, data: carriesEdit && data.value ? data.value : undefined });
      setResult(r);
      onDone?.(r);
    });
  return (
    <div className="@container space-y-3" data-testid="decision-panel" data-review={review.id} data-kind={review.kind}>
      <p className="text-sm font-medium text-slate-900 dark:text-slate-100">{review.prompt}</p>
      <ReviewPayload review={review} compact={compact} onEdit={setData} />
      {result?.fieldErrors?.data && <p className="text-xs text-red-600 dark:text-red-400">{result.fieldErrors.data}</p>}
      <div className={`grid gap-2 ${ownField ? "@lg:grid-cols-[minmax(0,1fr)_260px]" : ""}`}>
        <textarea
          value={feedback}
          onChange={(e) => setFeedback(e.target.value)}
          rows={2}
          placeholder={decisions.includes("answer") ? "Your answer (e.g. 72 kg)" : decisions.includes("modify") ? "Feedback (required to request changes: what should change?)" : "Note (optional)"}
          aria-label={decisions.includes("answer") ? "Your answer" : "Feedback"}
          className="w-full rounded-md border border-slate-300 dark:border-slate-600 px-2 py-1.5 text-sm"
        />
        {ownField && <input value={reviewer} onChange={(e) => setReviewer(e.target.value)} placeholder="Your name (optional, remembered here)" aria-label="Reviewer" autoComplete="name" className="h-9 rounded-md border border-slate-300 dark:border-slate-600 px-2 text-sm" />}
      </div>
      {result?.fieldErrors?.feedback && <p className="text-xs text-red-600 dark:text-red-400">{result.fieldErrors.feedback}</p>}
      <DecisionBar closed={closed} pending={pending}>
        {(disabled) =>
          decisions.map((d) => (
            <button key={d} data-decision={d} disabled={disabled} onClick={() => decide(d)} className={`rounded-md px-4 py-1.5 text-sm font-medium disabled:opacity-50 ${(BUTTONS[d] ?? BUTTONS.modify).style}`}>
              {(BUTTONS[d] ?? { label: d }).label}
            </button>
          ))
        }
      </DecisionBar>
      {result && !result.ok && !result.fieldErrors && (
        <p className="rounded-md bg-red-50 px-2 py-1.5 text-xs text-red-700 dark:text-red-300 dark:bg-red-950" role="alert">
          {result.status === 409 ? "Someone already decided this, or the run moved on: " : ""}
          {result.error}
        </p>
      )}
    </div>
  );
}
