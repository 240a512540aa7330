// A run's path through its statechart as visits: each time a state is entered is one visit, keyed
// "<state id>#<visit number>" (the first is #1). Two runs of one workflow (any versions, a fork and
// its source, a replay and its source) line up on these keys. Pure: transitions in, visits out.
import type { TransitionRow } from "../engine/store/types";

export interface Visit {
  /** "<state id>#<n>" */
  key: string;
  state: string;
  visit: number;
  /** the transition that entered it */
  seq: number;
  enteredAt: number;
  /** the transition that left it (null: still active) */
  leftSeq: number | null;
  leftAt: number | null;
  leftEvent: string | null;
  /** a leaf state (atomic or final); ancestors are counted too, for effects a compound state invokes */
  leaf: boolean;
}

type T = Pick<TransitionRow, "seq" | "from" | "to" | "at" | "event" | "payload">;

/** id and its ancestors, outermost first ("A.B.C" → "A", "A.B", "A.B.C") */
const chain = (id: string) => id.split(".").map((_, i, p) => p.slice(0, i + 1).join("."));
const under = (leaf: string, a: string) => leaf === a || leaf.startsWith(`${a}.`);

/** Counts entries as transitions arrive (the engine keeps one per replay run). */
export class VisitCounter {
  readonly counts = new Map<string, number>();
  private active = new Set<string>();
  /** the visit of each state now active (its current one) */
  private open = new Map<string, Visit>();
  readonly visits: Visit[] = [];

  /** Apply one transition; returns the visits it opened. */
  apply(t: T): Visit[] {
    const targets = ((t.payload as { edge?: { targets?: unknown[] } } | null)?.edge?.targets ?? []).filter((x): x is string => typeof x === "string");
    // a targetless transition ("approval counted", a fork's branch point) leaves nothing; one with targets re-enters what it lists in both
    const left = targets.length ? t.from : t.from.filter((s) => !t.to.includes(s));
    const survivors = new Set([...this.active].filter((s) => !left.includes(s)));
    const next = new Set([...survivors, ...t.to]);
    for (const [a, v] of [...this.open]) {
      const stays = [...next].some((x) => under(x, a));
      let closed = !stays;
      if (stays && v.leaf) closed = left.includes(a);
      else if (stays) {
        // an ancestor is re-entered when a target is it or encloses it and every leaf it had was left
        const had = [...this.active].filter((x) => under(x, a));
        closed = had.length > 0 && had.every((x) => left.includes(x)) && targets.some((tg) => under(a, tg));
      }
      if (!closed) continue;
      v.leftSeq = t.seq;
      v.leftAt = t.at;
      v.leftEvent = t.event;
      this.open.delete(a);
    }
    const opened: Visit[] = [];
    for (const s of t.to) {
      if (survivors.has(s)) continue;
      for (const a of chain(s)) {
        if (this.open.has(a)) continue;
        const n = (this.counts.get(a) ?? 0) + 1;
        this.counts.set(a, n);
        const v: Visit = { key: `${a}#${n}`, state: a, visit: n, seq: t.seq, enteredAt: t.at, leftSeq: null, leftAt: null, leftEvent: null, leaf: a === s };
        this.open.set(a, v);
        this.visits.push(v);
        opened.push(v);
      }
    }
    this.active = next;
    return opened;
  }

  /** an independent copy (a draft counts on it; the run keeps it once the draft is committed) */
  clone(): VisitCounter {
    const c = new VisitCounter();
    for (const [k, v] of this.counts) c.counts.set(k, v);
    c.active = new Set(this.active);
    for (const [k, v] of this.open) c.open.set(k, { ...v });
    return c;
  }

  /** the current visit number of a state (0: never entered) */
  current(state: string): number {
    return this.counts.get(state) ?? 0;
  }
}

/** Every visit of a run, in the order they were entered. */
export function visitsOf(transitions: readonly T[]): Visit[] {
  const c = new VisitCounter();
  for (const t of [...transitions].sort((a, b) => a.seq - b.seq)) c.apply(t);
  return c.visits;
}

/** The visit of `state` that was open at transition `seq` (the last one entered at or before it). */
export function visitAt(visits: readonly Visit[], state: string, seq: number): Visit | null {
  let found: Visit | null = null;
  for (const v of visits) if (v.state === state && v.seq <= seq) found = v;
  return found;
}
