// domain-agent's personal log: the page /log (its entry's pages.log; app/[page]/page.tsx renders it
// through pageOf("log"), after checking the viewer). Entries, the global context and the observer's decisions.
import Link from "@/components/ui/link";
import { EntriesQuery } from "./api";
import { DOMAINS } from "./domains";
import { listEntries, listObservations, listProfile, type Observation } from "./domains/store";
import type { LogEntry } from "./domains/types";
import { formatTime, shortId } from "@/lib/format";
import { getRuntime } from "@/lib/runtime";
import { DomainBadge, MetricChip, SignificantMarker, TriggerChip } from "./log/log-badges";
import { ProfileFacts } from "./log/profile-facts";
import { TableHead } from "@/components/ui/table-head";
import { domainAgent } from "./machine";

export const metadata = { title: "Log" };

export type Search = { domain?: string | string[]; from?: string | string[]; to?: string | string[] };

const LIMIT = 500;
const OBSERVATIONS = 20;

const one = (v: string | string[] | undefined) => (typeof v === "string" ? v.trim() : "");

function weekday(day: string): string {
  return new Date(`${day}T12:00:00Z`).toLocaleDateString("en-GB", { weekday: "short", timeZone: "UTC" });
}

const inputClass = "h-9 rounded-lg border border-slate-300 dark:border-slate-600 bg-white dark:bg-slate-900 px-2 text-sm shadow-sm focus:border-blue-500 focus:outline-none focus:ring-2 focus:ring-blue-500/20";

function Filters({ domain, from, to, active }: { domain: string; from: string; to: string; active: boolean }) {
  return (
    <form method="get" action="/log" className="flex flex-wrap items-end gap-2" data-testid="log-filters">
      <div>
        <label htmlFor="log-domain" className="block text-[11px] font-medium text-slate-600 dark:text-slate-400">Domain</label>
        <select id="log-domain" name="domain" defaultValue={domain} className={`mt-0.5 w-40 ${inputClass}`}>
          <option value="">All domains</option>
          {DOMAINS.map((d) => (
            <option key={d.id} value={d.id}>
              {d.title}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label htmlFor="log-from" className="block text-[11px] font-medium text-slate-600 dark:text-slate-400">From</label>
        <input id="log-from" type="date" name="from" defaultValue={from} className={`mt-0.5 ${inputClass}`} />
      </div>
      <div>
        <label htmlFor="log-to" className="block text-[11px] font-medium text-slate-600 dark:text-slate-400">To</label>
        <input id="log-to" type="date" name="to" defaultValue={to} className={`mt-0.5 ${inputClass}`} />
      </div>
      <button type="submit" className="h-9 rounded-lg bg-slate-900 px-4 text-sm font-medium text-white dark:bg-slate-200 dark:text-slate-900 hover:bg-slate-700">Filter</button>
      {active && (
        <Link href="/log" className="flex h-9 items-center rounded-lg px-3 text-sm text-slate-600 dark:text-slate-400 hover:bg-slate-100 dark:hover:bg-slate-800">
          Clear
        </Link>
      )}
    </form>
  );
}

function EntryRow({ entry, firstOfDay }: { entry: LogEntry; firstOfDay: boolean }) {
  return (
    <tr className={`align-top hover:bg-slate-50 dark:hover:bg-slate-800/60 ${firstOfDay ? "border-t border-slate-200 dark:border-slate-700" : ""}`} data-testid="log-entry" data-entry={entry.id}>
      <td className="whitespace-nowrap px-3 py-2">
        {firstOfDay && (
          <>
            <div className="font-mono text-xs font-semibold text-slate-800 dark:text-slate-200">{entry.day}</div>
            <div className="text-[11px] text-slate-600 dark:text-slate-400">{weekday(entry.day)}</div>
          </>
        )}
      </td>
      <td className="px-3 py-2">
        <div className="whitespace-pre-wrap break-words text-slate-900 dark:text-slate-100">{entry.text}</div>
        {entry.significant && <SignificantMarker reason={entry.significant} />}
      </td>
      <td className="px-3 py-2">
        {entry.metrics.length === 0 ? (
          <span className="text-xs text-slate-300">—</span>
        ) : (
          <div className="flex flex-wrap gap-1">
            {entry.metrics.map((m, i) => (
              <MetricChip key={`${m.name}-${i}`} metric={m} />
            ))}
          </div>
        )}
      </td>
      <td className="px-3 py-2">
        <div className="flex flex-wrap gap-1">
          {entry.domains.map((d) => (
            <DomainBadge key={d} domain={d} />
          ))}
        </div>
      </td>
      <td className="whitespace-nowrap px-3 py-2 text-xs">
        {entry.runId ? (
          <Link href={`/runs/${entry.runId}`} className="font-mono text-blue-700 dark:text-blue-400 underline" title={`logged by run ${entry.runId}, ${formatTime(entry.createdAt)}`}>
            {shortId(entry.runId)}
          </Link>
        ) : (
          <span className="text-slate-600 dark:text-slate-400">—</span>
        )}
      </td>
    </tr>
  );
}

function EmptyLog() {
  return (
    <div className="px-6 py-12 text-center" data-testid="log-empty">
      <p className="text-sm font-medium text-slate-800 dark:text-slate-200">Nothing logged yet.</p>
      <p className="mx-auto mt-1 max-w-lg text-sm text-slate-600 dark:text-slate-400">
        To log, start a{" "}
        <Link href={`/workflows/${domainAgent.id}`} className="font-medium text-blue-700 dark:text-blue-400 underline">
          {domainAgent.id} run
        </Link>{" "}
        with text like <span className="whitespace-nowrap font-medium text-slate-700 dark:text-slate-300">‘ran 8 km, legs heavy, slept 6 h’</span>. Each line becomes an entry here, with its metrics and domains.
      </p>
      <Link href={`/workflows/${domainAgent.id}`} className="mt-4 inline-flex h-9 items-center rounded-lg bg-slate-900 px-4 text-sm font-medium text-white dark:bg-slate-200 dark:text-slate-900 hover:bg-slate-700">
        Start a {domainAgent.id} run
      </Link>
    </div>
  );
}

function ObservationItem({ o }: { o: Observation }) {
  return (
    <li className="px-4 py-3" data-testid="observation" data-decision={o.decision}>
      <div className="flex flex-wrap items-center gap-1.5">
        <span
          className={`rounded-full px-2 py-0.5 text-[11px] font-semibold ${o.decision === "update" ? "bg-emerald-100 text-emerald-800" : "bg-slate-100 dark:bg-slate-800 text-slate-600"}`}
          title={o.decision === "update" ? "the global context was updated" : "the global context was left as it was"}
        >
          {o.decision === "update" ? "updated" : "skipped"}
        </span>
        {o.triggers.map((t) => (
          <TriggerChip key={t} trigger={t} />
        ))}
      </div>
      <p className="mt-1 text-sm text-slate-700 dark:text-slate-300">{o.reason || <span className="text-slate-600 dark:text-slate-400">no reason recorded</span>}</p>
      {o.changes.length > 0 && (
        <ul className="mt-1 space-y-0.5">
          {o.changes.map((c, i) => (
            <li key={`${c.key}-${i}`} className="font-mono text-[11px] text-slate-600 dark:text-slate-400">
              <span className="font-semibold text-slate-800 dark:text-slate-200">{c.key}</span>: {c.from === null ? <span className="text-slate-600 dark:text-slate-400">(new)</span> : <span className="line-through decoration-slate-400">{c.from}</span>} →{" "}
              <span className="text-emerald-800">{c.to}</span>
            </li>
          ))}
        </ul>
      )}
      <div className="mt-1 flex flex-wrap items-center gap-x-1.5 text-[11px] text-slate-600 dark:text-slate-400">
        <span className="whitespace-nowrap">{formatTime(o.createdAt)}</span>
        <span aria-hidden>·</span>
        <Link href={`/runs/${o.runId}`} className="font-mono text-blue-700 dark:text-blue-400 underline">
          run {shortId(o.runId)}
        </Link>
      </div>
    </li>
  );
}

export default async function LogPage({ searchParams }: { searchParams: Promise<Search> }) {
  const sp = await searchParams;
  const raw = { domain: one(sp.domain), from: one(sp.from), to: one(sp.to) };
  const active = Boolean(raw.domain || raw.from || raw.to);
  const parsed = EntriesQuery.safeParse({ ...(raw.domain ? { domain: raw.domain } : {}), ...(raw.from ? { from: raw.from } : {}), ...(raw.to ? { to: raw.to } : {}) });
  const problems = parsed.success ? [] : parsed.error.issues.map((i) => i.message);

  const rt = await getRuntime();
  const [entries, facts, observations] = await Promise.all([
    parsed.success ? listEntries(rt.db, { domain: parsed.data.domain, from: parsed.data.from, to: parsed.data.to, limit: LIMIT }) : Promise.resolve([]),
    listProfile(rt.db),
    listObservations(rt.db, { limit: OBSERVATIONS }),
  ]);
  const significant = entries.filter((e) => e.significant).length;
  const domainTitle = DOMAINS.find((d) => d.id === parsed.data?.domain)?.title;

  return (
    <div className="grid gap-6 lg:grid-cols-[minmax(0,1fr)_400px]">
      <section className="min-w-0 space-y-4">
        <div>
          <h1 className="text-xl font-semibold tracking-tight">Log</h1>
          <p className="text-sm text-slate-600 dark:text-slate-400">Your training, recovery, nutrition, sleep and mood, as the domain agent recorded it from what you wrote.</p>
        </div>

        <Filters domain={raw.domain} from={raw.from} to={raw.to} active={active} />

        {problems.length > 0 && (
          <p className="rounded-lg bg-red-50 px-3 py-2 text-sm text-red-700 dark:text-red-300 dark:bg-red-950" role="alert" data-testid="log-filter-error">
            {problems.join("; ")}. Fix the filter to see entries.
          </p>
        )}

        <div tabIndex={0} className="overflow-x-auto rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900">
          <div className="flex flex-wrap items-center justify-between gap-2 border-b border-slate-200 dark:border-slate-700 px-4 py-2">
            <h2 className="text-sm font-semibold">
              Entries
              {domainTitle && <span className="font-normal text-slate-600 dark:text-slate-400"> · {domainTitle}</span>}
            </h2>
            {(entries.length > 0 || active) && (
              <span className="text-xs text-slate-600 dark:text-slate-400">
                {entries.length === LIMIT ? `the latest ${LIMIT}` : `${entries.length} entr${entries.length === 1 ? "y" : "ies"}`}
                {significant > 0 && `, ${significant} significant`} · newest day first
              </span>
            )}
          </div>
          {entries.length === 0 && !active && problems.length === 0 ? (
            <EmptyLog />
          ) : (
            <table className="w-full min-w-[760px] text-sm" data-testid="log-entries">
              <TableHead variant="boxed" columns={["Day", "Entry", "Metrics", "Domains", "Run"]} />
              <tbody>
                {entries.length === 0 && (
                  <tr>
                    <td colSpan={5} className="px-3 py-10 text-center text-slate-600 dark:text-slate-400">
                      {problems.length > 0 ? (
                        "No entries shown: the filter is not valid."
                      ) : (
                        <>
                          No entries match these filters.{" "}
                          <Link href="/log" className="text-blue-700 dark:text-blue-400 underline">
                            Show the whole log
                          </Link>
                        </>
                      )}
                    </td>
                  </tr>
                )}
                {entries.map((e, i) => (
                  <EntryRow key={e.id} entry={e} firstOfDay={i === 0 || entries[i - 1]!.day !== e.day} />
                ))}
              </tbody>
            </table>
          )}
        </div>
      </section>

      <aside className="space-y-4">
        <div className="rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900" data-testid="global-context">
          <div className="border-b border-slate-200 dark:border-slate-700 px-4 py-2">
            <h2 className="text-sm font-semibold">Global context</h2>
            <p className="text-[11px] text-slate-600 dark:text-slate-400">What the assistant knows about you and uses in every answer. The observer keeps it current; correct anything here.</p>
          </div>
          <ProfileFacts facts={facts} domains={DOMAINS.map((d) => ({ id: d.id, title: d.title }))} />
        </div>

        <div className="rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900" data-testid="observations">
          <div className="flex items-center justify-between border-b border-slate-200 dark:border-slate-700 px-4 py-2">
            <h2 className="text-sm font-semibold">Observer decisions</h2>
            <span className="text-xs text-slate-600 dark:text-slate-400">latest {OBSERVATIONS}</span>
          </div>
          {observations.length === 0 ? (
            <p className="px-4 py-6 text-center text-sm text-slate-600 dark:text-slate-400">No decisions yet. After a run, the observer records whether it updated the global context and why.</p>
          ) : (
            <ul className="divide-y divide-slate-100 dark:divide-slate-800">
              {observations.map((o) => (
                <ObservationItem key={o.id} o={o} />
              ))}
            </ul>
          )}
        </div>
      </aside>
    </div>
  );
}
