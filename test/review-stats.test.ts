// Decision analytics (lib/reviews/stats.ts, GET /api/workflows/{id}/reviews/stats): on a seeded set
// of runs decided by people on the injected clock, plus a replay whose decisions the engine made,
// the statistics equal a count made directly from the test's own log of what it decided.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../lib/engine/clock";
import { migrateDatabase } from "../lib/db/migrations";
import { saveUserWorkflow } from "../lib/flows/store";
import { createRuntime, type Runtime } from "../lib/runtime";
import { replayRun } from "../lib/change/replay";
import { computeStats, reviewStats, StatsQuery } from "../lib/reviews/stats";
import { findWorkflow } from "../lib/machines/registry";
import { flush, tempDbUrl } from "./helpers";

const FLOW = `id: stats-flow
initial_stage: CHECK
stages: [CHECK, SIGN, DONE, DROPPED]
transitions: { CHECK: [SIGN, DROPPED], SIGN: [DONE, DROPPED], DONE: [], DROPPED: [] }
steps:
  CHECK:
    review: { prompt: "Worth signing?", decisions: [approve, reject, hold] }
    on: { reject: DROPPED, hold: DROPPED }
    next: SIGN
  SIGN:
    review: { prompt: "Sign", approvers: 2 }
    on: { reject: DROPPED }
    next: DONE
`;

const T0 = Date.parse("2026-06-01T08:00:00Z");
const DAY = 86_400_000;

interface Logged {
  state: string;
  decision: string;
  reviewer: string;
  wait: number;
  at: number;
}

/** a small deterministic generator (the seeded set is the same on every run) */
function prng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

let rt: Runtime;
let clock: ManualClock;
const log: Logged[] = [];
/** SIGN rounds: whether each finished with two approvals and nothing else */
const rounds: { at: number; agreed: boolean }[] = [];

async function decide(runId: string, state: string, decision: string, reviewer: string, wait: number) {
  const run = await rt.engine.getRun(runId);
  const review = (await rt.store.listReviews({ runId, status: "pending" }))[0]!;
  expect(review.state).toBe(state);
  expect(run.reviewId).toBe(review.id);
  clock.advance(wait);
  await rt.engine.decide(review.id, { decision, reviewer });
  log.push({ state, decision, reviewer, wait, at: clock.now() });
  await flush();
}

beforeAll(async () => {
  clock = new ManualClock(T0);
  rt = await createRuntime({ url: tempDbUrl("stats"), clock, env: {} as NodeJS.ProcessEnv, migrate: migrateDatabase, serviceChoresMs: 0, seedGuide: false, alerts: { start: false }, webhooks: { start: false }, schedules: { start: false } });
  await saveUserWorkflow(rt.db, "yaml", FLOW);
  const rand = prng(7);
  const people = ["ana", "ben", "cleo", "dev"];
  const pick = <T,>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
  let firstRun = "";
  for (let i = 0; i < 24; i++) {
    // the first third two days back (outside 24h), the rest within the last day
    if (i === 8) clock.advance(2 * DAY);
    const { run } = await rt.engine.start("stats-flow", {});
    firstRun ||= run.id;
    await rt.engine.waitFor(run.id, (r) => r.status === "waiting");
    const check = pick(["approve", "approve", "approve", "reject", "hold"]);
    await decide(run.id, "CHECK", check, pick(people), 1_000 + Math.floor(rand() * 600_000));
    if (check !== "approve") continue;
    const first = pick(people);
    const a = pick(["approve", "approve", "reject"]);
    await decide(run.id, "SIGN", a, first, 500 + Math.floor(rand() * 90_000));
    if (a === "reject") {
      rounds.push({ at: clock.now(), agreed: false });
      continue;
    }
    const second = pick(people.filter((p) => p !== first));
    const b = pick(["approve", "approve", "reject"]);
    await decide(run.id, "SIGN", b, second, 500 + Math.floor(rand() * 90_000));
    rounds.push({ at: clock.now(), agreed: b === "approve" });
  }
  // a replay repeats the first run's decisions: the engine's, never counted
  const replay = await replayRun(rt, firstRun, {});
  await rt.engine.waitFor(replay.run.id, (r) => r.status === "completed" || r.status === "failed");
  const engineMade = await rt.db.review.findMany({ where: { runId: replay.run.id, status: "decided" } });
  expect(engineMade.length).toBeGreaterThan(0);
  expect(engineMade.every((r) => r.decidedBy === "engine" && r.replayedFrom)).toBe(true);
}, 120_000);

afterAll(async () => {
  await rt?.close();
});

/** the nearest-rank percentile, written out again here */
const rank = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil(p * s.length) - 1)]!;
};

function directCount(since: number | null) {
  const inWindow = log.filter((l) => since === null || l.at >= since);
  const out: Record<string, { decisions: Record<string, number>; reviewers: Record<string, number>; waits: number[] }> = {};
  for (const l of inWindow) {
    const s = (out[l.state] ??= { decisions: {}, reviewers: {}, waits: [] });
    s.decisions[l.decision] = (s.decisions[l.decision] ?? 0) + 1;
    s.reviewers[l.reviewer] = (s.reviewers[l.reviewer] ?? 0) + 1;
    s.waits.push(l.wait);
  }
  return out;
}

describe("review stats on a seeded set", () => {
  for (const window of ["all", "24h"] as const) {
    it(`window=${window}: decisions, rates, time to decision, reviewers and agreement equal a direct count`, async () => {
      const now = clock.now();
      const since = window === "all" ? null : now - DAY;
      const stats = await reviewStats(rt.db, findWorkflow("stats-flow")!, window, now);
      const direct = directCount(since);
      expect(Object.keys(stats.states).sort()).toEqual(["CHECK", "SIGN"]);
      for (const state of ["CHECK", "SIGN"]) {
        const got = stats.states[state]!;
        const want = direct[state]!;
        const total = Object.values(want.decisions).reduce((a, b) => a + b, 0);
        // every decision the state offers is listed, 0 when none was made
        const offered = state === "CHECK" ? ["approve", "reject", "hold"] : ["approve", "reject"];
        expect(got.decisions).toEqual(Object.fromEntries(offered.map((d) => [d, want.decisions[d] ?? 0])));
        expect(got.total).toBe(total);
        for (const d of offered) expect(got.rates[d]).toBeCloseTo((want.decisions[d] ?? 0) / total, 10);
        expect(got.reviewers).toEqual(want.reviewers);
        expect(got.timeToDecisionMs).toEqual({ p50: rank(want.waits, 0.5), p95: rank(want.waits, 0.95) });
      }
      expect(stats.states.CHECK!.agreement).toBeNull();
      // (the seeded rounds are wholly inside or wholly outside the last day)
      const finished = rounds.filter((r) => since === null || r.at >= since);
      expect(stats.states.SIGN!.rounds).toBe(finished.length);
      expect(stats.states.SIGN!.agreement).toBeCloseTo(finished.filter((r) => r.agreed).length / finished.length, 10);
      // the seeded set exercises what it claims to
      expect(finished.some((r) => r.agreed) && finished.some((r) => !r.agreed)).toBe(true);
    });
  }

  it("the route's query: window is 1h, 24h, 7d or all (default 24h)", () => {
    expect(StatsQuery.parse({})).toEqual({ window: "24h" });
    expect(StatsQuery.safeParse({ window: "2h" }).success).toBe(false);
    expect(StatsQuery.safeParse({ window: "all", x: "1" }).success).toBe(false);
  });

  it("GET /api/workflows/{id}/reviews/stats answers the same, 404 for an unknown workflow, 422 for a bad window", async () => {
    const g = globalThis as unknown as Record<symbol, unknown>;
    g[Symbol.for("switchyard.runtime")] = Promise.resolve(rt);
    const route = await import("../app/api/workflows/[id]/reviews/stats/route");
    const call = (id: string, qs: string) => route.GET(new Request(`http://localhost/api/workflows/${id}/reviews/stats${qs}`), { params: Promise.resolve({ id }) });
    const ok = await call("stats-flow", "?window=all");
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual(JSON.parse(JSON.stringify(await reviewStats(rt.db, findWorkflow("stats-flow")!, "all", clock.now()))));
    expect((await call("nope", "")).status).toBe(404);
    expect((await call("stats-flow", "?window=forever")).status).toBe(422);
    delete g[Symbol.for("switchyard.runtime")];
  });

  it("a round still collecting approvals, or whose start is before the window, is not counted", () => {
    const base = { runId: "r", state: "S", reviewer: "x", createdAt: 0, decidedAt: 1 };
    const q = (seq: number, so_far: number, decision = "approve") => ({ ...base, seq, decision, approvals: { so_far, needed: 3 } });
    const s = computeStats([q(1, 1), q(2, 2), q(3, 0), q(4, 1), q(5, 2), q(6, 0), q(7, 1, "reject"), q(8, 0), q(9, 1)], { S: ["approve", "reject"] });
    // rounds: [1,2] starts before the window (left out), [3,4,5] agreed, [6,7] rejected, [8,9] still open
    expect(s.S).toMatchObject({ rounds: 2, agreement: 0.5 });
    // an edit counts as its editor's approval of the new value (approvals before it dropped): the round goes on, and is not agreement
    const e = computeStats([q(1, 0), q(2, 1, "edit"), q(3, 1), q(4, 2), q(5, 0, "edit"), q(6, 1)], { S: ["approve", "edit"] });
    expect(e.S).toMatchObject({ rounds: 1, agreement: 0 });
  });
});
