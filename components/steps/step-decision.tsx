"use client";
// The decision form of a review step in a user-defined workflow (payload { stage, show,
// decisions, approvals, editedBy }): the value under review, approvals so far ("1 of 2
// approvals", and who; an edit awaiting approval and its editor), and one control per decision
// the step offers: approve and reject as buttons, edit as an editable copy of the shown value
// (offered only where the server has a typed value to replace), respond with a required
// response, custom decisions as buttons under their own names. What a decision needs (a name,
// a response, an edited value) comes from its JSON Schema when the review carries one
// (GET /api/reviews), else from the standard names.
import { useContext, useState, useTransition } from "react";
import { decideAction, type ActionResult } from "@/app/runs/[id]/actions";
import { StepValue } from "./step-output";
import { ReviewerScope, useOwnNameField, useReviewer } from "./reviewer";
import { DecisionBar } from "@/components/runs/decision-bar";

export interface StepReviewPayload {
  stage: string;
  /** the prompt without its "(1 of 2 approvals)" count */
  question?: string;
  show: unknown;
  decisions: string[];
  approvals: { so_far: number; needed: number; by: string[] };
  /** who edited the value under review this round (several approvers) */
  editedBy?: string;
}

interface Review {
  id: string;
  kind?: string;
  prompt: string;
  payload: Record<string, unknown>;
  decisions?: string[];
  decisionSchemas?: Record<string, unknown>;
}

/** A review step's payload, or null for any other review. */
export function stepReviewOf(payload: unknown): StepReviewPayload | null {
  const p = payload as Partial<StepReviewPayload> | null;
  if (!p || typeof p !== "object" || typeof p.stage !== "string" || !Array.isArray(p.decisions)) return null;
  const a = p.approvals;
  if (!a || typeof a.so_far !== "number" || typeof a.needed !== "number") return null;
  return {
    stage: p.stage,
    ...(typeof p.question === "string" ? { question: p.question } : {}),
    show: p.show ?? null,
    decisions: p.decisions.map(String),
    approvals: { so_far: a.so_far, needed: a.needed, by: Array.isArray(a.by) ? a.by.map(String) : [] },
    ...(typeof p.editedBy === "string" ? { editedBy: p.editedBy } : {}),
  };
}

type Schema = { required?: string[]; properties?: Record<string, Schema> };

/** Does the decision's body schema require `feedback` / `data.edited` / `reviewer`? (fallback: respond / edit / a quorum) */
function needs(schemas: Record<string, unknown> | undefined, decision: string, counting: boolean) {
  const s = schemas?.[decision] as Schema | undefined;
  if (!s) return { feedback: decision === "respond", edited: decision === "edit", reviewer: counting };
  return { feedback: !!s.required?.includes("feedback") && decision !== "approve", edited: !!s.properties?.data?.required?.includes("edited"), reviewer: !!s.required?.includes("reviewer") };
}

const label = (d: string) => ({ approve: "Approve", reject: "Reject", edit: "Edit", respond: "Respond" })[d] ?? d.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());
const style = (d: string) =>
  d === "approve"
    ? "bg-emerald-700 text-white hover:bg-emerald-800"
    : d === "reject"
      ? "bg-white text-red-700 ring-1 ring-red-300 hover:bg-red-50 dark:bg-slate-900 dark:text-red-400 dark:hover:bg-red-950"
      : "bg-white text-slate-800 ring-1 ring-slate-300 hover:bg-slate-50 dark:bg-slate-900 dark:text-slate-200 dark:ring-slate-600 dark:hover:bg-slate-800/60";

const asText = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v, null, 2));

/** "1 of 2 approvals (ana)", and who edited the value under review. */
export function Approvals({ approvals, editedBy }: { approvals: StepReviewPayload["approvals"]; editedBy?: string }) {
  const { so_far, needed, by } = approvals;
  return (
    <div className="flex flex-wrap items-center gap-2 text-xs" data-testid="approvals" data-so-far={so_far} data-needed={needed}>
      <span className="inline-flex items-center gap-1 rounded-full bg-emerald-50 px-2 py-0.5 font-semibold text-emerald-800 ring-1 ring-inset ring-emerald-600/20 dark:bg-emerald-950 dark:text-emerald-200">
        {so_far} of {needed} approvals
      </span>
      <span className="text-slate-600 dark:text-slate-300">{by.length ? `approved by ${by.join(", ")}` : "no approval yet"}</span>
      {editedBy && (
        <span className="rounded-full bg-amber-50 px-2 py-0.5 font-medium text-amber-900 ring-1 ring-inset ring-amber-600/30 dark:bg-amber-950 dark:text-amber-100" data-testid="edited-by">
          edited by {editedBy}: approve the edited value
        </span>
      )}
      <span className="text-slate-600 dark:text-slate-400">each person approves once; an edit counts as its editor&apos;s approval and asks the others again; any reject decides</span>
    </div>
  );
}

export function StepDecisionPanel({ review, step, compact = false, closed = false, onSending, onDone }: { review: Review; step: StepReviewPayload; compact?: boolean; closed?: boolean; onSending?: () => void; onDone?: (r: ActionResult) => void }) {
  const decisions = review.decisions?.length ? review.decisions : step.decisions;
  const { name, setName, signedIn } = useReviewer();
  const ownField = useOwnNameField(signedIn);
  const pageField = useContext(ReviewerScope) === "page";
  const [note, setNote] = useState("");
  const [editing, setEditing] = useState(false);
  const [edited, setEdited] = useState(() => asText(step.show));
  const [result, setResult] = useState<ActionResult | null>(null);
  const [pending, start] = useTransition();
  // the next review of a quorum (after an approval or an edit) shows its own value: an open edit is closed
  const [shownFor, setShownFor] = useState(review.id);
  if (shownFor !== review.id) {
    setShownFor(review.id);
    setEditing(false);
    setEdited(asText(step.show));
  }
  const counting = step.approvals.needed > 1;
  const prompt = step.question ?? review.prompt;
  const respond = decisions.some((d) => needs(review.decisionSchemas, d, counting).feedback);
  // a quorum counts people by the name they give (accounts off)
  const nameNeeded = !signedIn && decisions.some((d) => needs(review.decisionSchemas, d, counting).reviewer);
  const fail = (error: string, field?: string) => setResult({ ok: false, status: 422, error, ...(field ? { fieldErrors: { [field]: error } } : {}) });

  const decide = (d: string) => {
    const need = needs(review.decisionSchemas, d, counting);
    if (need.edited && !editing) {
      setEditing(true);
      setResult(null);
      return;
    }
    if (need.feedback && !note.trim()) return fail("write your response first", "feedback");
    if (need.reviewer && !signedIn && !name.trim()) return fail(`say who you are: ${step.approvals.needed} different people must approve`, "reviewer");
    let data: Record<string, unknown> | undefined;
    if (need.edited) {
      if (typeof step.show === "string" || step.show === null) data = { edited: edited };
      else {
        try {
          data = { edited: JSON.parse(edited) };
        } catch (e) {
          return fail(`the edited value is not JSON: ${(e as Error).message}`, "edited");
        }
      }
    }
    start(async () => {
      onSending?.();
      const r = await decideAction({ reviewId: review.id, decision: d, feedback: note.trim() || undefined, reviewer: signedIn ? undefined : name.trim() || undefined, data });
      setResult(r);
      onDone?.(r);
    });
  };

  const field = "w-full rounded-md border border-slate-300 px-2 py-1.5 text-sm dark:border-slate-600 dark:bg-slate-900";
  return (
    <div className="@container min-w-0 space-y-3" data-testid="decision-panel" data-review={review.id} data-kind={review.kind ?? "step"} data-step={step.stage}>
      <p className="text-sm font-medium text-slate-900 dark:text-slate-100">{prompt}</p>
      {counting && <Approvals approvals={step.approvals} editedBy={step.editedBy} />}
      {step.show !== null && !editing && (
        <div tabIndex={0} className={`overflow-y-auto rounded-lg border border-slate-200 p-2 dark:border-slate-700 ${compact ? "max-h-64" : "max-h-40"}`}>
          <StepValue value={step.show} label="Value" testId="review-shown" />
        </div>
      )}
      {editing && (
        <div className="space-y-1">
          <label htmlFor={`edited-${review.id}`} className="block text-xs font-medium text-slate-600 dark:text-slate-400">
            Your edited version {typeof step.show === "string" || step.show === null ? "" : "(JSON)"}
          </label>
          <textarea id={`edited-${review.id}`} value={edited} onChange={(e) => setEdited(e.target.value)} rows={Math.min(14, Math.max(4, edited.split("\n").length + 1))} className={`${field} ${typeof step.show === "string" ? "" : "font-mono text-xs"}`} data-testid="edited-value" />
          {result?.fieldErrors?.edited && <p className="text-xs text-red-600 dark:text-red-400">{result.fieldErrors.edited}</p>}
          <button type="button" onClick={() => (setEditing(false), setEdited(asText(step.show)))} className="text-xs text-blue-700 underline dark:text-blue-400">
            Discard my edits
          </button>
        </div>
      )}
      <div className={`grid gap-2 ${ownField || signedIn ? "@lg:grid-cols-[minmax(0,1fr)_220px]" : ""}`}>
        <div>
          <textarea value={note} onChange={(e) => setNote(e.target.value)} rows={2} placeholder={respond ? "Your response (needed to respond), or a note" : "Note (optional): why, what to change"} aria-label={respond ? "Response" : "Note"} className={field} />
          {result?.fieldErrors?.feedback && <p className="text-xs text-red-600 dark:text-red-400">{result.fieldErrors.feedback}</p>}
        </div>
        <div>
          {signedIn && !pageField ? (
            <p className="text-xs text-slate-600 dark:text-slate-400" data-testid="deciding-as">
              deciding as <strong className="text-slate-700 dark:text-slate-200">{signedIn}</strong>
            </p>
          ) : (
            ownField && (
              <input
              value={name}
              onChange={(e) => setName(e.target.value)}
              placeholder={nameNeeded ? "Your name (required)" : "Your name (remembered here)"}
              aria-label={nameNeeded ? "Your name (required)" : "Your name"}
              aria-required={nameNeeded || undefined}
              required={nameNeeded}
              autoComplete="name"
              className={`${field} h-9`}
              data-testid="reviewer-name"
            />
            )
          )}
          {result?.fieldErrors?.reviewer && <p className="text-xs text-red-600 dark:text-red-400">{result.fieldErrors.reviewer}</p>}
        </div>
      </div>
      <DecisionBar closed={closed} pending={pending}>
        {(disabled) =>
          decisions.map((d) => (
            <button key={d} type="button" data-decision={d} disabled={disabled} onClick={() => decide(d)} className={`rounded-md px-4 py-1.5 text-sm font-medium disabled:opacity-50 ${style(d)}`}>
              {needs(review.decisionSchemas, d, counting).edited ? (editing ? "Send my edit" : "Edit…") : label(d)}
            </button>
          ))
        }
      </DecisionBar>
      {result && !result.ok && !result.fieldErrors && (
        <p className="break-words rounded-md bg-red-50 px-2 py-1.5 text-xs text-red-700 dark:bg-red-950 dark:text-red-200" role="alert" data-testid="decision-error">
          {result.error}
        </p>
      )}
      {result?.ok && <p className="text-xs text-emerald-700 dark:text-emerald-400" role="status">Decision sent.</p>}
    </div>
  );
}
