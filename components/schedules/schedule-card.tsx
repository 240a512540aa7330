"use client";
// One schedule: its pattern, next fire times and newest runs; pause/resume, run now, edit and
// delete for operators (hidden for others).
import Link from "@/components/ui/link";
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { scheduleCommandAction, type ScheduleForm } from "@/app/schedules/actions";
import { StatusBadge } from "@/components/ui/status-badge";
import { ScheduleFormPanel, type WorkflowOption } from "./schedule-form";

export interface ScheduleCardData {
  id: string;
  name: string;
  workflowTitle: string;
  cron: string;
  timezone: string;
  overlap: string;
  catchup: string;
  paused: boolean;
  /** the next fire times in the schedule's zone ("2026-11-30 09:00") */
  next: string[];
  queued: string | null;
  lastSkip: { at: string; why: string } | null;
  runs: { id: string; status: string; label: string; at: string }[];
  form: ScheduleForm;
}

const button = "rounded-md px-2.5 py-1 text-sm ring-1 ring-inset disabled:opacity-50";

export function ScheduleCard({ s, canManage, workflows, zones }: { s: ScheduleCardData; canManage: boolean; workflows: WorkflowOption[]; zones: string[] }) {
  const router = useRouter();
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [pending, start] = useTransition();
  const command = (action: "pause" | "resume" | "trigger" | "delete") =>
    start(async () => {
      if (action === "delete" && !window.confirm(`Delete the schedule "${s.name}"? Its runs stay.`)) return;
      const r = await scheduleCommandAction({ id: s.id, action });
      setError(r.ok ? null : (r.error ?? "failed"));
      if (r.ok && r.runId) router.push(`/runs/${r.runId}`);
      else router.refresh();
    });

  return (
    <li className="rounded-xl border border-slate-200 bg-white p-4 dark:border-slate-700 dark:bg-slate-900" data-testid="schedule" data-schedule={s.id}>
      <div className="flex flex-wrap items-baseline gap-x-2 gap-y-1">
        <h2 className="text-base font-semibold">{s.name}</h2>
        <span className="text-sm text-slate-600 dark:text-slate-400">{s.workflowTitle}</span>
        {s.paused && <span className="rounded-full bg-amber-100 px-2 py-0.5 text-xs font-semibold text-amber-900 dark:bg-amber-950 dark:text-amber-200">paused</span>}
      </div>
      <p className="mt-1 text-sm text-slate-700 dark:text-slate-300">
        <code className="rounded bg-slate-100 px-1 py-0.5 font-mono text-[13px] dark:bg-slate-800">{s.cron}</code> in {s.timezone} · if still open: {s.overlap} · after downtime: {s.catchup === "latest" ? "run the latest missed fire" : "skip"}
      </p>
      <div className="mt-2 text-sm" data-testid="next-fires">
        <span className="font-medium">Next:</span> {s.paused ? <span className="text-slate-600 dark:text-slate-400">none while paused</span> : s.next.length ? s.next.join(" · ") : "never again"}
        {s.queued && <span className="ml-2 text-slate-700 dark:text-slate-300">(one fire queued from {s.queued})</span>}
      </div>
      {s.lastSkip && (
        <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">
          Last fire not run ({s.lastSkip.at}): {s.lastSkip.why}
        </p>
      )}
      <div className="mt-2 flex flex-wrap items-center gap-2 text-sm" data-testid="schedule-runs">
        <span className="font-medium">Last runs:</span>
        {s.runs.length === 0 && <span className="text-slate-600 dark:text-slate-400">none yet</span>}
        {s.runs.map((r) => (
          <Link key={r.id} href={`/runs/${r.id}`} className="inline-flex items-center gap-1 underline-offset-2 hover:underline" title={r.at}>
            <StatusBadge status={r.status} /> <span className="text-xs">{r.label}</span>
          </Link>
        ))}
        {s.runs.length > 0 && (
          <Link href={`/?scheduleId=${s.id}`} className="text-blue-700 underline dark:text-blue-300">
            all runs
          </Link>
        )}
      </div>
      {canManage && !editing && (
        <div className="mt-3 flex flex-wrap gap-2">
          <button type="button" disabled={pending} onClick={() => command(s.paused ? "resume" : "pause")} className={`${button} ring-slate-300 dark:ring-slate-600`}>
            {s.paused ? "Resume" : "Pause"}
          </button>
          <button type="button" disabled={pending} onClick={() => command("trigger")} className={`${button} ring-blue-300 text-blue-800 dark:text-blue-200`}>
            Run now
          </button>
          <button type="button" disabled={pending} onClick={() => setEditing(true)} className={`${button} ring-slate-300 dark:ring-slate-600`}>
            Edit
          </button>
          <button type="button" disabled={pending} onClick={() => command("delete")} className={`${button} ring-red-300 text-red-800 dark:text-red-300`}>
            Delete
          </button>
          {error && (
            <span role="alert" className="text-sm text-red-700 dark:text-red-400">
              {error}
            </span>
          )}
        </div>
      )}
      {editing && (
        <div className="mt-3 border-t border-slate-200 pt-3 dark:border-slate-700">
          <ScheduleFormPanel workflows={workflows} zones={zones} initial={s.form} onDone={() => setEditing(false)} />
        </div>
      )}
    </li>
  );
}
