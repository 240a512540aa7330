// The words a review's routing is shown with: "due in 3 h", "overdue 20 min", "escalated from legal".
// Coarse on purpose (a queue is scanned, not read): minutes under an hour, hours under two days, then days.

function span(ms: number): string {
  const min = Math.max(1, Math.round(ms / 60_000));
  if (min < 60) return `${min} min`;
  const h = Math.round(ms / 3_600_000);
  if (h < 48) return `${h} h`;
  return `${Math.round(ms / 86_400_000)} d`;
}

export interface RoutingWords {
  /** "due in 3 h" or "overdue 20 min" (null: no deadline, or decided) */
  due: string | null;
  overdue: boolean;
  /** "escalated from legal" (null: not escalated) */
  escalated: string | null;
  /** "for legal, finance" (null: anyone) */
  assigned: string | null;
}

export function routingWords(r: { dueAt: string | null; escalatedFrom: string[] | null; assignedTo: string[] | null; status?: string }, now: number): RoutingWords {
  const dueAt = r.dueAt ? Date.parse(r.dueAt) : NaN;
  const open = r.status === undefined || r.status === "pending";
  const overdue = open && Number.isFinite(dueAt) && dueAt <= now;
  const due = !open || !Number.isFinite(dueAt) ? null : overdue ? `overdue ${span(now - dueAt)}` : `due in ${span(dueAt - now)}`;
  const escalated = r.escalatedFrom ? `escalated from ${r.escalatedFrom.length ? r.escalatedFrom.join(", ") : "anyone"}` : null;
  const assigned = r.assignedTo?.length ? `for ${r.assignedTo.join(", ")}` : null;
  return { due, overdue, escalated, assigned };
}
