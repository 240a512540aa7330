// Replaying a run's history from its stored transitions: the active states after any seq, and
// each state's visits as bars (entry → exit) for the Gantt view. Every transition row records
// the leaves it left (`from`) and entered (`to`), so the active set after a row is
// (active − from) ∪ to — exact for parallel regions too, with no snapshot needed.
import type { TransitionView } from "../engine/views";
import { edgeIds, historyStatus, isFailure, type HistoryStatus } from "../graph/status";

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

/**
 * The same answers as statusAt, precomputed once per history so that moving the cursor costs
 * O(states + edges) instead of a pass over every transition: the first seq at which each state
 * was visited and each edge taken, the active set and last edge after every row, each state's
 * exits with whether they were failures.
 */
export function replayIndex(transitions: TransitionView[]) {
  const visitedAt = new Map<string, number>();
  const takenAt = new Map<string, number>();
  const abortedAt = new Map<string, number>();
  const exits = new Map<string, { seq: number; failed: boolean }[]>();
  const seqs: number[] = [];
  const activeAfter: string[][] = [];
  const lastAfter: (string | null)[] = [];
  let active: string[] = [];
  let last: string | null = null;
  for (const t of transitions) {
    for (const s of [...split(t.from), ...split(t.to)]) if (!visitedAt.has(s)) visitedAt.set(s, t.seq);
    if (t.event === "ABORT") {
      for (const s of split(t.from)) if (!abortedAt.has(s)) abortedAt.set(s, t.seq);
      last = null;
    } else {
      for (const id of edgeIds(t)) {
        if (!takenAt.has(id)) takenAt.set(id, t.seq);
        last = id;
      }
    }
    if (t.from !== t.to) {
      for (const s of split(t.from)) exits.set(s, [...(exits.get(s) ?? []), { seq: t.seq, failed: isFailure(t) }]);
      const left = new Set(split(t.from));
      const next = active.filter((s) => !left.has(s));
      for (const s of split(t.to)) if (!next.includes(s)) next.push(s);
      active = next;
    }
    seqs.push(t.seq);
    activeAfter.push(active);
    lastAfter.push(last);
  }
  /** index of the last row with seq ≤ `seq` (-1 before the first) */
  const rowAt = (seq: number) => {
    let lo = 0;
    let hi = seqs.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (seqs[mid]! <= seq) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  };
  const upTo = (m: Map<string, number>, seq: number) => [...m].filter(([, at]) => at <= seq).map(([k]) => k);
  return {
    statusAt(seq: number): HistoryStatus & { active: string[] } {
      const row = rowAt(seq);
      const failed: string[] = [];
      for (const [s, list] of exits) {
        let lastExit: { seq: number; failed: boolean } | undefined;
        for (const e of list) if (e.seq <= seq) lastExit = e;
        if (lastExit?.failed) failed.push(s);
      }
      return {
        visited: upTo(visitedAt, seq),
        taken: upTo(takenAt, seq),
        abortedFrom: upTo(abortedAt, seq),
        failed,
        last: row >= 0 ? lastAfter[row]! : null,
        active: row >= 0 ? activeAfter[row]! : [],
      };
    },
  };
}
