"use client";
import { Allowed } from "@/components/auth/role";
import { useActionState } from "react";
import { startEvalAction } from "@/app/evals/actions";

/** Start an evaluation: a workflow, the version to evaluate (empty: the latest, or a built-in's code), how many cases. */
function EvalFormInner({ workflows }: { workflows: { id: string; title: string; versions: number[] }[] }) {
  const [state, action, pending] = useActionState(startEvalAction, null);
  const field = "rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm dark:border-slate-600 dark:bg-slate-900";
  return (
    <form action={action} className="grid gap-2 sm:grid-cols-[minmax(0,1fr)_7rem_7rem_auto] sm:items-end" data-testid="eval-form">
      <label className="grid gap-1 text-xs text-slate-600 dark:text-slate-300">
        Workflow
        <select name="workflow" className={field} required>
          {workflows.map((w) => (
            <option key={w.id} value={w.id}>
              {w.title} ({w.id}{w.versions.length ? `, v${w.versions.join(", v")}` : ""})
            </option>
          ))}
        </select>
      </label>
      <label className="grid gap-1 text-xs text-slate-600 dark:text-slate-300">
        Candidate version
        <input name="version" inputMode="numeric" placeholder="latest" className={field} />
      </label>
      <label className="grid gap-1 text-xs text-slate-600 dark:text-slate-300">
        Cases (max)
        <input name="limit" inputMode="numeric" placeholder="100" className={field} />
      </label>
      <button type="submit" disabled={pending} className="rounded-md bg-blue-600 px-3 py-2 text-sm font-medium text-white hover:bg-blue-700 disabled:opacity-60">
        {pending ? "Starting…" : "Evaluate"}
      </button>
      {state?.error && <p className="text-sm text-red-700 dark:text-red-400 sm:col-span-4" role="alert">{state.error}</p>}
    </form>
  );
}

/** offered to operators and above; others see why not */
export function EvalForm(props: Parameters<typeof EvalFormInner>[0]) {
  return (
    <Allowed need="operator">
      <EvalFormInner {...props} />
    </Allowed>
  );
}
