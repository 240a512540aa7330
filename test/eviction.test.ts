// Runs that wait cost nothing (lib/engine/evict.ts, lib/engine/timer-wheel.ts): a waiting run is
// dropped from memory and loaded from its snapshot when its next decision, event, abort or timer
// arrives; a restart loads only the runs with an effect in flight; timers come from the database.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { sseResponse } from "../lib/api/sse";
import { migrateDatabase } from "../lib/db/migrations";
import { pgReachable, scratchSchema } from "../lib/db/pg-scratch";
import { ManualClock } from "../lib/engine/clock";
import { ConflictError } from "../lib/engine/errors";
import { evictAfterFromEnv } from "../lib/engine/evict";
import { openSqlite } from "../lib/db/sqlite";
import { sqlitePath } from "../lib/db/url";
import { PostgresRunStore } from "../lib/engine/store/postgres";
import { SqliteRunStore } from "../lib/engine/store/sqlite";
import type { RunStore } from "../lib/engine/store/types";
import { createRuntime, defaultEffects, type Runtime } from "../lib/runtime";
import { flush, hang, inState, swissRuntime, tempDbUrl } from "./helpers";
import { commitItem, runRow } from "./support/databases";

const open: Runtime[] = [];
afterEach(async () => {
  for (const rt of open.splice(0)) await rt.close().catch(() => {});
});
const REQUEST = "Write a TypeScript function that retries a fetch with exponential backoff and jitter";

async function swiss(opts: Parameters<typeof swissRuntime>[0] = {}): Promise<Runtime & { clock: ManualClock }> {
  const rt = await swissRuntime(opts);
  open.push(rt);
  return rt;
}

/** A swiss-army run waiting at HUMAN_REVIEW; its review id. */
async function atReview(rt: Runtime): Promise<{ runId: string; reviewId: string }> {
  const { run } = await rt.engine.start("swiss-army", { request: REQUEST });
  const r = await rt.engine.waitFor(run.id, inState("HUMAN_REVIEW"));
  return { runId: run.id, reviewId: r.reviewId! };
}

/** Evict every idle run; the run is no longer held in memory. */
async function evict(rt: Runtime): Promise<void> {
  await flush();
  rt.engine.evictIdle(0);
  expect(rt.engine.size).toBe(0);
}

async function until(test: () => Promise<boolean> | boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await test())) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await flush();
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("eviction of waiting runs (SQLite)", () => {
  it("evicts a run waiting for a review; the decision loads it from its snapshot and it goes on", async () => {
    const rt = await swiss();
    const { runId, reviewId } = await atReview(rt);
    expect(rt.engine.size).toBe(1);
    await evict(rt);
    // reads answer from the database without bringing it back
    expect((await rt.engine.getRun(runId)).reviewId).toBe(reviewId);
    expect(await rt.engine.acceptedNow(runId)).toEqual(expect.arrayContaining(["APPROVE", "REJECT", "MODIFY", "ABORT"]));
    expect(rt.engine.size).toBe(0);
    const out = await rt.engine.decide(reviewId, { decision: "approve", reviewer: "ana" });
    expect(out.run.state).toEqual(["IDLE"]);
    expect(out.review.decision).toBe("approve");
    const seqs = (await rt.store.transitions(runId)).map((t) => t.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  });

  it("applies exactly one of 50 concurrent decisions on an evicted run", async () => {
    const rt = await swiss();
    const { runId, reviewId } = await atReview(rt);
    await evict(rt);
    const decisions = ["approve", "reject"] as const;
    const results = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => rt.engine.decide(reviewId, { decision: decisions[i % 2], reviewer: `r${i}` })));
    const ok = results.filter((r) => r.status === "fulfilled");
    expect(ok).toHaveLength(1);
    for (const r of results) if (r.status === "rejected") expect(r.reason).toBeInstanceOf(ConflictError);
    const decided = (await rt.store.transitions(runId)).filter((t) => t.event === "APPROVE" || t.event === "REJECT");
    expect(decided).toHaveLength(1);
    expect((await rt.store.getReview(reviewId))!.status).toBe("decided");
    expect((await rt.store.getRun(runId))!.state).toEqual(["IDLE"]);
  });

  it("aborts an evicted run and sends an event to one", async () => {
    const rt = await swiss();
    const a = await atReview(rt);
    const b = await atReview(rt);
    await rt.engine.decide(b.reviewId, { decision: "approve" });
    await evict(rt);
    const aborted = await rt.engine.abort(a.runId, "not needed");
    expect(aborted.run.state).toEqual(["IDLE"]);
    expect((await rt.store.transitions(a.runId)).at(-1)!.event).toBe("ABORT");
    expect((await rt.store.getReview(a.reviewId))!.status).not.toBe("pending");
    // b waits in IDLE for a new request: the event loads it and it runs the new cycle
    await evict(rt);
    await rt.engine.send(b.runId, { type: "REQUEST", request: "Summarise the retry policy in two sentences please" });
    const again = await rt.engine.waitFor(b.runId, inState("HUMAN_REVIEW"));
    expect(again.reviewId).not.toBe(b.reviewId);
  });

  it("fires a durable timer of an evicted run at its original deadline, from the database", async () => {
    const clock = new ManualClock();
    const url = tempDbUrl();
    const rt = await swiss({ url, clock });
    const { runId, reviewId } = await atReview(rt);
    await rt.engine.decide(reviewId, { decision: "approve" });
    const [timer] = await rt.store.timers(runId);
    expect(timer.id).toContain("idleAnalysis");
    await evict(rt);
    // one wake-up for the process, by the deadline (an earlier one may be a timer since cleared: it just wakes and re-arms)
    expect(rt.engine.memory.nextTimer).toBeLessThanOrEqual(timer.dueAt);
    const fired = async () => (await rt.store.transitions(runId)).some((t) => t.event.includes("idleAnalysis"));
    clock.advance(timer.dueAt - clock.now() - 1);
    await flush(20);
    expect(await fired()).toBe(false);
    expect(rt.engine.size).toBe(0); // not loaded before its time
    clock.advance(1);
    await until(fired, "the idle timer fired");
    const t = (await rt.store.transitions(runId)).find((x) => x.event.includes("idleAnalysis"))!;
    expect(t.at).toBe(timer.dueAt);
    expect(await rt.store.timers(runId)).toEqual([]);
  });

  it("after a restart: loads no waiting run, fires a pending timer at its deadline and an overdue one at once", async () => {
    const clock = new ManualClock();
    const url = tempDbUrl();
    const a = await swiss({ url, clock });
    const idle: string[] = [];
    for (let i = 0; i < 2; i++) {
      const { runId, reviewId } = await atReview(a);
      await a.engine.decide(reviewId, { decision: "approve" });
      idle.push(runId);
      clock.advance(60_000); // the second run's idle timer is due a minute later
    }
    const [t0] = await a.store.timers(idle[0]);
    const [t1] = await a.store.timers(idle[1]);
    expect(t1.dueAt - t0.dueAt).toBe(60_000);
    await a.close();
    // down past the first deadline, not the second
    clock.advance(t0.dueAt - clock.now() + 1_000);
    const b = await swiss({ url, clock });
    expect(b.engine.size).toBe(0);
    clock.advance(0);
    const firedAt = async (id: string) => (await b.store.transitions(id)).find((x) => x.event.includes("idleAnalysis"))?.at;
    await until(async () => (await firedAt(idle[0])) !== undefined, "the overdue timer fired");
    expect(await firedAt(idle[0])).toBe(t0.dueAt + 1_000);
    expect(await firedAt(idle[1])).toBeUndefined();
    clock.advance(t1.dueAt - clock.now());
    await until(async () => (await firedAt(idle[1])) !== undefined, "the pending timer fired");
    expect(await firedAt(idle[1])).toBe(t1.dueAt);
  });

  it("a restart with many waiting runs loads only the run with an effect in flight", async () => {
    const url = tempDbUrl();
    const clock = new ManualClock();
    const a = await swiss({ url, clock });
    const waiting: string[] = [];
    for (let i = 0; i < 12; i++) waiting.push((await atReview(a)).runId);
    await a.close();
    const b = await swiss({ url, clock, actors: { execute: hang() } });
    const { run: hanging } = await b.engine.start("swiss-army", { request: REQUEST });
    await b.engine.waitFor(hanging.id, inState("EXECUTING"));
    // Run.inFlight: what the boot query reads
    const inFlight = new Map((b.sqlite!.db.prepare(`SELECT "id","inFlight" FROM "Run"`).safeIntegers(false).all() as { id: string; inFlight: number }[]).map((r) => [r.id, r.inFlight]));
    expect(inFlight.get(hanging.id)).toBe(1);
    for (const id of waiting) expect(inFlight.get(id)).toBe(0);
    await b.close();

    const c = await swiss({ url, clock, actors: { execute: hang() } });
    expect(c.engine.size).toBe(1); // the hanging one (its effect started again); the twelve reviews stay in the database
    expect(await c.engine.acceptedNow(waiting[3])).toContain("APPROVE");
    expect(c.engine.size).toBe(1);
    const reviewId = (await c.engine.getRun(waiting[3])).reviewId!;
    const out = await c.engine.decide(reviewId, { decision: "reject" });
    expect(out.run.state).toEqual(["IDLE"]);
    expect(c.engine.size).toBe(2);
  });

  it("a watcher's stream gets the steps of a run restored from its snapshot", async () => {
    const rt = await swiss();
    const { runId, reviewId } = await atReview(rt);
    await evict(rt);
    const ac = new AbortController();
    const res = sseResponse(rt, runId, ac.signal);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    const decided = rt.engine.decide(reviewId, { decision: "approve" });
    while (!/event: run\ndata: .*"IDLE"/.test(text)) {
      const { value, done } = await Promise.race([reader.read(), new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no run event in ${JSON.stringify(text)}`)), 5_000))]);
      if (done) break;
      text += decoder.decode(value);
    }
    await decided;
    expect(text).toMatch(/event: run\ndata: .*"IDLE"/);
    // the run event lists what the restored run accepts
    const data = JSON.parse(/event: run\ndata: (.*)\n/.exec(text)![1]) as { run: { accepted?: string[] } };
    expect(data.run.accepted).toEqual(expect.arrayContaining(["REQUEST"]));
    ac.abort();
  });

  it("evicts on its own after SWITCHYARD_EVICT_AFTER_MS; 0 keeps every run in memory", async () => {
    // `never`'s run waits first: by the time `quick` has evicted its own, never's has been idle longer
    const never = await swiss({ env: { SWITCHYARD_EVICT_AFTER_MS: "0" } as unknown as NodeJS.ProcessEnv });
    await atReview(never);
    const quick = await swiss({ env: { SWITCHYARD_EVICT_AFTER_MS: "100" } as unknown as NodeJS.ProcessEnv });
    await atReview(quick);
    await until(() => quick.engine.size === 0, "the waiting run was evicted", 5_000);
    expect(quick.engine.memory.evicted).toBeGreaterThanOrEqual(1);
    expect(never.engine.size).toBe(1);
    expect(never.engine.memory.evicted).toBe(0);
    expect(evictAfterFromEnv({} as NodeJS.ProcessEnv)).toBe(5_000);
    expect(() => evictAfterFromEnv({ SWITCHYARD_EVICT_AFTER_MS: "soon" } as unknown as NodeJS.ProcessEnv)).toThrow(/SWITCHYARD_EVICT_AFTER_MS/);
  });
});

const PG_URL = process.env.POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/test";

// Cluster mode: an evicted run's decision and its timer's queued job still find it.
describe("eviction in cluster mode (PostgreSQL)", () => {
  let skip: string | null = null;
  let scratch: Awaited<ReturnType<typeof scratchSchema>> | null = null;
  beforeAll(async () => {
    skip = await pgReachable(PG_URL);
    if (skip) console.log(`[eviction] cluster part skipped: PostgreSQL not reachable at ${PG_URL} (${skip})`);
    else scratch = await scratchSchema(PG_URL, "sy_evict_cl");
  }, 60_000);
  afterAll(async () => {
    await scratch?.drop();
  }, 60_000);

  it("a decision and a queued timer job load an evicted run", async (ctx) => {
    if (skip || !scratch) return ctx.skip();
    const env = { SWITCHYARD_EVICT_AFTER_MS: "0" } as unknown as NodeJS.ProcessEnv;
    const rt = await createRuntime({
      url: `${PG_URL}?schema=${scratch.schema}`,
      env,
      role: "all",
      migrate: migrateDatabase,
      serviceChoresMs: 0,
      seedGuide: false,
      alerts: { start: false },
      webhooks: { start: false },
      queue: { schema: scratch.schema, expireSeconds: 30, maintenanceSeconds: 5 },
      worker: { concurrency: 8, pollMs: 200 },
      effects: (base) => defaultEffects(base, env),
    });
    open.push(rt);
    const { run } = await rt.engine.start("swiss-army", { request: REQUEST, config: { idleAnalysisMs: 1_500 } });
    const waiting = await rt.engine.waitFor(run.id, inState("HUMAN_REVIEW"), 30_000);
    await until(() => rt.engine.evictIdle(0) >= 0 && rt.engine.size === 0, "the run was evicted");
    const out = await rt.engine.decide(waiting.reviewId!, { decision: "approve" });
    expect(out.run.state).toEqual(["IDLE"]);
    await until(() => rt.engine.evictIdle(0) >= 0 && rt.engine.size === 0, "the run was evicted again");
    // the idle timer (1.5 s) is a delayed job: the worker that takes it loads the run
    await until(async () => (await rt.store.transitions(run.id)).some((t) => t.event.includes("idleAnalysis")), "the idle timer fired from the queue", 20_000);
    expect((await rt.store.transitions(run.id)).filter((t) => t.event.includes("idleAnalysis"))).toHaveLength(1);
  }, 60_000);
});

// The store's side, on SQLite and on PostgreSQL (cluster mode's store): the boot query and the timer reads.
const stores: [string, () => Promise<{ store: RunStore; close(): Promise<void> } | string>][] = [
  [
    "SQLite",
    async () => {
      const url = tempDbUrl("evict");
      await migrateDatabase(url);
      const handle = openSqlite(sqlitePath(url));
      const store = new SqliteRunStore(handle);
      return {
        store,
        close: async () => {
          await store.close();
          handle.db.close();
        },
      };
    },
  ],
  [
    "PostgreSQL",
    async () => {
      const skip = await pgReachable(PG_URL);
      if (skip) return `not reachable at ${PG_URL} (${skip})`;
      const scratch = await scratchSchema(PG_URL, "sy_evict");
      await migrateDatabase(`${PG_URL}?schema=${scratch.schema}`);
      const store = new PostgresRunStore(PG_URL, { options: scratch.options, max: 2 });
      return { store, close: async () => (await store.close(), await scratch.drop()) };
    },
  ],
];
for (const [name, make] of stores) describe(`eviction queries (${name})`, () => {
  let skip: string | null = null;
  let h: { store: RunStore; close(): Promise<void> } | null = null;
  let store: RunStore;
  beforeAll(async () => {
    const made = await make();
    if (typeof made === "string") {
      skip = made;
      console.log(`[eviction] ${name} part skipped: ${made}`);
      return;
    }
    h = made;
    store = made.store;
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  it("activeRuns holds runs with an effect in flight and running ones waiting for nothing stored; nextTimer and dueTimers read timers in due order", async (ctx) => {
    if (skip || !h) return ctx.skip();
    const T = Date.UTC(2026, 10, 1);
    const busy = { children: { parse: { src: "parseRequest", snapshot: { status: "active", input: {} } } } };
    const timer = (runId: string, id: string, dueAt: number) => ({ runId, id, dueAt, event: { type: id }, seq: 1 });
    await store.commit([
      commitItem(runRow("busy", T, { seq: 1, snapshot: busy }), null, { timersSet: [timer("busy", "late", T + 3_000)] }),
      commitItem(runRow("waits", T, { seq: 1, status: "waiting" }), null, { timersSet: [timer("waits", "soon", T + 1_000)] }),
      commitItem(runRow("done", T, { seq: 1, status: "completed", finishedAt: T }), null, { timersSet: [timer("done", "stale", T + 500)] }),
      commitItem(runRow("imported-x", T, { seq: 1 }), null, { timersSet: [timer("imported-x", "never", T + 100)] }),
      // running with nothing to wait for in the database: loaded at boot for the STUCK check
      commitItem(runRow("stuck", T, { seq: 1 }), null),
      commitItem(runRow("sleeps", T, { seq: 1 }), null, { timersSet: [timer("sleeps", "nap", T + 9_000)] }),
    ]);
    const active = await store.activeRuns();
    expect(active.map((r) => r.run.id).sort()).toEqual(["busy", "stuck"]);
    expect(active.find((r) => r.run.id === "busy")!.timers.map((t) => t.id)).toEqual(["late"]);
    expect(await store.nextTimer(null)).toBe(T + 1_000);
    expect(await store.nextTimer(T + 1_000)).toBe(T + 3_000);
    expect(await store.nextTimer(T + 3_000)).toBe(T + 9_000);
    expect(await store.nextTimer(T + 9_000)).toBeNull();
    expect((await store.dueTimers(T + 2_000, 10)).map((t) => t.id)).toEqual(["soon"]);
    expect((await store.dueTimers(T + 5_000, 10)).map((t) => t.id)).toEqual(["soon", "late"]);
    expect((await store.dueTimers(T + 9_000, 1)).map((t) => t.id)).toEqual(["soon"]);
  });
});
