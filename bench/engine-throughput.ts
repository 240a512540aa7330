// npm run bench — persisted transitions per second across many concurrent swiss-army runs on
// SQLite, against raw better-sqlite3 writing the very same rows (same batches, same SQL, rows
// serialised in advance) in the same process. Printed: both rates and their ratio.
//
// The engine pays for everything a real step costs except the work inside side effects:
// XState stepping, snapshot persistence, review bookkeeping, group commit, and each run
// waiting for its own commit before its next effect starts. Effects answer instantly here so
// that the figure measures the engine and its storage, not BM25 or a model. The engine writes
// its batches on the store's writer thread (as the app does), so stepping and writing overlap;
// the raw replay writes on one thread, one batch after another.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import Database from "better-sqlite3";
import { migrateDatabase } from "../lib/db/migrations";
import { sqliteDate } from "../lib/db/sqlite";
import { ensureRunText } from "../lib/engine/store/sqlite-text";
import type { SqliteRunStore } from "../lib/engine/store/sqlite";
import type { CommitItem } from "../lib/engine/store/types";
import { createRuntime } from "../lib/runtime";
import { instantEffects } from "./instant-effects";
import { swissCycles } from "./workload";

const RUNS = Number(process.env.BENCH_RUNS ?? 400);
const CYCLES = Number(process.env.BENCH_CYCLES ?? 8);

function tempUrl(name: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-bench-"));
  return { url: `file:${path.join(dir, `${name}.db`)}`, file: path.join(dir, `${name}.db`) };
}

async function engineRun() {
  const { url } = tempUrl("engine");
  await migrateDatabase(url);
  const rt = await createRuntime({ url, env: {} as NodeJS.ProcessEnv, outboxIntervalMs: 0, alerts: { start: false }, effects: () => ({ "swiss-army": instantEffects() }) });
  rt.engine.bus.subscribe("*", () => {}); // a watcher, as a browser would be
  const batches: CommitItem[][] = [];
  rt.engine.committer.onBatch = (items) => batches.push(items);

  const cpu0 = process.cpuUsage();
  const elu0 = performance.eventLoopUtilization();
  const started = performance.now();
  await swissCycles(rt.engine, { runs: RUNS, cycles: CYCLES });
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  // how busy each thread was: the event loop (XState, serialisation, the API calls) and the writer
  const threads = { main: performance.eventLoopUtilization(elu0).active / 1000, writer: ((rt.store as SqliteRunStore).writerUtilization()?.activeMs ?? 0) / 1000, cpu: (cpu.user + cpu.system) / 1e6 };
  const transitions = batches.reduce((n, b) => n + b.reduce((m, i) => m + i.transitions.length, 0), 0);
  const items = batches.reduce((n, b) => n + b.length, 0);
  // sanity: what the database holds is what the engine says it committed
  const stored = Number((rt.sqlite!.db.prepare(`SELECT COUNT(*) AS n FROM "Transition"`).get() as { n: number | bigint }).n);
  const stats = { ...rt.engine.committer.stats };
  await rt.close();
  if (stored !== transitions) throw new Error(`database holds ${stored} transitions, engine committed ${transitions}`);
  return { seconds, transitions, items, batches, stats, threads };
}

/** The same rows, pre-serialised, written with prepared statements in the same batches. */
function rawReplay(batches: CommitItem[][], url: string, file: string) {
  return migrateDatabase(url).then(() => {
    const db = new Database(file);
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    ensureRunText(db); // the free-text index and its triggers, as the store keeps them
    const runCols = `"id","workflow","status","state","snapshot","context","input","output","error","entered","version","seq","parentId","retries","waitingSince","failedStates","createdAt","updatedAt","finishedAt"`;
    const s = {
      insertRun: db.prepare(`INSERT INTO "Run" (${runCols}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`),
      updateRun: db.prepare(`UPDATE "Run" SET "status"=?,"state"=?,"snapshot"=?,"context"=?,"output"=?,"error"=?,"entered"=?,"version"=?,"seq"=?,"retries"=?,"waitingSince"=?,"failedStates"=?,"updatedAt"=?,"finishedAt"=? WHERE "id"=? AND "version"=?`),
      insertSnapshot: db.prepare(`INSERT OR REPLACE INTO "Snapshot" ("runId","seq","first","snapshot","context","timers","at") VALUES (?,?,?,?,?,?,?)`),
      insertTransition: db.prepare(`INSERT INTO "Transition" ("runId","seq","from","to","event","reason","at","durationMs","payload") VALUES (?,?,?,?,?,?,?,?,?)`),
      setTimer: db.prepare(`INSERT INTO "Timer" ("runId","id","dueAt","event","seq") VALUES (?,?,?,?,?) ON CONFLICT("runId","id") DO UPDATE SET "dueAt"=excluded."dueAt","event"=excluded."event","seq"=excluded."seq"`),
      clearTimer: db.prepare(`DELETE FROM "Timer" WHERE "runId"=? AND "id"=?`),
      openReview: db.prepare(`INSERT INTO "Review" ("id","runId","workflow","state","kind","prompt","payload","status","decision","feedback","reviewer","createdAt","decidedAt","seq") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)`),
      closeReview: db.prepare(`UPDATE "Review" SET "status"=?,"decision"=?,"feedback"=?,"reviewer"=?,"decidedAt"=? WHERE "id"=? AND "status"='pending'`),
    };
    type Op = [Database.Statement, unknown[]];
    const j = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));
    const prepared: Op[][] = batches.map((batch) =>
      batch.flatMap((item): Op[] => {
        const r = item.run;
        const ops: Op[] = [];
        const at = sqliteDate(r.updatedAt);
        if (item.expectVersion === null) {
          ops.push([s.insertRun, [r.id, r.workflow, r.status, j(r.state), j(r.snapshot), j(r.context), j(r.input), j(r.output), j(r.error), j(r.entered), r.version, r.seq, r.parentId, r.retries, null, r.failedStates, sqliteDate(r.createdAt), at, null]]);
        } else {
          const since = r.waitingSince === null ? null : sqliteDate(r.waitingSince);
          ops.push([s.updateRun, [r.status, j(r.state), j(r.snapshot), j(r.context), j(r.output), j(r.error), j(r.entered), r.version, r.seq, r.retries, since, r.failedStates, at, null, r.id, item.expectVersion]]);
        }
        if (item.transitions.length) ops.push([s.insertSnapshot, [r.id, r.seq, item.transitions[0].seq, j(r.snapshot), j(r.context), j(item.timers.map((t) => ({ id: t.id, dueAt: t.dueAt, event: t.event, seq: t.seq }))), at]]);
        for (const c of item.reviewsClose) ops.push([s.closeReview, [c.status, c.decision, c.feedback, c.reviewer, sqliteDate(c.decidedAt), c.id]]);
        for (const t of item.transitions) ops.push([s.insertTransition, [t.runId, t.seq, j(t.from), j(t.to), t.event, t.reason, sqliteDate(t.at), t.durationMs, j(t.payload)]]);
        for (const id of item.timersClear) ops.push([s.clearTimer, [r.id, id]]);
        for (const t of item.timersSet) ops.push([s.setTimer, [t.runId, t.id, sqliteDate(t.dueAt), j(t.event), t.seq]]);
        for (const v of item.reviewsOpen) ops.push([s.openReview, [v.id, v.runId, v.workflow, v.state, v.kind, v.prompt, j(v.payload), v.status, v.decision, v.feedback, v.reviewer, sqliteDate(v.createdAt), null, v.seq]]);
        return ops;
      }),
    );
    // (the store serialises snapshot and context once for the run row and its Snapshot row)
    const serialise = () => batches.forEach((b) => b.forEach((i) => [i.run.state, i.run.snapshot, i.run.context, i.run.output, i.run.entered, i.timers, ...i.transitions.map((t) => t.payload)].forEach(j)));
    const s0 = performance.now();
    serialise();
    const serialiseSeconds = (performance.now() - s0) / 1000;
    const tx = db.transaction((ops: Op[]) => {
      for (const [stmt, args] of ops) stmt.run(...args);
    });
    const started = performance.now();
    for (const ops of prepared) tx.immediate(ops);
    const seconds = (performance.now() - started) / 1000;
    db.close();
    return { seconds, serialiseSeconds };
  });
}

async function profiled<T>(fn: () => Promise<T>): Promise<T> {
  if (!process.env.BENCH_PROFILE) return fn();
  const { Session } = await import("node:inspector/promises");
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
  const out = await fn();
  const { profile } = await session.post("Profiler.stop");
  fs.writeFileSync(process.env.BENCH_PROFILE, JSON.stringify(profile));
  return out;
}

const engine = await profiled(engineRun);
const raw = tempUrl("raw");
const { seconds: rawSeconds, serialiseSeconds } = await rawReplay(engine.batches, raw.url, raw.file);
const engineRate = engine.transitions / engine.seconds;
const rawRate = engine.transitions / rawSeconds;
const rawJsonRate = engine.transitions / (rawSeconds + serialiseSeconds);

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
console.log(`Switchyard engine throughput (SQLite, WAL, synchronous=NORMAL, Node ${process.version})`);
console.log(`  workload        ${RUNS} concurrent swiss-army runs × ${CYCLES} request cycles (review decided each cycle)`);
console.log(`  transitions     ${fmt(engine.transitions)} committed in ${fmt(engine.items)} run steps, ${fmt(engine.stats.batches)} group commits (avg ${(engine.items / engine.stats.batches).toFixed(1)} steps, largest ${engine.stats.largest})`);
console.log(`  engine          ${fmt(engineRate)} transitions/s  (${engine.seconds.toFixed(2)} s, every step committed before its effects started)`);
console.log(`  threads         event loop busy ${engine.threads.main.toFixed(2)} s, writer thread busy ${engine.threads.writer.toFixed(2)} s, process CPU ${engine.threads.cpu.toFixed(2)} s`);
console.log(`  raw sqlite      ${fmt(rawRate)} transitions/s  (${rawSeconds.toFixed(2)} s, the same rows and batches, pre-serialised)`);
console.log(`  raw + JSON      ${fmt(rawJsonRate)} transitions/s  (the same, counting JSON serialisation of the rows: ${serialiseSeconds.toFixed(2)} s)`);
console.log(`  ratio           ${(engineRate / rawRate).toFixed(2)}× raw (pre-serialised), ${(engineRate / rawJsonRate).toFixed(2)}× raw + JSON   (targets: ≥ 10,000 transitions/s and ≥ 0.5× raw)`);
