// What a run waits on, in words (the run page's Now card and the badge on the waiting node):
// "2 of 3 approvals · due in 4 h", "fires 14:05 → ESCALATE", "claimed by py-w1 · attempt 2 ·
// heartbeat 3 s ago", "waiting for MESSAGE". Pure; `now` is the reader's clock. Times of day are UTC.
import type { WaitingFor } from "../api/waiting";
import { formatAgo } from "../format";

const hhmm = (iso: string) => new Date(iso).toISOString().slice(11, 16);
/** "in 4 h" → "due in 4 h"; past: "overdue by 4 h" */
const due = (iso: string, now: number) => {
  const words = formatAgo(iso, now);
  return words.startsWith("in ") ? `due ${words}` : words === "just now" ? "due now" : `overdue by ${words.replace(/ ago$/, "")}`;
};

/** The detail line of one entry. */
export function waitingDetail(w: WaitingFor, now: number): string {
  switch (w.kind) {
    case "review": {
      const a = w.approvals.needed > 1 ? `${w.approvals.so_far} of ${w.approvals.needed} approvals` : `a decision: ${w.decisions.join(" / ") || "review"}`;
      return w.dueAt ? `${a} · ${due(w.dueAt, now)}` : a;
    }
    case "timer":
      return `fires ${hhmm(w.at)}${w.to ? ` → ${w.to.split(".").at(-1)}` : ""}`;
    case "task":
      return w.claimedBy
        ? `claimed by ${w.claimedBy} · attempt ${w.attempt}${w.heartbeatAt ? ` · heartbeat ${formatAgo(w.heartbeatAt, now)}` : ""}`
        : `queued on ${w.queue}, not claimed yet${w.attempt ? ` · ${w.attempt} attempt${w.attempt === 1 ? "" : "s"} so far` : ""}`;
    case "event":
      return `waiting for ${w.accepts.join(" or ")}`;
    case "effect":
      return `${w.name} running${w.since ? ` since ${formatAgo(w.since, now)}` : ""}`;
  }
}

/** The short badge on the node: the detail's first part. */
export function waitingBadge(w: WaitingFor, now: number): string {
  if (w.kind === "task") return w.claimedBy ? `${w.claimedBy} · attempt ${w.attempt}` : `queued: ${w.queue}`;
  if (w.kind === "event") return `waits for ${w.accepts[0]}${w.accepts.length > 1 ? ` +${w.accepts.length - 1}` : ""}`;
  return waitingDetail(w, now).split(" · ")[0]!;
}
