// A review's routing in a line of small pills: who it is for, when it is due or how long it is
// overdue, and what it was escalated from. Presentational only (the queue, the run page's review
// panel and the phone layouts place it); renders nothing for a review without routing.
import { routingWords } from "@/lib/reviews/due-text";

export interface DueBadgeProps {
  dueAt: string | null;
  escalatedFrom: string[] | null;
  assignedTo: string[] | null;
  status?: string;
  /** the clock to measure by (a server page's render time, or the browser's) */
  now: number;
}

export function DueBadge({ now, ...r }: DueBadgeProps) {
  const w = routingWords(r, now);
  if (!w.due && !w.escalated && !w.assigned) return null;
  const pill = "inline-flex items-center rounded-md px-1.5 py-0.5 text-[11px] font-medium";
  return (
    <span className="inline-flex flex-wrap items-center gap-1" data-testid="review-routing">
      {w.assigned && <span className={`${pill} bg-slate-100 text-slate-700 dark:bg-slate-800 dark:text-slate-200`}>{w.assigned}</span>}
      {w.due && (
        <span className={`${pill} ${w.overdue ? "bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-200" : "bg-sky-100 text-sky-900 dark:bg-sky-950 dark:text-sky-100"}`} data-testid="review-due" suppressHydrationWarning title={r.dueAt ? `due ${new Date(r.dueAt).toISOString().replace("T", " ").slice(0, 16)} UTC` : undefined}>
          {w.due}
        </span>
      )}
      {w.escalated && (
        <span className={`${pill} bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-100`} data-testid="review-escalated">
          {w.escalated}
        </span>
      )}
    </span>
  );
}

/** The routing fields of a review as a page holds it (a review without them: none). */
export function routingOfInfo(r: object): Pick<DueBadgeProps, "dueAt" | "escalatedFrom" | "assignedTo" | "status"> {
  const x = r as Partial<DueBadgeProps>;
  return { dueAt: x.dueAt ?? null, escalatedFrom: x.escalatedFrom ?? null, assignedTo: x.assignedTo ?? null, ...(x.status ? { status: x.status } : {}) };
}
