// How a review's deadline reads: "due in 3 h", "overdue 20 min", "escalated from legal".

function span(ms: number): string {
  const s = Math.round(Math.abs(ms) / 1_000);
  if (s < 60) return `${s} s`;
  if (s < 3_600) return `${Math.floor(s / 60)} min`;
  if (s < 172_800) return `${Math.floor(s / 3_600)} h`;
  return `${Math.floor(s / 86_400)} d`;
}

/** "due in 3 h" / "overdue 20 min"; null without a deadline. `overdue` (the server's word) wins over the clock. */
export function dueText(dueAt: string | null | undefined, now: number, overdue?: boolean): string | null {
  if (!dueAt) return null;
  const ms = Date.parse(dueAt) - now;
  if (!Number.isFinite(ms)) return null;
  return overdue || ms < 0 ? `overdue ${span(Math.min(ms, 0))}` : `due in ${span(ms)}`;
}

/** "escalated from legal" (one group or several); null when it was not escalated. */
export function escalatedText(from: string | string[] | null | undefined): string | null {
  const groups = (Array.isArray(from) ? from : from ? [from] : []).filter(Boolean);
  return groups.length ? `escalated from ${groups.join(", ")}` : null;
}

const DECIDED: Record<string, string> = { approve: "Approved", reject: "Rejected", modify: "Changes requested", edit: "Edited", answer: "Answered", decline: "Declined", respond: "Answered", abort: "Aborted", skip: "Skipped", retry: "Retried" };

/** "Rejected by ben" for a review someone else decided; a closed one that nobody decided: how it ended. */
export function decidedText(r: { status: string; decision?: string | null; reviewer?: string | null }): string {
  if (r.status !== "decided") return "Closed: the run moved on";
  const d = r.decision ?? "";
  const verb = DECIDED[d] ?? (d ? `${d.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase())}` : "Decided");
  return r.reviewer ? `${verb} by ${r.reviewer}` : `${verb} elsewhere`;
}
