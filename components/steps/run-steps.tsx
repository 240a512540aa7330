"use client";
// The run page's "Steps" view for a user-defined workflow with steps: per stage that ran, its
// kind, status, attempts and duration, and what it produced (text, or JSON), the prompt an llm
// step sent, the HTTP status, every review decision with who decided, the worker that did an
// external task. Built from the run's data (lib/steps/run-steps.ts), whatever the workflow.
import { useEffect, useMemo, useState } from "react";
import type { FlowConfig } from "@/lib/flows/types";
import { formatDuration, formatTime } from "@/lib/format";
import { runSteps, type StepRow, type StepsSource } from "@/lib/steps/run-steps";
import { Since } from "@/components/ui/since";
import { Folded, StepValue } from "./step-output";
import { StepRequestView } from "./step-request";
import { ranAgainText } from "@/lib/steps/request";

const KIND: Record<string, string> = {
  llm: "model call",
  http: "HTTP call",
  code: "code",
  review: "review",
  wait: "wait",
  external: "external worker",
};

const STATUS: Record<string, string> = {
  running: "bg-blue-50 text-blue-700 ring-blue-600/20 dark:bg-blue-950 dark:text-blue-300",
  waiting: "bg-emerald-50 text-emerald-700 ring-emerald-600/20 dark:bg-emerald-950 dark:text-emerald-300",
  done: "bg-slate-100 text-slate-700 ring-slate-500/20 dark:bg-slate-800 dark:text-slate-300",
  failed: "bg-red-50 text-red-700 ring-red-600/20 dark:bg-red-950 dark:text-red-300",
  "timed out": "bg-amber-50 text-amber-800 ring-amber-600/20 dark:bg-amber-950 dark:text-amber-200",
  left: "bg-slate-50 text-slate-600 ring-slate-400/20 dark:bg-slate-800 dark:text-slate-400",
};

const DECISION: Record<string, string> = {
  approve: "text-emerald-700 dark:text-emerald-400",
  reject: "text-red-700 dark:text-red-400",
  cancelled: "text-amber-700 dark:text-amber-300",
  pending: "text-slate-600 dark:text-slate-400",
};

type Review = StepsSource["reviews"][number];

/** The run's reviews (every status), read again whenever the run moves. */
function useRunReviews(runId: string, seq: number, wanted: boolean): Review[] {
  const [reviews, setReviews] = useState<Review[]>([]);
  useEffect(() => {
    if (!wanted) return;
    let cancelled = false;
    fetch(`/api/reviews?runId=${encodeURIComponent(runId)}&limit=1000`)
      .then((r) => (r.ok ? r.json() : null))
      .then((list: Review[] | null) => {
        if (!cancelled && list) setReviews(list);
      })
      .catch(() => {});
    return () => {
      cancelled = true;
    };
  }, [runId, seq, wanted]);
  return reviews;
}

function Meta({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <span className="whitespace-nowrap">
      <span className="text-slate-600 dark:text-slate-400">{label} </span>
      <span className="font-medium text-slate-700 dark:text-slate-200">{children}</span>
    </span>
  );
}

function Step({ row, index }: { row: StepRow; index: number }) {
  const byLabel = row.kind === "llm" ? "model" : row.kind === "code" ? "engine" : row.kind === "external" ? "worker" : row.kind === "review" ? "decided" : "by";
  return (
    <li className="min-w-0 space-y-2 py-3 first:pt-0 last:pb-0" data-testid="step" data-stage={row.stage} data-kind={row.kind} data-status={row.status}>
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
        <span className="w-5 shrink-0 text-right text-xs tabular-nums text-slate-600 dark:text-slate-400">{index + 1}.</span>
        <span className="min-w-0 break-all font-mono text-sm font-semibold text-slate-900 dark:text-slate-100" data-testid="step-stage">{row.stage}</span>
        <span className="rounded-md bg-slate-100 px-1.5 py-0.5 text-xs text-slate-600 dark:bg-slate-800 dark:text-slate-300" data-testid="step-kind">{KIND[row.kind] ?? row.kind}</span>
        <span className={`rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${STATUS[row.status] ?? STATUS.done}`} data-testid="step-status">{row.status}</span>
      </div>
      <div className="flex flex-wrap gap-x-4 gap-y-1 text-xs text-slate-600 sm:pl-7 dark:text-slate-400" data-testid="step-meta">
        {row.durationMs !== null ? (
          <Meta label="took">{formatDuration(row.durationMs)}</Meta>
        ) : row.status === "running" || row.status === "waiting" ? (
          <Meta label="for">
            <Since from={row.enteredAt !== null ? new Date(row.enteredAt).toISOString() : null} />
          </Meta>
        ) : null}
        {row.attempts !== null && <Meta label={row.attempts === 1 ? "attempt" : "attempts"}>{row.attempts}</Meta>}
        {row.httpStatus !== null && <Meta label="HTTP">{row.httpStatus}</Meta>}
        {row.kind === "external" && row.worker && <Meta label="worker">{row.worker}</Meta>}
        {row.by && row.kind !== "http" && row.kind !== "external" && row.kind !== "review" && <Meta label={byLabel}>{row.by}</Meta>}
        {row.visits > 1 && <Meta label="visits">{row.visits}</Meta>}
        {row.finishedAt !== null && <Meta label="at">{formatTime(new Date(row.finishedAt).toISOString())}</Meta>}
      </div>
      {row.again && (
        <p className="rounded-md border border-amber-200 bg-amber-50 px-2 py-1 text-xs text-amber-900 sm:ml-7 dark:border-amber-900 dark:bg-amber-950 dark:text-amber-200" data-testid="step-again">
          ↻ {ranAgainText(row.again, row.kind)}
        </p>
      )}
      <div className="min-w-0 space-y-2 sm:pl-7">
        {row.approvals && (
          <p className="text-xs text-slate-600 dark:text-slate-300" data-testid="step-approvals">
            {row.approvals.by.length} of {row.approvals.needed} approvals{row.approvals.by.length ? ` (${row.approvals.by.join(", ")})` : ""}
          </p>
        )}
        {row.decisions.length > 0 && (
          <ul className="space-y-0.5 text-xs" data-testid="step-decisions">
            {row.decisions.map((d, i) => (
              <li key={i} className="break-words">
                <span className={`font-semibold ${DECISION[d.decision] ?? "text-slate-700 dark:text-slate-200"}`}>{d.status === "pending" ? "waiting for a decision" : d.decision}</span>
                {d.status !== "pending" && d.status !== "cancelled" && <span className="text-slate-600 dark:text-slate-300"> by {d.reviewer ?? "someone unnamed"}</span>}
                {d.status === "cancelled" && <span className="text-slate-600 dark:text-slate-400"> (closed without a decision)</span>}
                {d.at && <span className="text-slate-600 dark:text-slate-400"> · {formatTime(d.at)}</span>}
                {d.feedback && <span className="text-slate-600 dark:text-slate-300"> · “{d.feedback}”</span>}
              </li>
            ))}
          </ul>
        )}
        {row.request ? <StepRequestView request={row.request} /> : row.prompt !== null && <Folded label="Prompt sent" text={row.prompt} testId="step-prompt" />}
        {row.error && (
          <p className="break-words rounded-md border border-red-200 bg-red-50 px-2 py-1.5 text-xs text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200" data-testid="step-error">
            <span className="font-semibold">{row.error.name === "Timeout" ? "Timed out" : "Failed"}:</span> {row.error.message}
          </p>
        )}
        {row.hasOutput && row.sameAs && (
          <p className="text-xs text-slate-600 dark:text-slate-300" data-testid="step-output">
            Output: {row.sameAs}&apos;s output, unchanged{row.earlier ? " (previous visit)" : ""}.
          </p>
        )}
        {row.hasOutput && !row.sameAs && (
          <div>
            {row.earlier && <p className="mb-1 text-xs text-slate-600 dark:text-slate-400">From the previous visit; this one is under way.</p>}
            {row.kind === "review" && <p className="mb-1 text-[11px] font-semibold uppercase tracking-wide text-slate-600 dark:text-slate-400">Decided value</p>}
            {row.kind === "http" && <p className="mb-1 text-[11px] font-semibold uppercase tracking-wide text-slate-600 dark:text-slate-400">Response{row.httpStatus !== null ? ` · HTTP ${row.httpStatus}` : ""}</p>}
            {row.kind !== "http" && row.kind !== "review" && row.request && <p className="mb-1 text-[11px] font-semibold uppercase tracking-wide text-slate-600 dark:text-slate-400">Output</p>}
            <StepValue value={row.output} />
          </div>
        )}
      </div>
    </li>
  );
}

/** The Steps view; nothing for a workflow without steps. */
export function RunSteps({ runId, flow, context, active, transitions, seq }: { runId: string; flow: FlowConfig; context: unknown; active: string[]; transitions: StepsSource["transitions"]; seq: number }) {
  const hasReviews = Object.values(flow.steps ?? {}).some((s) => s.review);
  const reviews = useRunReviews(runId, seq, hasReviews);
  const rows = useMemo(() => runSteps({ flow, context, active, transitions, reviews }), [flow, context, active, transitions, reviews]);
  if (!flow.steps || Object.keys(flow.steps).length === 0) return null;
  return (
    <section id="steps" className="min-w-0 scroll-mt-20 rounded-xl border border-slate-200 bg-white p-4 dark:border-slate-700 dark:bg-slate-900" data-testid="run-steps">
      <div className="mb-3 flex flex-wrap items-baseline gap-2">
        <h2 className="text-sm font-semibold">Steps</h2>
        <span className="text-xs text-slate-600 dark:text-slate-400">
          {rows.length} of {Object.keys(flow.steps).length} step{Object.keys(flow.steps).length === 1 ? "" : "s"} ran
        </span>
      </div>
      {rows.length === 0 ? <p className="text-sm text-slate-600 dark:text-slate-400">No step has run yet.</p> : <ol className="divide-y divide-slate-100 dark:divide-slate-800">{rows.map((r, i) => <Step key={r.stage} row={r} index={i} />)}</ol>}
    </section>
  );
}
