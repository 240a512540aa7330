// The files of a swiss-army run: one Markdown file per finished cycle (cycles/<n>.md), written in
// the commit that ended the cycle, so a decided cycle's whole output stays readable after the
// next request replaces it in the run's context.
import type { ArtifactWrite } from "../../lib/engine/store/types";
import type { ArtifactStep } from "../../lib/machines/types";
import type { CycleOutcome, SwissContext } from "./types";

/** a cycle's file is named by its number (by its request id in runs recorded before numbers were kept) */
export const cycleFile = (c: Pick<CycleOutcome, "cycle" | "request_id">) => `cycles/${c.cycle ?? c.request_id}.md`;

function sameOutcome(a: CycleOutcome | null | undefined, b: CycleOutcome | null | undefined): boolean {
  return !!a && !!b && a.request_id === b.request_id && a.at === b.at && a.outcome === b.outcome;
}

export function cycleMarkdown(last: CycleOutcome, output: string): string {
  const lines = [`# Request ${last.cycle ?? last.request_id}: ${last.outcome}`, "", "## Request", "", last.content || "(empty)", ""];
  if (last.feedback) lines.push("## Reviewer feedback", "", last.feedback, "");
  if (last.error?.message) lines.push("## Error", "", last.error.message, "");
  lines.push("## Output", "", output || "(no output)", "");
  return lines.join("\n");
}

export function swissArtifacts(step: ArtifactStep): ArtifactWrite[] {
  const before = step.before as SwissContext | null;
  const after = step.after as SwissContext | null;
  const last = after?.last;
  if (!last || !last.request_id || sameOutcome(before?.last, last)) return [];
  // a cycle that ended by approval or rejection keeps the output the reviewer saw; others their partial result
  const output = last.outcome === "approved" || last.outcome === "rejected" ? after.output || before?.output || "" : last.result_preview;
  return [{ name: cycleFile(last), content: cycleMarkdown(last, output), mode: "put" }];
}
