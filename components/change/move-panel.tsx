// The workflow page's "Move runs to vN" (guide 19 §5): the runs waiting on older versions, the
// mapping (each state the new version lacks: pick where its runs go), the dry run's outcome (also
// painted on the new version's diagram) and the button that moves them. Also: what changed
// between a version and the latest (painted on the diagram too). A server component.
import { Allowed } from "@/components/auth/role";
import Link from "@/components/ui/link";
import type { MoveView } from "@/lib/change/move-view";
import { moveRunsAction } from "@/app/workflows/[id]/move-actions";

function MovePanelInner({ v }: { v: MoveView }) {
  const ok = v.results?.filter((r) => r.ok) ?? [];
  const not = v.results?.filter((r) => !r.ok) ?? [];
  const landing = new Map<string, number>();
  for (const r of ok) for (const s of r.to) landing.set(s, (landing.get(s) ?? 0) + 1);
  return (
    <div className="rounded-xl border border-slate-200 bg-white p-4 dark:border-slate-700 dark:bg-slate-900" data-testid="move-panel">
      <h2 className="mb-1 text-sm font-semibold">Versions and waiting runs</h2>
      {v.message && <p className="mb-2 rounded-md bg-emerald-50 px-2 py-1 text-sm text-emerald-900 dark:bg-emerald-950 dark:text-emerald-100" data-testid="move-message">{v.message}</p>}
      <p className="text-xs text-slate-600 dark:text-slate-400">
        A run keeps the version it started on. Runs waiting on an older version (a review, a timer, an event or a worker&apos;s task) can be moved to v{v.latest}: one transition, their reviews asked again.
      </p>
      <ul className="mt-2 space-y-1 text-sm">
        {v.waiting.length === 0 && <li className="text-slate-600 dark:text-slate-400">No run waits on an older version.</li>}
        {v.waiting.map((w) => (
          <li key={w.version} className="flex flex-wrap items-center gap-2">
            <span>
              {w.runs} run{w.runs === 1 ? "" : "s"} on v{w.version}
            </span>
            <Link href={`/workflows/${v.workflow}?from=${w.version}`} className="rounded-md bg-blue-600 px-2 py-0.5 text-xs font-medium text-white hover:bg-blue-700" data-testid={`move-from-${w.version}`}>
              Move runs to v{v.latest}
            </Link>
            <Link href={`/workflows/${v.workflow}?diff=${w.version}`} className="text-xs text-blue-700 underline dark:text-blue-400">
              what changed since v{w.version}
            </Link>
          </li>
        ))}
      </ul>
      {v.from !== null && v.results && (
        <div className="mt-3 border-t border-slate-100 pt-3 dark:border-slate-800" data-testid="move-dry-run">
          <h3 className="text-sm font-semibold">
            Dry run: v{v.from} → v{v.latest}
          </h3>
          {v.unmapped.length > 0 && (
            <form method="get" className="mt-2 space-y-1 text-sm" data-testid="move-map">
              <input type="hidden" name="from" value={v.from} />
              <p className="text-xs text-amber-800 dark:text-amber-300">States v{v.latest} does not have: map them to one, or their runs stay on v{v.from}.</p>
              {v.unmapped.map((s) => (
                <label key={s} className="flex items-center gap-2">
                  <span className="w-28 truncate font-mono text-xs">{s} →</span>
                  <select name={`map.${s}`} defaultValue={v.map[s] ?? ""} className="rounded-md border border-slate-300 bg-white px-1 py-0.5 text-xs dark:border-slate-600 dark:bg-slate-900">
                    <option value="">(stay on v{v.from})</option>
                    {v.targets.map((t) => (
                      <option key={t} value={t}>{t}</option>
                    ))}
                  </select>
                </label>
              ))}
              <button type="submit" className="rounded-md bg-white px-2 py-0.5 text-xs ring-1 ring-slate-300 hover:bg-slate-50 dark:bg-slate-900 dark:ring-slate-600">Dry run again</button>
            </form>
          )}
          <p className="mt-2 text-sm" data-testid="move-summary">
            {ok.length} can move{ok.length ? `: ${[...landing].map(([s, n]) => `${n} to ${v.names[s] ?? s}`).join(", ")}` : ""}; {not.length} cannot.
          </p>
          {not.length > 0 && (
            <ul className="mt-1 space-y-0.5 text-xs text-slate-600 dark:text-slate-300" data-testid="move-cannot">
              {not.map((r) => (
                <li key={r.runId}>
                  <Link href={`/runs/${r.runId}`} className="font-mono text-blue-700 underline dark:text-blue-400">{r.runId.slice(0, 8)}</Link> ({r.from.map((s) => s.split(".").at(-1)).join(", ")}): {r.reason}
                </li>
              ))}
            </ul>
          )}
          {ok.length > 0 && (
            <form action={moveRunsAction} className="mt-2">
              <input type="hidden" name="workflow" value={v.workflow} />
              <input type="hidden" name="from" value={v.from} />
              <input type="hidden" name="to" value={v.latest} />
              {Object.entries(v.map).map(([k, t]) => (
                <input key={k} type="hidden" name={`map.${k}`} value={t} />
              ))}
              <button type="submit" className="rounded-md bg-blue-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-blue-700" data-testid="move-apply">
                Move {ok.length} run{ok.length === 1 ? "" : "s"} to v{v.latest}
              </button>
            </form>
          )}
        </div>
      )}
      {v.diff && (
        <div className="mt-3 border-t border-slate-100 pt-3 text-xs dark:border-slate-800" data-testid="version-diff">
          <h3 className="mb-1 text-sm font-semibold">
            v{v.diff.a} → v{v.diff.b}
          </h3>
          <p>States added: {v.diff.states.added.join(", ") || "none"}; removed: {v.diff.states.removed.join(", ") || "none"}; changed: {v.diff.states.changed.map((c) => `${c.name} (${c.changes.join(", ")})`).join("; ") || "none"}.</p>
          <p>Steps added: {v.diff.steps.added.join(", ") || "none"}; removed: {v.diff.steps.removed.join(", ") || "none"}; changed: {v.diff.steps.changed.map((c) => `${c.stage} (${c.changes.join(", ")})`).join("; ") || "none"}.</p>
        </div>
      )}
    </div>
  );
}

/** offered to admins and above; others see why not */
export function MovePanel(props: Parameters<typeof MovePanelInner>[0]) {
  return (
    <Allowed need="admin">
      <MovePanelInner {...props} />
    </Allowed>
  );
}
