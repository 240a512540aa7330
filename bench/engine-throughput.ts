// npm run bench — persisted transitions per second across many concurrent swiss-army runs on
// SQLite, against raw better-sqlite3 writing the very same rows (the statements and arguments the
// store produced, in its batches, replayed on one thread) in the same process. Printed: both
// rates and their ratio.
//
// The engine pays for everything a real step costs except the work inside side effects:
// XState stepping, snapshot persistence, review bookkeeping, group commit, and each run
// waiting for its own commit before its next effect starts. Effects answer instantly here so
// that the figure measures the engine and its storage, not BM25 or a model. The engine writes
// its batches on the store's writer thread (as the app does), so stepping and writing overlap;
// the raw replay writes on one thread, one batch after another.
//
// BENCH_ROUNDS (5) rounds of engine-then-raw are measured and their medians printed, with each
// round's figures: on shared machines the speed drifts by a quarter from minute to minute.
// BENCH_WARMUP (3) unmeasured passes of the whole workload come first (the JIT's warm-up).
// Each round's CPU per transition is printed too (the event loop's thread, from /proc, and the
// whole process's), the figure to compare on a shared machine.
// BENCH_RUNS (400) and BENCH_CYCLES (8) set the workload; BENCH_PROFILE=file.cpuprofile keeps a
// CPU profile of the last round's engine pass (its measured part only: not the migration nor the
// runtime's start; the profiler slows the pass it records, so read its shares, not its rate).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance, PerformanceObserver } from "node:perf_hooks";
import Database from "better-sqlite3";
import { migrateDatabase } from "../lib/db/migrations";
import { WAL_CHECKPOINT_PAGES } from "../lib/db/sqlite";
import { ensureRunText, REINDEX_STALE } from "../lib/engine/store/sqlite-text";
import type { WriteItem } from "../lib/db/sqlite-writer";
import { W, WRITES, type SqliteRunStore } from "../lib/engine/store/sqlite";
import { createRuntime } from "../lib/runtime";
import { instantEffects } from "./instant-effects";
import { swissCycles } from "./workload";
import { provideWorkflows } from "../lib/machines/registry";
import * as workflows from "../workflows/registry";

provideWorkflows(workflows);

const RUNS = Number(process.env.BENCH_RUNS ?? 400);
const CYCLES = Number(process.env.BENCH_CYCLES ?? 8);
/** measured rounds, each an engine pass and the raw replay of its writes; the medians are printed */
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 5));
/** unmeasured passes of the whole workload before the rounds (JIT warm-up) */
const WARMUP = Math.max(0, Number(process.env.BENCH_WARMUP ?? 3));

/** the databases this benchmark made (about 130 MB each with the WAL), removed when it ends */
const made: string[] = [];
process.on("exit", () => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

function tempUrl(name: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-bench-"));
  made.push(dir);
  return { url: `file:${path.join(dir, `${name}.db`)}`, file: path.join(dir, `${name}.db`), dir };
}

/**
 * One pass of the workload; `capture` keeps every batch as written, for the raw replay. The
 * measured passes do not capture: ~85 MB of kept arguments would be promoted and marked by the
 * garbage collector on the event loop's thread, a cost the product does not have.
 */
async function engineRun(w: { runs: number; cycles: number; capture: boolean; profile?: boolean }) {
  const { url } = tempUrl("engine");
  await migrateDatabase(url);
  const rt = await createRuntime({ url, env: {} as NodeJS.ProcessEnv, serviceChoresMs: 0, alerts: { start: false }, effects: () => ({ "swiss-army": instantEffects() }) });
  rt.engine.bus.subscribe("*", () => {}); // a watcher, as a browser would be
  // the batches as the store serialised them (strings and numbers: cheap to keep until the replay),
  // and null where the writer re-indexed the runs those batches marked stale for search
  const batches: (WriteItem[] | null)[] = [];
  const store = rt.store as SqliteRunStore;
  let transitions = 0;
  let items = 0;
  store.onWrite = (batch) => {
    for (const item of batch ?? []) {
      items++;
      for (const op of item.ops) if (op[0] === W.insertTransition) transitions++;
    }
    if (w.capture) batches.push(batch);
  };

  // garbage collection pauses on the event loop's thread (the writer thread has its own heap)
  let gcMs = 0;
  const gc = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcMs += e.duration;
  });
  gc.observe({ entryTypes: ["gc"] });
  const cpu0 = process.cpuUsage();
  const mainCpu0 = mainThreadCpu();
  const elu0 = performance.eventLoopUtilization();
  const started = performance.now();
  const work = () => swissCycles(rt.engine, { runs: w.runs, cycles: w.cycles });
  await (w.profile ? profiled(work) : work());
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const mainCpu = mainThreadCpu() - mainCpu0;
  // how busy each thread was: the event loop (XState, serialisation, the API calls) and the writer
  gc.disconnect();
  const threads = { main: performance.eventLoopUtilization(elu0).active / 1000, gc: gcMs / 1000, writer: (store.writerUtilization()?.activeMs ?? 0) / 1000, cpu: (cpu.user + cpu.system) / 1e6, mainCpu };
  // sanity: what the database holds is what the engine says it committed
  const stored = Number((rt.sqlite!.db.prepare(`SELECT COUNT(*) AS n FROM "Transition"`).get() as { n: number | bigint }).n);
  const stats = { ...rt.engine.committer.stats };
  await rt.close();
  if (stored !== transitions) throw new Error(`database holds ${stored} transitions, engine committed ${transitions}`);
  return { seconds, transitions, items, batches, stats, threads };
}

/** The same statements with the same arguments, in the same batches and upkeep, on one thread: raw better-sqlite3. */
async function rawReplay(batches: (WriteItem[] | null)[], url: string, file: string) {
  await migrateDatabase(url);
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  // a plain program's checkpoint: automatic, in the commit that crosses the store's threshold
  // (the store runs it on a thread of its own instead: that is the engine's design, not raw SQLite's)
  db.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
  ensureRunText(db); // the free-text index, its triggers and stale marks, as the store keeps them
  const stmts = Object.values(WRITES).map((sql) => db.prepare(sql));
  // statements built per write (an UPDATE of the columns a step changed), prepared once as the writer does
  const built = new Map<string, Database.Statement>();
  const statement = (s: number | string) => (typeof s === "number" ? stmts[s] : built.get(s) ?? built.set(s, db.prepare(s)).get(s)!);
  const upkeep = REINDEX_STALE.map((sql) => db.prepare(sql));
  const tx = db.transaction((batch: WriteItem[] | null) => {
    if (batch === null) for (const st of upkeep) st.run();
    else {
      // counters (check 3): summed per row over the batch and written once per row at its end, as the writer does
      const rows: [number | string, unknown[]][] = [];
      const sums: number[] = [];
      for (const item of batch) {
        for (const [i, args, check] of item.ops) {
          if (check !== 3) {
            statement(i).run(...args);
            continue;
          }
          const [row, n, ...rest] = args as [number, number, ...unknown[]];
          if (rest.length) rows[row] = [i, rest];
          sums[row] = (sums[row] ?? 0) + n;
        }
      }
      rows.forEach(([i, rest], row) => statement(i).run(...rest, sums[row]));
    }
  });
  const started = performance.now();
  for (const batch of batches) tx.immediate(batch);
  const seconds = (performance.now() - started) / 1000;
  db.close();
  return seconds;
}

/**
 * CPU seconds of this process's main thread (the event loop's: XState, serialisation, the
 * engine), from /proc (Linux; NaN elsewhere). Unlike the event loop's busy time, it does not
 * count the time the thread was runnable but waiting for a core, so it moves far less with the
 * machine's load.
 */
function mainThreadCpu(): number {
  try {
    const stat = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks (USER_HZ = 100)
  } catch {
    return NaN;
  }
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

// unmeasured passes of the whole workload first, so that the measured ones run on optimised code
// (as a server does after its first minutes), not on the JIT compiling XState and the engine:
// V8 keeps optimising for longer than one pass (its compiler threads are busy through the first,
// and the engine's rate still rises through the third)
for (let i = 0; i < WARMUP; i++) await engineRun({ runs: RUNS, cycles: CYCLES, capture: false });
// Rounds: the machine's speed drifts (shared cores, the disk), so each round measures the engine,
// then runs the same workload once more keeping its batches, and replays those with raw SQLite
// right after; the ratio is per round, and the medians of the rounds are what is printed.
const rounds: { engine: Awaited<ReturnType<typeof engineRun>>; rate: number; rawRate: number; rawSeconds: number }[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const engine = await engineRun({ runs: RUNS, cycles: CYCLES, capture: false, profile: r === ROUNDS - 1 });
  const kept = await engineRun({ runs: RUNS, cycles: CYCLES, capture: true });
  const raw = tempUrl("raw");
  const rawSeconds = await rawReplay(kept.batches, raw.url, raw.file);
  kept.batches.length = 0; // replayed: let them go
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  rounds.push({ engine, rate: engine.transitions / engine.seconds, rawRate: kept.transitions / rawSeconds, rawSeconds });
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
const spread = (xs: number[], f: (n: number) => string) => (xs.length > 1 ? `  (rounds: ${xs.map(f).join(", ")})` : "");
const rates = rounds.map((r) => r.rate);
const rawRates = rounds.map((r) => r.rawRate);
const ratios = rounds.map((r) => r.rate / r.rawRate);
// the round whose engine rate is the median: its details
const mid = rounds.find((r) => r.rate === median(rates))!;
const { engine } = mid;

const semi = /--max-semi-space-size=(\d+)/.exec(process.env.NODE_OPTIONS ?? "")?.[1];
console.log(`Switchyard engine throughput (SQLite, WAL, synchronous=NORMAL, checkpoints at ${WAL_CHECKPOINT_PAGES.toLocaleString("en-US")} pages (the engine's on a thread of their own, raw's inline), Node ${process.version}, young generation ${semi ? `${semi} MB semi-spaces, as npm start runs` : "V8's default"})`);
console.log(`  workload        ${RUNS} concurrent swiss-army runs × ${CYCLES} request cycles (review decided each cycle), ${ROUNDS} measured round(s), medians printed, after ${WARMUP} unmeasured warm-up pass(es)`);
console.log(`  transitions     ${fmt(engine.transitions)} committed in ${fmt(engine.items)} run steps, ${fmt(engine.stats.batches)} group commits (avg ${(engine.items / engine.stats.batches).toFixed(1)} steps, largest ${engine.stats.largest})`);
console.log(`  engine          ${fmt(median(rates))} transitions/s  (${engine.seconds.toFixed(2)} s, every step committed before its effects started)${spread(rates, fmt)}`);
console.log(`  threads         event loop busy ${engine.threads.main.toFixed(2)} s (CPU ${engine.threads.mainCpu.toFixed(2)} s, GC pauses ${engine.threads.gc.toFixed(2)} s), writer thread busy ${engine.threads.writer.toFixed(2)} s, process CPU ${engine.threads.cpu.toFixed(2)} s`);
// CPU per transition moves far less with the machine's load than the rates do (they count the
// time a thread waited for a core): what to compare across runs on a shared machine
const mainUs = rounds.map((r) => (r.engine.threads.mainCpu * 1e6) / r.engine.transitions);
const procUs = rounds.map((r) => (r.engine.threads.cpu * 1e6) / r.engine.transitions);
console.log(`  CPU/transition  event loop thread ${fmt(median(mainUs))} µs, whole process ${fmt(median(procUs))} µs (medians)${spread(mainUs, fmt)}`);
console.log(`  raw sqlite      ${fmt(median(rawRates))} transitions/s  (${mid.rawSeconds.toFixed(2)} s, the same statements, arguments, batches and re-indexing, serialised in advance, on one thread)${spread(rawRates, fmt)}`);
console.log(`  ratio           ${median(ratios).toFixed(2)}× raw   (targets: ≥ 10,000 transitions/s and ≥ 0.5× raw)${spread(ratios, (x) => `${x.toFixed(2)}×`)}`);
