"use client";
import { Allowed } from "@/components/auth/role";
import { useRouter } from "next/navigation";
import { useState } from "react";

/**
 * Retry a failed run from a step: one click forks it at `seq` (the transition that entered the
 * failed step, so the fork runs that step again with the same input) and opens the fork.
 * `state`: the step's name, for the button ("Retry from PUBLISH").
 */
function RetryForkInner({ runId, seq, state }: { runId: string; seq: number; state?: string }) {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const retry = async () => {
    setBusy(true);
    setError(null);
    const res = await fetch(`/api/runs/${runId}/fork`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ seq }) });
    const body = await res.json().catch(() => ({}));
    setBusy(false);
    if (!res.ok) return setError(body.message ?? body.error ?? `HTTP ${res.status}`);
    router.push(`/runs/${body.run.id}`);
  };
  return (
    <span className="inline-flex flex-wrap items-center gap-2">
      <button type="button" onClick={retry} disabled={busy} className="rounded-md bg-blue-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-blue-700 disabled:opacity-50" data-testid="retry-fork" data-seq={seq}>
        {busy ? "Starting…" : state ? `Retry from ${state}` : `Retry from step #${seq}`}
      </button>
      {error && <span className="text-xs text-red-700 dark:text-red-300" role="alert">{error}</span>}
    </span>
  );
}

/** offered to operators and above; others see why not */
export function RetryFork(props: Parameters<typeof RetryForkInner>[0]) {
  return (
    <Allowed need="operator">
      <RetryForkInner {...props} />
    </Allowed>
  );
}
