import type { Runtime } from "@/lib/runtime";
import { contextManagerOf } from "../services";
import { CmSwitch } from "./cm-switch";

/** The Context Manager at a glance: availability, queued writes, and what it has learned. */
export async function CmPanel({ rt }: { rt: Runtime }) {
  const cm = contextManagerOf(rt);
  const [status, patterns, results] = await Promise.all([cm.status(), cm.patterns(), rt.db.cmResult.count()]);
  return (
    <div className="rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-4" data-testid="cm-panel" data-available={status.available}>
      <div className="mb-2 flex items-center justify-between gap-2">
        <h2 className="text-sm font-semibold">Context Manager</h2>
        <span className={`rounded-full px-2 py-0.5 text-[11px] font-semibold ${status.available ? "bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-300" : "bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200"}`}>
          {status.available ? "available" : "degraded mode"}
        </span>
      </div>
      {!status.available && <p className="mb-2 text-xs text-amber-900">{status.reason}. Searches are skipped with a warning; writes wait in the outbox.</p>}
      <p className="mb-2 text-xs text-slate-600 dark:text-slate-400">
        {results} stored result(s) · {patterns.length} solution pattern(s) · {status.queued} queued write(s)
      </p>
      <CmSwitch available={status.available} />
      <ul className="mt-3 space-y-1.5 text-xs">
        {patterns.slice(0, 8).map((p) => (
          <li key={p.id} className="flex items-center gap-2">
            <span className="w-40 shrink-0 truncate text-slate-700 dark:text-slate-300" title={p.description}>{p.name}</span>
            <span className="h-1.5 flex-1 overflow-hidden rounded-full bg-slate-100 dark:bg-slate-800">
              <span className="block h-full rounded-full bg-blue-500" style={{ width: `${Math.round(p.confidence * 100)}%` }} />
            </span>
            <span className="w-24 shrink-0 text-right font-mono text-[11px] text-slate-600 dark:text-slate-400">{p.confidence.toFixed(2)} · {p.approvals}✓ {p.rejections}✗</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
