"use client";
// A workflow's alerts: the open ones (each workflow's metrics thresholds, and users' rules), the last few
// resolved, the rules with a delete button, and a form to add a rule on one state.
import { useState, useTransition } from "react";
import { createAlertRuleAction, deleteAlertRuleAction, type RuleField, type RuleFormResult } from "@/app/workflows/[id]/alert-actions";
import type { AlertMetric, AlertRuleView, AlertView } from "@/lib/alerts/rules";
import { formatTime } from "@/lib/format";

export interface AlertStateOption {
  id: string;
  name: string;
  /** a leaf state: visits (dwell, failure rate) are measured on it */
  atomic: boolean;
  /** a review state: runs wait in it for a person */
  human: boolean;
}

const METRICS: { id: AlertMetric; label: string; unit: string; placeholder: string; help: string }[] = [
  { id: "dwell", label: "Dwell time (p95)", unit: "s", placeholder: "30", help: "the p95 of how long visits that ended within the window lasted" },
  { id: "failure_rate", label: "Failure rate", unit: "%", placeholder: "20", help: "visits that ended in an error or a failed state, of all visits in the window" },
  { id: "waiting", label: "Waiting time", unit: "s", placeholder: "3600", help: "the longest a run has been waiting for a review in the state" },
];

export function AlertsPanel({ workflow, open, resolved, rules, states }: { workflow: string; open: AlertView[]; resolved: AlertView[]; rules: AlertRuleView[]; states: AlertStateOption[] }) {
  const [metric, setMetric] = useState<AlertMetric>("dwell");
  const [state, setState] = useState("");
  const [threshold, setThreshold] = useState("");
  const [windowMinutes, setWindowMinutes] = useState("60");
  const [result, setResult] = useState<RuleFormResult | null>(null);
  const [pending, start] = useTransition();
  const choices = states.filter((s) => (metric === "waiting" ? s.human : s.atomic));
  const spec = METRICS.find((m) => m.id === metric)!;
  const hasReviews = states.some((s) => s.human);

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    start(async () => {
      const r = await createAlertRuleAction({ workflow, state, metric, threshold, windowMinutes });
      setResult(r);
      if (r.ok) setThreshold("");
    });
  };
  const remove = (id: string) =>
    start(async () => {
      setResult(await deleteAlertRuleAction({ id, workflow }));
    });
  const fieldError = (f: RuleField) =>
    result?.fieldErrors?.[f] ? (
      <p className="mt-0.5 text-[11px] text-red-700 dark:text-red-400" data-field-error={f}>
        {result.fieldErrors[f]}
      </p>
    ) : null;

  return (
    <div id="alerts" className="scroll-mt-20 rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-4" data-testid="alerts-panel">
      <h2 className="text-sm font-semibold">
        Alerts{" "}
        {open.length > 0 ? <span className="ml-1 rounded-full bg-red-100 px-2 py-0.5 text-xs font-semibold text-red-800">{open.length} open</span> : <span className="ml-1 text-xs font-normal text-slate-600 dark:text-slate-400">none open</span>}
      </h2>
      <p className="text-xs text-slate-600 dark:text-slate-400">Seed thresholds and your rules, evaluated every few seconds. Webhooks subscribed to <code>on_alert</code> receive each alert when it opens and when it resolves.</p>

      {open.length > 0 && (
        <ul className="mt-2 space-y-1.5 text-xs" data-testid="open-alerts">
          {open.map((a) => (
            <li key={a.id} className="rounded-md border border-red-200 bg-red-50 px-2 py-1.5 text-red-900 dark:border-red-900 dark:bg-red-950 dark:text-red-100">
              <div className="flex flex-wrap items-baseline gap-x-2">
                <span className="font-mono font-semibold">{a.stateName}</span>
                <span className="text-red-700 dark:text-red-300">{a.source === "seed" ? `seed: ${a.metric}` : a.metric.replace("_", " ")}</span>
                <span className="ml-auto text-[11px] text-red-700/80 dark:text-red-300">since {formatTime(a.openedAt)}</span>
              </div>
              <p className="mt-0.5">{a.message}</p>
            </li>
          ))}
        </ul>
      )}
      {resolved.length > 0 && (
        <details className="mt-2 text-xs text-slate-600 dark:text-slate-400">
          <summary className="cursor-pointer text-slate-600 dark:text-slate-400">Recently resolved ({resolved.length})</summary>
          <ul className="mt-1 space-y-1">
            {resolved.map((a) => (
              <li key={a.id}>
                <span className="font-mono">{a.stateName}</span> · {a.message} <span className="text-slate-600 dark:text-slate-400">({formatTime(a.resolvedAt)})</span>
              </li>
            ))}
          </ul>
        </details>
      )}

      <h3 className="mt-3 text-xs font-semibold text-slate-700 dark:text-slate-300">Rules</h3>
      {rules.length === 0 ? (
        <p className="text-xs text-slate-600 dark:text-slate-400">No rule yet: only the seed&apos;s thresholds are watched.</p>
      ) : (
        <ul className="mt-1 divide-y divide-slate-100 dark:divide-slate-800 text-xs" data-testid="alert-rules">
          {rules.map((r) => (
            <li key={r.id} className="flex items-center gap-2 py-1.5">
              <span className="font-mono font-semibold">{r.stateName}</span>
              <span className="text-slate-600 dark:text-slate-400">{r.summary}</span>
              {!r.enabled && <span className="rounded bg-slate-100 dark:bg-slate-800 px-1 text-slate-600 dark:text-slate-400">disabled</span>}
              <button type="button" disabled={pending} onClick={() => remove(r.id)} className="ml-auto text-red-700 dark:text-red-400 underline disabled:opacity-50">
                Delete
              </button>
            </li>
          ))}
        </ul>
      )}

      <form onSubmit={submit} className="mt-3 grid grid-cols-2 gap-2 text-xs" data-testid="alert-rule-form" noValidate>
        <label className="flex flex-col gap-0.5">
          <span className="text-slate-600 dark:text-slate-400">Watch</span>
          <select
            value={metric}
            onChange={(e) => {
              setMetric(e.target.value as AlertMetric);
              setState("");
            }}
            name="metric"
            className="rounded-md border border-slate-300 dark:border-slate-600 px-2 py-1"
          >
            {METRICS.map((m) => (
              <option key={m.id} value={m.id} disabled={m.id === "waiting" && !hasReviews}>
                {m.label}
              </option>
            ))}
          </select>
          {fieldError("metric")}
        </label>
        <label className="flex flex-col gap-0.5">
          <span className="text-slate-600 dark:text-slate-400">State</span>
          <select value={state} onChange={(e) => setState(e.target.value)} name="state" className="rounded-md border border-slate-300 dark:border-slate-600 px-2 py-1 font-mono">
            <option value="">choose…</option>
            {choices.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name === s.id ? s.id : `${s.name} (${s.id})`}
              </option>
            ))}
          </select>
          {fieldError("state")}
        </label>
        <label className="flex flex-col gap-0.5">
          <span className="text-slate-600 dark:text-slate-400">
            Alert above ({spec.unit === "%" ? "percent" : "seconds"})
          </span>
          <input value={threshold} onChange={(e) => setThreshold(e.target.value)} name="threshold" inputMode="decimal" placeholder={spec.placeholder} className="rounded-md border border-slate-300 dark:border-slate-600 px-2 py-1" />
          {fieldError("threshold")}
        </label>
        <label className="flex flex-col gap-0.5">
          <span className="text-slate-600 dark:text-slate-400">Window (minutes)</span>
          <input value={windowMinutes} onChange={(e) => setWindowMinutes(e.target.value)} name="windowMinutes" inputMode="numeric" disabled={metric === "waiting"} className="rounded-md border border-slate-300 dark:border-slate-600 px-2 py-1 disabled:bg-slate-50 dark:disabled:bg-slate-800/60 disabled:text-slate-400" />
          {fieldError("windowMinutes")}
        </label>
        <p className="col-span-2 text-[11px] text-slate-600 dark:text-slate-400">{spec.help}.</p>
        <div className="col-span-2 flex items-center gap-3">
          <button disabled={pending} className="rounded-md bg-slate-900 px-3 py-1 text-sm text-white dark:bg-slate-200 dark:text-slate-900 hover:bg-slate-700 disabled:opacity-50">
            {pending ? "Saving…" : "Add rule"}
          </button>
          {result?.ok && <span className="text-emerald-700 dark:text-emerald-400">Saved.</span>}
          {result?.error && (
            <span className="text-red-700 dark:text-red-400" role="alert">
              {result.error}
            </span>
          )}
        </div>
      </form>
    </div>
  );
}
