import { currentUser, requireViewer } from "@/app/session";
import { NewSchedule } from "@/components/schedules/new-schedule";
import { ScheduleCard, type ScheduleCardData } from "@/components/schedules/schedule-card";
import type { WorkflowOption } from "@/components/schedules/schedule-form";
import { atLeast, authEnabled } from "@/lib/auth/roles";
import { findWorkflow, listWorkflows, userVersions } from "@/lib/machines/registry";
import { getRuntime } from "@/lib/runtime";
import { localTime } from "@/lib/schedules/cron";
import type { Schedule } from "@/lib/schedules/types";

export const dynamic = "force-dynamic";
export const metadata = { title: "Schedules" };

const zones = (() => {
  try {
    return Intl.supportedValuesOf("timeZone");
  } catch {
    return ["UTC"];
  }
})();

export default async function SchedulesPage() {
  await requireViewer();
  const who = await currentUser();
  const canManage = !authEnabled() || (who !== null && atLeast(who.role, "operator"));
  const rt = await getRuntime();
  const schedules = await rt.schedules.list();
  const workflows: WorkflowOption[] = listWorkflows().map((w) => ({ id: w.id, title: w.title, versions: userVersions(w.id), example: JSON.stringify(w.example ?? {}, null, 2) }));
  const cards: ScheduleCardData[] = await Promise.all(schedules.map(async (s) => card(s, await rt.schedules.runs(s.id, 5), rt.schedules.upcoming(s))));
  return (
    <div className="mx-auto max-w-4xl space-y-4">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div>
          <h1 className="text-xl font-semibold tracking-tight">Schedules</h1>
          <p className="text-sm text-slate-600 dark:text-slate-400">Workflows started on a cron pattern. Fire times are shown in each schedule&apos;s own time zone.</p>
        </div>
      </div>
      {canManage && <NewSchedule workflows={workflows} zones={zones} open={schedules.length === 0} />}
      {schedules.length === 0 ? (
        <p className="rounded-xl border border-dashed border-slate-300 p-6 text-sm text-slate-600 dark:border-slate-600 dark:text-slate-400" data-testid="no-schedules">
          No schedule yet.{canManage ? " Create one above: a daily digest, an hourly sweep." : " An operator can create one."}
        </p>
      ) : (
        <ul className="space-y-3" data-testid="schedules">
          {cards.map((c) => (
            <ScheduleCard key={c.id} s={c} canManage={canManage} workflows={workflows} zones={zones} />
          ))}
        </ul>
      )}
    </div>
  );
}

function card(s: Schedule, runs: { id: string; status: string; createdAt: string }[], next: number[]): ScheduleCardData {
  const local = (ms: number) => localTime(ms, s.timezone);
  return {
    id: s.id,
    name: s.name,
    workflowTitle: findWorkflow(s.workflow)?.title ?? s.workflow,
    cron: s.cron,
    timezone: s.timezone,
    overlap: s.overlap,
    catchup: s.catchup,
    paused: s.paused,
    next: next.map(local),
    queued: s.queuedFireAt === null ? null : local(s.queuedFireAt),
    lastSkip: s.lastSkipAt !== null && s.lastSkip ? { at: local(s.lastSkipAt), why: s.lastSkip } : null,
    runs: runs.map((r) => ({ id: r.id, status: r.status, label: local(Date.parse(r.createdAt)), at: r.createdAt })),
    form: {
      id: s.id,
      name: s.name,
      workflow: s.workflow,
      version: s.version === null ? "" : String(s.version),
      cron: s.cron,
      timezone: s.timezone,
      input: JSON.stringify(s.input, null, 2),
      runName: s.runName ?? "",
      overlap: s.overlap,
      catchup: s.catchup,
      paused: s.paused,
    },
  };
}
