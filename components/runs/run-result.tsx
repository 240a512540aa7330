import Link from "@/components/ui/link";
import { Markdown } from "@/components/ui/markdown";
import type { RunResult } from "@/lib/machines/types";
import { RetryFork } from "./retry-fork";
import type { RunFailure } from "@/lib/api/failure";

interface ErrorInfo {
  message?: string;
  state?: string;
  category?: string;
  suggestions?: string[];
  /** a failure a person can retry: fork the run at this step */
  retry?: { fork?: { seq?: number } };
}

/**
 * What a finished run produced, first on its page: the result, or the error and what to do about
 * it. `failure`: a failed run's failure (lib/api/failure.ts): its message, the state, the attempts
 * and "Retry from <state>".
 */
export function RunResultCard({ runId, status, result, error, failure = null }: { runId: string; status: string; result: RunResult | null; error: ErrorInfo | null; failure?: RunFailure | null }) {
  if (status === "failed" && failure) return <FailureBanner runId={runId} failure={failure} suggestions={error?.suggestions} />;
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
        {result.by && <span className="text-xs text-slate-600 dark:text-slate-400">written by {result.by}</span>}
        {result.file && (
          <a className="ml-auto text-xs text-blue-700 dark:text-blue-400 underline" href={`/api/runs/${runId}/artifacts/${result.file}?download=1`}>
            Download {result.file.split("/").pop()}
          </a>
        )}
      </div>
      <div tabIndex={0} className="max-h-[480px] overflow-auto">
        <Markdown text={result.text} />
      </div>
    </section>
  );
}

/** A failed run, first: the error message, where it failed and after how many attempts, and one click to retry that step. */
function FailureBanner({ runId, failure, suggestions }: { runId: string; failure: RunFailure; suggestions?: string[] }) {
  return (
    <section className="rounded-xl border border-red-300 bg-red-50 p-4 text-sm text-red-900 dark:border-red-900 dark:bg-red-950 dark:text-red-100" data-testid="run-result" data-kind="error" role="alert">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
        <div className="min-w-0 flex-1">
          <h2 className="font-semibold" data-testid="failure-where">
            Failed in <span className="font-mono">{failure.state}</span>
            <span className="font-normal text-red-800 dark:text-red-200">
              {failure.attempts !== null ? ` · ${failure.attempts} ${failure.attempts === 1 ? "attempt" : "attempts"}` : ""}
              {failure.category ? ` · ${failure.category.toLowerCase()} error` : ""}
            </span>
          </h2>
          <p className="mt-1 whitespace-pre-wrap break-words font-mono text-[13px]" data-testid="failure-message">{failure.message}</p>
        </div>
        {failure.retry && <RetryFork runId={runId} seq={failure.retry.seq} state={failure.state} />}
      </div>
      <p className="mt-2 text-xs text-red-800 dark:text-red-200">
        {suggestions?.length ? suggestions.join(" ") + " " : ""}
        {failure.retry ? `Retry runs ${failure.state} again with the same input, in a new run forked from this one. ` : ""}
        The{" "}
        <Link href={`/runs/${runId}/timeline`} className="underline">
          timeline
        </Link>{" "}
        shows every step; fork from any of them there.
      </p>
    </section>
  );
}
