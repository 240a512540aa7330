// The dashboard's search: free text over inputs and outputs, a date range, runs waiting for a
// person longer than N minutes, retrying runs, runs that failed in a given state, live runs in a
// state (or one inside it), waiting on a review, a timer, a worker's task, an event or an effect, or
// with a task unclaimed longer than N minutes. A plain GET
// form: every filter lives in the URL, so a search can be saved, shared and reloaded.
import Link from "@/components/ui/link";

export interface FilterValues {
  q?: string;
  from?: string;
  to?: string;
  waitingLongerThan?: string;
  retrying?: string;
  failedIn?: string;
  /** a state id: live runs in it or in a state inside it */
  state?: string;
  /** a comma list of kinds: review, timer, task, event, effect */
  waitingFor?: string;
  unclaimedLongerThan?: string;
}

const KINDS = ["review", "timer", "task", "event", "effect"] as const;

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
      <label className="flex flex-col gap-0.5">
        In state
        <input name="state" defaultValue={values.state} placeholder="e.g. HUMAN_REVIEW" className={`${input} w-36`} data-testid="filter-state" />
      </label>
      <fieldset className="flex flex-col gap-0.5">
        <legend>Waiting on</legend>
        <span className="flex flex-wrap gap-x-2 pt-1">
          {KINDS.map((k) => (
            <label key={k} className="flex items-center gap-1">
              <input type="checkbox" name="waitingFor" value={k} defaultChecked={values.waitingFor?.split(",").includes(k)} data-testid={`filter-waiting-${k}`} /> {k}
            </label>
          ))}
        </span>
      </fieldset>
      <label className="flex flex-col gap-0.5">
        Task unclaimed longer than (min)
        <input type="number" min={0} name="unclaimedLongerThan" defaultValue={values.unclaimedLongerThan} className={`${input} w-28`} data-testid="filter-unclaimed" />
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
