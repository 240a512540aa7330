// The task queue on both databases (SQLite always; PostgreSQL when reachable at 127.0.0.1:5432
// or POSTGRES_URL): a task per invocation key, claims that hand each task to exactly one of many
// concurrent claimants, leases that run out, lease tokens that refuse late calls, and failures.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { migrateDatabase } from "../lib/db/migrations";
import { pgReachable, scratchSchema, type ScratchSchema } from "../lib/db/pg-scratch";
import { openSqlite, type SqliteHandle } from "../lib/db/sqlite";
import { sqlitePath } from "../lib/db/url";
import { ManualClock } from "../lib/engine/clock";
import { MAX_WAIT_MS, TaskQueue, type TaskQueueOptions } from "../lib/tasks/queue";
import type { NewTask, TaskRow } from "../lib/tasks/store";
import { tempDbUrl } from "./helpers";

const PG_URL = process.env.POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/test";

interface Harness {
  queue: TaskQueue;
  clock: ManualClock;
  /** runs that have moved on (isCurrent answers false for them) */
  movedOn: Set<string>;
  /** settled tasks handed to `resume` (the engine runs the parked invocation again) */
  resumed: TaskRow[];
  ports: TaskQueueOptions["ports"];
  close(): Promise<void>;
}

async function harness(kind: "sqlite" | "postgres"): Promise<Harness> {
  const clock = new ManualClock(Date.UTC(2026, 10, 26, 9));
  const movedOn = new Set<string>();
  const isCurrent = async (runId: string) => !movedOn.has(runId);
  // what the engine does with a settled task (runs its parked invocation again): recorded here
  const resumed: TaskRow[] = [];
  const resume = async (t: TaskRow) => void resumed.push(t);
  if (kind === "sqlite") {
    const url = tempDbUrl("tasks");
    await migrateDatabase(url);
    const handle: SqliteHandle = openSqlite(sqlitePath(url));
    const queue = new TaskQueue({ ports: { sqlite: handle }, clock, leaseMs: 10_000, pollMs: 50, isCurrent, resume });
    return { queue, clock, movedOn, resumed, ports: { sqlite: handle }, close: async () => void (queue.close(), handle.db.close()) };
  }
  const scratch: ScratchSchema = await scratchSchema(PG_URL, "sy_tasks");
  const pool = new pg.Pool({ connectionString: PG_URL, options: scratch.options, max: 20 });
  const queue = new TaskQueue({ ports: { pg: pool }, clock, leaseMs: 10_000, pollMs: 50, isCurrent, resume });
  return { queue, clock, movedOn, resumed, ports: { pg: pool }, close: async () => (queue.close(), await pool.end(), await scratch.drop()) };
}

const task = (n: number, over: Partial<NewTask> = {}): NewTask => ({ key: `run-${n}:step-NOTIFY:0`, queue: "q", runId: `run-${n}`, workflow: "wf", stage: "NOTIFY", effect: "step.external", input: { n }, maxAttempts: 2, backoffMs: 0, ...over });

for (const kind of ["sqlite", "postgres"] as const) {
  describe(`task queue on ${kind}`, () => {
    let h: Harness | null = null;
    let skip: string | null = null;
    beforeAll(async () => {
      if (kind === "postgres") {
        skip = await pgReachable(PG_URL);
        if (skip) return console.log(`[tasks-store] PostgreSQL skipped: not reachable at ${PG_URL} (${skip})`);
      }
      h = await harness(kind);
    });
    afterAll(async () => h?.close());

    it("one task per invocation key: creating it again returns the same row", async (ctx) => {
      if (skip || !h) return ctx.skip();
      const a = await h.queue.create(task(1, { queue: "keyed" }));
      const b = await h.queue.create(task(1, { queue: "keyed", input: { n: 99 } }));
      expect(b.id).toBe(a.id);
      expect(b.input).toEqual({ n: 1 });
      expect(await h.queue.store.list({ queue: "keyed" })).toHaveLength(1);
    });

    it("50 claimants at once for 10 tasks: each task to exactly one, the other 40 get nothing", async (ctx) => {
      if (skip || !h) return ctx.skip();
      for (let i = 0; i < 10; i++) await h.queue.create(task(100 + i, { queue: "burst" }));
      const got = await Promise.all(Array.from({ length: 50 }, (_, i) => h!.queue.claim("burst", `w${i}`)));
      const won = got.filter((t) => t !== null);
      expect(won).toHaveLength(10);
      expect(new Set(won.map((t) => t!.id)).size).toBe(10);
      const rows = await h.queue.store.list({ queue: "burst" });
      expect(rows.every((r) => r.status === "claimed" && r.attempt === 1)).toBe(true);
      // each row's holder is the claimant that got it
      const holder = new Map(got.flatMap((t, i) => (t ? [[t.id, `w${i}`] as const] : [])));
      for (const r of rows) expect(r.worker).toBe(holder.get(r.id));
    });

    it("a lease that runs out is offered again with attempt 2; the first holder's late calls are refused; the last attempt's expiry fails the task", async (ctx) => {
      if (skip || !h) return ctx.skip();
      const t = await h.queue.create(task(200, { queue: "lease" }));
      const first = (await h.queue.claim("lease", "a"))!;
      expect(first).toMatchObject({ id: t.id, attempt: 1, leaseMs: 10_000, leaseToken: expect.stringMatching(/^lease_[A-Za-z0-9_-]{43}$/) });
      // only the token's hash is stored
      expect(JSON.stringify(await h.queue.store.get(t.id))).not.toContain(first.leaseToken);
      h.clock.advance(9_000);
      await h.queue.heartbeat(t.id, { leaseToken: first.leaseToken });
      h.clock.advance(9_000);
      expect(await h.queue.claim("lease", "b")).toBeNull(); // the heartbeat moved the lease
      h.clock.advance(1_001);
      const second = (await h.queue.claim("lease", "b"))!;
      expect(second).toMatchObject({ id: t.id, attempt: 2 });
      expect(second.leaseToken).not.toBe(first.leaseToken);
      await expect(h.queue.heartbeat(t.id, { leaseToken: first.leaseToken })).rejects.toMatchObject({ status: 409, code: "lease_lost" });
      await expect(h.queue.complete(t.id, { by: "a" }, { leaseToken: first.leaseToken })).rejects.toMatchObject({ status: 409, code: "lease_lost" });
      // attempt 2 of 2 runs out too: not offered again, failed by the sweep
      h.clock.advance(10_001);
      expect(await h.queue.claim("lease", "c")).toBeNull();
      await h.queue.sweep();
      expect(await h.queue.store.get(t.id)).toMatchObject({ status: "failed", error: { message: expect.stringMatching(/lease ran out/) } });
    });

    it("complete twice answers the first result; a run that moved on is 409 and withdraws the task", async (ctx) => {
      if (skip || !h) return ctx.skip();
      const t = await h.queue.create(task(300, { queue: "done" }));
      const c = (await h.queue.claim("done", "a"))!;
      const one = await h.queue.complete(t.id, { v: 1 }, { leaseToken: c.leaseToken });
      const two = await h.queue.complete(t.id, { v: 2 }, { leaseToken: c.leaseToken });
      expect(one.output).toEqual({ v: 1 });
      expect(two.output).toEqual({ v: 1 });
      expect(one.settledBy).toBe("a");
      const u = await h.queue.create(task(301, { queue: "done" }));
      const d = (await h.queue.claim("done", "a"))!;
      h.movedOn.add("run-301");
      await expect(h.queue.complete(u.id, { v: 1 }, { leaseToken: d.leaseToken })).rejects.toMatchObject({ status: 409, code: "run_moved_on" });
      expect((await h.queue.store.get(u.id))!.status).toBe("cancelled");
    });

    it("fail: retryable is offered again (after its backoff) while attempts remain, then failed; the parked invocation is run again with it", async (ctx) => {
      if (skip || !h) return ctx.skip();
      const t = await h.queue.create(task(400, { queue: "flaky", backoffMs: 5_000 }));
      const a = (await h.queue.claim("flaky", "a"))!;
      expect(await h.queue.fail(t.id, { message: "busy" }, true, { leaseToken: a.leaseToken })).toMatchObject({ status: "queued", attempt: 1 });
      expect(await h.queue.claim("flaky", "b")).toBeNull(); // backoff
      h.clock.advance(5_000);
      const b = (await h.queue.claim("flaky", "b"))!;
      expect(b).toMatchObject({ attempt: 2 });
      expect(await h.queue.fail(t.id, { message: "still busy" }, true, { leaseToken: b.leaseToken })).toMatchObject({ status: "failed" });
      // only the final failure settles the task: the run is told once, with it
      expect(h.resumed.filter((r) => r.id === t.id)).toEqual([expect.objectContaining({ status: "failed", error: { message: "still busy", retryable: true } })]);
    });

    it("a queued task whose run has moved on is withdrawn at claim, not handed out", async (ctx) => {
      if (skip || !h) return ctx.skip();
      const stale = await h.queue.create(task(600, { queue: "stale" }));
      h.clock.advance(1);
      const fresh = await h.queue.create(task(601, { queue: "stale" }));
      h.movedOn.add("run-600");
      expect((await h.queue.claim("stale", "a"))?.id).toBe(fresh.id);
      expect((await h.queue.store.get(stale.id))!.status).toBe("cancelled");
      expect(await h.queue.claim("stale", "a")).toBeNull();
    });

    it("a long-poll claim wakes when a task is queued in this process", async (ctx) => {
      if (skip || !h) return ctx.skip();
      // a queue that never polls again while it waits: only the wake-up can hand it the task
      const q = new TaskQueue({ ports: h.ports, clock: h.clock, leaseMs: 10_000, pollMs: 3_600_000, isCurrent: async () => true, resume: async () => {} });
      try {
        const empty: string[] = [];
        const claim = q.store.claim.bind(q.store);
        q.store.claim = async (...args) => {
          const t = await claim(...args);
          if (!t) empty.push(args[0]);
          return t;
        };
        const waiting = q.claim("wake", "sleeper", MAX_WAIT_MS);
        // it found nothing and went to sleep
        await vi.waitFor(() => expect(empty).toEqual(["wake"]));
        const t = await q.create(task(500, { queue: "wake" }));
        expect((await waiting)?.id).toBe(t.id);
      } finally {
        q.close();
      }
    });
  });
}
