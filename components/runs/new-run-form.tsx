"use client";
import { Allowed } from "@/components/auth/role";
import { startTransition, useActionState, useEffect, useRef, useState } from "react";
import { startRunAction, type FormState } from "@/app/actions";
import type { InputField } from "@/lib/flows/inputs";

export interface WorkflowOption {
  id: string;
  title: string;
  example: unknown;
  /** field → placeholder (the workflow's own example, see input-placeholder.ts) */
  placeholders?: Record<string, string>;
  choices?: Record<string, { label: string; options: readonly string[]; empty: string }>;
  /** a user workflow's input fields: its declared inputs (typed, some required), or the names its templates read (optional) */
  fields?: InputField[];
}

function fieldsOf(example: unknown): string[] {
  if (!example || typeof example !== "object" || Array.isArray(example)) return [];
  return Object.entries(example).filter(([, v]) => typeof v === "string").map(([k]) => k);
}

/**
 * `initial`: the workflow picked first (the runs page passes the one it is filtered by). Opened
 * as #new-run (a workflow's Run button, the phone's "+ New run"), the first field takes focus.
 */
function NewRunFormInner({ workflows, initial }: { workflows: WorkflowOption[]; initial?: string }) {
  const [state, action, pending] = useActionState<FormState, FormData>(startRunAction, { ok: true });
  const [workflow, setWorkflow] = useState(workflows.some((w) => w.id === initial) ? initial! : (workflows[0]?.id ?? ""));
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    const focus = () => {
      if (window.location.hash === "#new-run") (form.current?.querySelector<HTMLElement>("textarea") ?? form.current?.querySelector<HTMLElement>("select"))?.focus();
    };
    focus();
    window.addEventListener("hashchange", focus);
    return () => window.removeEventListener("hashchange", focus);
  }, []);
  const current = workflows.find((w) => w.id === workflow);
  const typed = current?.fields;
  const fields = typed ? [] : fieldsOf(current?.example);
  const err = state.fieldErrors ?? {};
  return (
    <form
      ref={form}
      action={action}
      // submitted by hand, not as a form action: a refused input keeps everything typed (a form action resets the form)
      onSubmit={(e) => {
        e.preventDefault();
        const data = new FormData(e.currentTarget);
        startTransition(() => action(data));
      }}
      className="space-y-3"
      data-testid="new-run-form"
      data-workflow={workflow}
    >
      <div>
        <label htmlFor="workflow" className="block text-xs font-medium text-slate-600 dark:text-slate-400">Workflow</label>
        <select id="workflow" name="workflow" value={workflow} onChange={(e) => setWorkflow(e.target.value)} className="mt-1 w-full rounded-md border border-slate-300 dark:border-slate-600 bg-white dark:bg-slate-900 px-2 py-1.5 text-sm">
          {workflows.map((w) => (
            <option key={w.id} value={w.id}>{w.title} ({w.id})</option>
          ))}
        </select>
        {err.workflow && <p className="mt-1 text-xs text-red-600 dark:text-red-400">{err.workflow}</p>}
      </div>
      {fields.map((f) => (
        <div key={`${workflow}:${f}`}>
          <label htmlFor={`field-${f}`} className="block text-xs font-medium capitalize text-slate-600 dark:text-slate-400">{f}</label>
          <textarea
            id={`field-${f}`}
            name={`field:${f}`}
            rows={3}
            placeholder={current?.placeholders?.[f] ?? String((current?.example as Record<string, unknown>)[f])}
            className="mt-1 w-full rounded-md border border-slate-300 dark:border-slate-600 px-2 py-1.5 text-sm"
          />
          {err[`field:${f}`] && <p className="mt-1 text-xs text-red-600 dark:text-red-400">{err[`field:${f}`]}</p>}
        </div>
      ))}
      {typed?.map((f) => <TypedField key={`${workflow}:${f.name}`} field={f} error={err[`field:${f.name}`]} />)}
      {Object.entries(current?.choices ?? {}).map(([f, c]) => (
        <div key={`${workflow}:${f}`}>
          <label htmlFor={`field-${f}`} className="block text-xs font-medium text-slate-600 dark:text-slate-400">{c.label}</label>
          <select id={`field-${f}`} name={`field:${f}`} defaultValue="" className="mt-1 w-full rounded-md border border-slate-300 dark:border-slate-600 bg-white dark:bg-slate-900 px-2 py-1.5 text-sm">
            <option value="">{c.empty}</option>
            {c.options.map((o) => (
              <option key={o} value={o}>{o}</option>
            ))}
          </select>
          {err[`field:${f}`] && <p className="mt-1 text-xs text-red-600 dark:text-red-400">{err[`field:${f}`]}</p>}
        </div>
      ))}
      <details className="text-xs text-slate-600 dark:text-slate-400" open={(fields.length === 0 && !typed?.length) || !!err.json}>
        <summary className="cursor-pointer select-none">Input as JSON {fields.length || typed?.length ? "(overrides the fields above)" : ""}</summary>
        <textarea key={workflow} name="json" rows={4} placeholder={JSON.stringify(current?.example ?? {}, null, 2)} className="mt-1 w-full rounded-md border border-slate-300 dark:border-slate-600 px-2 py-1.5 font-mono text-xs" />
        {err.json && <p className="mt-1 text-xs text-red-600 dark:text-red-400">{err.json}</p>}
      </details>
      <div>
        <label htmlFor="run-name" className="block text-xs font-medium text-slate-600 dark:text-slate-400">Run name <span className="font-normal text-slate-600 dark:text-slate-400">(optional)</span></label>
        <input id="run-name" name="name" maxLength={200} className="mt-1 w-full rounded-md border border-slate-300 dark:border-slate-600 px-2 py-1.5 text-sm" placeholder="what this run is about" />
        {err.name && <p className="mt-1 text-xs text-red-600 dark:text-red-400">{err.name}</p>}
      </div>
      {state.message && Object.keys(err).length === 0 && <p className="rounded-md bg-red-50 px-2 py-1.5 text-xs text-red-700 dark:text-red-300 dark:bg-red-950">{state.message}</p>}
      <button type="submit" disabled={pending} className="w-full rounded-md bg-blue-600 px-3 py-2 text-sm font-medium text-white hover:bg-blue-700 disabled:opacity-60">
        {pending ? "Starting…" : "Start run"}
      </button>
    </form>
  );
}

const inputClass = "mt-1 w-full rounded-md border border-slate-300 dark:border-slate-600 px-2 py-1.5 text-sm";

/** One declared (or template-read) input: a text box, a number, a checkbox, a choice, or JSON for objects and arrays. */
function TypedField({ field: f, error }: { field: InputField; error?: string }) {
  const id = `field-${f.name}`;
  const label = (
    <label htmlFor={id} className="block text-xs font-medium text-slate-600 dark:text-slate-400">
      <span className="font-mono">{f.name}</span>
      <span className="font-normal text-slate-600 dark:text-slate-400"> · {f.type}{f.required ? "" : ", optional"}</span>
      {f.description && <span className="block font-normal text-slate-600 dark:text-slate-400">{f.description}</span>}
    </label>
  );
  const control =
    f.type === "boolean" ? (
      <input id={id} name={`field:${f.name}`} type="checkbox" className="mt-1 h-4 w-4" />
    ) : f.options ? (
      <select id={id} name={`field:${f.name}`} defaultValue="" className={`${inputClass} bg-white dark:bg-slate-900`}>
        <option value="">{f.required ? "choose one" : "(none)"}</option>
        {f.options.map((o) => (
          <option key={o} value={o}>{o}</option>
        ))}
      </select>
    ) : f.type === "number" ? (
      <input id={id} name={`field:${f.name}`} type="number" step="any" className={inputClass} />
    ) : (
      <textarea id={id} name={`field:${f.name}`} rows={f.type === "string" ? 2 : 3} placeholder={f.type === "string" ? "" : f.type === "array" ? "[ … ] (JSON)" : "{ … } (JSON)"} className={`${inputClass} ${f.type === "string" ? "" : "font-mono text-xs"}`} />
    );
  return (
    <div data-testid={`input-${f.name}`} data-type={f.type} data-required={f.required}>
      {f.type === "boolean" ? (
        <div className="flex items-center gap-2">
          {control}
          {label}
        </div>
      ) : (
        <>
          {label}
          {control}
        </>
      )}
      {error && <p className="mt-1 text-xs text-red-600 dark:text-red-400">{error}</p>}
    </div>
  );
}

/** offered to operators and above; others see why not */
export function NewRunForm(props: Parameters<typeof NewRunFormInner>[0]) {
  return (
    <Allowed need="operator">
      <NewRunFormInner {...props} />
    </Allowed>
  );
}
