// One store conformance suite, two databases: the run store's rules (rows round-trip, the run
// version and review compare-and-set, batches where one item conflicts, transitions, timers,
// reviews, artifacts, snapshots, the runs-list filters, resume, whole runs exported, imported and
// pruned) on SQLite always and on
// PostgreSQL when it is reachable (127.0.0.1:5432 here; POSTGRES_URL elsewhere), each in a
// fresh database or schema with the committed migrations applied.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateDatabase } from "../lib/db/migrations";
import { msOf } from "../lib/db/sql";
import { pgReachable, scratchSchema } from "../lib/db/pg-scratch";
import { openSqlite } from "../lib/db/sqlite";
import { sqlitePath } from "../lib/db/url";
import { ManualClock } from "../lib/engine/clock";
import { Engine } from "../lib/engine/engine";
import { instantLoopEffects } from "./fixtures/workflows/loop/effects";
import { PostgresRunStore } from "../lib/engine/store/postgres";
import { SqliteRunStore } from "../lib/engine/store/sqlite";
import type { DeliveryRow, FleetDelta, ModelCallRow, OutboxRow, ReviewRow, RunBundle, RunRow, RunStore, TransitionRow } from "../lib/engine/store/types";
import type { WorkflowEffects } from "../lib/engine/engine";
import { findWorkflow } from "../lib/machines/registry";
import { tempDbUrl } from "./helpers";
import { commitItem, runRow } from "./support/databases";

const PG_URL = process.env.POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/test";

interface Harness {
  store: RunStore;
  /** rows of a plain SELECT (no parameters) */
  select(sql: string): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

async function sqliteHarness(): Promise<Harness> {
  const url = tempDbUrl("conformance");
  await migrateDatabase(url);
  const handle = openSqlite(sqlitePath(url));
  const store = new SqliteRunStore(handle);
  return {
    store,
    select: async (sql) => handle.db.prepare(sql).safeIntegers(false).all() as Record<string, unknown>[],
    close: async () => {
      await store.close();
      handle.db.close();
    },
  };
}

async function postgresHarness(): Promise<Harness> {
  const scratch = await scratchSchema(PG_URL, "sy_conf");
  const store = new PostgresRunStore(PG_URL, { options: scratch.options, max: 4 });
  return {
    store,
    select: async (sql) => (await store.pool.query(sql)).rows as Record<string, unknown>[],
    close: async () => {
      await store.close();
      await scratch.drop();
    },
  };
}

const T0 = Date.UTC(2026, 10, 1, 9, 0, 0, 123);

const run = (id: string, over: Partial<RunRow> = {}): RunRow => runRow(id, T0, { seq: 1, ...over });
const item = commitItem;

function tr(runId: string, seq: number, over: Partial<TransitionRow> = {}): TransitionRow {
  return { runId, seq, from: ["A"], to: ["B"], event: "GO", reason: "because", at: T0 + seq, durationMs: seq, payload: { seq }, ...over };
}

function review(id: string, runId: string, over: Partial<ReviewRow> = {}): ReviewRow {
  return { id, runId, workflow: "loop", state: "REVIEW", kind: "approval", prompt: "Decide", payload: { a: 1 }, status: "pending", decision: null, feedback: null, reviewer: null, createdAt: T0, decidedAt: null, seq: 1, ...over };
}

const suites: [string, () => Promise<Harness>, () => Promise<string | null>][] = [
  ["SQLite", sqliteHarness, async () => null],
  ["PostgreSQL", postgresHarness, () => pgReachable(PG_URL)],
];

for (const [name, make, reachable] of suites) {
  describe(`run store conformance: ${name}`, () => {
    let h: Harness | null = null;
    let skip: string | null = null;
    beforeAll(async () => {
      skip = await reachable();
      if (skip) console.log(`[store conformance] ${name} skipped: not reachable at ${PG_URL} (${skip})`);
      else h = await make();
    }, 60_000);
    afterAll(async () => {
      await h?.close();
    });
    const test = (title: string, fn: (s: RunStore, h: Harness) => Promise<void>) =>
      it(title, async (ctx) => {
        if (skip || !h) return ctx.skip();
        await fn(h.store, h);
      });

    test("a run row round-trips every field", async (s) => {
      const r = run("rt-1", { output: { answer: "x" }, error: { message: "m" }, parentId: "p", forkOf: "f", forkSeq: 3, retries: 2, waitingSince: T0 + 5, failedStates: "|A|", finishedAt: T0 + 9, status: "failed" });
      expect(await s.commit([item(r, null)])).toEqual(["ok"]);
      expect(await s.getRun("rt-1")).toEqual(r);
      expect(await s.getRun("nope")).toBeNull();
    });

    test("compare-and-set: a stale version or a second insert conflicts and writes nothing", async (s) => {
      const r = run("cas-1");
      expect(await s.commit([item(r, null)])).toEqual(["ok"]);
      expect(await s.commit([item(r, null)])).toEqual(["conflict"]);
      const next = { ...r, version: 2, seq: 2, state: ["REVIEW"] };
      expect(await s.commit([item(next, 5, { transitions: [tr("cas-1", 2)] })])).toEqual(["conflict"]);
      expect(await s.transitions("cas-1")).toEqual([]);
      expect(await s.commit([item(next, 1, { transitions: [tr("cas-1", 2)] })])).toEqual(["ok"]);
      expect((await s.getRun("cas-1"))!.version).toBe(2);
      expect(await s.runVersion("cas-1")).toBe(2);
      expect(await s.runVersion("nope")).toBeNull();
      expect((await s.transitions("cas-1")).map((t) => t.seq)).toEqual([2]);
    });

    test("a review closes once: a second close conflicts and rolls back its whole item, not the batch", async (s) => {
      const r = run("rv-1", { state: ["REVIEW"], status: "waiting" });
      await s.commit([item(r, null, { reviewsOpen: [review("rv-1-a", "rv-1")] })]);
      const close = { id: "rv-1-a", status: "decided" as const, decision: "approve", feedback: "ok", reviewer: "ana", decidedAt: T0 + 1 };
      const other = run("rv-2");
      const outcomes = await s.commit([
        item({ ...r, version: 2, seq: 2, status: "running" }, 1, { reviewsClose: [close], transitions: [tr("rv-1", 2)] }),
        item({ ...r, version: 3, seq: 3 }, 2, { reviewsClose: [close], transitions: [tr("rv-1", 3)] }),
        item(other, null),
      ]);
      expect(outcomes).toEqual(["ok", "conflict", "ok"]);
      expect(await s.getReview("rv-1-a")).toMatchObject({ status: "decided", decision: "approve", reviewer: "ana", decidedAt: T0 + 1 });
      expect((await s.getRun("rv-1"))!.version).toBe(2);
      expect((await s.transitions("rv-1")).map((t) => t.seq)).toEqual([2]);
      expect(await s.getRun("rv-2")).not.toBeNull();
      expect(await s.listReviews({ runId: "rv-1", status: "pending" })).toEqual([]);
    });

    test("in one batch, an item whose review was decided elsewhere conflicts alone: the items beside it keep their run, review and transitions", async (s) => {
      const a = run("rv-3", { state: ["REVIEW"], status: "waiting" });
      const b = run("rv-4", { state: ["REVIEW"], status: "waiting" });
      const c = run("rv-5", { state: ["REVIEW"], status: "waiting" });
      await s.commit([item(a, null, { reviewsOpen: [review("rv-3-a", "rv-3")] }), item(b, null, { reviewsOpen: [review("rv-4-a", "rv-4")] }), item(c, null, { reviewsOpen: [review("rv-5-a", "rv-5")] })]);
      const decide = (id: string, reviewer: string) => ({ id, status: "decided" as const, decision: "approve", feedback: null, reviewer, decidedAt: T0 + 5 });
      // rv-4's review is decided by someone else first
      expect(await s.commit([item({ ...b, version: 2, seq: 2, status: "running" }, 1, { reviewsClose: [decide("rv-4-a", "first")], transitions: [tr("rv-4", 2)] })])).toEqual(["ok"]);
      const outcomes = await s.commit([
        item({ ...a, version: 2, seq: 2, status: "running" }, 1, { reviewsClose: [decide("rv-3-a", "ana")], transitions: [tr("rv-3", 2)] }),
        item({ ...b, version: 3, seq: 3, status: "running" }, 2, { reviewsClose: [decide("rv-4-a", "late")], transitions: [tr("rv-4", 3)] }),
        item({ ...c, version: 2, seq: 2, status: "running" }, 1, { reviewsClose: [decide("rv-5-a", "bo")], transitions: [tr("rv-5", 2)] }),
      ]);
      expect(outcomes).toEqual(["ok", "conflict", "ok"]);
      for (const [id, reviewer] of [["rv-3", "ana"], ["rv-5", "bo"]] as const) {
        expect((await s.getRun(id))!.version).toBe(2);
        expect((await s.transitions(id)).map((t) => t.seq)).toEqual([2]);
        expect(await s.getReview(`${id}-a`)).toMatchObject({ status: "decided", reviewer });
      }
      expect((await s.getRun("rv-4"))!.version).toBe(2);
      expect((await s.transitions("rv-4")).map((t) => t.seq)).toEqual([2]);
      expect(await s.getReview("rv-4-a")).toMatchObject({ status: "decided", reviewer: "first" });
    });

    test("transitions: order, after, limit, payloads; transitionsLeaving", async (s) => {
      const r = run("tr-1", { seq: 4 });
      await s.commit([item(r, null, { transitions: [1, 2, 3, 4].map((q) => tr("tr-1", q, { from: q === 3 ? ["WORK"] : ["A"] })) })]);
      const all = await s.transitions("tr-1");
      expect(all.map((t) => t.seq)).toEqual([1, 2, 3, 4]);
      expect(all[0]).toEqual(tr("tr-1", 1));
      expect((await s.transitions("tr-1", 2, 1)).map((t) => t.seq)).toEqual([3]);
      expect((await s.transitionsLeaving("loop", "WORK", 10)).map((t) => [t.runId, t.seq])).toEqual([["tr-1", 3]]);
    });

    test("timers set, replaced and cleared; artifacts put and appended", async (s) => {
      const r = run("tm-1");
      const t = { runId: "tm-1", id: "xstate.after.5000.loop.WORK", dueAt: T0 + 5_000, event: { type: "xstate.after.5000.loop.WORK" }, seq: 1 };
      await s.commit([item(r, null, { timersSet: [t, { ...t, id: "other", dueAt: T0 + 6_000 }], artifacts: [{ name: "logs/a.log", content: "one\n", mode: "append" }, { name: "task.md", content: "# Task ✓", mode: "put" }] })]);
      expect(await s.timers("tm-1")).toEqual([t, { ...t, id: "other", dueAt: T0 + 6_000 }]);
      await s.commit([item({ ...r, version: 2 }, 1, { timersSet: [{ ...t, dueAt: T0 + 9_000 }], timersClear: ["other"], artifacts: [{ name: "logs/a.log", content: "two\n", mode: "append" }, { name: "task.md", content: "# Done", mode: "put" }] })]);
      expect(await s.timers("tm-1")).toEqual([{ ...t, dueAt: T0 + 9_000 }]);
      expect(await s.artifact("tm-1", "logs/a.log")).toBe("one\ntwo\n");
      expect(await s.artifact("tm-1", "task.md")).toBe("# Done");
      expect((await s.artifacts("tm-1")).map((a) => [a.name, a.size])).toEqual([["logs/a.log", 8], ["task.md", 6]]);
    });

    test("snapshots answer for their own commit's transitions only", async (s) => {
      const r = run("sn-1", { seq: 3 });
      await s.commit([item(r, null, { transitions: [1, 2, 3].map((q) => tr("sn-1", q)) })]);
      await s.commit([item({ ...r, version: 2, seq: 4, context: { n: 2 } }, 1, { transitions: [tr("sn-1", 4)] })]);
      expect((await s.snapshotAt("sn-1", 2))).toMatchObject({ seq: 3, first: 1, context: r.context });
      expect((await s.snapshotAt("sn-1", 4))).toMatchObject({ seq: 4, first: 4, context: { n: 2 } });
      expect(await s.snapshotAt("sn-1", 5)).toBeNull();
    });

    test("step after step the row holds exactly the last commit's values, columns set, changed back to null, or left alone", async (s) => {
      let r = run("up-1", { status: "running" });
      let v = 1;
      expect(await s.commit([item(r, null)])).toEqual(["ok"]);
      const step = async (over: Partial<RunRow>, expect = v) => {
        const next = { ...r, ...over, version: v + 1 };
        const out = await s.commit([item(next, expect)]);
        if (out[0] === "ok") {
          r = next;
          v++;
        }
        return out[0];
      };
      expect(await step({ state: ["B"], waitingSince: T0 + 1, status: "waiting", updatedAt: T0 + 1 })).toBe("ok");
      expect(await s.getRun("up-1")).toEqual(r);
      expect(await step({ output: { a: 1 }, retries: 1, updatedAt: T0 + 2 })).toBe("ok");
      expect(await step({ waitingSince: null, status: "running", updatedAt: T0 + 3 })).toBe("ok");
      expect(await s.getRun("up-1")).toEqual(r);
      // a stale version conflicts and changes nothing; the next step still writes what it must
      expect(await step({ status: "failed", error: { message: "no" } }, v - 1)).toBe("conflict");
      expect(await step({ failedStates: "|B|", status: "failed", error: { message: "m" }, updatedAt: T0 + 4 })).toBe("ok");
      expect(await s.getRun("up-1")).toEqual(r);
    });

    test("the run's state is its snapshot at its seq: a commit without transitions rewrites that one, and what it answers for stays", async (s) => {
      const r = run("st-1", { seq: 2, snapshot: { value: "A", status: "active" }, context: { n: 1 } });
      await s.commit([item(r, null, { transitions: [1, 2].map((q) => tr("st-1", q)) })]);
      const later = { ...r, version: 2, snapshot: { value: "A", status: "active", effects: { "A:1": 1 } }, context: { n: 1, note: "journalled" }, updatedAt: T0 + 50 };
      const t = { runId: "st-1", id: "xstate.after.5000.A", dueAt: T0 + 5_000, event: { type: "xstate.after.5000.A" }, seq: 2 };
      expect(await s.commit([item(later, 1, { timersSet: [t], timers: [t] })])).toEqual(["ok"]);
      expect(await s.getRun("st-1")).toEqual(later);
      const at = await s.snapshotAt("st-1", 1);
      expect(at).toMatchObject({ seq: 2, first: 1, snapshot: later.snapshot, context: later.context, at: T0 + 50 });
      expect(at!.timers).toEqual([t]);
      // the listing and the resume read the same row
      expect((await s.listRuns({ text: undefined })).find((x) => x.id === "st-1")).toEqual(later);
      expect((await s.resumable()).find((x) => x.run.id === "st-1")?.run).toEqual(later);
    });

    test("runs-list filters and counts", async (s) => {
      const day = 86_400_000;
      const rows = [
        run("f-wait", { workflow: "hello", status: "waiting", waitingSince: T0 + 10 * day, createdAt: T0 + 10 * day, input: { topic: "Needle in 100% haystack" } }),
        run("f-retry", { status: "running", retries: 1, createdAt: T0 + 11 * day }),
        run("f-fail", { status: "failed", failedStates: "|RESEARCHING.search|FAILED|", createdAt: T0 + 12 * day, finishedAt: T0 + 12 * day }),
        run("f-done", { status: "completed", output: { text: "the NEEDLE answer" }, createdAt: T0 + 13 * day, finishedAt: T0 + 13 * day }),
      ];
      await s.commit(rows.map((r) => item(r, null, r.status === "waiting" ? { reviewsOpen: [review("f-wait-r", "f-wait", { createdAt: T0 + 10 * day })] } : {})));
      const ids = async (q: Parameters<RunStore["listRuns"]>[0]) => (await s.listRuns({ ...q, limit: 100 })).map((r) => r.id).filter((id) => id.startsWith("f-"));
      expect(await ids({ from: T0 + 10 * day })).toEqual(["f-done", "f-fail", "f-retry", "f-wait"]);
      expect(await ids({ workflow: "hello" })).toEqual(["f-wait"]);
      expect(await ids({ status: ["failed", "completed"], from: T0 + 10 * day })).toEqual(["f-done", "f-fail"]);
      expect(await ids({ text: "needle" })).toEqual(["f-done", "f-wait"]);
      expect(await ids({ text: "100% hay" })).toEqual(["f-wait"]);
      expect(await ids({ text: "100_ hay" })).toEqual([]);
      expect(await ids({ waitingSince: T0 + 10 * day })).toEqual(["f-wait"]);
      expect(await ids({ waitingSince: T0 + 9 * day })).toEqual([]);
      expect(await ids({ waitingForHuman: true })).toEqual(["f-wait"]);
      expect(await ids({ retrying: true })).toEqual(["f-retry"]);
      expect(await ids({ failedIn: "search" })).toEqual(["f-fail"]);
      expect(await ids({ failedIn: "RESEARCHING.search" })).toEqual(["f-fail"]);
      expect(await ids({ failedIn: "RESEARCHING" })).toEqual([]);
      expect(await s.countRuns({ from: T0 + 10 * day, to: T0 + 12 * day })).toBe(2);
      const counts = await s.countByStatus("hello");
      expect(counts).toMatchObject({ waiting: 1, running: 0, failed: 0 });
    });

    test("the state filter: each commit keeps the live runs' active states (leaves and groups), a finished or imported run has none", async (s, h) => {
      const at = (k: number) => T0 + 20 * 86_400_000 + k;
      // entry times: P and P.left their own, P.right none (its leaf's)
      const a = run("as-1", { status: "waiting", state: ["P.left.x", "P.right.y"], createdAt: at(1), entered: { P: at(1), "P.left": at(1), "P.left.x": at(6), "P.right.y": at(8) } });
      const b = run("as-2", { state: ["P.left.z"], createdAt: at(2) });
      const rep = run("as-3", { state: ["P.left.x"], createdAt: at(3), replayOf: "as-1" });
      const rows = [a, b, rep, run("as-4", { status: "completed", state: ["P.left.x"], createdAt: at(4), finishedAt: at(4) }), run("imported-as-5", { status: "waiting", state: ["P.left.x"], createdAt: at(5) })];
      expect(await s.commit(rows.map((r) => item(r, null)))).toEqual(rows.map(() => "ok"));
      const ids = async (state: string, more: Omit<Parameters<RunStore["listRuns"]>[0], "state"> = {}) => {
        const page = (await s.listRuns({ state, limit: 100, ...more })).map((r) => r.id);
        // the count agrees with the page
        expect(await s.countRuns({ state, ...more })).toBe(page.length);
        return page;
      };
      const table = async () => (await h.select(`SELECT "runId", "state" FROM "ActiveState" WHERE "runId" LIKE 'as-%' OR "runId" LIKE 'imported-as-%' ORDER BY "runId", "state"`)).map((r) => `${r.runId} ${r.state}`);
      expect(await table()).toEqual(["as-1 P", "as-1 P.left", "as-1 P.left.x", "as-1 P.right", "as-1 P.right.y", "as-2 P", "as-2 P.left", "as-2 P.left.z", "as-3 P", "as-3 P.left", "as-3 P.left.x"]);
      expect(await ids("P")).toEqual(["as-2", "as-1"]);
      expect(await ids("P", { replays: true })).toEqual(["as-3", "as-2", "as-1"]);
      expect(await ids("P.left.x")).toEqual(["as-1"]);
      expect(await ids("P.right")).toEqual(["as-1"]);
      expect(await ids("P.lef")).toEqual([]);
      expect(await ids("P", { workflow: "deep-research" })).toEqual([]);
      expect(await ids("P", { status: ["waiting"] })).toEqual(["as-1"]);
      expect((await s.listRuns({ state: "P", limit: 1, offset: 1 })).map((r) => r.id)).toEqual(["as-1"]);
      // what the fleet counts by: each row's workflow, version (null: a replay), status and entry time
      const fleetRows = async (id: string) =>
        (await h.select(`SELECT "state", "workflow", "version", "status", "since" FROM "ActiveState" WHERE "runId" = '${id}' ORDER BY "state"`)).map((r) => `${r.state} ${r.workflow} ${r.version === null ? "-" : Number(r.version)} ${r.status} ${r.since === null ? "-" : msOf(r.since) - T0 - 20 * 86_400_000}`);
      expect(await fleetRows("as-1")).toEqual(["P loop 0 waiting 1", "P.left loop 0 waiting 1", "P.left.x loop 0 waiting 6", "P.right loop 0 waiting 8", "P.right.y loop 0 waiting 8"]);
      expect(await fleetRows("as-3")).toEqual(["P loop - running -", "P.left loop - running -", "P.left.x loop - running -"]);
      // a step within the group: the leaf and the region it left go, the group stays; the new leaf's time is its own
      expect(await s.commit([item({ ...a, version: 2, state: ["P.left.x", "P.right.w"], entered: { ...a.entered, "P.right.w": at(9) } }, 1)])).toEqual(["ok"]);
      expect(await ids("P.right.y")).toEqual([]);
      expect(await ids("P.right.w")).toEqual(["as-1"]);
      expect(await fleetRows("as-1")).toEqual(["P loop 0 waiting 1", "P.left loop 0 waiting 1", "P.left.x loop 0 waiting 6", "P.right loop 0 waiting 9", "P.right.w loop 0 waiting 9"]);
      // a status change rewrites every row's status; a leaf entered again, its time
      expect(await s.commit([item({ ...a, version: 3, status: "running", state: ["P.left.x", "P.right.w"], entered: { ...a.entered, "P.left.x": at(10), "P.right.w": at(9) } }, 2)])).toEqual(["ok"]);
      expect(await fleetRows("as-1")).toEqual(["P loop 0 running 1", "P.left loop 0 running 1", "P.left.x loop 0 running 10", "P.right loop 0 running 9", "P.right.w loop 0 running 9"]);
      // a migration's new version pin (setInput) moves every row to it
      expect(await s.commit([item({ ...a, version: 4, status: "running", state: ["P.left.x", "P.right.w"], entered: { ...a.entered, "P.left.x": at(10), "P.right.w": at(9) } }, 3, { setInput: { definitionVersion: 3 } })])).toEqual(["ok"]);
      expect(await fleetRows("as-1")).toEqual(["P loop 3 running 1", "P.left loop 3 running 1", "P.left.x loop 3 running 10", "P.right loop 3 running 9", "P.right.w loop 3 running 9"]);
      // a step the store did not see the row before (another process, a restart): all of the run's rows are written again
      s.forget?.("as-1");
      expect(await s.commit([item({ ...a, version: 5, state: ["Q"], entered: { Q: at(11) } }, 4)])).toEqual(["ok"]);
      expect(await fleetRows("as-1")).toEqual(["Q loop 0 waiting 11"]);
      expect(await ids("P")).toEqual(["as-2"]);
      expect(await ids("Q")).toEqual(["as-1"]);
      // a step that stays where it is changes nothing; the run's end removes its rows
      expect(await s.commit([item({ ...b, version: 2, status: "waiting" }, 1)])).toEqual(["ok"]);
      expect(await ids("P.left.z")).toEqual(["as-2"]);
      expect(await s.commit([item({ ...b, version: 3, status: "failed", finishedAt: at(9) }, 2)])).toEqual(["ok"]);
      expect(await ids("P")).toEqual([]);
      expect(await table()).toEqual(["as-1 Q", "as-3 P", "as-3 P.left", "as-3 P.left.x"]);
    });

    test("outbox: actions and webhook deliveries commit with their step (not with a conflicting one); claim, failure, done", async (s, h) => {
      const ob = (key: string, over: Partial<OutboxRow> = {}): OutboxRow => ({ key, runId: "ob-1", seq: 1, workflow: "loop", name: "logDecision", payload: { context: { n: 1 }, event: { type: "APPROVE" } }, attempts: 0, lastError: null, dueAt: T0 + 60_000, createdAt: T0, ...over });
      const dv = (id: string): DeliveryRow => ({ id, webhookId: "w-1", runId: "ob-1", hook: "on_transition", body: `{"id":"${id}"}`, createdAt: T0 });
      const r = run("ob-1");
      expect(await s.commit([item(r, null, { transitions: [tr("ob-1", 1)], outbox: [ob("ob-1:1:logDecision")], deliveries: [dv("d-1")] })])).toEqual(["ok"]);
      // a conflicting item (stale version) writes neither
      expect(await s.commit([item({ ...r, version: 2, seq: 2 }, 7, { transitions: [tr("ob-1", 2)], outbox: [ob("ob-1:2:logDecision", { seq: 2 })], deliveries: [dv("d-2")] })])).toEqual(["conflict"]);
      expect(await s.outbox({ limit: 10, maxAttempts: 5 })).toEqual([ob("ob-1:1:logDecision")]);
      const ds = await h.select(`SELECT "id","status","attempts","runId","body" FROM "WebhookDelivery" WHERE "runId"='ob-1'`);
      expect(ds).toEqual([{ id: "d-1", status: "pending", attempts: 0, runId: "ob-1", body: '{"id":"d-1"}' }]);
      // leased until T0+60s: not due before, due after
      expect(await s.outbox({ limit: 10, maxAttempts: 5, dueBy: T0 + 1_000 })).toEqual([]);
      expect(await s.claimOutbox("ob-1:1:logDecision", 0, T0 + 70_000, T0 + 1_000)).toBe(false);
      expect((await s.outbox({ limit: 10, maxAttempts: 5, dueBy: T0 + 60_000 })).map((o) => o.key)).toEqual(["ob-1:1:logDecision"]);
      // a claim counts the attempt; a second claim with the old count loses
      expect(await s.claimOutbox("ob-1:1:logDecision", 0, T0 + 70_000, T0 + 60_000)).toBe(true);
      expect(await s.claimOutbox("ob-1:1:logDecision", 0, T0 + 70_000, T0 + 60_000)).toBe(false);
      await s.outboxFailed("ob-1:1:logDecision", 1, "boom", T0 + 75_000);
      expect(await s.outbox({ limit: 10, maxAttempts: 5 })).toEqual([ob("ob-1:1:logDecision", { attempts: 1, lastError: "boom", dueAt: T0 + 75_000 })]);
      expect(await s.outbox({ limit: 10, maxAttempts: 1 })).toEqual([]);
      await s.outboxDone(["ob-1:1:logDecision", "not-there"]);
      expect(await s.outbox({ limit: 10, maxAttempts: 5 })).toEqual([]);
    });

    test("a post-commit action whose process died before it ran runs exactly once, on the next engine", async (s) => {
      const clock = new ManualClock(T0);
      let ranA = 0;
      const ranB: string[] = [];
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      // engine A "dies" between the commit and the action: its action never gets to do anything
      const effects = (action: (args: { key: string }) => Promise<void> | void) => (): WorkflowEffects => ({ ...(instantLoopEffects() as WorkflowEffects), actions: { logDecision: action } });
      const base = { store: s, clock, workflows: findWorkflow, log: () => {} };
      const a = new Engine({ ...base, effects: effects(() => gate.then(() => void ranA++).then(() => Promise.reject(new Error("killed")))) });
      const { run: started } = await a.start("loop", { request: "Write a retry helper" });
      const waiting = await a.waitFor(started.id, (r) => r.state.includes("REVIEW") && !!r.reviewId);
      await a.decide(waiting.reviewId!, { decision: "approve", reviewer: "ana" });
      const rows = await s.outbox({ limit: 10, maxAttempts: 5 });
      expect(rows.map((o) => [o.runId, o.name, o.attempts])).toEqual([[started.id, "logDecision", 0]]);
      expect(rows[0].key).toMatch(new RegExp(`^${started.id}:\\d+:logDecision$`));
      expect((rows[0].payload.event as { type: string }).type).toBe("APPROVE");
      // a new engine on the same database (the process restarted) runs it at start, with the same key
      const b = new Engine({ ...base, effects: effects(({ key }) => void ranB.push(key)) });
      await b.resume();
      await b.outbox.idle();
      expect(ranB).toEqual([rows[0].key]);
      expect(await s.outbox({ limit: 10, maxAttempts: 5 })).toEqual([]);
      // and never again
      const c = new Engine({ ...base, effects: effects(({ key }) => void ranB.push(key)) });
      await c.resume();
      await c.outbox.idle();
      expect(ranB).toHaveLength(1);
      release();
      await a.stop();
      expect(ranA).toBe(1); // A's attempt "happened" only in the test's gate, after the restart
      await b.stop();
      await c.stop();
    });

    // ------------------------------------------------------------------ whole runs (RunStore.archive)

    test("export: a run with every row it owns in one read, text keys in byte order; an unknown run is null", async (s) => {
      const r = run("ex-1", { seq: 2, status: "waiting", state: ["HUMAN_REVIEW"] });
      const t = (id: string, dueAt: number) => ({ runId: "ex-1", id, dueAt, event: { type: id }, seq: 2 });
      await s.commit([
        item(r, null, {
          transitions: [tr("ex-1", 1), tr("ex-1", 2)],
          reviewsOpen: [review("ex-1-b", "ex-1", { seq: 2 }), review("ex-1-A", "ex-1", { seq: 2 }), review("ex-1-_", "ex-1", { seq: 1 })],
          timersSet: [t("b", T0 + 9), t("a", T0 + 9), t("Z", T0 + 10)],
          timers: [t("b", T0 + 9)],
          artifacts: ["b.md", "_x", "A.md"].map((name) => ({ name, content: `# ${name} ✓`, mode: "put" as const })),
        }),
        item(run("ex-1-child-b", { parentId: "ex-1", createdAt: T0 + 1 }), null),
        item(run("ex-1-child-a", { parentId: "ex-1", createdAt: T0 + 1 }), null),
      ]);
      const b = (await s.archive.exportRun("ex-1"))!;
      expect(b.run).toEqual(await s.getRun("ex-1"));
      expect(b.transitions).toEqual(await s.transitions("ex-1"));
      expect(b.reviews.map((v) => v.id)).toEqual(["ex-1-_", "ex-1-A", "ex-1-b"]);
      expect(b.reviews[1]).toEqual(await s.getReview("ex-1-A"));
      expect(b.timers.map((x) => x.id)).toEqual(["a", "b", "Z"]);
      expect(b.snapshots).toEqual([{ seq: 2, first: 1, snapshot: r.snapshot, context: r.context, timers: [{ id: "b", dueAt: T0 + 9, event: { type: "b" }, seq: 2 }], at: T0 }]);
      expect(b.artifacts).toEqual(["A.md", "_x", "b.md"].map((name) => ({ name, content: `# ${name} ✓`, size: Buffer.byteLength(`# ${name} ✓`), updatedAt: T0 })));
      expect(b.usage).toEqual([]);
      expect(b.children).toEqual(["ex-1-child-a", "ex-1-child-b"]);
      expect(await s.archive.exportRun("nope")).toBeNull();
    });

    test("import: a bundle is stored as a new run whole (model calls, binary artifacts, who decided) and exports back the same; a taken id or a colliding row writes nothing", async (s, h) => {
      const src = (await s.archive.exportRun("ex-1"))!;
      const id = "imp-1";
      const call = (n: number, over: Partial<ModelCallRow> = {}): ModelCallRow => ({ id: `${id}-call-${n}`, key: null, runId: id, state: "EXECUTING", purpose: "p", adapter: "gpt @ primary", endpoint: "primary", model: "gpt", promptTokens: 3, completionTokens: 4, estimated: n === 2, latencyMs: 5, attempts: 1, ok: n === 1, errorCategory: n === 1 ? null : "RATE_LIMIT", error: n === 1 ? null : "slow down", output: n === 1 ? "the reply" : null, createdAt: T0 + n, ...over });
      const text = Buffer.from("UTF-8 bytes ✓");
      const bundle: RunBundle = {
        ...src,
        run: { ...src.run, id, status: "completed", finishedAt: T0 + 20, retries: 2, waitingSince: null, failedStates: null },
        transitions: src.transitions.map((t) => ({ ...t, runId: id })),
        reviews: src.reviews.map((v, i) => ({ ...v, id: `${id}-review-${i + 1}`, runId: id, status: "decided", decision: "approve", reviewer: "ana", decidedAt: T0 + 5, decidedBy: i ? "person" : "engine", assignedTo: null, dueAt: null, escalatedFrom: null })),
        timers: src.timers.map((t) => ({ ...t, runId: id })),
        artifacts: [...src.artifacts, { name: "text.bin", content: text, size: text.length, updatedAt: T0 + 3 }],
        usage: [call(1), call(2)],
        children: [],
      };
      expect(await s.archive.importRun(bundle)).toEqual({ ok: true });
      const back = (await s.archive.exportRun(id))!;
      // bytes that are text read back as the bytes (SQLite's BLOB) or as their text (PostgreSQL's TEXT)
      const stored = back.artifacts.find((a) => a.name === "text.bin")!;
      expect(Buffer.from(stored.content).equals(text)).toBe(true);
      expect({ ...back, artifacts: back.artifacts.filter((a) => a !== stored) }).toEqual({ ...bundle, artifacts: src.artifacts });
      expect(back.run).toEqual(await s.getRun(id));
      // the run's own snapshot and context are its Snapshot row at its seq
      expect(await s.snapshotAt(id, back.run.seq)).toMatchObject({ snapshot: src.run.snapshot, context: src.run.context });
      const count = async (table: string, runId: string) => Number((await h.select(`SELECT COUNT(*) AS "n" FROM "${table}" WHERE "runId" = '${runId}'`))[0].n);
      const rows = async (runId: string) => Promise.all(["Transition", "Review", "Snapshot", "Timer", "Artifact", "ModelCall"].map((t) => count(t, runId)));
      const before = await rows(id);
      // the same id again: refused, nothing added
      expect(await s.archive.importRun({ ...bundle, run: { ...bundle.run, name: "again" } })).toMatchObject({ ok: false, reason: "exists" });
      expect(await rows(id)).toEqual(before);
      expect((await s.getRun(id))!.name).toBe(bundle.run.name);
      // a row that collides with one already here (a review id): nothing of the new run is written
      const clash = { ...bundle, run: { ...bundle.run, id: "imp-2" }, transitions: bundle.transitions.map((t) => ({ ...t, runId: "imp-2" })), usage: [] };
      expect(await s.archive.importRun(clash)).toMatchObject({ ok: false, reason: "constraint" });
      expect(await s.getRun("imp-2")).toBeNull();
      expect(await rows("imp-2")).toEqual([0, 0, 0, 0, 0, 0]);
    });

    test("import: bytes that are no text go in as a BLOB on SQLite, and are refused (nothing written) on PostgreSQL, which keeps artifacts as text", async (s) => {
      const src = (await s.archive.exportRun("ex-1"))!;
      const bytes = Buffer.from([0xff, 0x00, 0xfe]);
      const bundle: RunBundle = { ...src, run: { ...src.run, id: "imp-bin" }, transitions: [], reviews: [], snapshots: [], timers: [], children: [], artifacts: [src.artifacts[0], { name: "blob", content: bytes, size: 3, updatedAt: T0 }] };
      const out = await s.archive.importRun(bundle);
      if (s.dialect === "sqlite") {
        expect(out).toEqual({ ok: true });
        expect((await s.archive.exportRun("imp-bin"))!.artifacts[1]).toEqual({ name: "blob", content: bytes, size: 3, updatedAt: T0 });
      } else {
        expect(out).toMatchObject({ ok: false, reason: "unstorable", path: "artifacts.1.content" });
        expect(await s.getRun("imp-bin")).toBeNull();
        const nul = await s.archive.importRun({ ...bundle, artifacts: [{ name: "nul", content: "a\u0000b", size: 3, updatedAt: T0 }] });
        expect(nul).toMatchObject({ ok: false, reason: "unstorable", path: "artifacts.0.content" });
      }
    });

    test("retention: finished runs that ended before a time, oldest first; removed only while still finished, with every row they own; old snapshots thinned, each run's latest kept; old Idempotency-Keys expired", async (s, h) => {
      const day = 86_400_000;
      const old = T0 - 100 * day;
      const idem = (runId: string, createdAt: number) => ({ scope: "-", key: `k-${runId}`, fingerprint: "f", runId, status: 201, fromSeq: 1, toSeq: 1, createdAt });
      const done = (id: string, finishedAt: number) => run(id, { status: "completed", seq: 2, createdAt: old, updatedAt: finishedAt, finishedAt });
      const owned = (id: string) => ({ transitions: [tr(id, 1, { at: old }), tr(id, 2, { at: old })], reviewsOpen: [review(`${id}-r`, id, { status: "decided", createdAt: old })], artifacts: [{ name: "a.md", content: "x", mode: "put" as const }], outbox: [], deliveries: [{ id: `${id}-d`, webhookId: "w", runId: id, hook: "on_end", body: "{}", createdAt: old }] });
      await s.commit([
        item(done("pr-b", old + 2 * day), null, { ...owned("pr-b"), idempotency: idem("pr-b", old) }),
        item(done("pr-a", old + day), null, owned("pr-a")),
        item(run("pr-live", { seq: 2, createdAt: old, updatedAt: old }), null, { transitions: [tr("pr-live", 1, { at: old })], idempotency: idem("pr-live", T0) }),
        item(done("pr-young", T0), null, owned("pr-young")),
      ]);
      // the live run gets a second, newer snapshot: its old one may go, its latest stays
      await s.commit([item(run("pr-live", { version: 2, seq: 3, createdAt: old, updatedAt: old + 3 * day }), 1, { transitions: [tr("pr-live", 3, { at: old })] })]);
      const before = old + 10 * day;
      expect(await s.archive.finishedBefore(before, 10)).toEqual(["pr-a", "pr-b"]);
      expect(await s.archive.finishedBefore(before, 1)).toEqual(["pr-a"]);
      // a run that is no longer finished when the batch runs is left alone
      const removed = await s.archive.removeRuns(["pr-a", "pr-b", "pr-live", "nope"]);
      expect(removed).toEqual({ Run: 2, Transition: 4, Snapshot: 2, Timer: 0, Review: 2, Artifact: 2, ModelCall: 0, WebhookDelivery: 2, RunPrincipal: 0 });
      expect(await s.getRun("pr-a")).toBeNull();
      expect(await s.getRun("pr-b")).toBeNull();
      expect(await s.archive.removeRuns([])).toMatchObject({ Run: 0, Transition: 0 });
      expect((await s.getRun("pr-live"))!.seq).toBe(3);
      expect(await s.archive.finishedBefore(before, 10)).toEqual([]);
      expect(await s.archive.thinSnapshots(before)).toBe(1);
      expect(await s.snapshotAt("pr-live", 1)).toBeNull();
      expect(await s.snapshotAt("pr-live", 3)).toMatchObject({ seq: 3 });
      expect(await s.archive.thinSnapshots(before)).toBe(0);
      const keys = async () => (await h.select(`SELECT "runId" FROM "IdempotencyKey" WHERE "runId" LIKE 'pr-%' ORDER BY "runId"`)).map((r) => r.runId);
      expect(await keys()).toEqual(["pr-b", "pr-live"]); // a key outlives its run until it expires
      expect(await s.idempotency.expire(T0 - day)).toBe(1);
      expect(await keys()).toEqual(["pr-live"]);
      expect(await s.getRun("pr-young")).not.toBeNull();
    });

    test("Idempotency-Keys: written with their commit, read back, answered once, forgotten only once expired", async (s) => {
      const k = { scope: "- POST /api/runs", key: "k-1", fingerprint: "f", status: 201, createdAt: T0 };
      await s.commit([item(run("ik-1"), null, { transitions: [tr("ik-1", 1)], idempotency: { ...k, runId: "ik-1", fromSeq: 1, toSeq: 1 } })]);
      const row = { ...k, runId: "ik-1", fromSeq: 1, toSeq: 1, response: null };
      expect(await s.idempotency.get(k.scope, k.key)).toEqual(row);
      expect(await s.idempotency.get(k.scope, "other")).toBeNull();
      await s.idempotency.answered(k.scope, k.key, '{"id":"ik-1"}');
      await s.idempotency.answered(k.scope, k.key, '{"id":"later"}');
      expect(await s.idempotency.get(k.scope, k.key)).toEqual({ ...row, response: '{"id":"ik-1"}' });
      await s.idempotency.forget(k.scope, k.key, T0 - 1);
      expect(await s.idempotency.get(k.scope, k.key)).not.toBeNull();
      await s.idempotency.forget(k.scope, k.key, T0);
      expect(await s.idempotency.get(k.scope, k.key)).toBeNull();
    });

    test("aggregates: the fleet's counters (a window or the all-time row) and live runs of a workflow version; model usage per state; the metric families in one read", async (s) => {
      const wf = "agg-flow";
      const hour = Math.floor(T0 / 3_600_000);
      const fleet: FleetDelta[] = [[wf, 0, hour, "enter", "A", 0, 2], [wf, 0, hour - 5, "enter", "A", 0, 1], [wf, 0, hour, "dwell", "A", 3, 1], [wf, 2, hour, "enter", "A", 0, 9]];
      const live = run("agg-live", { workflow: wf, status: "waiting", state: ["A"], entered: { A: T0 } });
      await s.commit([
        item(live, null, { fleet }),
        item(run("agg-v2", { workflow: wf, input: { definitionVersion: 2 } }), null),
        item(run("agg-done", { workflow: wf, status: "completed", finishedAt: T0 }), null),
        item(run("agg-replay", { workflow: wf, replayOf: "agg-live", replay: { of: "agg-live", live: [], decisions: "replay" } }), null),
      ]);
      const sums = (rows: { kind: string; key: string; bucket: number; n: number }[]) => rows.map((r) => `${r.kind} ${r.key} ${r.bucket} ${r.n}`).sort();
      // the stuck time asked for per state, from the counters it is handed (in the same read)
      const seen: string[][] = [];
      const cut = (at: number) => (counts: { kind: string; key: string; bucket: number; n: number }[]) => (seen.push(sums(counts)), new Map([["A", at], ["WORK", at], ["B", at]]));
      const window = await s.aggregates.fleet({ workflow: wf, version: null, hour: hour - 1, allTime: false }, cut(T0 + 1));
      expect(sums(window.counts)).toEqual(["dwell A 3 1", "enter A 0 2"]);
      expect(seen).toEqual([["dwell A 3 1", "enter A 0 2"]]);
      // (no version: a built-in's, version 0; replays, imported and finished runs and other versions left out)
      expect(window.live).toEqual([{ state: "A", n: 1, waiting: 1 }]);
      // stuck: entered before the time asked for (A at T0); states with no live run are not asked
      expect(window.stuck).toEqual([{ state: "A", n: 1 }]);
      expect((await s.aggregates.fleet({ workflow: wf, version: null, hour: hour - 1, allTime: false }, cut(T0))).stuck).toEqual([]);
      expect((await s.aggregates.fleet({ workflow: wf, version: null, hour: hour - 1, allTime: false }, () => new Map())).stuck).toEqual([]);
      expect(sums((await s.aggregates.fleet({ workflow: wf, version: null, hour: -1, allTime: true }, () => new Map())).counts)).toEqual(["dwell A 3 1", "enter A 0 3"]);
      const v2 = await s.aggregates.fleet({ workflow: wf, version: 2, hour: -1, allTime: true }, cut(T0 + 1));
      expect([sums(v2.counts), v2.live, v2.stuck]).toEqual([["enter A 0 9"], [{ state: "WORK", n: 1, waiting: 0 }], [{ state: "WORK", n: 1 }]]);
      const imported = { ...(await s.archive.exportRun("agg-live"))!, snapshots: [], timers: [], transitions: [], reviews: [], artifacts: [] };
      const call = (id: string, runId: string, state: string | null, ok: boolean) => ({ id, key: null, runId, state, purpose: "p", adapter: "a", endpoint: null, model: null, promptTokens: 2, completionTokens: 3, estimated: false, latencyMs: ok ? 10 : 20, attempts: 1, ok, errorCategory: ok ? null : "TIMEOUT", error: null, output: null, createdAt: T0 });
      await s.archive.importRun({ ...imported, run: { ...imported.run, id: "agg-calls", status: "completed" }, usage: [call("agg-c1", "agg-calls", "A", true), call("agg-c2", "agg-calls", "A", false), call("agg-c3", "agg-calls", null, true)] });
      const usage = (await s.aggregates.usageByState(wf)).sort((a, b) => String(a.state).localeCompare(String(b.state)));
      expect(usage).toEqual([
        { state: "A", calls: 2, promptTokens: 4, completionTokens: 6, avgLatencyMs: 15, errors: 1 },
        { state: null, calls: 1, promptTokens: 2, completionTokens: 3, avgLatencyMs: 10, errors: 0 },
      ]);
      const m = await s.aggregates.metrics({ dwellMs: [10, 100], reviewWaitMs: [1000] });
      expect(Object.keys(m).sort()).toEqual(["dwell", "modelCalls", "reviewWait", "reviewsPending", "runs", "tasks", "transitions"]);
      expect(m.runs.filter((r) => r.workflow === wf).map((r) => `${r.status} ${Number(r.n)}`)).toEqual(["completed 2", "running 1", "waiting 1"]);
    });

    test("an engine runs the loop fixture on the store, and a second engine resumes its waiting run", async (s) => {
      const clock = new ManualClock(T0);
      const opts = { store: s, clock, workflows: findWorkflow, effects: () => (instantLoopEffects() as WorkflowEffects), log: () => {} };
      const a = new Engine(opts);
      const { run: started } = await a.start("loop", { request: "Write a retry helper" });
      const waiting = await a.waitFor(started.id, (r) => r.state.includes("REVIEW") && !!r.reviewId);
      const seq = (await s.transitions(started.id)).map((t) => t.seq);
      expect(seq).toEqual(seq.map((_, i) => i + 1));
      await a.stop();
      const b = new Engine(opts);
      // a run waiting for a review is not loaded at boot (lib/engine/evict.ts): the decision loads it
      expect(await b.resume()).toBe(0);
      expect(b.size).toBe(0);
      const decided = await b.decide(waiting.reviewId!, { decision: "approve", reviewer: "ana" });
      expect(decided.run.state).toEqual(["IDLE"]);
      await expect(b.decide(waiting.reviewId!, { decision: "reject" })).rejects.toMatchObject({ status: 409 });
      await b.stop();
    });
  });
}

describe("SQLite: a second writer on the same database", () => {
  it("a store whose last write was overtaken writes every column again, so nothing of the other writer's row survives", async () => {
    const url = tempDbUrl("two-writers");
    await migrateDatabase(url);
    const handle = openSqlite(sqlitePath(url));
    const a = new SqliteRunStore(handle);
    const b = new SqliteRunStore(handle);
    try {
      const r1 = run("tw-1", { status: "running" });
      expect(await a.commit([item(r1, null)])).toEqual(["ok"]);
      // b moves the row on (a remembers version 1)
      const r2 = { ...r1, version: 2, status: "waiting" as const, waitingSince: T0 + 7, output: { by: "b" }, updatedAt: T0 + 7 };
      expect(await b.commit([item(r2, 1)])).toEqual(["ok"]);
      // a's own step to version 2 loses (what it tried must not count as written)
      const lost = { ...r1, version: 2, status: "completed" as const, output: { by: "a" }, updatedAt: T0 + 8 };
      expect(await a.commit([item(lost, 1)])).toEqual(["conflict"]);
      // a, having reloaded the run at version 2, writes a row that differs from b's in status,
      // waitingSince and output: they must all be set, not diffed against version 1 or the lost step
      const r3 = { ...r1, version: 3, state: ["C"], status: "completed" as const, output: { by: "a" }, updatedAt: T0 + 9 };
      expect(await a.commit([item(r3, 2)])).toEqual(["ok"]);
      expect(await a.getRun("tw-1")).toEqual(r3);
    } finally {
      await a.close();
      await b.close();
      handle.db.close();
    }
  });
});
