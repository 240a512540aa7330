// What a page watching one run's stream (/api/runs/{id}/stream) does with it: merge the
// transitions a "run" event carries, and on "hello" (a (re)connect) reload the whole history, so
// that transitions committed before the stream connected are not missed.
//
// Nothing here replaces what the page already has with something older. The history fetched on
// "hello" can be read before a transition that a "run" event then delivers first (two
// connections; with workers, the event comes from another process): it is merged in, not put in
// place of the list. And "hello" carries the run as it was when the stream was asked for, which
// can be older than a "run" event the stream wrote while it was being opened.
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

/** the run to show: the one with the later seq (a "hello" can be older than a "run" event before it) */
export function laterRun<R extends { seq: number }>(prev: R, next: R): R {
  return next.seq >= prev.seq ? next : prev;
}
