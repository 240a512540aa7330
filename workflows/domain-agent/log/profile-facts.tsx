"use client";
import Link from "@/components/ui/link";
import { useRouter } from "next/navigation";
import { useActionState, useEffect, useState, useTransition } from "react";
import { deleteFactAction, saveFactAction, type FactFormState } from "../log-actions";
import type { ProfileFact } from "../domains/store";
import { formatTime } from "@/lib/format";
import { DomainBadge, SourceBadge } from "./log-badges";

// the same limits the server applies (domains/store.ts)
const MAX_VALUE = 500;

const inputClass = "w-full rounded-md border border-slate-300 dark:border-slate-600 bg-white dark:bg-slate-900 px-2 py-1.5 text-sm focus:border-blue-500 focus:outline-none focus:ring-2 focus:ring-blue-500/20";

function FieldError({ text, testId }: { text?: string; testId?: string }) {
  return text ? (
    <p className="mt-1 text-xs text-red-600 dark:text-red-400" data-testid={testId}>
      {text}
    </p>
  ) : null;
}

/** A fact's value edited in place (key and domain stay). Inputs are controlled: a form action
 *  resets uncontrolled fields, which would throw away what was typed when the server rejects it. */
function EditValue({ fact, onDone }: { fact: ProfileFact; onDone: () => void }) {
  const [state, action, pending] = useActionState<FactFormState, FormData>(saveFactAction, { ok: true });
  const [value, setValue] = useState(fact.value);
  useEffect(() => {
    if (state.ok && state.saved) onDone();
  }, [state, onDone]);
  const err = state.fieldErrors ?? {};
  return (
    <form action={action} className="mt-1.5 space-y-1.5" data-testid="fact-edit-form">
      <input type="hidden" name="key" value={fact.key} />
      <input
        name="value"
        value={value}
        onChange={(e) => setValue(e.target.value)}
        maxLength={MAX_VALUE}
        autoFocus
        aria-label={`New value of ${fact.key}`}
        aria-invalid={Boolean(err.value)}
        className={inputClass}
      />
      <FieldError text={err.value ?? err.key} testId="fact-edit-error" />
      {state.message && <p className="text-xs text-red-600 dark:text-red-400">{state.message}</p>}
      <div className="flex gap-2">
        <button type="submit" disabled={pending} className="rounded-md bg-slate-900 px-3 py-1 text-xs font-medium text-white dark:bg-slate-200 dark:text-slate-900 hover:bg-slate-700 disabled:opacity-60">
          {pending ? "Saving…" : "Save"}
        </button>
        <button type="button" onClick={onDone} className="rounded-md px-3 py-1 text-xs text-slate-600 dark:text-slate-400 ring-1 ring-slate-200 dark:ring-slate-700 hover:bg-slate-50 dark:hover:bg-slate-800/60">
          Cancel
        </button>
      </div>
    </form>
  );
}

function FactItem({ fact }: { fact: ProfileFact }) {
  const router = useRouter();
  const [editing, setEditing] = useState(false);
  const [pending, start] = useTransition();
  const [error, setError] = useState<string | null>(null);
  const remove = () => {
    if (!window.confirm(`Remove “${fact.key}” from the global context? The assistant will no longer use it.`)) return;
    setError(null);
    start(async () => {
      const r = await deleteFactAction({ key: fact.key });
      if (!r.ok) setError(r.error ?? "delete failed");
      router.refresh();
    });
  };
  return (
    <li className="px-4 py-3" data-testid="profile-fact" data-key={fact.key}>
      <div className="flex items-start justify-between gap-3">
        <div className="min-w-0 flex-1">
          <div className="flex flex-wrap items-center gap-1.5">
            <span className="font-mono text-xs font-semibold text-slate-800 dark:text-slate-200">{fact.key}</span>
            {fact.domain && <DomainBadge domain={fact.domain} />}
          </div>
          {!editing && <div className="mt-0.5 break-words text-sm text-slate-900 dark:text-slate-100" data-testid="fact-value">{fact.value}</div>}
        </div>
        {!editing && (
          <div className="flex shrink-0 gap-1">
            <button type="button" onClick={() => setEditing(true)} className="rounded-md px-2 py-1 text-xs font-medium text-slate-700 dark:text-slate-300 ring-1 ring-slate-200 dark:ring-slate-700 hover:bg-slate-50 dark:hover:bg-slate-800/60" data-testid="fact-edit">
              Edit
            </button>
            <button type="button" disabled={pending} onClick={remove} className="rounded-md px-2 py-1 text-xs font-medium text-red-700 dark:text-red-400 ring-1 ring-red-200 hover:bg-red-50 dark:hover:bg-red-950 disabled:opacity-50" data-testid="fact-delete">
              {pending ? "…" : "Delete"}
            </button>
          </div>
        )}
      </div>
      {editing && <EditValue fact={fact} onDone={() => setEditing(false)} />}
      <div className="mt-1 flex flex-wrap items-center gap-x-1.5 gap-y-1 text-[11px] text-slate-600 dark:text-slate-400">
        <SourceBadge source={fact.source} />
        <span className="min-w-0">{fact.reason || "no reason given"}</span>
        <span aria-hidden>·</span>
        <span className="whitespace-nowrap">{formatTime(fact.updatedAt)}</span>
        {fact.runId && (
          <Link href={`/runs/${fact.runId}`} className="font-mono text-blue-700 dark:text-blue-400 underline">
            run {fact.runId.slice(0, 8)}
          </Link>
        )}
      </div>
      {error && <p className="mt-1 text-xs text-red-600 dark:text-red-400">{error}</p>}
    </li>
  );
}

const EMPTY = { key: "", value: "", domain: "" };

function AddFact({ domains }: { domains: { id: string; title: string }[] }) {
  const [state, action, pending] = useActionState<FactFormState, FormData>(saveFactAction, { ok: true });
  // controlled, so that a rejected submission keeps what was typed
  const [fields, setFields] = useState(EMPTY);
  const set = (name: keyof typeof EMPTY) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) => setFields((f) => ({ ...f, [name]: e.target.value }));
  useEffect(() => {
    if (state.ok && state.saved) setFields(EMPTY);
  }, [state]);
  const err = state.fieldErrors ?? {};
  return (
    <form action={action} className="space-y-2 border-t border-slate-200 dark:border-slate-700 px-4 py-3" data-testid="fact-add-form" noValidate>
      <h3 className="text-xs font-semibold text-slate-700 dark:text-slate-300">Add a fact</h3>
      <div className="grid grid-cols-[1fr_120px] gap-2">
        <div>
          <label htmlFor="fact-key" className="block text-[11px] font-medium text-slate-600 dark:text-slate-400">Key</label>
          <input id="fact-key" name="key" value={fields.key} onChange={set("key")} placeholder="body_weight_kg" maxLength={64} aria-invalid={Boolean(err.key)} className={`mt-0.5 font-mono ${inputClass}`} />
          <FieldError text={err.key} testId="fact-key-error" />
        </div>
        <div>
          <label htmlFor="fact-domain" className="block text-[11px] font-medium text-slate-600 dark:text-slate-400">Domain</label>
          <select id="fact-domain" name="domain" value={fields.domain} onChange={set("domain")} className={`mt-0.5 ${inputClass}`}>
            <option value="">(none)</option>
            {domains.map((d) => (
              <option key={d.id} value={d.id}>
                {d.title}
              </option>
            ))}
          </select>
          <FieldError text={err.domain} />
        </div>
      </div>
      <div>
        <label htmlFor="fact-value" className="block text-[11px] font-medium text-slate-600 dark:text-slate-400">Value</label>
        <input id="fact-value" name="value" value={fields.value} onChange={set("value")} placeholder="72" maxLength={MAX_VALUE} aria-invalid={Boolean(err.value)} className={`mt-0.5 ${inputClass}`} />
        <FieldError text={err.value} testId="fact-value-error" />
      </div>
      <p className="text-[11px] text-slate-600 dark:text-slate-400">Keys are snake_case (lowercase letters, digits, _). Setting an existing key replaces its value.</p>
      <button type="submit" disabled={pending} className="w-full rounded-md bg-slate-900 px-3 py-1.5 text-sm font-medium text-white dark:bg-slate-200 dark:text-slate-900 hover:bg-slate-700 disabled:opacity-60">
        {pending ? "Saving…" : "Add to global context"}
      </button>
      {state.message && <p className="rounded-md bg-red-50 px-2 py-1.5 text-xs text-red-700 dark:text-red-300 dark:bg-red-950">{state.message}</p>}
      {state.ok && state.saved && (
        <p className="rounded-md bg-emerald-50 px-2 py-1.5 text-xs text-emerald-800" data-testid="fact-add-result">
          {state.saved.changed ? `Saved ${state.saved.key} = “${state.saved.value}”.` : `${state.saved.key} already was “${state.saved.value}”: nothing changed.`}
        </p>
      )}
    </form>
  );
}

/** The global context: each fact with its source and reason, edited in place; and a form to add one. */
export function ProfileFacts({ facts, domains }: { facts: ProfileFact[]; domains: { id: string; title: string }[] }) {
  return (
    <div>
      {facts.length === 0 ? (
        <p className="px-4 py-6 text-center text-sm text-slate-600 dark:text-slate-400">No facts yet. The observer adds what it learns from your log; you can add your own below.</p>
      ) : (
        <ul className="divide-y divide-slate-100 dark:divide-slate-800" data-testid="profile-facts">
          {facts.map((f) => (
            <FactItem key={`${f.key}:${f.updatedAt}`} fact={f} />
          ))}
        </ul>
      )}
      <AddFact domains={domains} />
    </div>
  );
}
