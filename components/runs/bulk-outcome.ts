// What a bulk action in the review queue did, in one sentence and one line per failure.
export type BulkAction = "approve" | "reject" | "abort";

export interface BulkItem {
  name: string;
  ok: boolean;
  error?: string;
}

const DONE: Record<BulkAction, string> = { approve: "approved", reject: "rejected", abort: "aborted" };

export function bulkOutcome(action: BulkAction, results: BulkItem[]): { text: string; failures: string[] } {
  const ok = results.filter((r) => r.ok).length;
  const failed = results.filter((r) => !r.ok);
  // an abort ends the run, or only its current request where the workflow has an abort of its own
  const what = (n: number) => (action === "abort" ? "" : ` review${n === 1 ? "" : "s"}`);
  const text =
    failed.length === 0
      ? `${ok}${what(ok)} ${DONE[action]}.`
      : `${ok} of ${results.length}${what(results.length)} ${DONE[action]}; ${failed.length} failed:`;
  return { text, failures: failed.map((f) => `“${f.name}”: ${f.error ?? "failed"}`) };
}
