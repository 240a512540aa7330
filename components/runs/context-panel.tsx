"use client";

/** The run's context, one collapsible section per key; the seed's context records open first. */
export function ContextPanel({ context }: { context: unknown }) {
  if (!context || typeof context !== "object") return <pre className="text-xs">{JSON.stringify(context, null, 2)}</pre>;
  const entries = Object.entries(context as Record<string, unknown>);
  const records = (context as { records?: Record<string, unknown> }).records;
  return (
    <div className="space-y-1.5 text-xs" data-testid="context-panel">
      {records && typeof records === "object" && (
        <div className="space-y-1.5">
          {Object.entries(records).map(([k, v]) => (
            <details key={k} open className="rounded-md border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900">
              <summary className="cursor-pointer select-none px-2 py-1 font-mono font-medium text-slate-700 dark:text-slate-300">{(v as { type?: string })?.type ?? k}</summary>
              <pre tabIndex={0} className="max-h-72 overflow-auto whitespace-pre-wrap break-words border-t border-slate-100 dark:border-slate-800 px-2 py-1.5 font-mono text-[11px] text-slate-700 dark:text-slate-300">{JSON.stringify(v, null, 2)}</pre>
            </details>
          ))}
          {Object.keys(records).length === 0 && <p className="text-slate-600 dark:text-slate-400">No context records in this cycle yet.</p>}
        </div>
      )}
      <details className="rounded-md border border-dashed border-slate-300 dark:border-slate-600">
        <summary className="cursor-pointer select-none px-2 py-1 text-slate-600 dark:text-slate-400">Full context ({entries.length} keys)</summary>
        <pre tabIndex={0} className="max-h-96 overflow-auto whitespace-pre-wrap break-words px-2 py-1.5 font-mono text-[11px] text-slate-700 dark:text-slate-300">{JSON.stringify(context, null, 2)}</pre>
      </details>
    </div>
  );
}
