// The fleet view (GET /api/workflows/{id}/fleet) against a direct count of the same runs'
// transitions and rows, on SQLite and PostgreSQL: runs spread over hours, approved, sent back,
// failed, aborted, left waiting; a replay (counted nowhere); windows all and 1h. Then a migration
// moves its run's visit to the new version's counters.
import { beforeAll, describe, expect } from "vitest";
import { saveUserWorkflow } from "../lib/flows/store";
import { replayRun } from "../lib/change/replay";
import { migrateRuns } from "../lib/change/migrate";
import { ManualClock } from "../lib/engine/clock";
import type { RunRow, TransitionRow } from "../lib/engine/store/types";
import { bucketFloor, dwellBucket } from "../lib/fleet/buckets";
import { HOUR_MS } from "../lib/fleet/counters";
import { fleetOf, STUCK_FACTOR, STUCK_MIN_VISITS, windowStartHour, type Fleet, type FleetWindow } from "../lib/fleet/fleet";
import { deriveGraph } from "../lib/graph/derive";
import { findWorkflow } from "../lib/machines/registry";
import { nodeSuite, postgresNode, sqliteNode, WordModel, type Node } from "./support/change";

const FLOW = `id: fleet-post
initial_stage: DRAFT
stages: [DRAFT, REVIEW, PUBLISH, DONE, FAILED]
transitions: { DRAFT: [REVIEW], REVIEW: [DRAFT, PUBLISH], PUBLISH: [DONE, FAILED], DONE: [], FAILED: [] }
steps:
  DRAFT:
    llm: { prompt: "Write a post about {{input.topic}}." }
    next: REVIEW
  REVIEW:
    review: { prompt: "Publish this post?", show: "{{steps.DRAFT.output}}", decisions: [approve, reject] }
    on: { approve: PUBLISH, reject: DRAFT }
  PUBLISH:
    http: { url: "{{input.publish_url}}", method: POST, body: { text: "{{steps.DRAFT.output}}" } }
    next: DONE
    on_error: FAILED
`;
const FLOW_V2 = FLOW.replace("Write a post about", "Write a friendly post about");

const nearestRank = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.max(1, Math.ceil(q * xs.length)) - 1]!;
const asBucket = (ms: number) => bucketFloor(dwellBucket(ms));

/** What the fleet should say, counted straight from the runs and their transitions. */
function directCount(now: number, window: FleetWindow, runs: RunRow[], transitions: Map<string, TransitionRow[]>, states: string[]) {
  const from = window === "all" ? -Infinity : windowStartHour(now, window) * HOUR_MS;
  const entered: Record<string, number> = {};
  const visits: Record<string, number[]> = {};
  const edges: Record<string, number> = {};
  for (const run of runs) {
    const since: Record<string, number> = {};
    for (const t of transitions.get(run.id) ?? []) {
      const edge = (t.payload as { edge?: { source?: string; targets?: string[] } } | null)?.edge;
      if (!edge?.targets?.length) continue;
      for (const s of t.from) {
        if (since[s] !== undefined && t.at >= from) (visits[s] ??= []).push(t.at - since[s]!);
        delete since[s];
      }
      for (const s of t.to) {
        since[s] = t.at;
        if (t.at >= from) entered[s] = (entered[s] ?? 0) + 1;
      }
      if (edge.source && t.at >= from) for (const target of edge.targets) edges[`${edge.source}->${target}`] = (edges[`${edge.source}->${target}`] ?? 0) + 1;
    }
  }
  const ended = (s: string) => runs.filter((r) => r.status === s && (r.finishedAt ?? 0) >= from).length;
  const live = runs.filter((r) => r.status === "running" || r.status === "waiting");
  const out: Fleet["states"] = {};
  for (const s of states) {
    const v = visits[s] ?? [];
    const dwellMs = v.length ? { p50: asBucket(nearestRank(v, 0.5)), p95: asBucket(nearestRank(v, 0.95)) } : null;
    const here = live.filter((r) => r.state.includes(s));
    out[s] = {
      now: { running: here.filter((r) => r.status === "running").length, waiting: here.filter((r) => r.status === "waiting").length },
      entered: entered[s] ?? 0,
      dwellMs,
      failedHere: runs.filter((r) => r.status === "failed" && (r.finishedAt ?? 0) >= from && r.failedStates?.includes(`|${s}|`)).length,
      stuck: dwellMs && v.length >= STUCK_MIN_VISITS ? here.filter((r) => now - r.entered[s]! > STUCK_FACTOR * dwellMs.p95).length : 0,
    };
  }
  return {
    runs: { running: live.filter((r) => r.status === "running").length, waiting: live.filter((r) => r.status === "waiting").length, completed: ended("completed"), failed: ended("failed"), aborted: ended("aborted") },
    states: out,
    edges: Object.entries(edges)
      .map(([k, count]) => ({ from: k.split("->")[0]!, to: k.split("->")[1]!, count }))
      .sort((x, y) => y.count - x.count || (x.from + x.to < y.from + y.to ? -1 : 1)),
  };
}

function behaviour(name: string, open: () => Promise<Node | null>) {
  const wf = `fleet-post-${name.toLowerCase()}`;
  describe(`the fleet equals a direct count (${name})`, () => {
    const s = nodeSuite(open);
    const ids: string[] = [];
    let replayId = "";
    const decide = async (runId: string, decision: string) => s.rt().engine.decide((await s.pendingReview(runId)).id, { decision, reviewer: "ana" });
    const finished = (runId: string) => s.rt().engine.waitFor(runId, (r) => r.status === "completed" || r.status === "failed", 30_000);
    const minutes = (n: number) => s.rt().clock.advance(n * 60_000);

    async function direct(window: FleetWindow) {
      const runs = (await s.rt().store.listRuns({ workflow: wf, limit: 500 })).filter((r) => !r.replayOf);
      const transitions = new Map(await Promise.all(runs.map(async (r) => [r.id, await s.rt().store.transitions(r.id)] as const)));
      const states = deriveGraph(findWorkflow(wf, { definitionVersion: 1 })!.machine).states.map((s) => s.id);
      return directCount(s.rt().clock.now(), window, runs, transitions, states);
    }

    beforeAll(async () => {
      if (!s.node) return;
      await saveUserWorkflow(s.rt().db, "yaml", FLOW.replace("id: fleet-post", `id: ${wf}`));
      const start = async (i: number, ok: boolean) => (await s.rt().engine.start(wf, { topic: `t${i}`, publish_url: ok ? `${s.receiver.url}/posts` : "http://127.0.0.1:1/down" })).run.id;
      for (let i = 0; i < 14; i++) {
        const id = await start(i, i % 5 !== 3);
        ids.push(id);
        await s.pendingReview(id);
        minutes(3 + ((i * 7) % 11));
        if (i % 4 === 1) {
          await decide(id, "reject");
          minutes(2 + (i % 3));
        }
        if (i >= 11) continue; // left waiting in REVIEW
        await decide(id, "approve");
        await finished(id);
        if (i === 6) minutes(150); // the later runs fall in another hour
      }
      const aborted = await start(99, true);
      await s.pendingReview(aborted);
      minutes(4);
      await s.rt().engine.abort(aborted, "no longer needed");
      ids.push(aborted);
      // a replay of the first run: counted nowhere
      replayId = (await replayRun(s.rt(), ids[0]!, {})).run.id;
      await s.until("the replay to settle", async () => (await s.rt().store.getRun(replayId))?.status !== "running" || null);
      minutes(30);
    }, 180_000);

    for (const window of ["all", "1h", "24h"] as const) {
      s.it(`window ${window}: runs, states (now, entered, dwell, failed here, stuck) and edges`, async () => {
        const fleet = await fleetOf(s.rt(), wf, { window });
        const want = await direct(window);
        expect(fleet).toMatchObject({ workflow: wf, version: 1, window });
        expect(fleet.runs).toEqual(want.runs);
        expect(fleet.states).toEqual(want.states);
        expect(fleet.edges).toEqual(want.edges);
      });
    }

    s.it("the seeded set is what the test says: windows differ, states were visited, failures happened", async () => {
      const all = await fleetOf(s.rt(), wf, { window: "all" });
      const hour = await fleetOf(s.rt(), wf, { window: "1h" });
      expect(all.runs).toEqual({ running: 0, waiting: 3, completed: 9, failed: 2, aborted: 1 });
      expect(all.states.REVIEW!.now.waiting).toBe(3);
      expect(all.states.REVIEW!.entered).toBeGreaterThan(15);
      expect(all.states.PUBLISH!.failedHere).toBe(2);
      expect(all.states.REVIEW!.dwellMs).not.toBeNull();
      expect(hour.states.REVIEW!.entered).toBeLessThan(all.states.REVIEW!.entered);
      expect(all.edges.find((e) => e.from === "REVIEW" && e.to === "DRAFT")?.count).toBe(4);
    });

    s.it("a stuck run: in its state for longer than 3 × p95 of 10 or more visits", async () => {
      const before = await fleetOf(s.rt(), wf, { window: "all" });
      const p95 = before.states.REVIEW!.dwellMs!.p95;
      minutes(Math.ceil((STUCK_FACTOR * p95) / 60_000) + 1);
      const after = await fleetOf(s.rt(), wf, { window: "all" });
      expect(after.states.REVIEW!.stuck).toBe(3);
      expect(after.states.REVIEW).toEqual((await direct("all")).states.REVIEW);
    });

    s.it("a migration moves its run's open visit to the new version's counters", async () => {
      await saveUserWorkflow(s.rt().db, "yaml", FLOW_V2.replace("id: fleet-post", `id: ${wf}`));
      const v1 = await fleetOf(s.rt(), wf, { window: "all", version: 1 });
      const v2 = await fleetOf(s.rt(), wf, { window: "all", version: 2 });
      expect(v2.states.REVIEW).toMatchObject({ now: { running: 0, waiting: 0 }, entered: 0 });
      const out = await migrateRuns(s.rt(), wf, { from: 1, to: 2, runs: [ids[12]!] }, "ana");
      expect(out.results[0]).toMatchObject({ ok: true });
      const v1b = await fleetOf(s.rt(), wf, { window: "all", version: 1 });
      const v2b = await fleetOf(s.rt(), wf, { window: "all" });
      expect(v2b.version).toBe(2);
      expect(v1b.states.REVIEW).toMatchObject({ now: { waiting: 2 }, entered: v1.states.REVIEW!.entered - 1 });
      expect(v2b.states.REVIEW).toMatchObject({ now: { waiting: 1 }, entered: 1 });
      expect(v2b.edges).toEqual([]);
    });
  });
}

behaviour("SQLite", () => sqliteNode(undefined, undefined, new WordModel()));
behaviour("PostgreSQL", () => postgresNode("sy_fleet", new ManualClock(Date.now()), new WordModel()));
