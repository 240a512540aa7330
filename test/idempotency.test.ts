// Idempotency-Key on POST /api/runs, POST /api/runs/{id}/events and
// POST /api/reviews/{id}/decision, on SQLite and PostgreSQL: a repeat answers as the first request
// (same status and body) and changes nothing; 20 concurrent identical requests make one run; the
// same key with another body is a 422; a bad header is a 400; the key is written in the commit's
// own transaction (a run never exists without its key, a key never without its run), so a client
// retrying after a crash gets the run it started; keys expire after 24 hours.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateDatabase } from "../lib/db/migrations";
import { pgReachable, scratchSchema, type ScratchSchema } from "../lib/db/pg-scratch";
import { query } from "../lib/db/sql";
import { ManualClock } from "../lib/engine/clock";
import { IDEMPOTENCY_TTL_MS, idempotent, keyedRequest } from "../lib/api/idempotency";
import { getRun, startRun } from "../lib/api/runs";
import { createRuntime, defaultEffects, type Runtime } from "../lib/runtime";
import { pruneRuns } from "../lib/retention/prune";
import { DATABASES, commitItem, opened, runRow } from "./support/databases";
import { inState, loopRuntime, tempDbUrl } from "./helpers";

const PG_URL = process.env.POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const REQUEST = "Summarise the release notes of the last three versions";
type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;
const params = (p: Record<string, string>) => ({ params: Promise.resolve(p) });
const post = (path: string, body: unknown, key?: string) =>
  new Request(`http://test${path}`, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json", ...(key !== undefined ? { "idempotency-key": key } : {}) } });

const HOLDER = Symbol.for("switchyard.runtime");
/** the route handlers answer from this runtime */
const serve = (rt: Runtime) => ((globalThis as Record<symbol, unknown>)[HOLDER] = Promise.resolve(rt));

let runs: { POST: (req: Request) => Promise<Response> };
let events: { POST: Handler };
let decision: { POST: Handler };
beforeAll(async () => {
  runs = (await import("../app/api/runs/route")) as never;
  events = (await import("../app/api/runs/[id]/events/route")) as never;
  decision = (await import("../app/api/reviews/[id]/decision/route")) as never;
});

async function count(rt: Runtime, table: string, where = "", args: unknown[] = []): Promise<number> {
  return Number((await query(rt, `SELECT COUNT(*) AS "n" FROM "${table}"${where ? ` WHERE ${where}` : ""}`, args)).rows[0].n);
}

async function until(test: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await test())) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The same assertions on a runtime of either database. */
function behaviour(name: string, make: () => Promise<Runtime | null>, done: () => Promise<void>) {
  describe(`Idempotency-Key: ${name}`, () => {
    let rt: Runtime | null = null;
    beforeAll(async () => {
      rt = await make();
      if (rt) serve(rt);
    }, 60_000);
    afterAll(done, 60_000);
    const test = (title: string, fn: (rt: Runtime) => Promise<void>) =>
      it(title, async (ctx) => {
        if (!rt) return ctx.skip();
        serve(rt);
        await fn(rt);
      }, 60_000);

    test("POST /api/runs: a repeat answers with the first run (same status and body) and starts no other", async (rt) => {
      const body = { workflow: "loop", input: { request: REQUEST } };
      const first = await runs.POST(post("/api/runs", body, "start-1"));
      expect(first.status).toBe(201);
      const a = await first.json();
      const before = await count(rt, "Run");
      // the same body with its keys in another order is the same request
      const again = await runs.POST(post("/api/runs", { input: { request: REQUEST }, workflow: "loop" }, "start-1"));
      expect(again.status).toBe(201);
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect(again.headers.get("location")).toBe(`/api/runs/${a.id}`);
      expect(await again.json()).toEqual(a);
      expect(await count(rt, "Run")).toBe(before);
      // without a key, or with another key, it is a new run
      expect((await (await runs.POST(post("/api/runs", body, "start-2"))).json()).id).not.toBe(a.id);
      expect((await (await runs.POST(post("/api/runs", body))).json()).id).not.toBe(a.id);
      expect(await count(rt, "Run")).toBe(before + 2);
    });

    test("20 concurrent identical requests: exactly one run, and every answer names it", async (rt) => {
      const before = await count(rt, "Run");
      const body = { workflow: "loop", input: { request: `${REQUEST} (burst)` } };
      const answers = await Promise.all(Array.from({ length: 20 }, () => runs.POST(post("/api/runs", body, "burst-key"))));
      expect(answers.map((r) => r.status)).toEqual(Array(20).fill(201));
      const ids = new Set(await Promise.all(answers.map(async (r) => (await r.json()).id)));
      expect(ids.size).toBe(1);
      expect(await count(rt, "Run")).toBe(before + 1);
      expect(await count(rt, "IdempotencyKey", `"key"=?`, ["burst-key"])).toBe(1);
    });

    test("the same key with a different body is a 422 that says so, and changes nothing", async (rt) => {
      await runs.POST(post("/api/runs", { workflow: "loop", input: { request: REQUEST } }, "reused"));
      const before = await count(rt, "Run");
      const res = await runs.POST(post("/api/runs", { workflow: "loop", input: { request: `${REQUEST}!` } }, "reused"));
      expect(res.status).toBe(422);
      const b = await res.json();
      expect(b.code).toBe("idempotency_key_reused");
      expect(b.error).toMatch(/Idempotency-Key "reused" was already used for a request with a different body/);
      expect(await count(rt, "Run")).toBe(before);
    });

    test("a bad header is a 400 (empty, over 255 characters, not printable ASCII) and starts nothing", async (rt) => {
      const before = await count(rt, "Run");
      for (const key of ["", "k".repeat(256), "café", "tab\there"]) {
        const res = await runs.POST(post("/api/runs", { workflow: "loop", input: { request: REQUEST } }, key));
        expect(res.status, JSON.stringify(key)).toBe(400);
        expect((await res.json()).error).toMatch(/^Idempotency-Key header: /);
      }
      expect(await count(rt, "Run")).toBe(before);
      expect((await runs.POST(post("/api/runs", { workflow: "loop", input: { request: REQUEST } }, "k".repeat(255)))).status).toBe(201);
    });

    test("keys are scoped per route and per user", async () => {
      const body = { workflow: "loop", input: { request: REQUEST } };
      const a = keyedRequest(post("/api/runs", body, "scoped"), body, { userId: "u1" })!;
      const b = keyedRequest(post("/api/runs", body, "scoped"), body, { userId: "u2" })!;
      const c = keyedRequest(post("/api/runs/x/events", body, "scoped"), body, null)!;
      expect(new Set([a.scope, b.scope, c.scope]).size).toBe(3);
      expect(a.fingerprint).toBe(b.fingerprint);
    });

    test("review decisions and events: a repeat answers as the first, the step is not taken twice", async (rt) => {
      const started = await (await runs.POST(post("/api/runs", { workflow: "loop", input: { request: REQUEST } }))).json();
      const waiting = await rt.engine.waitFor(started.id, inState("REVIEW"), 20_000);
      const reviewId = waiting.reviewId!;
      const path = `/api/reviews/${reviewId}/decision`;
      const first = await decision.POST(post(path, { decision: "approve", feedback: "fine" }, "decide-1"), params({ id: reviewId }));
      expect(first.status).toBe(200);
      const d = await first.json();
      expect(d.review).toMatchObject({ status: "decided", decision: "approve" });
      // without the key a second decision is refused (409); with it, the first answer comes back
      expect((await decision.POST(post(path, { decision: "approve", feedback: "fine" }), params({ id: reviewId }))).status).toBe(409);
      const repeats = await Promise.all(Array.from({ length: 5 }, () => decision.POST(post(path, { decision: "approve", feedback: "fine" }, "decide-1"), params({ id: reviewId }))));
      for (const r of repeats) {
        expect(r.status).toBe(200);
        expect(await r.json()).toEqual(d);
      }
      const other = await decision.POST(post(path, { decision: "reject", feedback: "no" }, "decide-1"), params({ id: reviewId }));
      expect(other.status).toBe(422);
      // events: a REQUEST in IDLE starts one cycle, however often it is repeated with its key
      await rt.engine.waitFor(started.id, (r) => r.state.includes("IDLE") && r.status === "waiting", 20_000);
      const seqBefore = (await rt.store.getRun(started.id))!.seq;
      const requests = await count(rt, "Transition", `"runId"=? AND "event"='REQUEST'`, [started.id]); // the start's own REQUEST
      const evPath = `/api/runs/${started.id}/events`;
      const ev = { type: "REQUEST", request: "Now the same in Python" };
      const sent = await Promise.all(Array.from({ length: 5 }, () => events.POST(post(evPath, ev, "event-1"), params({ id: started.id }))));
      const bodies = await Promise.all(sent.map((r) => r.json()));
      expect(sent.map((r) => r.status)).toEqual(Array(5).fill(200));
      for (const b of bodies) expect(b).toEqual(bodies[0]);
      expect(bodies[0].transitions.length).toBeGreaterThan(0);
      expect(bodies[0].transitions[0].seq).toBe(seqBefore + 1);
      expect(await count(rt, "Transition", `"runId"=? AND "event"='REQUEST'`, [started.id])).toBe(requests + 1);
      expect((await events.POST(post(evPath, { ...ev, request: "something else" }, "event-1"), params({ id: started.id }))).status).toBe(422);
    });
  });
}

// ---------------------------------------------------------------- SQLite: one process, with restarts

let sqlite: (Runtime & { clock: ManualClock }) | null = null;
behaviour(
  "SQLite",
  async () => (sqlite = await loopRuntime()),
  async () => void (await sqlite?.close()),
);

// ---------------------------------------------------------------- PostgreSQL: two processes' runtimes over one database

let scratch: ScratchSchema | null = null;
const pgRuntimes: Runtime[] = [];
async function pgNode(url: string): Promise<Runtime> {
  const env = {} as NodeJS.ProcessEnv;
  const rt = await createRuntime({
    url,
    env,
    role: "all",
    migrate: migrateDatabase,
    serviceChoresMs: 0,
    seedGuide: false,
    alerts: { start: false },
    webhooks: { start: false },
    queue: { schema: scratch!.schema, expireSeconds: 30, maintenanceSeconds: 5 },
    worker: { concurrency: 8, pollMs: 200 },
    effects: (base) => defaultEffects(base, env),
  });
  pgRuntimes.push(rt);
  return rt;
}
behaviour(
  "PostgreSQL",
  async () => {
    const why = await pgReachable(PG_URL);
    if (why) {
      console.log(`[idempotency] PostgreSQL skipped: not reachable at ${PG_URL} (${why})`);
      return null;
    }
    scratch = await scratchSchema(PG_URL, "sy_idem");
    return pgNode(`${PG_URL}?schema=${scratch.schema}`);
  },
  async () => {}, // closed after the cross-process test below
);
afterAll(async () => {
  for (const rt of pgRuntimes.reverse()) await rt.close().catch(() => {});
  await scratch?.drop();
}, 60_000);

describe("Idempotency-Key across processes (PostgreSQL)", () => {
  it("two processes racing with one key: one run; the loser's commit is undone and it answers with the winner's run", async (ctx) => {
    if (!scratch || pgRuntimes.length === 0) return ctx.skip();
    const other = await pgNode(`${PG_URL}?schema=${scratch.schema}`);
    const first = pgRuntimes[0];
    const body = { workflow: "loop", input: { request: `${REQUEST} (race)` } };
    const before = await count(first, "Run");
    const start = (rt: Runtime) => {
      const k = keyedRequest(post("/api/runs", body, "race-key"), body, null);
      return idempotent(rt, k, 201, (claim) => startRun(rt, body.workflow, body.input, { idempotency: claim }), (row) => getRun(rt, row.runId));
    };
    const answers = await Promise.all([...Array.from({ length: 10 }, () => start(first)), ...Array.from({ length: 10 }, () => start(other))]);
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(answers.filter((a) => !a.replayed)).toHaveLength(1);
    expect(await count(first, "Run")).toBe(before + 1);
  }, 60_000);

  it("the loser's commit fails on a loaded database (a deadlock past the store's retries) while the winner holds the key: it answers with the winner's run", async (ctx) => {
    if (!scratch || pgRuntimes.length < 2) return ctx.skip();
    const [first, other] = pgRuntimes;
    const body = { workflow: "loop", input: { request: `${REQUEST} (deadlock)` } };
    const start = (rt: Runtime) => {
      const k = keyedRequest(post("/api/runs", body, "deadlock-key"), body, null);
      return idempotent(rt, k, 201, (claim) => startRun(rt, body.workflow, body.input, { idempotency: claim }), (row) => getRun(rt, row.runId));
    };
    const before = await count(first, "Run");
    // the other process's commit with the key waits for the winner's, then PostgreSQL picks it as a deadlock's victim
    let loserCommitting!: () => void;
    const committing = new Promise<void>((r) => (loserCommitting = r));
    let winnerCommitted!: () => void;
    const committed = new Promise<void>((r) => (winnerCommitted = r));
    const store = other.store;
    const commit = store.commit.bind(store);
    store.commit = async (items) => {
      if (!items.some((i) => i.idempotency?.key === "deadlock-key")) return commit(items);
      loserCommitting();
      await committed;
      throw Object.assign(new Error("deadlock detected"), { code: "40P01" });
    };
    try {
      const losing = start(other);
      // the loser looked the key up (not there) and is committing when the winner starts
      await committing;
      const won = await start(first);
      winnerCommitted();
      const lost = await losing;
      expect(won.replayed).toBe(false);
      expect(lost).toMatchObject({ status: 201, replayed: true });
      expect(lost.body.id).toBe(won.body.id);
      expect(await count(first, "Run")).toBe(before + 1);
    } finally {
      store.commit = commit;
    }
  }, 60_000);
});

// ---------------------------------------------------------------- durability and expiry (SQLite file, restarted)

describe("Idempotency-Key: crash and expiry", () => {
  it("a run committed with its key but whose answer was never stored (crash): after a restart the retry gets that run", async () => {
    const url = tempDbUrl("idem-crash");
    const clock = new ManualClock(Date.parse("2026-11-26T10:00:00Z"));
    const before = await loopRuntime({ url, clock });
    const body = { workflow: "loop", input: { request: REQUEST } };
    const k = keyedRequest(post("/api/runs", body, "crash-key"), body, null)!;
    // what the route does up to the commit; the process "dies" before the answer is stored
    const started = await before.engine.start("loop", body.input, { idempotency: { ...k, status: 201, createdAt: clock.now() } });
    await before.close();
    const after = await loopRuntime({ url, clock });
    try {
      serve(after);
      const res = await runs.POST(post("/api/runs", body, "crash-key"));
      expect(res.status).toBe(201);
      expect(res.headers.get("idempotent-replayed")).toBe("true");
      expect((await res.json()).id).toBe(started.run.id);
      expect(await count(after, "Run")).toBe(1);
      // after 24 hours the key is forgotten: the same key is a new request
      clock.advance(IDEMPOTENCY_TTL_MS + 1);
      const later = await runs.POST(post("/api/runs", { ...body, input: { request: `${REQUEST} again` } }, "crash-key"));
      expect(later.status).toBe(201);
      expect(later.headers.get("idempotent-replayed")).toBeNull();
      expect((await later.json()).id).not.toBe(started.run.id);
      expect(await count(after, "Run")).toBe(2);
    } finally {
      await after.close();
    }
  }, 60_000);
});

// ---------------------------------------------------------------- the store: key and commit are one transaction

for (const database of DATABASES.slice(0, 2)) {
  describe(`IdempotencyKey in the commit: ${database.name}`, () => {
    const h = opened(database, "idempotency");
    beforeAll(() => h.open(), 60_000);
    afterAll(() => h.close());
    const T0 = Date.parse("2026-11-26T10:00:00Z");
    const key = (runId: string, k: string) => ({ scope: "- POST /api/runs", key: k, fingerprint: "f", runId, status: 201, fromSeq: 1, toSeq: 0, createdAt: T0 });

    h.it("a commit whose key is already there is a conflict that writes nothing (not its run, not its key); the batch's others commit", async (db) => {
      const [a, b, c] = await db.store.commit([
        commitItem(runRow("idem-a", T0), null, { idempotency: key("idem-a", "k1") }),
        commitItem(runRow("idem-b", T0), null, { idempotency: key("idem-b", "k1") }),
        commitItem(runRow("idem-c", T0), null),
      ]);
      expect([a, b, c]).toEqual(["ok", "conflict", "ok"]);
      expect(await db.store.getRun("idem-b")).toBeNull();
      const [d] = await db.store.commit([commitItem(runRow("idem-d", T0), null, { idempotency: key("idem-d", "k1") })]);
      expect(d).toBe("conflict");
      expect(await db.store.getRun("idem-d")).toBeNull();
      expect((await db.sql(`SELECT "runId" FROM "IdempotencyKey" WHERE "key"='k1'`)).rows).toEqual([{ runId: "idem-a" }]);
    });

    h.it("a commit that loses its compare-and-set leaves no key", async (db) => {
      const [e] = await db.store.commit([commitItem(runRow("idem-a", T0, { version: 2 }), 7, { idempotency: key("idem-a", "k2") })]);
      expect(e).toBe("conflict");
      expect(await db.count("IdempotencyKey")).toBe(1);
    });

    h.it("retention removes keys older than 24 hours and keeps younger ones", async (db) => {
      const [ok] = await db.store.commit([commitItem(runRow("idem-young", T0), null, { idempotency: { ...key("idem-young", "young"), createdAt: T0 + IDEMPOTENCY_TTL_MS } })]);
      expect(ok).toBe("ok");
      const result = await pruneRuns({ store: db.store, clock: new ManualClock(T0 + IDEMPOTENCY_TTL_MS + 1000) }, { olderThanMs: 365 * IDEMPOTENCY_TTL_MS });
      expect(result.rows.IdempotencyKey).toBe(1);
      expect((await db.sql(`SELECT "key" FROM "IdempotencyKey"`)).rows).toEqual([{ key: "young" }]);
    });
  });
}
