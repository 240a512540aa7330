// How a review someone else closed reads: "Rejected by ben".

const DECIDED: Record<string, string> = { approve: "Approved", reject: "Rejected", modify: "Changes requested", edit: "Edited", answer: "Answered", decline: "Declined", respond: "Answered", abort: "Aborted", skip: "Skipped", retry: "Retried" };

/** "Rejected by ben" for a review someone else decided; a closed one that nobody decided: how it ended. */
export function decidedText(r: { status: string; decision?: string | null; reviewer?: string | null }): string {
  if (r.status !== "decided") return "Closed: the run moved on";
  const d = r.decision ?? "";
  const verb = DECIDED[d] ?? (d ? `${d.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase())}` : "Decided");
  return r.reviewer ? `${verb} by ${r.reviewer}` : `${verb} elsewhere`;
}
