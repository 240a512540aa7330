"use client";
// The inbox's filters, search and order (kept in the URL by the inbox).
import type { InboxFilter, Sort } from "./inbox-filter";
import { humanize } from "@/lib/format";

const field = "mt-0.5 block h-8 rounded-md border border-slate-300 bg-white px-2 text-sm font-normal text-slate-900 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100";
const label = "text-xs font-medium text-slate-700 dark:text-slate-200";

export function InboxFilters({ filter, onChange, workflows, kinds, groups, dated, total, shown }: { filter: InboxFilter; onChange: (f: InboxFilter) => void; workflows: [string, string][]; kinds: string[]; groups: string[]; dated: boolean; total: number; shown: number }) {
  const set = (patch: Partial<InboxFilter>) => onChange({ ...filter, ...patch });
  const blank = (v: string) => v || undefined;
  const filtered = !!(filter.workflow || filter.kind || filter.assigned || filter.overdue || filter.q);
  return (
    <form role="search" aria-label="Filter reviews" className="flex flex-wrap items-end gap-2" data-testid="inbox-filters" onSubmit={(e) => e.preventDefault()}>
      <label className={label}>
        Search
        <input id="inbox-search" type="search" value={filter.q ?? ""} onChange={(e) => set({ q: blank(e.target.value) })} placeholder="run, state, prompt…" aria-keyshortcuts="/" className={`${field} w-48`} />
      </label>
      <label className={label}>
        Workflow
        <select value={filter.workflow ?? ""} onChange={(e) => set({ workflow: blank(e.target.value) })} className={field}>
          <option value="">all</option>
          {workflows.map(([id, title]) => (
            <option key={id} value={id}>
              {title}
            </option>
          ))}
          {filter.workflow && !workflows.some(([id]) => id === filter.workflow) && <option value={filter.workflow}>{filter.workflow}</option>}
        </select>
      </label>
      <label className={label}>
        Kind
        <select value={filter.kind ?? ""} onChange={(e) => set({ kind: blank(e.target.value) })} className={field}>
          <option value="">all</option>
          {kinds.map((k) => (
            <option key={k} value={k}>
              {humanize(k)}
            </option>
          ))}
          {filter.kind && !kinds.includes(filter.kind) && <option value={filter.kind}>{humanize(filter.kind)}</option>}
        </select>
      </label>
      {(groups.length > 0 || filter.assigned) && (
        <label className={label}>
          Assigned
          <select value={filter.assigned ?? ""} onChange={(e) => set({ assigned: blank(e.target.value) })} className={field}>
            <option value="">anyone</option>
            <option value="me">me</option>
            {[...new Set([...groups, ...(filter.assigned && filter.assigned !== "me" ? [filter.assigned] : [])])].map((g) => (
              <option key={g} value={g}>
                {g}
              </option>
            ))}
          </select>
        </label>
      )}
      {(dated || filter.overdue) && (
        <label className={`${label} flex h-8 items-center gap-1.5 self-end`}>
          <input type="checkbox" checked={!!filter.overdue} onChange={(e) => set({ overdue: e.target.checked || undefined })} className="h-4 w-4" />
          Overdue only
        </label>
      )}
      <label className={label}>
        Order
        <select value={filter.sort} onChange={(e) => set({ sort: e.target.value as Sort })} className={field}>
          <option value="age">oldest first</option>
          <option value="due">due soonest</option>
        </select>
      </label>
      <p className="self-end pb-1.5 text-xs text-slate-600 dark:text-slate-300" data-testid="inbox-count">
        {filtered ? `${shown} of ${total}` : `${total} waiting`}
        {filtered && (
          <>
            {" · "}
            <button type="button" onClick={() => onChange({ sort: filter.sort })} className="font-medium text-blue-700 underline dark:text-blue-300">
              clear filters
            </button>
          </>
        )}
      </p>
    </form>
  );
}
