// The fleet's counters (table FleetCount): what a commit adds to its workflow's per-state numbers,
// written in the same transaction as the commit, so the fleet view (lib/fleet/fleet.ts) never reads
// transitions. Pure: a run row before the commit and the commit item in, counter deltas out.
//
// Per (workflow, version, hour) — and once more under hour ALL_TIME — a commit counts:
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

/** "A.B.C" → ["A", "A.B", "A.B.C"] */
function prefixes(id: string): string[] {
  const parts = id.split(".");
  return parts.map((_, i) => parts.slice(0, i + 1).join("."));
}

function withGroups(leaves: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const l of leaves) for (const p of prefixes(l)) out.add(p);
  return out;
}

interface EdgePayload {
  edge?: { source?: string; targets?: string[] };
}

/**
 * The counter increments of one commit, summed per row. `before`: the run as it was committed
 * last (null for a new run). Both the hour's row and the all-time row are listed.
 */
export function fleetDeltas(before: RunRow | null, item: CommitItem): FleetDelta[] {
  const run = item.run;
  if (run.replayOf) return [];
  const workflow = run.workflow;
  const version = versionOfInput(item.setInput !== undefined ? item.setInput : run.input);
  const sums = new Map<string, FleetDelta>();
  const add = (v: number, hour: number, kind: FleetKind, key: string, bucket: number, n: number) => {
    for (const h of [hour, ALL_TIME]) {
      const k = `${v}\u0000${h}\u0000${kind}\u0000${key}\u0000${bucket}`;
      const row = sums.get(k);
      if (row) row[6] += n;
      else sums.set(k, [workflow, v, h, kind, key, bucket, n]);
    }
  };
  const first = item.snapshotFirst ?? item.transitions[0]?.seq ?? Infinity;
  const entered: Record<string, number> = { ...(before?.entered ?? {}) };
  for (const t of item.transitions) {
    if (t.seq < first) continue; // a fork's copied history was counted for its own run
    const hour = hourOf(t.at);
    if (t.event === MIGRATE_EVENT) {
      const from = versionOfInput(before?.input);
      t.from.forEach((s, i) => {
        const to = t.to[i];
        const since = entered[s] ?? t.at;
        if (to === undefined) return;
        add(from, hourOf(since), "enter", s, 0, -1);
        add(version, hourOf(since), "enter", to, 0, 1);
      });
      continue;
    }
    if (t.event === FORK_EVENT) {
      // a fork starts a visit of each state it starts in
      for (const s of withGroups(t.to)) add(version, hour, "enter", s, 0, 1);
      for (const s of t.to) entered[s] = t.at;
      continue;
    }
    const edge = (t.payload as EdgePayload | null)?.edge;
    const targets = edge?.targets ?? [];
    if (edge?.source) for (const target of targets) add(version, hour, "edge", `${edge.source}->${target}`, 0, 1);
    if (targets.length === 0) continue; // stays where it is (an internal transition, a halt)
    const fromLeaves = new Set(t.from);
    const toLeaves = new Set(t.to);
    const reentered = new Set(targets.flatMap((target) => t.to.filter((s) => s === target || s.startsWith(`${target}.`))));
    for (const s of fromLeaves) {
      if (toLeaves.has(s) && !reentered.has(s)) continue;
      const since = entered[s];
      if (since !== undefined) add(version, hour, "dwell", s, dwellBucket(Math.max(0, t.at - since)), 1);
      delete entered[s];
    }
    const groupsBefore = withGroups([...fromLeaves].filter((s) => !reentered.has(s)));
    for (const s of withGroups(toLeaves)) {
      const leaf = toLeaves.has(s);
      if (leaf ? fromLeaves.has(s) && !reentered.has(s) : groupsBefore.has(s) && !targets.some((x) => x === s || x.startsWith(`${s}.`))) continue;
      add(version, hour, "enter", s, 0, 1);
      if (leaf) entered[s] = t.at;
    }
  }
  const wasOver = before !== null && TERMINAL.has(before.status);
  if (TERMINAL.has(run.status) && !wasOver) {
    const hour = hourOf(run.finishedAt ?? run.updatedAt);
    add(version, hour, "end", run.status, 0, 1);
    if (run.status === "failed" && run.failedStates) {
      for (const s of withGroups(run.failedStates.split("|").filter(Boolean))) add(version, hour, "fail", s, 0, 1);
    }
  }
  return [...sums.values()].filter((d) => d[6] !== 0);
}
