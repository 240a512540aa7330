// The fleet's counters (table FleetCount): what a commit adds to its workflow's per-state numbers,
// written in the same transaction as the commit, so the fleet view (lib/fleet/fleet.ts) never reads
// transitions. Pure: a run row before the commit and the commit item in, counter deltas out.
//
// Per (workflow, version, hour) — and once more under hour ALL_TIME, which the store adds — a commit adds:
//   enter  key = state id        a visit began (a leaf, and each group entered from outside it)
//   dwell  key = state id        a visit ended: of a leaf, by a transition out of it; of a group
//                                 (compound or parallel), by a commit after which the group is no
//                                 longer active, or entered again. `bucket` is the visit's length
//                                 on the log scale of lib/fleet/buckets.ts
//   edge   key = "source->target" a diagram edge was taken (the edge ids of lib/graph/status.ts)
//   step   key = "from->to"      the usual step, from one top-level state to another by the edge
//                                 out of `from`: the three above in one row — the edge taken, `to`
//                                 entered, and `from`'s visit ended, `bucket` its length's bucket
//                                 (NO_DWELL when its start is not known). One row instead of three
//                                 keeps the engine's cost per step small (npm run bench:fleet).
//   fail   key = state id        the run failed there (its failure states and their groups)
//   end    key = status          the run finished: completed | failed | aborted
// A migration (Engine.migrate) moves its run's open visits: the old version's `enter` is taken
// back and the new version's added, in the hour each visit began (the visit goes on).
// Replays and evaluation runs (Run.replayOf) count nowhere.
import { FORK_EVENT, pinOf } from "../engine/views";
import type { FleetDelta, FleetKind } from "../engine/store/types";
import { MIGRATE_EVENT } from "../change/migrate-plan";
import type { CommitItem, RunRow, TransitionRow } from "../engine/store/types";
import { dwellBucket } from "./buckets";

export const HOUR_MS = 3_600_000;
/** the hour of the all-time rows */
export const ALL_TIME = -1;
/** a step's bucket when the visit it ended has no known start */
export const NO_DWELL = -1;

export type { FleetDelta, FleetKind } from "../engine/store/types";

export const hourOf = (ms: number) => Math.floor(ms / HOUR_MS);
/** a built-in's runs count under version 0 */
export const versionOfInput = (input: unknown) => pinOf(input) ?? 0;

const TERMINAL = new Set(["completed", "failed", "aborted"]);

/** "A.B.C" → ["A", "A.B", "A.B.C"] (state ids are few: kept) */
const prefixCache = new Map<string, string[]>();
function prefixes(id: string): string[] {
  let out = prefixCache.get(id);
  if (!out) {
    const parts = id.split(".");
    out = parts.map((_, i) => parts.slice(0, i + 1).join("."));
    if (prefixCache.size < 10_000) prefixCache.set(id, out);
  }
  return out;
}

interface EdgePayload {
  edge?: { source?: string; targets?: string[] };
}

/** Does a target of the transition (re-)enter `leaf` (the target itself, or a state around it)? */
function hitBy(targets: string[], leaf: string): boolean {
  for (const x of targets) if (leaf === x || leaf.startsWith(`${x}.`)) return true;
  return false;
}

/**
 * One commit's increments as they are folded. A class, not closures: its methods are made once
 * (a closure per commit is an allocation, and more under a loader that names every function).
 */
class Fold {
  readonly out: FleetDelta[] = [];
  /** entry times changed by this commit's transitions (over `was`) */
  private moved: Map<string, number | undefined> | null = null;
  constructor(
    private workflow: string,
    private was: Record<string, number>,
  ) {}
  add(v: number, hour: number, kind: FleetKind, key: string, bucket: number, n: number): void {
    this.out.push([this.workflow, v, hour, kind, key, bucket, n]);
  }
  since(s: string): number | undefined {
    return this.moved?.has(s) ? this.moved.get(s) : this.was[s];
  }
  mark(s: string, at: number | undefined): void {
    (this.moved ??= new Map()).set(s, at);
  }
}

/**
 * The visits of groups this commit ended (a group left, or entered again): a group's time in
 * Run.entered (kept by the engine, lib/engine/draft.ts) gone or changed. Its length runs to the
 * commit's last transition (a commit's transitions share their time). Not for a migration (the
 * visit goes on) or a commit that made no transition of its own.
 */
function groupsLeft(f: Fold, before: RunRow, run: RunRow, version: number, lastT: TransitionRow): void {
  const was = before.entered;
  for (const g in was) {
    const t0 = was[g]!;
    if (run.entered[g] === t0 || typeof t0 !== "number") continue;
    // a group that was active: around one of the leaves the run was in (not a leaf, nor a leftover key)
    if (!before.state.some((leaf) => leaf.startsWith(`${g}.`))) continue;
    if (lastT.event === MIGRATE_EVENT || lastT.event === FORK_EVENT || lastT.seq <= before.seq) return;
    f.add(version, hourOf(lastT.at), "dwell", g, dwellBucket(Math.max(0, lastT.at - t0)), 1);
  }
}

/**
 * The counter increments of one commit, in their hours (a row may repeat: the store sums them, and
 * adds each to its all-time row too: withAllTime). `before`: the run as it was committed last (null
 * for a new run).
 * On the engine's path for every commit: kept to a few allocations per transition.
 */
export function fleetDeltas(before: RunRow | null, item: CommitItem): FleetDelta[] {
  const run = item.run;
  if (run.replayOf) return [];
  const version = versionOfInput(item.setInput !== undefined ? item.setInput : run.input);
  const f = new Fold(run.workflow, before?.entered ?? {});
  const first = item.snapshotFirst ?? item.transitions[0]?.seq ?? Infinity;
  const last = item.transitions.length - 1;
  for (let i = 0; i <= last; i++) {
    const t = item.transitions[i]!;
    if (t.seq < first) continue; // a fork's copied history was counted for its own run
    const hour = hourOf(t.at);
    if (t.event === MIGRATE_EVENT) {
      const from = versionOfInput(before?.input);
      for (let i = 0; i < t.from.length; i++) {
        const to = t.to[i];
        if (to === undefined) continue;
        const h = hourOf(f.since(t.from[i]!) ?? t.at);
        f.add(from, h, "enter", t.from[i]!, 0, -1);
        f.add(version, h, "enter", to, 0, 1);
      }
      continue;
    }
    if (t.event === FORK_EVENT) {
      // a fork starts a visit of each state it starts in
      const seen = new Set<string>();
      for (const leaf of t.to) {
        for (const s of prefixes(leaf)) if (!seen.has(s)) seen.add(s), f.add(version, hour, "enter", s, 0, 1);
        f.mark(leaf, t.at);
      }
      continue;
    }
    const edge = (t.payload as EdgePayload | null)?.edge;
    const targets = edge?.targets;
    if (!targets || targets.length === 0) continue; // stays where it is (an internal transition, a halt)
    // the usual step: one top-level state to another, by the edge out of it (one row)
    if (t.from.length === 1 && t.to.length === 1 && targets.length === 1 && t.to[0] === targets[0] && edge!.source === t.from[0] && !t.from[0]!.includes(".") && !t.to[0]!.includes(".")) {
      const from = t.from[0]!;
      const to = t.to[0]!;
      const at = f.since(from);
      f.add(version, hour, "step", `${from}->${to}`, at === undefined ? NO_DWELL : dwellBucket(Math.max(0, t.at - at)), 1);
      // (the commit's last transition: nothing after it asks when a state was entered)
      if (i < last) {
        if (from !== to) f.mark(from, undefined);
        f.mark(to, t.at);
      }
      continue;
    }
    if (edge!.source) for (const target of targets) f.add(version, hour, "edge", `${edge!.source}->${target}`, 0, 1);
    for (const s of t.from) {
      if (t.to.includes(s) && !hitBy(targets, s)) continue;
      const at = f.since(s);
      if (at !== undefined) f.add(version, hour, "dwell", s, dwellBucket(Math.max(0, t.at - at)), 1);
      f.mark(s, undefined);
    }
    // groups left open: those around a leaf that stays (not re-entered)
    let open: Set<string> | null = null;
    for (const s of t.from) {
      if (hitBy(targets, s)) continue;
      for (const p of prefixes(s)) (open ??= new Set()).add(p);
    }
    const done = new Set<string>();
    for (const leaf of t.to) {
      const ps = prefixes(leaf);
      for (let i = 0; i < ps.length; i++) {
        const s = ps[i]!;
        if (done.has(s)) continue;
        done.add(s);
        const isLeaf = i === ps.length - 1;
        const stays = isLeaf ? t.from.includes(s) && !hitBy(targets, s) : !!open?.has(s) && !targets.some((x) => x === s || s.startsWith(`${x}.`)); // (a target at or around the group re-enters it)
        if (stays) continue;
        f.add(version, hour, "enter", s, 0, 1);
        if (isLeaf) f.mark(s, t.at);
      }
    }
  }
  if (before !== null && last >= 0) groupsLeft(f, before, run, version, item.transitions[last]!);
  const wasOver = before !== null && TERMINAL.has(before.status);
  if (TERMINAL.has(run.status) && !wasOver) {
    const hour = hourOf(run.finishedAt ?? run.updatedAt);
    f.add(version, hour, "end", run.status, 0, 1);
    if (run.status === "failed" && run.failedStates) {
      const seen = new Set<string>();
      for (const leaf of run.failedStates.split("|")) if (leaf) for (const s of prefixes(leaf)) if (!seen.has(s)) seen.add(s), f.add(version, hour, "fail", s, 0, 1);
    }
  }
  return f.out;
}

/** The increments with each one's all-time row beside it (what the stores write). */
export function withAllTime(ds: FleetDelta[]): FleetDelta[] {
  const out: FleetDelta[] = [];
  for (const d of ds) out.push(d, [d[0], d[1], ALL_TIME, d[3], d[4], d[5], d[6]]);
  return out;
}
