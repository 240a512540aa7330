"use client";
// Outgoing webhooks of one workflow (hooks for users: docs/guide/15-conversation-and-your-own-workflows.md): add one (URL, shared secret,
// which hooks), see each delivery with its attempts and last answer, redeliver, remove.
import { useCallback, useEffect, useState } from "react";
import { formatTime } from "@/lib/format";
import { issuesByField } from "@/lib/field-errors";
import type { DeliveryView, WebhookView } from "@/lib/hooks/webhooks";

const HOOKS = ["on_transition", "on_enter", "on_exit", "on_alert", "on_review_escalated"] as const;

/** An API refusal, with the fields it names (a 422's `issues`). */
class ApiError extends Error {
  constructor(
    message: string,
    readonly issues: { path: string; message: string }[] = [],
  ) {
    super(message);
  }
}

async function call<T>(url: string, init?: RequestInit): Promise<T> {
  const res = await fetch(url, init);
  if (res.status === 204) return undefined as T;
  const body = (await res.json().catch(() => ({}))) as { error?: string; issues?: { path: string; message: string }[] };
  if (!res.ok) throw new ApiError(body.error ?? `HTTP ${res.status}`, body.issues);
  return body as T;
}

/** The form's fields by the path the API names them with; anything else is said above the form's button. */
const FIELDS = ["url", "secret", "events"] as const;
type Field = (typeof FIELDS)[number];
const fieldOf = (head: string): Field | null => ((FIELDS as readonly string[]).includes(head) ? (head as Field) : null);

export function WebhooksPanel({ workflow }: { workflow: string }) {
  const [hooks, setHooks] = useState<WebhookView[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [fieldErrors, setFieldErrors] = useState<Partial<Record<Field, string>>>({});
  const [url, setUrl] = useState("");
  const [secret, setSecret] = useState("");
  const [events, setEvents] = useState<string[]>(["on_transition"]);
  const [stage, setStage] = useState("");
  const [open, setOpen] = useState<string | null>(null);

  const load = useCallback(() => {
    call<{ webhooks: WebhookView[] }>(`/api/webhooks?workflow=${encodeURIComponent(workflow)}`)
      .then((r) => setHooks(r.webhooks))
      .catch((e) => setError((e as Error).message));
  }, [workflow]);
  useEffect(load, [load]);

  const add = async (e: React.FormEvent) => {
    e.preventDefault();
    setError(null);
    setFieldErrors({});
    const chosen = events.map((h) => (stage.trim() && h !== "on_transition" ? `${h}:${stage.trim()}` : h));
    try {
      await call("/api/webhooks", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ workflow, url, secret, events: chosen }) });
      setUrl("");
      setSecret("");
      load();
    } catch (err) {
      // each field's own message next to it (the messages name their field); the rest above
      const { fields: byField, other } = issuesByField(err instanceof ApiError ? err.issues : [], fieldOf);
      setFieldErrors(byField);
      if (Object.keys(byField).length === 0) setError((err as Error).message);
      else if (other.length) setError(other.join("; "));
    }
  };
  const fieldError = (f: Field) =>
    fieldErrors[f] ? (
      <p id={`webhook-${f}-error`} className="text-xs text-red-700 dark:text-red-400" role="alert">
        {fieldErrors[f]}
      </p>
    ) : null;

  return (
    <div className="rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-4" data-testid="webhooks-panel">
      <h2 className="text-sm font-semibold">Webhooks</h2>
      <p className="text-xs text-slate-600 dark:text-slate-400">
        Each hook event of this workflow&apos;s runs (and with <code>on_alert</code>, each alert as it opens and resolves) is POSTed as JSON, signed with your secret (<code>x-switchyard-signature: sha256=HMAC(secret, timestamp + &quot;.&quot; + body)</code>), and retried with backoff until your endpoint answers 2xx.
      </p>
      {hooks.length > 0 && (
        <ul className="mt-3 divide-y divide-slate-100 dark:divide-slate-800 text-sm">
          {hooks.map((h) => (
            <li key={h.id} className="py-2">
              <div className="flex flex-wrap items-center gap-2">
                <span className="font-mono text-xs">{h.url}</span>
                <span className="text-xs text-slate-600 dark:text-slate-400">{h.events.join(", ")} · secret {h.secretHint}{h.workflow === "*" ? " · every workflow" : ""}</span>
                <button onClick={() => setOpen(open === h.id ? null : h.id)} className="ml-auto text-xs text-blue-700 dark:text-blue-400 underline">{open === h.id ? "Hide deliveries" : "Deliveries"}</button>
                <button onClick={() => call(`/api/webhooks/${h.id}`, { method: "DELETE" }).then(load, (e) => setError((e as Error).message))} className="text-xs text-red-700 dark:text-red-400 underline">Remove</button>
              </div>
              {open === h.id && <Deliveries webhookId={h.id} />}
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={add} className="mt-3 grid gap-2 text-sm md:grid-cols-[2fr_1fr]">
        <div className="grid gap-1">
          <input value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://example.org/hooks/switchyard" aria-label="webhook URL" aria-invalid={!!fieldErrors.url} aria-describedby={fieldErrors.url ? "webhook-url-error" : undefined} className={`rounded-md border px-2 py-1 ${fieldErrors.url ? "border-red-500" : "border-slate-300 dark:border-slate-600"}`} />
          {fieldError("url")}
        </div>
        <div className="grid gap-1">
          <input value={secret} onChange={(e) => setSecret(e.target.value)} type="password" placeholder="shared secret (16+ characters)" aria-label="webhook secret" aria-invalid={!!fieldErrors.secret} aria-describedby={fieldErrors.secret ? "webhook-secret-error" : undefined} className={`rounded-md border px-2 py-1 ${fieldErrors.secret ? "border-red-500" : "border-slate-300 dark:border-slate-600"}`} />
          {fieldError("secret")}
        </div>
        <div className="flex flex-wrap items-center gap-3 text-xs text-slate-600 dark:text-slate-400">
          {HOOKS.map((h) => (
            <label key={h} className="flex items-center gap-1">
              <input type="checkbox" checked={events.includes(h)} onChange={(e) => setEvents(e.target.checked ? [...events, h] : events.filter((x) => x !== h))} />
              <span className="font-mono">{h}</span>
            </label>
          ))}
          <input value={stage} onChange={(e) => setStage(e.target.value)} placeholder="only this stage (enter/exit/alert)" aria-label="stage filter" className="w-48 rounded border border-slate-300 dark:border-slate-600 px-2 py-0.5" />
          {fieldError("events")}
        </div>
        <button className="justify-self-start rounded-md bg-slate-900 px-3 py-1 text-sm text-white dark:bg-slate-200 dark:text-slate-900 hover:bg-slate-700">Add webhook</button>
      </form>
      {error && <p className="mt-2 text-xs text-red-700 dark:text-red-400" role="alert">{error}</p>}
    </div>
  );
}

function Deliveries({ webhookId }: { webhookId: string }) {
  const [list, setList] = useState<DeliveryView[] | null>(null);
  const load = useCallback(() => {
    call<{ deliveries: DeliveryView[] }>(`/api/webhooks/${webhookId}/deliveries?limit=30`).then((r) => setList(r.deliveries), () => setList([]));
  }, [webhookId]);
  useEffect(load, [load]);
  if (!list) return <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">Loading…</p>;
  if (list.length === 0) return <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">No delivery yet.</p>;
  const tone = { delivered: "text-emerald-700 dark:text-emerald-400", pending: "text-amber-700", failed: "text-red-700 dark:text-red-400" } as const;
  return (
    <table className="mt-2 w-full text-xs">
      <tbody>
        {list.map((d) => (
          <tr key={d.id} className="border-t border-slate-100 dark:border-slate-800">
            <td className="py-1 pr-2 text-slate-600 dark:text-slate-400">{formatTime(d.createdAt)}</td>
            <td className="pr-2 font-mono">{d.hook}</td>
            <td className="pr-2 font-mono">{d.hook === "on_alert" ? "alert" : d.runId.slice(0, 8)}</td>
            <td className={`pr-2 font-semibold ${tone[d.status]}`}>{d.status}</td>
            <td className="pr-2 text-slate-600 dark:text-slate-400">{d.attempts} attempt(s){d.lastStatus ? ` · HTTP ${d.lastStatus}` : ""}{d.lastError && d.lastError !== `HTTP ${d.lastStatus}` ? ` · ${d.lastError}` : ""}</td>
            <td className="text-right">
              {d.status !== "pending" && (
                <button onClick={() => call(`/api/webhooks/deliveries/${d.id}/redeliver`, { method: "POST" }).then(load, load)} className="text-blue-700 dark:text-blue-400 underline">Redeliver</button>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
