"use client";
// The context at the timeline's cursor (the run's stored snapshot after the commit that wrote that
// transition) and "Fork from here": a new run from that snapshot, optionally with edited context
// (only the keys the workflow lets a fork edit: what came from the run's input).
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";

interface Snapshot {
  seq: number;
  requested: number;
  at: string;
  context: unknown;
  /** the context keys a fork may replace */
  forkEditable?: string[];
  timers: { id: string; dueAt: string }[];
}

export function CursorContext({ runId, seq, readOnly = false }: { runId: string; seq: number; readOnly?: boolean }) {
  const [snap, setSnap] = useState<Snapshot | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [forking, setForking] = useState(false);

  // scrubbing moves the cursor many times a second: ask only once it rests
  useEffect(() => {
    if (seq < 1) {
      setSnap(null);
      setError(null);
      return;
    }
    const ctrl = new AbortController();
    const t = setTimeout(() => {
      fetch(`/api/runs/${runId}/snapshots?seq=${seq}`, { signal: ctrl.signal })
        .then(async (r) => {
          const body = await r.json();
          if (!r.ok) throw new Error(body.error ?? `HTTP ${r.status}`);
          setSnap(body as Snapshot);
          setError(null);
        })
        .catch((e: Error) => {
          if (e.name !== "AbortError") {
            setSnap(null);
            setError(e.message);
          }
        });
    }, 120);
    return () => {
      clearTimeout(t);
      ctrl.abort();
    };
  }, [runId, seq]);

  if (seq < 1) return <p className="px-3 py-2 text-xs text-slate-600 dark:text-slate-400">Before the run started: no context yet.</p>;
  return (
    <div className="border-t border-slate-100 dark:border-slate-800 px-3 py-2 text-xs" data-testid="cursor-context" data-seq={snap?.seq ?? ""}>
      <div className="flex items-center justify-between gap-2">
        <span className="text-slate-600 dark:text-slate-400">
          Context at #{seq}
          {snap && snap.seq !== seq && <span className="text-slate-600 dark:text-slate-400"> (settled at #{snap.seq}, the end of that step)</span>}
        </span>
        {!readOnly && snap && !forking && (
          <button onClick={() => setForking(true)} className="rounded-md bg-violet-700 px-2 py-0.5 text-white hover:bg-violet-800" data-testid="fork-open">
            Fork from #{snap.seq}
          </button>
        )}
      </div>
      {error && <p className="mt-1 text-amber-700">{error}</p>}
      {forking && snap && <ForkForm runId={runId} seq={snap.seq} context={snap.context} editable={snap.forkEditable ?? []} onCancel={() => setForking(false)} />}
      {snap && (
        <pre tabIndex={0} className="mt-1 max-h-64 overflow-auto whitespace-pre-wrap rounded bg-slate-50 dark:bg-slate-800/60 p-2 font-mono text-[11px] text-slate-700 dark:text-slate-300" data-testid="cursor-context-json">
          {JSON.stringify(snap.context, null, 2)}
        </pre>
      )}
      {snap && snap.timers.length > 0 && (
        <p className="mt-1 text-slate-600 dark:text-slate-400">Timers pending: {snap.timers.map((t) => `${t.id.replace(/^xstate\.after\./, "after ")} (due ${new Date(t.dueAt).toISOString().slice(11, 19)} UTC)`).join(", ")}</p>
      )}
    </div>
  );
}

function ForkForm({ runId, seq, context, editable, onCancel }: { runId: string; seq: number; context: unknown; editable: string[]; onCancel: () => void }) {
  const router = useRouter();
  const members = context && typeof context === "object" && !Array.isArray(context) ? Object.keys(context) : [];
  const keys = editable.filter((k) => members.includes(k));
  const [text, setText] = useState("{}");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async () => {
    let edits: unknown;
    try {
      edits = JSON.parse(text || "{}");
    } catch (e) {
      setError(`not JSON: ${(e as Error).message}`);
      return;
    }
    if (!edits || typeof edits !== "object" || Array.isArray(edits)) {
      setError(keys.length ? `write an object of the context keys to replace, e.g. {"${keys[0]}": …}` : "write {}: this workflow lets a fork edit no context key");
      return;
    }
    setBusy(true);
    const res = await fetch(`/api/runs/${runId}/fork`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ seq, ...(Object.keys(edits).length ? { context: edits } : {}) }),
    });
    const body = await res.json().catch(() => ({}));
    setBusy(false);
    if (!res.ok) {
      setError(body.error ?? `HTTP ${res.status}`);
      return;
    }
    router.push(`/runs/${body.run.id}`);
  };
  return (
    <div className="mt-2 space-y-1 rounded-md border border-violet-200 bg-violet-50 p-2" data-testid="fork-form">
      <p className="text-slate-700 dark:text-slate-300">
        A new run starts from the state after #{seq}, with this run&apos;s history up to there.{" "}
        {keys.length ? (
          <>
            Replace what came from the run&apos;s input (optional):{" "}
            <span data-testid="fork-editable">{keys.join(", ")}</span>; the rest (approvals, decisions, steps …) is the workflow&apos;s and stays as it was:
          </>
        ) : (
          <>This workflow lets a fork edit no context key: it starts as the run was.</>
        )}
      </p>
      <textarea value={text} onChange={(e) => (setText(e.target.value), setError(null))} rows={3} className="w-full rounded border border-slate-300 dark:border-slate-600 p-1 font-mono text-[11px]" aria-label="context edits (JSON)" />
      {error && <p className="text-red-700 dark:text-red-400" data-testid="fork-error">{error}</p>}
      <div className="flex gap-2">
        <button onClick={submit} disabled={busy} className="rounded-md bg-violet-700 px-2 py-0.5 text-white disabled:opacity-50" data-testid="fork-submit">
          {busy ? "Forking…" : "Start the fork"}
        </button>
        <button onClick={onCancel} className="rounded-md px-2 py-0.5 ring-1 ring-slate-300 dark:ring-slate-600">Cancel</button>
      </div>
    </div>
  );
}
