"use client";
// The "New schedule" panel: a button that opens the form (open at once when there is none yet).
import { useState } from "react";
import { ScheduleFormPanel, type WorkflowOption } from "./schedule-form";

export function NewSchedule({ workflows, zones, open: initiallyOpen }: { workflows: WorkflowOption[]; zones: string[]; open: boolean }) {
  const [open, setOpen] = useState(initiallyOpen);
  if (!open)
    return (
      <button type="button" onClick={() => setOpen(true)} className="rounded-md bg-blue-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-blue-700" data-testid="new-schedule">
        + New schedule
      </button>
    );
  return (
    <section className="rounded-xl border border-slate-200 bg-white p-4 dark:border-slate-700 dark:bg-slate-900" aria-label="New schedule">
      <h2 className="mb-3 text-sm font-semibold">New schedule</h2>
      <ScheduleFormPanel workflows={workflows} zones={zones} onDone={() => setOpen(false)} />
    </section>
  );
}
