// Decision analytics (lib/reviews/stats.ts, GET /api/workflows/{id}/reviews/stats), computed by
// SQL aggregates: on a seeded set of runs decided by people on the injected clock, plus a replay
// whose decisions the engine made, the statistics equal a count made directly from the test's own
// log of what it decided, on SQLite and on PostgreSQL (a cluster's runtime; skipped with the reason
// printed when it is unreachable). Rows written straight into the table cover what the engine
// seldom writes (names with spaces, no name, rounds cut by the window, other workflows).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../lib/engine/clock";
import { migrateDatabase } from "../lib/db/migrations";
import { pgReachable, scratchSchema, type ScratchSchema } from "../lib/db/pg-scratch";
import { saveUserWorkflow } from "../lib/flows/store";
import { createRuntime, type Runtime } from "../lib/runtime";
import { replayRun } from "../lib/change/replay";
import { reviewStats, StatsQuery } from "../lib/reviews/stats";
import { findWorkflow } from "../lib/machines/registry";
import { writeAll } from "../lib/db/sql";
import { DATABASES, opened, PG_URL, type TestDb } from "./support/databases";
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

/** the nearest-rank percentile, written out again here */
const rank = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil(p * s.length) - 1)]!;
};

interface Seeded {
  rt: Runtime;
  clock: ManualClock;
  log: Logged[];
  /** SIGN rounds: whether each finished with two approvals and nothing else */
  rounds: { at: number; agreed: boolean }[];
}

/** 24 runs decided by four people over three days on `rt`'s clock, then a replay of the first (the engine's decisions) */
async function seed(rt: Runtime, clock: ManualClock): Promise<Seeded> {
  const log: Logged[] = [];
  const rounds: Seeded["rounds"] = [];
  const decide = async (runId: string, state: string, decision: string, reviewer: string, wait: number) => {
    const run = await rt.engine.getRun(runId);
    const review = (await rt.store.listReviews({ runId, status: "pending" }))[0]!;
    expect(review.state).toBe(state);
    expect(run.reviewId).toBe(review.id);
    clock.advance(wait);
    await rt.engine.decide(review.id, { decision, reviewer });
    log.push({ state, decision, reviewer, wait, at: clock.now() });
    await flush();
  };
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
  await rt.engine.waitFor(replay.run.id, (r) => r.status === "completed" || r.status === "failed", 30_000);
  const engineMade = await rt.db.review.findMany({ where: { runId: replay.run.id, status: "decided" } });
  expect(engineMade.length).toBeGreaterThan(0);
  expect(engineMade.every((r) => r.decidedBy === "engine" && r.replayedFrom)).toBe(true);
  return { rt, clock, log, rounds };
}

function directCount(log: Logged[], since: number | null) {
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

/** the seeded set's statistics against the direct count, in each window */
function seededSetTests(get: () => Seeded | null) {
  for (const window of ["all", "24h"] as const) {
    it(`window=${window}: decisions, rates, time to decision, reviewers and agreement equal a direct count`, async (ctx) => {
      const s = get();
      if (!s) return ctx.skip();
      const now = s.clock.now();
      const since = window === "all" ? null : now - DAY;
      const stats = await reviewStats(s.rt, findWorkflow("stats-flow")!, window, now);
      const direct = directCount(s.log, since);
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
      // the window leaves some decisions out
      if (since !== null) expect(s.log.some((l) => l.at < since)).toBe(true);
      expect(stats.states.CHECK!.agreement).toBeNull();
      // (the seeded rounds are wholly inside or wholly outside the last day)
      const finished = s.rounds.filter((r) => since === null || r.at >= since);
      expect(stats.states.SIGN!.rounds).toBe(finished.length);
      expect(stats.states.SIGN!.agreement).toBeCloseTo(finished.filter((r) => r.agreed).length / finished.length, 10);
      // the seeded set exercises what it claims to
      expect(finished.some((r) => r.agreed) && finished.some((r) => !r.agreed)).toBe(true);
    });
  }
}

describe("review stats on a seeded set: SQLite", () => {
  let seeded: Seeded | null = null;
  beforeAll(async () => {
    const clock = new ManualClock(T0);
    const rt = await createRuntime({ url: tempDbUrl("stats"), clock, env: {} as NodeJS.ProcessEnv, migrate: migrateDatabase, serviceChoresMs: 0, seedGuide: false, alerts: { start: false }, webhooks: { start: false }, schedules: { start: false } });
    seeded = await seed(rt, clock);
  }, 120_000);
  afterAll(async () => {
    await seeded?.rt.close();
  });

  seededSetTests(() => seeded);

  it("the route's query: window is 1h, 24h, 7d or all (default 24h)", () => {
    expect(StatsQuery.parse({})).toEqual({ window: "24h" });
    expect(StatsQuery.safeParse({ window: "2h" }).success).toBe(false);
    expect(StatsQuery.safeParse({ window: "all", x: "1" }).success).toBe(false);
  });

  it("GET /api/workflows/{id}/reviews/stats answers the same, 404 for an unknown workflow, 422 for a bad window", async () => {
    const { rt, clock } = seeded!;
    const g = globalThis as unknown as Record<symbol, unknown>;
    g[Symbol.for("switchyard.runtime")] = Promise.resolve(rt);
    const route = await import("../app/api/workflows/[id]/reviews/stats/route");
    const call = (id: string, qs: string) => route.GET(new Request(`http://localhost/api/workflows/${id}/reviews/stats${qs}`), { params: Promise.resolve({ id }) });
    const ok = await call("stats-flow", "?window=all");
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual(JSON.parse(JSON.stringify(await reviewStats(rt, findWorkflow("stats-flow")!, "all", clock.now()))));
    expect((await call("nope", "")).status).toBe(404);
    expect((await call("stats-flow", "?window=forever")).status).toBe(422);
    delete g[Symbol.for("switchyard.runtime")];
  });
});

describe("review stats on a seeded set: PostgreSQL (a cluster's runtime)", () => {
  let skip: string | null = null;
  let scratch: ScratchSchema | null = null;
  let seeded: Seeded | null = null;
  beforeAll(async () => {
    skip = await pgReachable(PG_URL);
    if (skip) return console.log(`[review-stats] PostgreSQL skipped: not reachable at ${PG_URL} (${skip})`);
    scratch = await scratchSchema(PG_URL, "sy_stats");
    const clock = new ManualClock(T0);
    const rt = await createRuntime({
      url: `${PG_URL}?schema=${scratch.schema}`,
      clock,
      env: {} as NodeJS.ProcessEnv,
      migrate: migrateDatabase,
      serviceChoresMs: 0,
      seedGuide: false,
      alerts: { start: false },
      webhooks: { start: false },
      schedules: { start: false },
      queue: { schema: scratch.schema, expireSeconds: 30, maintenanceSeconds: 5 },
      worker: { pollMs: 200 },
    });
    seeded = await seed(rt, clock);
  }, 180_000);
  afterAll(async () => {
    await seeded?.rt.close();
    await scratch?.drop();
  }, 60_000);

  seededSetTests(() => seeded);
});

// ---------------------------------------------------------------------------- rows written directly

const W0 = Date.parse("2026-07-01T12:00:00Z");
const HOUR = 3_600_000;
let nextId = 0;

interface Row {
  runId: string;
  state: string;
  seq: number;
  decision?: string | null;
  reviewer?: string | null;
  /** ms from opening to decision */
  wait?: number;
  /** when decided */
  at: number;
  status?: string;
  decidedBy?: string | null;
  workflow?: string;
  approvals?: { so_far: number; needed: number };
}

async function insert(db: TestDb, rows: Row[]) {
  await writeAll(db.ports, [
    {
      sql: `INSERT INTO "Review" ("id","runId","workflow","state","kind","prompt","payload","status","decision","reviewer","createdAt","decidedAt","seq","decidedBy") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
      each: rows.map((r) => [
        `rv${++nextId}`,
        r.runId,
        r.workflow ?? "stats-flow",
        r.state,
        "step",
        "p",
        JSON.stringify(r.approvals ? { approvals: r.approvals } : { output: "x" }),
        r.status ?? "decided",
        r.decision === undefined ? "approve" : r.decision,
        r.reviewer === undefined ? "ana" : r.reviewer,
        db.date(r.at - (r.wait ?? 1_000)),
        r.status === "pending" ? null : db.date(r.at),
        r.seq,
        r.decidedBy === undefined ? (r.status === "pending" ? null : "person") : r.decidedBy,
      ]),
    },
  ]);
}

for (const database of DATABASES) {
  describe(`review stats from rows: ${database.name}`, () => {
    const h = opened(database, "review-stats");
    beforeAll(async () => {
      const db = await h.open();
      if (!db) return;
      // registers stats-flow in this process (the statistics read its review states and decisions)
      const rt = await createRuntime({ url: tempDbUrl("stats-def"), env: {} as NodeJS.ProcessEnv, migrate: migrateDatabase, serviceChoresMs: 0, seedGuide: false, alerts: { start: false }, webhooks: { start: false }, schedules: { start: false } });
      await saveUserWorkflow(rt.db, "yaml", FLOW);
      await rt.close();
      const q = (runId: string, seq: number, so_far: number, decision = "approve", at = W0 - HOUR + seq * 1_000) => ({ runId, state: "SIGN", seq, decision, at, approvals: { so_far, needed: 3 } });
      await insert(db, [
        // CHECK: names told apart by spaces only are one person; no name is "(anonymous)"; waits 1..5 s and 60 s
        { runId: "c1", state: "CHECK", seq: 1, reviewer: "ana", wait: 5_000, at: W0 - 10 * 60_000 },
        { runId: "c2", state: "CHECK", seq: 1, reviewer: " ana ", wait: 1_000, at: W0 - 9 * 60_000, decision: "reject" },
        { runId: "c3", state: "CHECK", seq: 1, reviewer: null, wait: 3_000, at: W0 - 8 * 60_000, decision: "hold" },
        { runId: "c4", state: "CHECK", seq: 1, reviewer: "", wait: 2_000, at: W0 - 7 * 60_000 },
        { runId: "c5", state: "CHECK", seq: 1, reviewer: "ben", wait: 60_000, at: W0 - 6 * 60_000 },
        { runId: "c6", state: "CHECK", seq: 1, reviewer: "ben", wait: 4_000, at: W0 - 5 * 60_000 },
        // a decision made before it opened (clocks of two processes) counts as no wait
        { runId: "c7", state: "CHECK", seq: 1, reviewer: "ben", wait: -2_000, at: W0 - 4 * 60_000 },
        // left out: the engine's, pending, cancelled, another workflow's; in a window, also after `now` and before its start
        { runId: "x1", state: "CHECK", seq: 1, decidedBy: "engine", at: W0 - 60_000 },
        { runId: "x2", state: "CHECK", seq: 1, status: "pending", decision: null, at: W0 - 60_000 },
        { runId: "x3", state: "CHECK", seq: 1, status: "cancelled", decidedBy: null, decision: null, at: W0 - 60_000 },
        { runId: "x4", state: "CHECK", seq: 1, workflow: "other-flow", at: W0 - 60_000 },
        { runId: "x5", state: "CHECK", seq: 1, at: W0 + 1 },
        { runId: "x6", state: "CHECK", seq: 1, at: W0 - DAY - 1 },
        // SIGN, quorum of 3 in run r: [1,2] starts before the window (left out in 24h), [3,4,5] agreed, [6,7] rejected, [8,9] still open
        { ...q("r", 1, 1), at: W0 - DAY - 2_000 },
        { ...q("r", 2, 2), at: W0 - DAY - 1_000 },
        ...[q("r", 3, 0), q("r", 4, 1), q("r", 5, 2), q("r", 6, 0), q("r", 7, 1, "reject"), q("r", 8, 0), q("r", 9, 1)],
        // run e: an edit counts as its editor's approval of the new value (approvals before it dropped): the round goes on, and is not agreement
        ...[q("e", 1, 0), q("e", 2, 1, "edit"), q("e", 3, 1), q("e", 4, 2), q("e", 5, 0, "edit"), q("e", 6, 1)],
        // a decision in a state that is not (or no longer) a review state is counted under its own name
        { runId: "o1", state: "OLD", seq: 1, reviewer: "cleo", at: W0 - 60_000 },
      ]);
    }, 60_000);
    afterAll(() => h.close(), 60_000);

    h.it("counts, names, waits and quorum rounds, in the window and over all time", async (db) => {
      const def = findWorkflow("stats-flow")!;
      const day = await reviewStats(db.ports, def, "24h", W0);
      expect(day.since).toBe(new Date(W0 - DAY).toISOString());
      expect(day.states.CHECK).toEqual({
        decisions: { approve: 5, reject: 1, hold: 1 },
        rates: { approve: 5 / 7, reject: 1 / 7, hold: 1 / 7 },
        total: 7,
        // waits 0, 1, 2, 3, 4, 5, 60 s: the 4th and the 7th
        timeToDecisionMs: { p50: 3_000, p95: 60_000 },
        reviewers: { ana: 2, "(anonymous)": 2, ben: 3 },
        agreement: null,
      });
      // SIGN in 24h: rounds [3,4,5] agreed, [6,7] rejected, e's [1..4] reached by approvals after an edit; [8,9] and e's [5,6] still open
      expect(day.states.SIGN).toMatchObject({ total: 13, decisions: { approve: 10, reject: 1, edit: 2 }, rounds: 3, agreement: 1 / 3, timeToDecisionMs: { p50: 1_000, p95: 1_000 } });
      expect(day.states.OLD).toMatchObject({ total: 1, decisions: { approve: 1 }, reviewers: { cleo: 1 }, agreement: null });
      // all time: the run r's first round has no start in the data either (the table holds no earlier review): still left out
      const all = await reviewStats(db.ports, def, "all", W0);
      expect(all.since).toBeNull();
      expect(all.states.CHECK).toMatchObject({ total: 9, decisions: { approve: 7, reject: 1, hold: 1 }, reviewers: { ana: 4, "(anonymous)": 2, ben: 3 } });
      expect(all.states.SIGN).toMatchObject({ total: 15, rounds: 3, agreement: 1 / 3 });
      // an hour before the quorum rows: nothing of SIGN, every decision listed at 0
      const before = await reviewStats(db.ports, def, "1h", W0 - 2 * HOUR);
      expect(before.states.SIGN).toEqual({ decisions: { approve: 0, reject: 0 }, rates: {}, total: 0, timeToDecisionMs: { p50: null, p95: null }, reviewers: {}, agreement: null });
    });

    h.it("the same answer whatever the number of rows: a thousand more decisions count exactly", async (db) => {
      const def = findWorkflow("stats-flow")!;
      const waits: number[] = [];
      const rows: Row[] = [];
      const rand = prng(11);
      for (let i = 0; i < 1_000; i++) {
        const wait = Math.floor(rand() * 3_600_000);
        waits.push(wait);
        rows.push({ runId: `m${i}`, state: "CHECK", seq: 1, reviewer: `p${i % 7}`, wait, at: W0 + HOUR + i, decision: i % 10 === 0 ? "reject" : "approve" });
      }
      await insert(db, rows);
      const got = await reviewStats(db.ports, def, "1h", W0 + HOUR + 1_000);
      expect(got.states.CHECK!.total).toBe(1_000);
      expect(got.states.CHECK!.decisions).toEqual({ approve: 900, reject: 100, hold: 0 });
      expect(got.states.CHECK!.reviewers).toEqual(Object.fromEntries(Array.from({ length: 7 }, (_, k) => [`p${k}`, rows.filter((r) => r.reviewer === `p${k}`).length])));
      expect(got.states.CHECK!.timeToDecisionMs).toEqual({ p50: rank(waits, 0.5), p95: rank(waits, 0.95) });
    });
  });
}
