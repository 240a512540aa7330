import Link from "@/components/ui/link";
import { listRuns } from "@/lib/api/runs";
import { RUN_STATUSES, RunListQuery } from "@/lib/api/schemas";
import { RunFilters, type FilterValues } from "@/components/runs/run-filters";
import { RunsGantt } from "@/components/runs/runs-gantt";
import { BulkBar } from "@/components/runs/bulk-bar";
import { formatDuration, shortId } from "@/lib/format";
import { findWorkflow, listWorkflows } from "@/lib/machines/registry";
import { runName } from "@/lib/machines/run-name";
import { Ago } from "@/components/ui/since";
import { getRuntime } from "@/lib/runtime";
import type { RunStatus } from "@/lib/engine/store/types";
import { NewRunForm } from "@/components/runs/new-run-form";
import { inputPlaceholder } from "@/components/runs/input-placeholder";
import type { WorkflowDefinition } from "@/lib/machines/types";
import { LiveRefresh } from "@/components/ui/live-refresh";
import { StatusBadge, WaitingBadge } from "@/components/ui/status-badge";
import { TableHead } from "@/components/ui/table-head";
import { requireViewer } from "@/app/session";
import { atLeast } from "@/lib/auth/roles";
import { startable, workflowSwitches } from "@/lib/flows/status";

export const dynamic = "force-dynamic";

type Search = { status?: string; workflow?: string; waiting?: string; page?: string; view?: string; scheduleId?: string; replays?: string } & Omit<FilterValues, "waitingFor"> & { waitingFor?: string | string[] };

function href(base: Search, change: Partial<Search>) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...base, ...change, ...(change.page === undefined ? { page: undefined } : {}) })) if (v) q.set(k, Array.isArray(v) ? v.join(",") : v);
  const s = q.toString();
  return s ? `/?${s}` : "/";
}

function placeholdersOf(w: WorkflowDefinition): Record<string, string> {
  const example = w.example && typeof w.example === "object" ? (w.example as Record<string, unknown>) : {};
  return Object.fromEntries(Object.keys(example).filter((f) => typeof example[f] === "string").map((f) => [f, inputPlaceholder(w, f)]));
}

export default async function Dashboard({ searchParams }: { searchParams: Promise<Search> }) {
  const who = await requireViewer();
  // accounts on: only operators and admins start runs (the form shows others why not)
  const canStart = !who || atLeast(who.role, "operator");
  const sp = await searchParams;
  const status = RUN_STATUSES.includes(sp.status as RunStatus) ? (sp.status as RunStatus) : undefined;
  const rt = await getRuntime();
  const switches = await workflowSwitches(rt.db);
  // deleted workflows leave the lists; disabled ones are not offered for new runs
  const workflows = listWorkflows().filter((w) => !switches.get(w.id)?.deletedAt);
  const offered = workflows.filter((w) => startable(switches.get(w.id)));
  const workflow = workflows.some((w) => w.id === sp.workflow) ? sp.workflow : undefined;
  const waiting = sp.waiting === "1";
  const page = Math.max(1, Number(sp.page) || 1);
  const pageSize = 25;
  // the search filters, validated like GET /api/runs; a bad one is reported and left out
  // (a form's ticked kinds arrive as waitingFor=a&waitingFor=b, a link's as one comma list)
  const waitingFor = ([] as string[]).concat(sp.waitingFor ?? []).join(",") || undefined;
  const raw: FilterValues = { q: sp.q || undefined, from: sp.from || undefined, to: sp.to || undefined, waitingLongerThan: sp.waitingLongerThan || undefined, retrying: sp.retrying || undefined, failedIn: sp.failedIn || undefined, state: sp.state || undefined, waitingFor, unclaimedLongerThan: sp.unclaimedLongerThan || undefined };
  const parsed = RunListQuery.pick({ q: true, from: true, to: true, waitingLongerThan: true, retrying: true, failedIn: true, state: true, waitingFor: true, unclaimedLongerThan: true }).safeParse(raw);
  const filters = parsed.success ? { ...parsed.data, retrying: parsed.data.retrying === "true" || undefined } : {};
  const filterError = parsed.success ? null : parsed.error.issues.map((i) => `${String(i.path[0])}: ${i.message}`).join("; ");
  // runs one schedule started (the Schedules page links here)
  const scheduleId = RunListQuery.shape.scheduleId.safeParse(sp.scheduleId).data;
  const schedule = scheduleId ? await rt.schedules.rows.get(scheduleId) : null;
  const replays = sp.replays === "1";
  const { runs, total, counts } = await listRuns(rt, { status: status ? [status] : undefined, workflow, waiting: waiting || undefined, ...filters, scheduleId, replays: replays || undefined, limit: pageSize, offset: (page - 1) * pageSize });
  const now = rt.clock.now();
  // the list's filter as GET /api/runs takes it: what "all matching this filter" acts on
  const bulkFilter = Object.fromEntries(
    Object.entries({ status, workflow, waiting: waiting ? "true" : undefined, scheduleId, replays: replays ? "1" : undefined, ...(parsed.success ? raw : {}) }).filter((e): e is [string, string] => typeof e[1] === "string" && e[1] !== ""),
  );
  // replay and evaluation runs are counted apart: in "all" only while they are listed
  const all = Object.values(counts).reduce((a, b) => a + b, 0) - (replays ? 0 : counts.replay);
  return (
    <div className="grid gap-6 lg:grid-cols-[1fr_320px]">
      <LiveRefresh />
      <section className="min-w-0 space-y-4">
        <div className="flex items-start justify-between gap-3">
          <div className="min-w-0">
            <h1 className="text-xl font-semibold tracking-tight">Runs</h1>
            <p className="text-sm text-slate-600 dark:text-slate-400">Every workflow run, live. Runs waiting on a person are marked.</p>
          </div>
          {/* on a phone the form sits below the list: this jumps to it */}
          {canStart && <a href="#new-run" className="shrink-0 rounded-md bg-blue-600 px-3 py-2 text-sm font-medium text-white hover:bg-blue-700 lg:hidden" data-testid="new-run-jump">
            + New run
          </a>}
        </div>
        <div className="flex flex-wrap gap-2" data-testid="status-counts">
          <Link href={href(sp, { status: undefined })} className={`rounded-lg border px-3 py-2 text-left ${!status ? "border-slate-900 dark:border-slate-200 bg-white dark:bg-slate-900" : "border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 hover:border-slate-400"}`}>
            <div className="text-lg font-semibold leading-none">{all}</div>
            <div className="mt-1 text-xs text-slate-600 dark:text-slate-400">all</div>
          </Link>
          {RUN_STATUSES.map((s) => (
            <Link key={s} href={href(sp, { status: status === s ? undefined : s })} data-count={s} className={`rounded-lg border px-3 py-2 text-left ${status === s ? "border-slate-900 dark:border-slate-200 bg-white dark:bg-slate-900" : "border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 hover:border-slate-400"}`}>
              <div className="text-lg font-semibold leading-none">{counts[s]}</div>
              <div className="mt-1 text-xs text-slate-600 dark:text-slate-400">{s}</div>
            </Link>
          ))}
        </div>
        <div className="flex flex-wrap items-center gap-2 text-sm">
          <span className="text-slate-600 dark:text-slate-400">Workflow:</span>
          <Link href={href(sp, { workflow: undefined })} className={`rounded-md px-2 py-1 ${!workflow ? "bg-slate-900 text-white dark:bg-slate-200 dark:text-slate-900" : "bg-white dark:bg-slate-900 text-slate-700 dark:text-slate-300 ring-1 ring-slate-200 dark:ring-slate-700"}`}>any</Link>
          {workflows.map((w) => (
            <Link key={w.id} href={href(sp, { workflow: w.id })} className={`rounded-md px-2 py-1 ${workflow === w.id ? "bg-slate-900 text-white dark:bg-slate-200 dark:text-slate-900" : "bg-white dark:bg-slate-900 text-slate-700 dark:text-slate-300 ring-1 ring-slate-200 dark:ring-slate-700"}`}>{w.id}</Link>
          ))}
          <Link href={href(sp, { waiting: waiting ? undefined : "1" })} className={`ml-auto rounded-md px-2 py-1 ${waiting ? "bg-emerald-600 text-white" : "bg-white dark:bg-slate-900 text-emerald-700 dark:text-emerald-400 ring-1 ring-emerald-200"}`}>
            {waiting ? "✓ " : ""}waiting for you
          </Link>
          <Link href={href(sp, { replays: replays ? undefined : "1" })} data-testid="replays-toggle" title="Replays and evaluation runs are left out of the list, counts and metrics unless shown here" className={`rounded-md px-2 py-1 ${replays ? "bg-amber-600 text-white" : "bg-white dark:bg-slate-900 text-amber-800 dark:text-amber-300 ring-1 ring-amber-200 dark:ring-amber-800"}`}>
            {replays ? "✓ " : ""}replays ({counts.replay})
          </Link>
        </div>
        {scheduleId && (
          <p className="text-sm" data-testid="schedule-filter">
            Runs started by the schedule <strong>{schedule?.name ?? "(deleted)"}</strong>{" "}
            <Link href={href(sp, { scheduleId: undefined })} className="text-blue-700 underline dark:text-blue-300">
              show all runs
            </Link>
          </p>
        )}
        <RunFilters values={raw} keep={{ status: sp.status, workflow: sp.workflow, waiting: sp.waiting, view: sp.view, scheduleId }} error={filterError} />
        <div className="flex gap-1 text-sm" data-testid="view-switch">
          <Link href={href(sp, { view: undefined, page: sp.page })} className={`rounded-md px-2 py-1 ${sp.view !== "timeline" ? "bg-slate-900 text-white dark:bg-slate-200 dark:text-slate-900" : "bg-white dark:bg-slate-900 ring-1 ring-slate-200 dark:ring-slate-700"}`}>Table</Link>
          <Link href={href(sp, { view: "timeline", page: sp.page })} className={`rounded-md px-2 py-1 ${sp.view === "timeline" ? "bg-slate-900 text-white dark:bg-slate-200 dark:text-slate-900" : "bg-white dark:bg-slate-900 ring-1 ring-slate-200 dark:ring-slate-700"}`}>Timeline</Link>
        </div>
        {sp.view === "timeline" && <RunsGantt runs={runs} now={now} />}
        {sp.view !== "timeline" && <BulkBar filter={bulkFilter} total={total} />}
        {/* tick two runs, then Compare (a plain form: /compare redirects to /runs/{a}/compare/{b}) */}
        <form id="compare-form" action="/compare" className={`flex flex-wrap items-center gap-2 text-xs text-slate-600 dark:text-slate-400 ${sp.view === "timeline" ? "hidden" : ""}`} data-testid="compare-form">
          <span>Tick two runs to see where they went apart:</span>
          <button type="submit" className="rounded-md bg-white px-2 py-1 font-medium text-slate-800 ring-1 ring-slate-300 hover:bg-slate-50 dark:bg-slate-900 dark:text-slate-200 dark:ring-slate-600 dark:hover:bg-slate-800">Compare</button>
        </form>
        <div tabIndex={0} className={`overflow-x-auto rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 ${sp.view === "timeline" ? "hidden" : ""}`}>
          <table className="w-full table-fixed text-sm md:table-auto" data-testid="runs-table">
            <TableHead
              variant="boxed"
              columns={[
                { label: "Run", className: "w-[46%] md:w-auto" },
                { label: "Workflow", className: "hidden md:table-cell" },
                { label: "Status", className: "w-[22%] md:w-auto" },
                "Current state",
                { label: "Started", className: "hidden md:table-cell" },
                { label: "Duration", className: "hidden lg:table-cell" },
              ]}
            />
            <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
              {runs.length === 0 && (
                <tr>
                  <td colSpan={6} className="px-3 py-10 text-center text-slate-600 dark:text-slate-400">No runs {status || workflow || waiting || Object.values(filters).some((v) => v !== undefined) ? "match these filters" : "yet: start one with the form"}.</td>
                </tr>
              )}
              {runs.map((r) => {
                const def = findWorkflow(r.workflow, r.input);
                const name = runName(def, r);
                return (
                  <tr key={r.id} className="align-top hover:bg-slate-50 dark:hover:bg-slate-800/60" data-run={r.id}>
                    <td className="px-3 py-2">
                      <div className="flex min-w-0 items-start gap-2">
                        <input type="checkbox" name="pick" value={r.id} form="compare-form" aria-label={`Select ${name ?? shortId(r.id)}`} className="mt-1 h-4 w-4 shrink-0" data-testid="compare-pick" />
                        <Link href={`/runs/${r.id}`} className="line-clamp-2 min-w-0 break-words text-blue-700 dark:text-blue-400 underline" data-testid="run-name" title={name ?? r.id}>
                          {name ?? <span className="font-mono">{shortId(r.id)}</span>}
                        </Link>
                      </div>
                      {name && <span className="font-mono text-[11px] text-slate-600 dark:text-slate-400">{shortId(r.id)}</span>}
                      {r.replayOf && (
                        <span className="ml-1 rounded bg-amber-100 px-1 text-[11px] text-amber-900 dark:bg-amber-900 dark:text-amber-100" data-testid="replay-badge">
                          {r.replay?.eval ? "evaluation case" : "replay"} of {shortId(r.replayOf)}
                        </span>
                      )}
                      <span className="text-[11px] text-slate-600 md:hidden dark:text-slate-400"> · {def?.title ?? r.workflow} · <Ago at={r.createdAt} now={now} /></span>
                    </td>
                    <td className="hidden px-3 py-2 text-slate-700 dark:text-slate-300 md:table-cell">{def?.title ?? r.workflow}</td>
                    <td className="px-3 py-2">
                      <div className="flex flex-wrap items-center gap-1.5">
                        <StatusBadge status={r.status} />
                        {r.reviewId && <WaitingBadge />}
                      </div>
                    </td>
                    <td className="break-all px-3 py-2 font-mono text-xs text-slate-800 dark:text-slate-200" title={r.state.join(", ")}>{r.state.join(", ")}</td>
                    <td className="hidden px-3 py-2 text-xs text-slate-600 dark:text-slate-400 md:table-cell"><Ago at={r.createdAt} now={now} /></td>
                    <td className="hidden px-3 py-2 text-xs text-slate-600 dark:text-slate-400 lg:table-cell">{formatDuration((r.finishedAt ? Date.parse(r.finishedAt) : now) - Date.parse(r.createdAt))}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
        {total > pageSize && (
          <div className="flex items-center justify-between text-sm text-slate-600 dark:text-slate-400">
            <span>
              {(page - 1) * pageSize + 1}–{Math.min(total, page * pageSize)} of {total}
            </span>
            <div className="flex gap-2">
              {page > 1 && <Link className="rounded-md bg-white dark:bg-slate-900 px-3 py-1 ring-1 ring-slate-200 dark:ring-slate-700" href={href(sp, { page: String(page - 1) })}>Previous</Link>}
              {page * pageSize < total && <Link className="rounded-md bg-white dark:bg-slate-900 px-3 py-1 ring-1 ring-slate-200 dark:ring-slate-700" href={href(sp, { page: String(page + 1) })}>Next</Link>}
            </div>
          </div>
        )}
      </section>
      <aside className="space-y-4">
        <div id="new-run" className="scroll-mt-16 rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-4">
          <h2 className="mb-3 text-sm font-semibold">New run</h2>
          <NewRunForm
            key={workflow ?? ""}
            initial={offered.some((w) => w.id === workflow) ? workflow : undefined}
            workflows={offered.map((w) => ({ id: w.id, title: w.title, example: w.example ?? {}, choices: w.inputChoices ?? {}, placeholders: placeholdersOf(w), ...(w.inputFields ? { fields: w.inputFields } : {}) }))}
          />
        </div>
        <div className="rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-4 text-xs text-slate-600 dark:text-slate-400">
          <h2 className="mb-2 text-sm font-semibold text-slate-800 dark:text-slate-200">Workflows</h2>
          <ul className="space-y-1.5">
            {workflows.map((w) => (
              <li key={w.id}>
                <Link href={`/workflows/${w.id}`} className="text-blue-700 dark:text-blue-400 underline">{w.title}</Link> <span className="font-mono text-xs text-slate-600 dark:text-slate-400">{w.id}</span>
              </li>
            ))}
          </ul>
        </div>
      </aside>
    </div>
  );
}
