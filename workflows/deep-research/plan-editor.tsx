"use client";
// The plan review's form: dimensions and tasks as rows to add, remove and reorder, dependencies
// picked from the other tasks. Each change reports the plan (or what is wrong with it) upward;
// the view above it previews the draft live.
import { addTask, move, removeDimension, removeTask, renameDimension, setTaskType, TASK_TYPES, toggleDependency, type EditPlan } from "./plan-edit";
import type { TaskType } from "@/lib/research/types";

const input = "rounded-md border border-slate-300 bg-white px-2 py-1 text-xs dark:border-slate-600 dark:bg-slate-900";
const icon = "h-6 w-6 shrink-0 rounded text-xs text-slate-600 ring-1 ring-slate-200 hover:bg-slate-100 disabled:opacity-30 dark:text-slate-400 dark:ring-slate-700 dark:hover:bg-slate-800";

function RowButtons({ label, index, count, onMove, onRemove }: { label: string; index: number; count: number; onMove: (by: -1 | 1) => void; onRemove: () => void }) {
  return (
    <span className="flex shrink-0 gap-1">
      <button type="button" className={icon} disabled={index === 0} onClick={() => onMove(-1)} aria-label={`Move ${label} up`} title="Move up">↑</button>
      <button type="button" className={icon} disabled={index === count - 1} onClick={() => onMove(1)} aria-label={`Move ${label} down`} title="Move down">↓</button>
      <button type="button" className={`${icon} hover:text-red-700`} onClick={onRemove} aria-label={`Remove ${label}`} title="Remove">✕</button>
    </span>
  );
}

export function PlanEditor({ plan, onChange, problems }: { plan: EditPlan; onChange: (p: EditPlan) => void; problems: string[] }) {
  return (
    <div className="space-y-3 rounded-md border border-blue-200 bg-blue-50/40 p-2 dark:border-blue-900 dark:bg-blue-950/30" data-testid="plan-editor">
      <fieldset className="min-w-0 space-y-1">
        <legend className="text-[11px] font-semibold uppercase tracking-wide text-slate-600 dark:text-slate-400">Dimensions</legend>
        {plan.dimensions.map((d, i) => (
          <div key={i} className="flex items-center gap-1" data-testid="dimension-row">
            <input value={d} onChange={(e) => onChange(renameDimension(plan, i, e.target.value))} aria-label={`Dimension ${i + 1}`} className={`${input} min-w-0 flex-1`} />
            <RowButtons label={`dimension ${i + 1}`} index={i} count={plan.dimensions.length} onMove={(by) => onChange({ ...plan, dimensions: move(plan.dimensions, i, by) })} onRemove={() => onChange(removeDimension(plan, i))} />
          </div>
        ))}
        <button type="button" onClick={() => onChange({ ...plan, dimensions: [...plan.dimensions, ""] })} className="text-xs text-blue-700 underline dark:text-blue-400">
          + Add dimension
        </button>
      </fieldset>
      <fieldset className="min-w-0 space-y-2">
        <legend className="text-[11px] font-semibold uppercase tracking-wide text-slate-600 dark:text-slate-400">Tasks</legend>
        {plan.tasks.map((t, i) => {
          const others = plan.tasks.filter((o) => o.id !== t.id);
          return (
            <div key={`${i}:${t.id}`} className="space-y-1 rounded border border-slate-200 bg-white p-1.5 dark:border-slate-700 dark:bg-slate-900" data-testid="task-row" data-task={t.id}>
              <div className="flex items-center gap-1">
                <span className="w-8 shrink-0 font-mono text-xs font-semibold">{t.id}</span>
                <select value={t.type} onChange={(e) => onChange(setTaskType(plan, t.id, e.target.value as TaskType))} aria-label={`Type of ${t.id}`} className={`${input} w-24 shrink-0`}>
                  {TASK_TYPES.map((ty) => (
                    <option key={ty}>{ty}</option>
                  ))}
                </select>
                <select value={t.dimension ?? ""} onChange={(e) => onChange({ ...plan, tasks: plan.tasks.map((o) => (o.id === t.id ? { ...o, dimension: e.target.value || undefined } : o)) })} aria-label={`Dimension of ${t.id}`} className={`${input} min-w-0 flex-1`}>
                  <option value="">no dimension</option>
                  {plan.dimensions.filter((d) => d.trim()).map((d) => (
                    <option key={d} value={d}>{d}</option>
                  ))}
                </select>
                <span className="shrink-0">
                  <RowButtons label={t.id} index={i} count={plan.tasks.length} onMove={(by) => onChange({ ...plan, tasks: move(plan.tasks, i, by) })} onRemove={() => onChange(removeTask(plan, t.id))} />
                </span>
              </div>
              <input value={t.description} onChange={(e) => onChange({ ...plan, tasks: plan.tasks.map((o) => (o.id === t.id ? { ...o, description: e.target.value } : o)) })} aria-label={`Description of ${t.id}`} placeholder="What this task does" className={`${input} w-full`} />
              {others.length > 0 && (
                <div className="flex flex-wrap items-center gap-1 text-[11px] text-slate-600 dark:text-slate-400" role="group" aria-label={`${t.id} depends on`}>
                  after:
                  {others.map((o) => {
                    const on = t.dependsOn.includes(o.id);
                    return (
                      <button key={o.id} type="button" aria-pressed={on} onClick={() => onChange(toggleDependency(plan, t.id, o.id))} title={o.description} className={`rounded px-1.5 py-0.5 font-mono ${on ? "bg-slate-900 text-white dark:bg-slate-200 dark:text-slate-900" : "ring-1 ring-slate-200 hover:bg-slate-100 dark:ring-slate-700 dark:hover:bg-slate-800"}`}>
                        {o.id}
                      </button>
                    );
                  })}
                </div>
              )}
            </div>
          );
        })}
        <div className="flex flex-wrap gap-2 text-xs">
          {TASK_TYPES.map((ty) => (
            <button key={ty} type="button" onClick={() => onChange(addTask(plan, ty))} className="text-blue-700 underline dark:text-blue-400">
              + {ty} task
            </button>
          ))}
        </div>
      </fieldset>
      <label className="flex items-center gap-2 text-xs text-slate-600 dark:text-slate-400">
        Estimated iterations
        <input type="number" min={1} max={500} value={plan.estimatedIterations} onChange={(e) => onChange({ ...plan, estimatedIterations: Number(e.target.value) })} className={`${input} w-20`} />
      </label>
      {problems.length > 0 && (
        <ul className="list-disc rounded-md bg-red-50 py-1.5 pl-6 pr-2 text-xs text-red-800" role="alert" data-testid="plan-problems">
          {problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
