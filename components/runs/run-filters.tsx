// The dashboard's search: free text over inputs and outputs, a date range, runs waiting for a
// person longer than N minutes, retrying runs, runs that failed in a given state. A plain GET
// form: every filter lives in the URL, so a search can be saved, shared and reloaded.
import Link from "next/link";

export interface FilterValues {
  q?: string;
  from?: string;
  to?: string;
  waitingLongerThan?: string;
  retrying?: string;
  failedIn?: string;
}

export function RunFilters({ values, keep, error }: { values: FilterValues; keep: Record<string, string | undefined>; error: string | null }) {
  const active = Object.values(values).some(Boolean);
  const input = "rounded-md border border-slate-300 dark:border-slate-600 bg-white dark:bg-slate-900 px-2 py-1 text-sm";
  return (
    <form method="get" action="/" className="flex flex-wrap items-end gap-2 rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-3 text-xs text-slate-600 dark:text-slate-400" data-testid="run-filters">
      {Object.entries(keep).map(([k, v]) => (v ? <input key={k} type="hidden" name={k} value={v} /> : null))}
      <label className="flex min-w-[200px] flex-1 flex-col gap-0.5">
        Search inputs and outputs
        <input name="q" defaultValue={values.q} placeholder="e.g. retry, auth module, run id" className={input} />
      </label>
      <label className="flex flex-col gap-0.5">
        From
        <input type="date" name="from" defaultValue={values.from} className={input} />
      </label>
      <label className="flex flex-col gap-0.5">
        To (before)
        <input type="date" name="to" defaultValue={values.to} className={input} />
      </label>
      <label className="flex flex-col gap-0.5">
        Waiting for a person longer than (min)
        <input type="number" min={0} name="waitingLongerThan" defaultValue={values.waitingLongerThan} className={`${input} w-28`} />
      </label>
      <label className="flex flex-col gap-0.5">
        Failed in state
        <input name="failedIn" defaultValue={values.failedIn} placeholder="e.g. EXECUTING" className={`${input} w-36`} />
      </label>
      <label className="flex items-center gap-1 pb-1.5">
        <input type="checkbox" name="retrying" value="true" defaultChecked={values.retrying === "true"} /> retrying
      </label>
      <button className="rounded-md bg-slate-900 px-3 py-1.5 text-sm text-white dark:bg-slate-200 dark:text-slate-900 hover:bg-slate-700">Search</button>
      {active && (
        <Link href={`/?${new URLSearchParams(Object.entries(keep).filter((e): e is [string, string] => !!e[1])).toString()}`} className="pb-1.5 text-blue-700 dark:text-blue-400 underline">
          clear
        </Link>
      )}
      {error && <p className="w-full text-red-700 dark:text-red-400" role="alert">{error}</p>}
    </form>
  );
}
