"use client";
// deep-research's review payloads: the plan (readable, and editable before approval), the
// check-in's counts, a failed critical task.
import { useEffect, useMemo, useState } from "react";
import { Chip } from "@/components/ui/chip";
import type { ReviewPayloadProps } from "@/components/runs/workflow-views";
import { cleanPlan, planProblems, type EditPlan } from "./plan-edit";
import { PlanEditor } from "./plan-editor";
import { changed, orphanTasks, planChanges } from "./plan-changes";

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
function PlanView({ plan: original, first, version, onEdit }: { plan: Plan; first?: { version: number; plan: Plan } | null; version?: number; onEdit?: (d: { value: Record<string, unknown> | null; error: string | null }) => void }) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState<EditPlan>(() => structuredClone(original) as EditPlan);
  const problems = useMemo(() => (editing ? planProblems(draft) : []), [editing, draft]);
  useEffect(() => {
    if (!editing) return onEdit?.({ value: null, error: null });
    if (problems.length) onEdit?.({ value: null, error: `the edited plan cannot run: ${problems.join("; ")}` });
    else onEdit?.({ value: { plan: cleanPlan(draft) }, error: null });
  }, [editing, draft, problems, onEdit]);
  const plan = editing ? draft : original;
  const orphans = orphanTasks(plan);
  return (
    <div className="space-y-2 rounded-lg border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-3 text-sm" data-testid="plan-view" data-edited={editing ? "true" : undefined}>
      {editing && <div className="text-[11px] font-semibold text-blue-700 dark:text-blue-300">Preview of your edits</div>}
      {first && <Changes before={first.plan} after={original} from={first.version} to={version} />}
      {orphans.length > 0 && (
        <p className="rounded-md border border-amber-300 bg-amber-50 px-2 py-1.5 text-xs text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100" role="note" data-testid="plan-orphans">
          ⚠ {orphans.length === 1 ? "A task is" : `${orphans.length} tasks are`} left without a dimension: {orphans.map((o) => `${o.id} (was “${o.dimension}”)`).join(", ")}. Give {orphans.length === 1 ? "it" : "them"} a dimension or remove {orphans.length === 1 ? "it" : "them"}.
        </p>
      )}
      <div>
        <div className="text-[11px] font-semibold uppercase tracking-wide text-slate-600 dark:text-slate-400">Dimensions</div>
        <ol className="mt-1 list-decimal space-y-0.5 pl-5" data-testid="plan-dimensions">
          {plan.dimensions.map((d, i) => (
            <li key={i}>{d}</li>
          ))}
        </ol>
      </div>
      <div>
        <div className="text-[11px] font-semibold uppercase tracking-wide text-slate-600 dark:text-slate-400">Tasks ({plan.tasks.length}, about {plan.estimatedIterations} iterations)</div>
        <table className="mt-1 w-full text-xs">
          <tbody className="divide-y divide-slate-100 dark:divide-slate-800" data-testid="plan-tasks">
            {plan.tasks.map((t, i) => (
              <tr key={`${i}:${t.id}`}>
                <td className="py-1 pr-2 font-mono font-semibold">{t.id}</td>
                <td className="py-1 pr-2 text-slate-600 dark:text-slate-400">{t.type}</td>
                <td className="py-1 pr-2">{t.description}</td>
                <td className="py-1 text-right font-mono text-slate-600 dark:text-slate-400">{t.dependsOn.length ? `after ${t.dependsOn.join(", ")}` : ""}</td>
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
            className="text-xs text-blue-700 underline dark:text-blue-300"
            data-edit
          >
            {editing ? "Discard my edits" : "Edit the plan"}
          </button>
          {editing && <PlanEditor plan={draft} onChange={setDraft} problems={problems} />}
        </div>
      )}
    </div>
  );
}


export function PlanPayload({ payload: p, onEdit }: ReviewPayloadProps) {
  return p.plan ? <PlanView plan={p.plan as Plan} first={p.first as { version: number; plan: Plan } | null | undefined} version={p.version as number | undefined} onEdit={onEdit} /> : null;
}

/** "Changes since v1": dimensions and tasks added, removed, edited. */
function Changes({ before, after, from, to }: { before: Plan; after: Plan; from: number; to?: number }) {
  const c = planChanges(before, after);
  const line = (label: string, items: string[], tone: string) =>
    items.length > 0 && (
      <li>
        <span className={`font-semibold ${tone}`}>{label}:</span> {items.join(", ")}
      </li>
    );
  return (
    <div className="rounded-md border border-blue-200 bg-blue-50 px-2 py-1.5 text-xs text-slate-800 dark:border-blue-800 dark:bg-blue-950 dark:text-slate-100" data-testid="plan-changes">
      <div className="font-semibold">
        Changes since v{from}
        {to ? ` (this is v${to})` : ""}
      </div>
      {changed(c) ? (
        <ul className="mt-0.5 space-y-0.5">
          {line("dimensions added", c.dimensions.added, "text-emerald-800 dark:text-emerald-300")}
          {line("dimensions removed", c.dimensions.removed, "text-red-800 dark:text-red-300")}
          {line("tasks added", c.tasks.added, "text-emerald-800 dark:text-emerald-300")}
          {line("tasks removed", c.tasks.removed, "text-red-800 dark:text-red-300")}
          {line("tasks edited", c.tasks.edited.map((e) => `${e.id} (${e.what.join("; ")})`), "text-amber-800 dark:text-amber-300")}
        </ul>
      ) : (
        <p>none: the same dimensions and tasks</p>
      )}
    </div>
  );
}

export function CheckinPayload({ payload: p }: ReviewPayloadProps) {
  return (
    <div className="flex flex-wrap gap-1.5">
      <Chip label="iteration" value={String(p.iteration)} />
      <Chip label="facts" value={String(p.facts)} />
      <Chip label="sources" value={String(p.sources)} />
      <Chip label="open tasks" value={String(p.open)} />
    </div>
  );
}

export function EscalationPayload({ payload: p }: ReviewPayloadProps) {
  return <pre tabIndex={0} className="max-h-48 overflow-auto whitespace-pre-wrap rounded-md border border-red-200 bg-red-50 p-2 text-[11px] text-red-900">{JSON.stringify({ task: p.task, error: p.error }, null, 2)}</pre>;
}
