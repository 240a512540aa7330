// Retention: old finished runs are pruned (archived first when asked) by a scheduled job, live
// runs are never touched, and a database that keeps taking runs stays bounded.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { importRun } from "../lib/api/run-export";
import { pruneRuns, retentionFromEnv, RetentionJob, type PruneResult } from "../lib/retention/prune";
import type { Runtime } from "../lib/runtime";
import { ManualClock } from "../lib/engine/clock";
import type { RunRow, TransitionRow } from "../lib/engine/store/types";
import { inState, workflowRuntime } from "./helpers";
import { DATABASES, commitItem, modelCall, opened, runRow, type TestDb } from "./support/databases";

const DAY = 86_400_000;
let rt: (Runtime & { clock: ManualClock }) | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
});

const count = (table: string, runId?: string) =>
  Number((rt!.sqlite!.db.prepare(`SELECT COUNT(*) AS n FROM "${table}"${runId ? ` WHERE "runId" = ?` : ""}`).get(...(runId ? [runId] : [])) as { n: number | bigint }).n);

/** a finished run of the nest fixture: a plan approved, two halves built (one by the model) */
async function finishedRun(topic = "a bird box") {
  const { run } = await rt!.engine.start("nest", { topic });
  const waiting = await rt!.engine.waitFor(run.id, (r) => !!r.reviewId);
  await rt!.engine.decide(waiting.reviewId!, { decision: "approve" });
  return rt!.engine.waitFor(run.id, (r) => r.status === "completed");
}

/** a finished run of the hello fixture (three transitions) */
async function finishedHello(name: string) {
  const { run } = await rt!.engine.start("hello", { name });
  return rt!.engine.waitFor(run.id, (r) => r.status === "completed");
}

describe("retention", () => {
  it("prunes finished runs older than the age with everything they own, archives them first, and leaves live and recent runs alone", async () => {
    rt = await workflowRuntime("nest", { seedGuide: false, retention: null });
    const old = await finishedRun("the first bird box");
    const live = (await rt.engine.start("loop", { request: "Summarise the release notes" })).run;
    await rt.engine.waitFor(live.id, inState("REVIEW"));
    rt.clock.advance(40 * DAY);
    const recent = await finishedRun("a later bird box");
    expect(count("Transition", old.id)).toBeGreaterThan(3);
    expect(count("Snapshot", old.id)).toBeGreaterThan(0);
    expect(count("ModelCall", old.id)).toBeGreaterThan(0);
    const liveBefore = await rt.store.getRun(live.id);

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-archive-"));
    const out = await pruneRuns(rt, { olderThanMs: 30 * DAY, archiveDir: dir });
    expect(out).toMatchObject({ runs: 1, archived: 1 });
    expect(await rt.store.getRun(old.id)).toBeNull();
    for (const t of ["Transition", "Snapshot", "Review", "Timer", "Artifact", "ModelCall"]) expect(count(t, old.id)).toBe(0);
    expect(await rt.store.getRun(recent.id)).not.toBeNull();
    // the live run (waiting 40 days) keeps its row, history and latest snapshot
    const liveAfter = await rt.store.getRun(live.id);
    expect(liveAfter).toEqual(liveBefore);
    expect(count("Transition", live.id)).toBe(liveBefore!.seq);
    expect((await rt.store.snapshotAt(live.id, liveBefore!.seq))?.seq).toBe(liveBefore!.seq);
    // …but not its snapshots older than the age: a fork from there is refused, not answered with a later state
    expect(out.snapshots).toBeGreaterThan(0);
    expect(await rt.store.snapshotAt(live.id, 1)).toBeNull();
    await expect(rt.engine.fork(live.id, { seq: 1 })).rejects.toThrow(/no snapshot at seq 1/);

    // the archive is an ordinary export: it imports back
    const file = path.join(dir, `run-${old.id}.json`);
    const doc = JSON.parse(fs.readFileSync(file, "utf8"));
    expect(doc).toMatchObject({ format: "switchyard-run", run: { id: old.id, status: "completed" } });
    const back = await importRun(rt, doc);
    expect(back.transitions).toBe(doc.transitions.length);

    // the imported copy is as old as its original: the next pass takes it, and then nothing is left to do
    expect((await pruneRuns(rt, { olderThanMs: 30 * DAY })).runs).toBe(1);
    expect(await rt.store.getRun(back.id)).toBeNull();
    expect((await pruneRuns(rt, { olderThanMs: 30 * DAY })).runs).toBe(0);
  });

  it("runs on a schedule (SWITCHYARD_RETENTION_DAYS) and keeps a busy database bounded", async () => {
    const env = { SWITCHYARD_RETENTION_DAYS: "2", SWITCHYARD_RETENTION_INTERVAL_MS: String(DAY) } as unknown as NodeJS.ProcessEnv;
    const settings = retentionFromEnv(env)!;
    expect(settings).toEqual({ olderThanMs: 2 * DAY, archiveDir: null, intervalMs: DAY });
    rt = await workflowRuntime("hello", { seedGuide: false, retention: settings });
    const sizes: number[] = [];
    for (let day = 0; day < 8; day++) {
      for (let i = 0; i < 3; i++) await finishedHello(`visitor ${day}.${i}`);
      const job = rt.retention!;
      const before = job.last;
      rt.clock.advance(DAY);
      // the job's pass (on the simulated clock) runs, then re-arms: each pass leaves its own result
      await expect.poll(() => job.last, { timeout: 30_000 }).not.toBe(before);
      sizes.push(count("Run"));
    }
    // three runs a day, kept for two days: never more than 9 (three days' worth at the moment of a pass)
    expect(Math.max(...sizes.slice(3))).toBeLessThanOrEqual(9);
    expect(sizes.at(-1)).toBeLessThan(8 * 3);
    expect(count("Transition")).toBeLessThan(8 * 3 * 3);
    expect(rt.retention!.lastError).toBeNull();
  });

  it("rejects bad settings with a clear message", () => {
    expect(retentionFromEnv({} as unknown as NodeJS.ProcessEnv)).toBeNull();
    expect(retentionFromEnv({ SWITCHYARD_RETENTION_DAYS: "0" } as unknown as NodeJS.ProcessEnv)).toBeNull();
    expect(() => retentionFromEnv({ SWITCHYARD_RETENTION_DAYS: "soon" } as unknown as NodeJS.ProcessEnv)).toThrow(/positive number of days/);
    expect(() => retentionFromEnv({ SWITCHYARD_RETENTION_DAYS: "3", SWITCHYARD_RETENTION_INTERVAL_MS: "-1" } as unknown as NodeJS.ProcessEnv)).toThrow(/INTERVAL_MS/);
  });
});

// ---------------------------------------------------------------------------- SQLite and PostgreSQL
// The same runs written through each database's run store (plus model calls and webhook
// deliveries): a pass removes the same rows on both, in batches; the archives import back; the
// scheduled job prunes on the clock.

const NOW = Date.UTC(2026, 5, 1, 12, 0, 0);
const TABLES = ["Run", "Transition", "Snapshot", "Timer", "Review", "Artifact", "ModelCall", "WebhookDelivery", "RunPrincipal"];
const passes = new Map<string, { result: PruneResult; left: Record<string, string[]> }>();

/** A run written in commits at the given ages (days before NOW): one transition and snapshot per commit. */
async function aged(db: TestDb, id: string, ages: number[], over: Partial<RunRow> = {}) {
  let r = runRow(id, NOW - ages[0] * DAY, over.status && over.status !== "running" && over.status !== "waiting" ? { status: "running" } : {});
  for (const [i, age] of ages.entries()) {
    const at = NOW - age * DAY;
    const last = i === ages.length - 1;
    const next: RunRow = { ...r, ...(last ? over : {}), version: i + 1, seq: i + 1, updatedAt: at, ...(last && over.finishedAt === undefined && over.status && ["completed", "failed", "aborted"].includes(over.status) ? { finishedAt: at } : {}) };
    const t: TransitionRow = { runId: id, seq: i + 1, from: [`S${i}`], to: [`S${i + 1}`], event: "GO", reason: "r", at, durationMs: 5, payload: null };
    const timer = { runId: id, id: `t${i}`, dueAt: at + DAY, event: { type: "TICK" }, seq: i + 1 };
    expect(
      await db.store.commit([
        commitItem(next, i === 0 ? null : i, {
          transitions: [t],
          timersSet: [timer],
          timers: [timer],
          reviewsOpen: i === 0 ? [{ id: `${id}-review`, runId: id, workflow: "loop", state: "S1", kind: "approval", prompt: "p", payload: {}, status: "pending", decision: null, feedback: null, reviewer: null, createdAt: at, decidedAt: null, seq: 1 }] : [],
          artifacts: [{ name: "log.txt", content: `${i}\n`, mode: "append" }],
        }),
      ]),
    ).toEqual(["ok"]);
    r = next;
  }
  await modelCall(db, { id: `${id}-call`, runId: id, at: NOW - ages[0] * DAY, prompt: 10 });
  await db.sql(`INSERT INTO "WebhookDelivery" ("id","webhookId","runId","hook","body","status","attempts","createdAt") VALUES (?,?,?,?,?,?,?,?)`, [`${id}-hook`, "w1", id, "on_transition", "{}", "delivered", 1, db.date(NOW - ages[0] * DAY)]);
  await db.sql(`INSERT INTO "RunPrincipal" ("runId","principal","createdAt") VALUES (?,?,?)`, [id, "addr:127.0.0.1", NOW - ages[0] * DAY]);
}

async function seedRetention(db: TestDb) {
  await aged(db, "old-done", [45, 44, 40], { status: "completed" });
  await aged(db, "old-failed", [38, 36], { status: "failed", error: { message: "boom" } });
  await aged(db, "old-aborted", [33], { status: "aborted" });
  await aged(db, "recent-done", [45, 10], { status: "completed" }); // finished 10 days ago: kept, old snapshot thinned
  await aged(db, "old-live", [50, 40, 35], { status: "waiting" }); // never removed; keeps its latest snapshot
  await aged(db, "live-recent", [40, 39, 1], { status: "running" }); // loses the two old snapshots
  await modelCall(db, { id: "embedding", runId: null, at: NOW - 90 * DAY }); // outside any run: stays
}

async function leftRows(db: TestDb): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const t of TABLES) {
    const key = t === "Run" ? `"id"` : t === "Transition" || t === "Snapshot" ? `"runId" || ':' || CAST("seq" AS TEXT)` : t === "Timer" || t === "Artifact" ? `"runId" || ':' || ${t === "Timer" ? `"id"` : `"name"`}` : t === "RunPrincipal" ? `"runId"` : `"id"`;
    out[t] = (await db.sql(`SELECT ${key} AS "k" FROM "${t}"`)).rows.map((r) => String(r.k)).sort();
  }
  return out;
}

for (const database of DATABASES) {
  describe(`retention on ${database.name}`, () => {
    const h = opened(database, "retention");
    const clock = new ManualClock(NOW);
    let ports: { store: TestDb["store"]; clock: ManualClock };
    beforeAll(async () => {
      const db = await h.open();
      if (!db) return;
      ports = { store: db.store, clock };
      await seedRetention(db);
    }, 60_000);
    afterAll(() => h.close());

    h.it("removes the old finished runs with what they own (in batches), archives them, thins the others' old snapshots", async (db) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-archive-"));
      const liveBefore = await db.store.getRun("old-live");
      const result = await pruneRuns(ports, { olderThanMs: 30 * DAY, archiveDir: dir, batch: 2 });
      expect(result).toEqual({
        runs: 3,
        archived: 3,
        // recent-done's first snapshot, and the first two of each live run
        snapshots: 5,
        // three runs of 3, 2 and 1 commits: a transition, a snapshot and a timer per commit
        rows: { Run: 3, Transition: 6, Snapshot: 6 + 5, Timer: 6, Review: 3, Artifact: 3, ModelCall: 3, WebhookDelivery: 3, RunPrincipal: 3, IdempotencyKey: 0 },
        cutoff: new Date(NOW - 30 * DAY).toISOString(),
      });
      const left = await leftRows(db);
      expect(left.Run).toEqual(["live-recent", "old-live", "recent-done"]);
      for (const t of TABLES.slice(1)) expect(left[t].filter((k) => k.startsWith("old-done") || k.startsWith("old-failed") || k.startsWith("old-aborted")), t).toEqual([]);
      expect(left.Snapshot).toEqual(["live-recent:3", "old-live:3", "recent-done:2"]);
      expect(left.Transition).toHaveLength(3 + 3 + 2);
      expect(left.ModelCall).toEqual(["embedding", "live-recent-call", "old-live-call", "recent-done-call"]);
      expect(await db.store.getRun("old-live")).toEqual(liveBefore);
      expect(await db.store.snapshotAt("old-live", 3)).toMatchObject({ seq: 3 });
      expect(await db.store.snapshotAt("old-live", 1)).toBeNull();
      passes.set(database.name, { result, left });

      // the archives are exports: they import back, as old as their originals, and the next pass takes them
      expect(fs.readdirSync(dir).sort()).toEqual(["run-old-aborted.json", "run-old-done.json", "run-old-failed.json"]);
      const doc = JSON.parse(fs.readFileSync(path.join(dir, "run-old-done.json"), "utf8"));
      expect(doc).toMatchObject({ format: "switchyard-run", run: { id: "old-done", status: "completed", seq: 3 } });
      expect(doc.transitions).toHaveLength(3);
      const back = await importRun(ports, doc);
      expect(await db.count("Transition", back.id)).toBe(3);
      expect((await pruneRuns(ports, { olderThanMs: 30 * DAY })).rows).toMatchObject({ Run: 1, Transition: 3, Snapshot: 3, Review: 1, ModelCall: 1 });
      expect(await db.store.getRun(back.id)).toBeNull();
      expect(await pruneRuns(ports, { olderThanMs: 30 * DAY })).toMatchObject({ runs: 0, snapshots: 0 });
    });

    h.it("the scheduled job (RetentionJob) prunes on the clock's interval", async (db) => {
      const job = new RetentionJob(ports, { olderThanMs: 5 * DAY, intervalMs: DAY });
      job.start();
      try {
        clock.advance(DAY);
        await expect.poll(() => job.last ?? job.lastError, { timeout: 30_000 }).not.toBeNull();
        expect(job.lastError).toBeNull();
        // recent-done finished 10 days before NOW (11 before now): gone; the live runs stay
        expect(job.last).toMatchObject({ runs: 1 });
        expect((await leftRows(db)).Run).toEqual(["live-recent", "old-live"]);
      } finally {
        await job.stop();
      }
    });
  });
}

describe("retention: SQLite and PostgreSQL agree", () => {
  for (const { name } of DATABASES.slice(1)) {
    it(`the same rows are removed on SQLite and ${name}`, (ctx) => {
      if (!passes.has(name)) return ctx.skip();
      expect(passes.get(name)).toEqual(passes.get("SQLite"));
    });
  }
});
