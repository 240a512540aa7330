import Link from "next/link";
import { Markdown } from "@/components/ui/markdown";
import type { RunResult } from "@/lib/machines/types";
import { RetryFork } from "./retry-fork";

interface ErrorInfo {
  message?: string;
  state?: string;
  category?: string;
  suggestions?: string[];
  /** a failure a person can retry: fork the run at this step */
  retry?: { fork?: { seq?: number } };
}

/** What a finished run produced, first on its page: the result, or the error and what to do about it. */
export function RunResultCard({ runId, status, result, error }: { runId: string; status: string; result: RunResult | null; error: ErrorInfo | null }) {
  if (status === "failed" || (status === "aborted" && !result)) {
    return (
      <section className="rounded-xl border border-red-200 bg-red-50 p-4 text-sm text-red-900" data-testid="run-result" data-kind="error">
        <h2 className="font-semibold">{status === "aborted" ? "Aborted" : "Failed"}{error?.state ? ` in ${error.state}` : ""}</h2>
        {error?.message && <p className="mt-1 break-words">{error.message}</p>}
        {typeof error?.retry?.fork?.seq === "number" && (
          <div className="mt-2">
            <RetryFork runId={runId} seq={error.retry.fork.seq} />
          </div>
        )}
        <div className="mt-2 text-xs text-red-800">
          <span className="font-semibold">What to do: </span>
          {error?.suggestions?.length ? error.suggestions.join(" ") + " " : ""}
          open the{" "}
          <Link href={`/runs/${runId}/timeline`} className="underline">
            timeline
          </Link>{" "}
          to see where it went wrong and fork a new run from a step before it, or start a new run with changed input.
        </div>
      </section>
    );
  }
  if (!result) return null;
  return (
    <section className="rounded-xl border border-emerald-200 bg-white dark:bg-slate-900 p-4" data-testid="run-result" data-kind="result">
      <div className="mb-2 flex flex-wrap items-baseline gap-2">
        <h2 className="text-sm font-semibold text-slate-900 dark:text-slate-100">{result.title}</h2>
        {result.by && <span className="text-xs text-slate-500 dark:text-slate-400">written by {result.by}</span>}
        {result.file && (
          <a className="ml-auto text-xs text-blue-700 dark:text-blue-400 hover:underline" href={`/api/runs/${runId}/artifacts/${result.file}?download=1`}>
            Download {result.file.split("/").pop()}
          </a>
        )}
      </div>
      <div className="max-h-[480px] overflow-auto">
        <Markdown text={result.text} />
      </div>
    </section>
  );
}
