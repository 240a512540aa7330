// The fleet's counters (table FleetCount): what a commit adds to its workflow's per-state numbers,
// written in the same transaction as the commit, so the fleet view (lib/fleet/fleet.ts) never reads
// transitions. Pure: a run row before the commit and the commit item in, counter deltas out.
//
// Per (workflow, version, hour) — and once more under hour ALL_TIME, which the store adds — a commit adds:
//   enter  key = state id        a visit began (a leaf, and each group entered from outside it)
//   dwell  key = state id        a visit of a leaf ended by a transition out of it; `bucket` is the
//                                 visit's length on the log scale of lib/fleet/buckets.ts
//   edge   key = "source->target" a diagram edge was taken (the edge ids of lib/graph/status.ts)
//   fail   key = state id        the run failed there (its failure states and their groups)
//   end    key = status          the run finished: completed | failed | aborted
// A migration (Engine.migrate) moves its run's open visits: the old version's `enter` is taken
// back and the new version's added, in the hour each visit began (the visit goes on).
// Replays and evaluation runs (Run.replayOf) count nowhere.
import { FORK_EVENT, pinOf } from "../engine/views";
import { MIGRATE_EVENT } from "../change/migrate-plan";
import type { CommitItem, RunRow } from "../engine/store/types";
import { dwellBucket } from "./buckets";

export const HOUR_MS = 3_600_000;
/** the hour of the all-time rows */
export const ALL_TIME = -1;

export type FleetKind = "enter" | "dwell" | "edge" | "fail" | "end";

/** One counter row's increment: [workflow, version, hour, kind, key, bucket, n]. */
export type FleetDelta = [string, number, number, FleetKind, string, number, number];

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

/**
 * The counter increments of one commit, in their hours (a row may repeat: the store sums them, and
 * adds each to its all-time row too: withAllTime). `before`: the run as it was committed last (null
 * for a new run).
 * On the engine's path for every commit: kept to a few allocations per transition.
 */
export function fleetDeltas(before: RunRow | null, item: CommitItem): FleetDelta[] {
  const run = item.run;
  if (run.replayOf) return [];
  const out: FleetDelta[] = [];
  const workflow = run.workflow;
  const version = versionOfInput(item.setInput !== undefined ? item.setInput : run.input);
  const add = (v: number, hour: number, kind: FleetKind, key: string, bucket: number, n: number) => {
    out.push([workflow, v, hour, kind, key, bucket, n]);
  };
  const first = item.snapshotFirst ?? item.transitions[0]?.seq ?? Infinity;
  const was = before?.entered ?? {};
  // entry times changed by this commit's transitions (over `was`)
  let moved: Map<string, number | undefined> | null = null;
  const since = (s: string) => (moved?.has(s) ? moved.get(s) : was[s]);
  const mark = (s: string, at: number | undefined) => (moved ??= new Map()).set(s, at);
  for (const t of item.transitions) {
    if (t.seq < first) continue; // a fork's copied history was counted for its own run
    const hour = hourOf(t.at);
    if (t.event === MIGRATE_EVENT) {
      const from = versionOfInput(before?.input);
      for (let i = 0; i < t.from.length; i++) {
        const to = t.to[i];
        if (to === undefined) continue;
        const h = hourOf(since(t.from[i]!) ?? t.at);
        add(from, h, "enter", t.from[i]!, 0, -1);
        add(version, h, "enter", to, 0, 1);
      }
      continue;
    }
    if (t.event === FORK_EVENT) {
      // a fork starts a visit of each state it starts in
      const seen = new Set<string>();
      for (const leaf of t.to) {
        for (const s of prefixes(leaf)) if (!seen.has(s)) seen.add(s), add(version, hour, "enter", s, 0, 1);
        mark(leaf, t.at);
      }
      continue;
    }
    const edge = (t.payload as EdgePayload | null)?.edge;
    const targets = edge?.targets;
    if (!targets || targets.length === 0) continue; // stays where it is (an internal transition, a halt)
    if (edge!.source) for (const target of targets) add(version, hour, "edge", `${edge!.source}->${target}`, 0, 1);
    // the usual step: one top-level state to another
    if (t.from.length === 1 && t.to.length === 1 && targets.length === 1 && t.to[0] === targets[0] && !t.from[0]!.includes(".") && !t.to[0]!.includes(".")) {
      const from = t.from[0]!;
      const to = t.to[0]!;
      const at = since(from);
      if (at !== undefined) add(version, hour, "dwell", from, dwellBucket(Math.max(0, t.at - at)), 1);
      if (from !== to) mark(from, undefined);
      add(version, hour, "enter", to, 0, 1);
      mark(to, t.at);
      continue;
    }
    // a leaf (re-)entered by a target of this transition
    const hit = (leaf: string) => {
      for (const x of targets) if (leaf === x || leaf.startsWith(`${x}.`)) return true;
      return false;
    };
    for (const s of t.from) {
      if (t.to.includes(s) && !hit(s)) continue;
      const at = since(s);
      if (at !== undefined) add(version, hour, "dwell", s, dwellBucket(Math.max(0, t.at - at)), 1);
      mark(s, undefined);
    }
    // groups left open: those around a leaf that stays (not re-entered)
    let open: Set<string> | null = null;
    for (const s of t.from) {
      if (hit(s)) continue;
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
        const stays = isLeaf ? t.from.includes(s) && !hit(s) : !!open?.has(s) && !targets.some((x) => x === s || s.startsWith(`${x}.`)); // (a target at or around the group re-enters it)
        if (stays) continue;
        add(version, hour, "enter", s, 0, 1);
        if (isLeaf) mark(s, t.at);
      }
    }
  }
  const wasOver = before !== null && TERMINAL.has(before.status);
  if (TERMINAL.has(run.status) && !wasOver) {
    const hour = hourOf(run.finishedAt ?? run.updatedAt);
    add(version, hour, "end", run.status, 0, 1);
    if (run.status === "failed" && run.failedStates) {
      const seen = new Set<string>();
      for (const leaf of run.failedStates.split("|")) if (leaf) for (const s of prefixes(leaf)) if (!seen.has(s)) seen.add(s), add(version, hour, "fail", s, 0, 1);
    }
  }
  return out;
}

/** The increments with each one's all-time row beside it (what the stores write). */
export function withAllTime(ds: FleetDelta[]): FleetDelta[] {
  const out: FleetDelta[] = [];
  for (const d of ds) out.push(d, [d[0], d[1], ALL_TIME, d[3], d[4], d[5], d[6]]);
  return out;
}
