"use client";
import { Fragment, useState } from "react";
import type { TransitionView } from "@/lib/engine/views";
import { eventLabel } from "@/lib/graph/derive";
import { clockTime, formatDuration, transitionParts } from "@/lib/format";

function tone(t: TransitionView): string {
  if (t.event.startsWith("xstate.error.") || /^critical|failed/i.test(t.reason)) return "bg-red-500";
  if (t.event === "ABORT") return "bg-amber-500";
  if (t.event.startsWith("xstate.after.")) return "bg-amber-400";
  if (["APPROVE", "REJECT", "MODIFY"].includes(t.event)) return "bg-emerald-500";
  return "bg-blue-500";
}

/** The mission timeline: every transition, newest first, with its reason and the time spent in the state it left. */
export function Timeline({ transitions }: { transitions: TransitionView[] }) {
  const [open, setOpen] = useState<number | null>(null);
  const rows = [...transitions].reverse();
  return (
    <div tabIndex={0} className="overflow-x-auto">
      <table className="w-full min-w-[640px] text-xs" data-testid="timeline">
        <thead className="text-left text-[11px] uppercase tracking-wide text-slate-600 dark:text-slate-400">
          <tr>
            <th className="py-1.5 pr-2 font-medium">#</th>
            <th className="py-1.5 pr-2 font-medium">Time (UTC)</th>
            <th className="py-1.5 pr-2 font-medium">Transition</th>
            <th className="py-1.5 pr-2 font-medium">Reason</th>
            <th className="py-1.5 pr-2 font-medium">Event</th>
            <th className="whitespace-nowrap py-1.5 text-right font-medium">In state</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
          {rows.map((t) => {
            const parts = transitionParts(t.from, t.to);
            return (
              <Fragment key={t.seq}>
                <tr className="cursor-pointer align-top hover:bg-slate-50 dark:hover:bg-slate-800/60" onClick={() => setOpen(open === t.seq ? null : t.seq)} data-seq={t.seq}>
                  <td className="py-1.5 pr-2 font-mono text-slate-600 dark:text-slate-400">{t.seq}</td>
                  <td className="whitespace-nowrap py-1.5 pr-2 font-mono text-slate-600 dark:text-slate-400">{clockTime(t.at)}</td>
                  <td className="py-1.5 pr-2 font-mono wrap-anywhere">
                    <span className="inline-flex flex-wrap items-center gap-x-1.5" title={`${t.from || "∗"} → ${t.to}`}>
                      <span className={`h-2 w-2 shrink-0 rounded-full ${tone(t)}`} />
                      {parts.scope && <span className="text-[11px] text-slate-600 dark:text-slate-400">{parts.scope}</span>}
                      <span className="text-slate-600 dark:text-slate-400">{parts.from || "∗"}</span>
                      <span className="text-slate-600 dark:text-slate-400">→</span>
                      <span className="font-semibold text-slate-900 dark:text-slate-100">{parts.to}</span>
                    </span>
                  </td>
                  <td className="py-1.5 pr-2 text-slate-700 dark:text-slate-300 wrap-anywhere">{t.reason}</td>
                  <td className="py-1.5 pr-2 font-mono text-[11px] text-slate-600 dark:text-slate-400">{eventLabel(t.event)}</td>
                  <td className="whitespace-nowrap py-1.5 text-right font-mono text-slate-600 dark:text-slate-400">{t.from ? formatDuration(t.durationMs) : ""}</td>
                </tr>
                {open === t.seq && (
                  <tr>
                    <td colSpan={6} className="bg-slate-50 dark:bg-slate-800/60 px-2 py-2">
                      <pre tabIndex={0} className="max-h-64 overflow-auto whitespace-pre-wrap break-all font-mono text-[11px] text-slate-700 dark:text-slate-300">{JSON.stringify(t.payload ?? {}, null, 2)}</pre>
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
