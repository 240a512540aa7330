// What a run's history means for its diagram: visited states, taken edges, the last edge,
// states whose last exit was a failure.
import type { TransitionView } from "../engine/views";

export interface HistoryStatus {
  visited: string[];
  failed: string[];
  taken: string[];
  last: string | null;
  /** states left by the global abort (drawn on the state, not as an edge) */
  abortedFrom: string[];
}

interface EdgePayload {
  edge?: { source?: string; targets?: string[] };
}

/** The diagram edges a transition row took ("source->target"), from its payload. */
export function edgeIds(t: TransitionView): string[] {
  const edge = (t.payload as EdgePayload | undefined)?.edge;
  if (!edge?.source) return [];
  return (edge.targets ?? []).map((target) => `${edge.source}->${target}`);
}

/** A transition that left its state by a failure: an error event, or a failure reason. */
export const isFailure = (t: TransitionView) => t.event.startsWith("xstate.error.") || /^critical error|failed\b/i.test(t.reason);

export function historyStatus(transitions: TransitionView[]): HistoryStatus {
  const visited = new Set<string>();
  const taken = new Set<string>();
  const lastExit = new Map<string, boolean>();
  const abortedFrom = new Set<string>();
  let last: string | null = null;
  for (const t of transitions) {
    for (const s of [...t.from.split(","), ...t.to.split(",")]) if (s) visited.add(s);
    if (t.event === "ABORT") {
      for (const s of t.from.split(",")) if (s) abortedFrom.add(s);
      last = null;
    } else {
      for (const id of edgeIds(t)) {
        taken.add(id);
        last = id;
      }
    }
    if (t.from !== t.to) for (const s of t.from.split(",")) if (s) lastExit.set(s, isFailure(t));
  }
  return { visited: [...visited], taken: [...taken], last, abortedFrom: [...abortedFrom], failed: [...lastExit].filter(([, f]) => f).map(([s]) => s) };
}
