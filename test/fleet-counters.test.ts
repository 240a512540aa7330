// The fleet's counter increments of one commit (lib/fleet/counters.ts) and the dwell histogram
// (lib/fleet/buckets.ts), by hand: groups entered from outside, visits ended, a migration moving
// its visit, a fork, a finish, a replay (nothing).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bucketFloor, dwellBucket, quantile } from "../lib/fleet/buckets";
import { ALL_TIME, fleetDeltas as hourDeltas, HOUR_MS, NO_DWELL, withAllTime, type FleetDelta } from "../lib/fleet/counters";
import { assemble, stuckBefore, STUCK_FACTOR } from "../lib/fleet/fleet";
import type { FleetRows } from "../lib/engine/store/types";
import type { WorkflowGraph } from "../lib/graph/derive";
import type { CommitItem, RunRow, TransitionRow } from "../lib/engine/store/types";

const H = 500_000;
const at = (h: number, ms = 0) => h * HOUR_MS + ms;
const row = (over: Partial<RunRow>): RunRow => ({ id: "r", workflow: "wf", status: "running", state: [], snapshot: {}, context: {}, input: { definitionVersion: 1 }, output: null, error: null, entered: {}, version: 1, seq: 0, parentId: null, forkOf: null, forkSeq: null, scheduleId: null, retries: 0, waitingSince: null, failedStates: null, createdAt: 0, updatedAt: 0, finishedAt: null, name: null, ...over });
const t = (seq: number, from: string[], to: string[], when: number, edge?: { source: string; targets: string[] }, event = "GO"): TransitionRow => ({ runId: "r", seq, from, to, event, reason: "", at: when, durationMs: 0, payload: edge ? { edge } : {} });
const item = (run: RunRow, transitions: TransitionRow[], extra: Partial<CommitItem> = {}) => ({ run, transitions, expectVersion: 1, timersSet: [], timersClear: [], reviewsOpen: [], reviewsClose: [], artifacts: [], timers: [], ...extra }) as CommitItem;

/** the increments as the stores write them: each in its hour and in the all-time row */
const fleetDeltas = (...a: Parameters<typeof hourDeltas>) => withAllTime(hourDeltas(...a));

/** the increments summed per row */
function summed(ds: FleetDelta[]) {
  const out: Record<string, number> = {};
  for (const d of ds) {
    const k = `${d[2] === ALL_TIME ? "all" : d[2]}|v${d[1]}|${d[3]}|${d[4]}${d[3] === "dwell" || d[3] === "step" ? `|${d[5]}` : ""}`;
    out[k] = (out[k] ?? 0) + d[6];
  }
  return out;
}

describe("fleet counter increments", () => {
  it("a move into a group: the group and its leaf entered, the leaf left dwelt; every row also all-time", () => {
    const before = row({ state: ["A"], entered: { A: at(H, 0) } });
    const after = row({ state: ["G.X"], entered: { "G.X": at(H, 5_000) } });
    const s = summed(fleetDeltas(before, item(after, [t(2, ["A"], ["G.X"], at(H, 5_000), { source: "A", targets: ["G"] })])));
    expect(s).toEqual({
      [`${H}|v1|edge|A->G`]: 1,
      "all|v1|edge|A->G": 1,
      [`${H}|v1|dwell|A|${dwellBucket(5_000)}`]: 1,
      [`all|v1|dwell|A|${dwellBucket(5_000)}`]: 1,
      [`${H}|v1|enter|G`]: 1,
      "all|v1|enter|G": 1,
      [`${H}|v1|enter|G.X`]: 1,
      "all|v1|enter|G.X": 1,
    });
  });

  it("the usual step, one top-level state to another: one row for the edge, the entry and the visit it ended", () => {
    const before = row({ state: ["A"], entered: { A: at(H, 0) } });
    const step = (seq: number, from: string, to: string, when: number) => t(seq, [from], [to], when, { source: from, targets: [to] });
    // two steps in one commit: the second visit's length is counted from the first step
    const s = summed(fleetDeltas(before, item(row({ state: ["C"] }), [step(2, "A", "B", at(H, 5_000)), step(3, "B", "C", at(H, 5_070))])));
    expect(s).toEqual({
      [`${H}|v1|step|A->B|${dwellBucket(5_000)}`]: 1,
      [`all|v1|step|A->B|${dwellBucket(5_000)}`]: 1,
      [`${H}|v1|step|B->C|${dwellBucket(70)}`]: 1,
      [`all|v1|step|B->C|${dwellBucket(70)}`]: 1,
    });
    // a visit whose start is not known: the edge and the entry, no length
    expect(summed(fleetDeltas(row({ state: ["A"] }), item(row({ state: ["B"] }), [step(2, "A", "B", at(H))])))).toEqual({ [`${H}|v1|step|A->B|${NO_DWELL}`]: 1, [`all|v1|step|A->B|${NO_DWELL}`]: 1 });
    // read back: the same numbers as separate edge, enter and dwell rows
    const graph = { states: ["A", "B", "C"].map((id) => ({ id })), transitions: [] } as unknown as WorkflowGraph;
    const rows = (kinds: [string, string, number, number][]) => kinds.map(([kind, key, bucket, n]) => ({ kind, key, bucket, n }));
    const read = (counts: FleetRows["counts"]) => assemble({ workflow: "wf", version: 1, window: "all", now: at(H + 1), graph, counts, live: [], stuck: [] });
    expect(read(rows([["step", "A->B", dwellBucket(5_000), 2], ["step", "A->B", NO_DWELL, 1], ["step", "B->C", dwellBucket(70), 1]]))).toEqual(
      read(rows([["edge", "A->B", 0, 3], ["enter", "B", 0, 3], ["dwell", "A", dwellBucket(5_000), 2], ["edge", "B->C", 0, 1], ["enter", "C", 0, 1], ["dwell", "B", dwellBucket(70), 1]])),
    );
  });

  it("a move inside a group enters only the new leaf; leaving the group ends the leaf's visit", () => {
    const inside = summed(fleetDeltas(row({ state: ["G.X"], entered: { "G.X": at(H) } }), item(row({ state: ["G.Y"] }), [t(3, ["G.X"], ["G.Y"], at(H, 10), { source: "G.X", targets: ["G.Y"] })])));
    expect(Object.keys(inside).filter((k) => k.includes("enter") && !k.startsWith("all"))).toEqual([`${H}|v1|enter|G.Y`]);
    const out = summed(fleetDeltas(row({ state: ["G.Y"], entered: { "G.Y": at(H) } }), item(row({ state: ["B"] }), [t(4, ["G.Y"], ["B"], at(H + 1), { source: "G", targets: ["B"] })])));
    expect(out[`${H + 1}|v1|dwell|G.Y|${dwellBucket(HOUR_MS)}`]).toBe(1);
    expect(out[`${H + 1}|v1|enter|B`]).toBe(1);
  });

  it("a halt or an internal transition moves nothing; a finish counts the end and where it failed", () => {
    const before = row({ state: ["G.X"], entered: { "G.X": at(H) } });
    const failed = row({ state: ["G.X"], status: "failed", failedStates: "|G.X|", finishedAt: at(H, 9), updatedAt: at(H, 9) });
    expect(summed(fleetDeltas(before, item(failed, [t(5, ["G.X"], ["G.X"], at(H, 9))])))).toEqual({
      [`${H}|v1|end|failed`]: 1,
      "all|v1|end|failed": 1,
      [`${H}|v1|fail|G`]: 1,
      "all|v1|fail|G": 1,
      [`${H}|v1|fail|G.X`]: 1,
      "all|v1|fail|G.X": 1,
    });
    // already finished before: nothing more
    expect(fleetDeltas({ ...failed }, item(failed, []))).toEqual([]);
  });

  it("a migration takes the visit back from the old version and gives it to the new one, in the hour it began", () => {
    const before = row({ state: ["HOLD"], entered: { HOLD: at(H - 3) } });
    const after = row({ state: ["REVIEW"], input: { definitionVersion: 2 } });
    const s = summed(fleetDeltas(before, item(after, [t(6, ["HOLD"], ["REVIEW"], at(H), undefined, "xstate.migrate")], { setInput: { definitionVersion: 2 } })));
    expect(s).toEqual({ [`${H - 3}|v1|enter|HOLD`]: -1, "all|v1|enter|HOLD": -1, [`${H - 3}|v2|enter|REVIEW`]: 1, "all|v2|enter|REVIEW": 1 });
  });

  it("a fork counts its own start, not the copied history; a replay counts nothing", () => {
    const fork = row({ state: ["B"], forkOf: "src", entered: { B: at(H) } });
    const s = summed(fleetDeltas(null, item(fork, [t(1, [], ["A"], at(1), { source: "", targets: ["A"] }), t(2, ["A"], ["B"], at(2), { source: "A", targets: ["B"] }), t(3, ["B"], ["B"], at(H), undefined, "xstate.fork")], { snapshotFirst: 3, expectVersion: null })));
    expect(s).toEqual({ [`${H}|v1|enter|B`]: 1, "all|v1|enter|B": 1 });
    expect(fleetDeltas(null, item(row({ replayOf: "src" }), [t(1, [], ["A"], at(H), { source: "", targets: ["A"] })]))).toEqual([]);
  });
});

describe("dwell buckets", () => {
  it("a bucket's floor falls in it, and every length lies at most 2.2% above its bucket's floor", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 40 * 86_400_000 }), (ms) => {
        const b = dwellBucket(ms);
        expect(dwellBucket(bucketFloor(b))).toBe(b);
        expect(bucketFloor(b)).toBeLessThanOrEqual(ms);
        expect(ms - bucketFloor(b)).toBeLessThanOrEqual(Math.max(0, bucketFloor(b) * 0.022));
      }),
    );
  });

  it("quantiles by nearest rank, as bucket floors", () => {
    const counts = new Map<number, number>();
    const xs = [5, 7, 7, 90, 1_000, 20_000, 20_000, 3_600_000, 10, 12];
    for (const x of xs) counts.set(dwellBucket(x), (counts.get(dwellBucket(x)) ?? 0) + 1);
    const sorted = [...xs].sort((a, b) => a - b);
    expect(quantile(counts, 0.5)).toBe(bucketFloor(dwellBucket(sorted[4]!)));
    expect(quantile(counts, 0.95)).toBe(bucketFloor(dwellBucket(sorted[9]!)));
    expect(quantile(new Map(), 0.5)).toBeNull();
  });

  it("the live runs: per state from ActiveState's counts, each run once (a parallel root's regions are all active), stuck from the limit asked for", () => {
    const graph = { states: ["A", "A.x", "B", "B.y"].map((id) => ({ id, timeout: id === "B" ? "1m" : null })), transitions: [{ kind: "after", source: "B", delayMs: 60_000 }] } as unknown as WorkflowGraph;
    const live = [
      { state: "A", n: 3, waiting: 1 },
      { state: "A.x", n: 3, waiting: 1 },
      { state: "B", n: 3, waiting: 1 },
      { state: "B.y", n: 2, waiting: 0 },
    ];
    const read = (rootParallel: boolean) => assemble({ workflow: "wf", version: 1, window: "all", now: at(H), graph, counts: [], live, stuck: [{ state: "B", n: 2 }], rootParallel });
    // a compound root: one top-level state per run
    expect(read(false).runs).toMatchObject({ running: 4, waiting: 2 });
    // a parallel root: A and B are both active in each of the 3 runs
    expect(read(true).runs).toMatchObject({ running: 2, waiting: 1 });
    expect(read(true).states).toMatchObject({ A: { now: { running: 2, waiting: 1 }, stuck: 0 }, "B.y": { now: { running: 2, waiting: 0 } }, B: { stuck: 2 } });
    // the limits asked of the store: a state's timeout, or STUCK_FACTOR × its p95 of 10 or more visits, whichever is shorter
    const dwell = (key: string, ms: number, n: number) => ({ kind: "dwell", key, bucket: dwellBucket(ms), n });
    const cuts = stuckBefore(at(H), graph, [dwell("A", 1_000, 10), dwell("A.x", 1_000, 9), dwell("B", 10_000, 10)]);
    expect(Object.fromEntries(cuts)).toEqual({ A: at(H) - STUCK_FACTOR * bucketFloor(dwellBucket(1_000)), B: at(H) - STUCK_FACTOR * bucketFloor(dwellBucket(10_000)) });
    expect(Object.fromEntries(stuckBefore(at(H), graph, [dwell("B", 40_000, 10)]))).toEqual({ B: at(H) - 60_000 });
  });
});
