"use client";
import { useEffect, useMemo, useState } from "react";
import { Markdown } from "@/components/ui/markdown";
import type { ReviewInfo } from "./decision-panel";
import { cleanPlan, planProblems, type EditPlan } from "./plan-edit";
import { PlanEditor } from "./plan-editor";

function Chip({ label, value, tone = "slate" }: { label: string; value: React.ReactNode; tone?: "slate" | "amber" | "emerald" }) {
  const t = { slate: "bg-slate-100 dark:bg-slate-800 text-slate-700 dark:text-slate-300", amber: "bg-amber-100 text-amber-900", emerald: "bg-emerald-100 text-emerald-900" }[tone];
  return (
    <span className={`inline-flex items-center gap-1 rounded-md px-2 py-0.5 text-[11px] ${t}`}>
      <span className="opacity-70">{label}</span>
      <span className="font-medium">{value}</span>
    </span>
  );
}

interface PlanTask {
  id: string;
  type: string;
  description: string;
  dependsOn: string[];
  dimension?: string;
}
interface Plan {
  topic: string;
  dimensions: string[];
  tasks: PlanTask[];
  estimatedIterations: number;
}

/**
 * A research plan, readable: dimensions, then the task DAG. "Edit the plan" opens a form
 * (plan-editor.tsx); the view then previews the draft, and the draft goes with approve and with
 * "request changes" (what the reviewer approves is what runs).
 */
function PlanView({ plan: original, onEdit }: { plan: Plan; onEdit?: (d: { value: Record<string, unknown> | null; error: string | null }) => void }) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState<EditPlan>(() => structuredClone(original) as EditPlan);
  const problems = useMemo(() => (editing ? planProblems(draft) : []), [editing, draft]);
  useEffect(() => {
    if (!editing) return onEdit?.({ value: null, error: null });
    if (problems.length) onEdit?.({ value: null, error: `the edited plan cannot run: ${problems.join("; ")}` });
    else onEdit?.({ value: { plan: cleanPlan(draft) }, error: null });
  }, [editing, draft, problems, onEdit]);
  const plan = editing ? draft : original;
  return (
    <div className="space-y-2 rounded-lg border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-3 text-sm" data-testid="plan-view" data-edited={editing ? "true" : undefined}>
      {editing && <div className="text-[11px] font-semibold text-blue-700 dark:text-blue-400">Preview of your edits</div>}
      <div>
        <div className="text-[11px] font-semibold uppercase tracking-wide text-slate-400">Dimensions</div>
        <ol className="mt-1 list-decimal space-y-0.5 pl-5" data-testid="plan-dimensions">
          {plan.dimensions.map((d, i) => (
            <li key={i}>{d}</li>
          ))}
        </ol>
      </div>
      <div>
        <div className="text-[11px] font-semibold uppercase tracking-wide text-slate-400">Tasks ({plan.tasks.length}, about {plan.estimatedIterations} iterations)</div>
        <table className="mt-1 w-full text-xs">
          <tbody className="divide-y divide-slate-100 dark:divide-slate-800" data-testid="plan-tasks">
            {plan.tasks.map((t, i) => (
              <tr key={`${i}:${t.id}`}>
                <td className="py-1 pr-2 font-mono font-semibold">{t.id}</td>
                <td className="py-1 pr-2 text-slate-500 dark:text-slate-400">{t.type}</td>
                <td className="py-1 pr-2">{t.description}</td>
                <td className="py-1 text-right font-mono text-slate-400">{t.dependsOn.length ? `after ${t.dependsOn.join(", ")}` : ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {onEdit && (
        <div className="space-y-2">
          <button
            type="button"
            onClick={() => {
              if (editing) setDraft(structuredClone(original) as EditPlan);
              setEditing(!editing);
            }}
            className="text-xs text-blue-700 dark:text-blue-400 hover:underline"
          >
            {editing ? "Discard my edits" : "Edit the plan"}
          </button>
          {editing && <PlanEditor plan={draft} onChange={setDraft} problems={problems} />}
        </div>
      )}
    </div>
  );
}

/** The review's payload, rendered for its kind. */
export function ReviewPayload({ review, compact, onEdit }: { review: ReviewInfo; compact?: boolean; onEdit?: (d: { value: Record<string, unknown> | null; error: string | null }) => void }) {
  const p = review.payload;
  if (p.kind === "plan" && p.plan) return <PlanView plan={p.plan as Plan} onEdit={onEdit} />;
  if (p.kind === "checkin") {
    return (
      <div className="flex flex-wrap gap-1.5">
        <Chip label="iteration" value={String(p.iteration)} />
        <Chip label="facts" value={String(p.facts)} />
        <Chip label="sources" value={String(p.sources)} />
        <Chip label="open tasks" value={String(p.open)} />
      </div>
    );
  }
  if (p.kind === "clarification") {
    return (
      <div className="space-y-1.5 rounded-md border border-sky-200 bg-sky-50 px-3 py-2 text-xs text-sky-950" data-testid="clarification">
        <p>
          <span className="font-semibold">Your question:</span> {String(p.query ?? "")}
        </p>
        {typeof p.why === "string" && <p className="text-sky-800">Why the agent asks: {p.why}</p>}
        {Array.isArray(p.domains) && p.domains.length > 0 && <p className="text-sky-800">Domains loaded: {(p.domains as string[]).join(", ")}</p>}
        <p className="text-sky-800">Answer below, or decline: the agent then answers from your log alone.</p>
      </div>
    );
  }
  if (p.kind === "escalation" || p.kind === "intervention") {
    return <pre className="max-h-48 overflow-auto whitespace-pre-wrap rounded-md border border-red-200 bg-red-50 p-2 text-[11px] text-red-900">{JSON.stringify(p.kind === "escalation" ? { task: p.task, error: p.error } : p.error, null, 2)}</pre>;
  }
  const warnings = (p.warnings as string[] | undefined) ?? [];
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
      {warnings.length > 0 && (
        <ul className="space-y-1 rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-xs text-amber-900">
          {warnings.map((w, i) => (
            <li key={i}>⚠ {w}</li>
          ))}
        </ul>
      )}
      {typeof p.output === "string" && p.output && (
        <div className={`overflow-y-auto rounded-lg border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-3 ${compact ? "max-h-56" : "max-h-[420px]"}`} data-testid="review-output">
          <Markdown text={p.output} />
        </div>
      )}
    </>
  );
}
