// Replaying a run's history from its stored transitions: the active states after any seq, and
// each state's visits as bars (entry → exit) for the Gantt view. Every transition row records
// the leaves it left (`from`) and entered (`to`), so the active set after a row is
// (active − from) ∪ to — exact for parallel regions too, with no snapshot needed.
import type { TransitionView } from "../engine/views";
import { historyStatus, type HistoryStatus } from "../graph/status";

const split = (s: string) => (s ? s.split(",") : []);

/** The active leaf states after the transition with seq `seq` (0 = before the run started). */
export function activeAt(transitions: TransitionView[], seq: number): string[] {
  let active: string[] = [];
  for (const t of transitions) {
    if (t.seq > seq) break;
    if (t.from === t.to) continue;
    const left = new Set(split(t.from));
    const next = active.filter((s) => !left.has(s));
    for (const s of split(t.to)) if (!next.includes(s)) next.push(s);
    active = next;
  }
  return active;
}

/** The diagram's status at `seq`: active states, and history (visited, taken edges) up to it. */
export function statusAt(transitions: TransitionView[], seq: number): HistoryStatus & { active: string[] } {
  const upto = transitions.filter((t) => t.seq <= seq);
  return { ...historyStatus(upto), active: activeAt(transitions, seq) };
}

export interface Visit {
  state: string;
  /** ms since epoch */
  start: number;
  /** null while the state is still active at the end of the history */
  end: number | null;
  enterSeq: number;
  exitSeq: number | null;
  /** the transition that ended it was a failure (error event or a failure reason) */
  failed: boolean;
  /** nth visit of this state (1 = first; > 1 means a retry or a loop) */
  nth: number;
  /** what ended the visit */
  exitEvent: string | null;
  exitReason: string | null;
}

const isFailure = (t: TransitionView) => t.event.startsWith("xstate.error.") || /^critical error|failed\b/i.test(t.reason);

/** Each state's visits, in order of entry. */
export function visitsOf(transitions: TransitionView[]): Visit[] {
  const open = new Map<string, Visit>();
  const count = new Map<string, number>();
  const out: Visit[] = [];
  for (const t of transitions) {
    if (t.from === t.to) continue;
    const at = Date.parse(t.at);
    const to = new Set(split(t.to));
    for (const s of split(t.from)) {
      const v = open.get(s);
      if (!v || (to.has(s) && t.event !== "xstate.init")) continue;
      v.end = at;
      v.exitSeq = t.seq;
      v.failed = isFailure(t);
      v.exitEvent = t.event;
      v.exitReason = t.reason;
      open.delete(s);
    }
    for (const s of to) {
      if (open.has(s)) continue;
      const nth = (count.get(s) ?? 0) + 1;
      count.set(s, nth);
      const v: Visit = { state: s, start: at, end: null, enterSeq: t.seq, exitSeq: null, failed: false, nth, exitEvent: null, exitReason: null };
      open.set(s, v);
      out.push(v);
    }
  }
  return out;
}

/** Lanes for the Gantt view: one per state, in order of first entry. */
export function lanesOf(visits: Visit[]): { state: string; visits: Visit[] }[] {
  const lanes = new Map<string, Visit[]>();
  for (const v of visits) lanes.set(v.state, [...(lanes.get(v.state) ?? []), v]);
  return [...lanes].map(([state, vs]) => ({ state, visits: vs }));
}
