// What a page watching one run's stream (/api/runs/{id}/stream) does with it: merge the
// transitions a "run" event carries, and on "hello" (a (re)connect) reload the whole history, so
// that transitions committed before the stream connected are not missed.
import type { TransitionView } from "@/lib/engine/views";

export function mergeTransitions(prev: TransitionView[], add: TransitionView[]): TransitionView[] {
  const have = new Set(prev.map((t) => t.seq));
  const fresh = add.filter((t) => !have.has(t.seq));
  return fresh.length ? [...prev, ...fresh].sort((a, b) => a.seq - b.seq) : prev;
}

export async function fetchTransitions(runId: string): Promise<TransitionView[] | null> {
  const res = await fetch(`/api/runs/${runId}/transitions?after=0&payload=1`).catch(() => null);
  return res?.ok ? ((await res.json()) as TransitionView[]) : null;
}
