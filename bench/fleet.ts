// npm run bench:fleet — the fleet view at scale, and what its counters cost the engine.
//
// 1. Data: BENCH_FLEET_RUNS (100,000) swiss-army runs over 30 days with BENCH_FLEET_TRANSITIONS
//    (1,000,000) transitions between them (request cycles through the machine's states, dwell
//    times and run lengths varied), a twentieth of the runs live (in whichever state of the cycle
//    they stopped in), some failed or aborted; written with raw SQL in one transaction, and the fleet's
//    counters (FleetCount) and the live runs' ActiveState rows written as the engine would have
//    written them: each run's commits folded by lib/fleet/counters.ts's fleetDeltas, summed.
// 2. GET /api/workflows/swiss-army/fleet (fleetOf) for window=24h and window=all, and the runs
//    list filtered by state (listRuns: a page of 25, the total, the counts): p50 / p95 / max of
//    BENCH_QUERIES (200) each. Targets: fleet p95 ≤ 150 ms, list p95 ≤ 50 ms.
// 3. npm run bench's workload (bench/workload.ts: BENCH_RUNS (200) concurrent swiss-army runs ×
//    BENCH_CYCLES (4) review cycles, effects answering at once) with the counters on and off, in
//    alternating order, BENCH_ROUNDS (7) rounds after BENCH_WARMUP (1) unmeasured pass each way;
//    printed: each round's transitions/s and the ratio on / off, and the median ratio (target ≥ 0.95),
//    and beside them the process's CPU time per transition on and off (all threads: far less
//    swayed than wall time by other processes on a shared machine) and its ratio off / on.
// BENCH_FLEET_DB=path keeps the seeded database (and measures an existing one again without
// seeding); BENCH_SKIP_ENGINE=1 leaves out part 3.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { listRuns } from "../lib/api/runs";
import { migrateDatabase } from "../lib/db/migrations";
import { sqliteDate } from "../lib/db/sqlite";
import { ManualClock } from "../lib/engine/clock";
import { activeRows, activeVersion, PUT_ACTIVE } from "../lib/engine/store/active";
import type { CommitItem, RunRow, TransitionRow } from "../lib/engine/store/types";
import { fleetDeltas, withAllTime, type FleetDelta } from "../lib/fleet/counters";
import { fleetOf } from "../lib/fleet/fleet";
import { provideWorkflows } from "../lib/machines/registry";
import { createRuntime } from "../lib/runtime";
import * as workflows from "../workflows/registry";
import { instantEffects } from "./instant-effects";
import { swissCycles } from "./workload";

provideWorkflows(workflows);

const RUNS = Number(process.env.BENCH_FLEET_RUNS ?? 100_000);
const TRANSITIONS = Number(process.env.BENCH_FLEET_TRANSITIONS ?? 1_000_000);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 200);
const ENGINE_RUNS = Number(process.env.BENCH_RUNS ?? 200);
const CYCLES = Number(process.env.BENCH_CYCLES ?? 4);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 7));
const WARMUP = Math.max(0, Number(process.env.BENCH_WARMUP ?? 1));
const TARGET = { fleet: 150, list: 50, ratio: 0.95 };
const DAY = 86_400_000;
const END = Date.UTC(2026, 10, 1);
const START = END - 30 * DAY;

let seed = 7;
const rand = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;

/** one swiss-army request cycle, as [from, to, event] of its transitions (the edges its machine draws) */
const CYCLE: [string, string, string][] = [
  ["IDLE", "REQUEST_RECEIVED", "REQUEST"],
  ["REQUEST_RECEIVED", "CONTEXT_SEARCH", "xstate.done.actor.parse"],
  ["CONTEXT_SEARCH", "EXECUTING", "xstate.done.actor.search"],
  ["EXECUTING", "CONTEXT_UPDATE", "xstate.done.actor.execute"],
  ["CONTEXT_UPDATE", "HUMAN_REVIEW", "xstate.done.actor.update"],
  ["HUMAN_REVIEW", "IDLE", "APPROVE"],
];
const DWELL: Record<string, number> = { IDLE: 60_000, REQUEST_RECEIVED: 300, CONTEXT_SEARCH: 1_500, EXECUTING: 40_000, CONTEXT_UPDATE: 800, HUMAN_REVIEW: 20 * 60_000 };

const dirs: string[] = [];
process.on("exit", () => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
function tempUrl(name: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `switchyard-bench-${name}-`));
  dirs.push(dir);
  return `file:${path.join(dir, `${name}.db`)}`;
}

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

async function seedAndQuery() {
  // BENCH_FLEET_DB=file: seed it once and keep it; a later run with the same file measures it again
  const kept = process.env.BENCH_FLEET_DB;
  const url = kept ? `file:${path.resolve(kept)}` : tempUrl("fleet");
  await migrateDatabase(url);
  const clock = new ManualClock(END);
  const rt = await createRuntime({ url, clock, env: {} as NodeJS.ProcessEnv, serviceChoresMs: 0, resume: false, seedGuide: false, webhooks: { start: false }, alerts: { start: false }, schedules: { start: false } });
  const db = rt.sqlite!.db;
  // (a file left empty by a run that stopped early is seeded)
  const reuse = !!kept && Number((db.prepare(`SELECT COUNT(*) AS n FROM "Run"`).get() as { n: number | bigint }).n) > 0;
  const t0 = performance.now();
  const insertRun = db.prepare(`INSERT INTO "Run" ("id","workflow","status","state","input","output","error","entered","version","seq","retries","waitingSince","failedStates","createdAt","updatedAt","finishedAt","inFlight") VALUES (?,?,?,?,?,?,?,?,?,?,0,?,?,?,?,?,?)`);
  const insertT = db.prepare(`INSERT INTO "Transition" ("runId","seq","from","to","event","reason","at","durationMs","payload") VALUES (?,?,?,?,?,?,?,?,?)`);
  const insertReview = db.prepare(`INSERT INTO "Review" ("id","runId","workflow","state","kind","prompt","payload","status","createdAt","seq") VALUES (?,?,?,?,?,?,?,?,?,?)`);
  const insertActive = db.prepare(PUT_ACTIVE(() => "?"));
  const insertCount = db.prepare(`INSERT INTO "FleetCount" ("workflow","version","hour","kind","key","bucket","n") VALUES (?,?,?,?,?,?,?)`);
  const counts = new Map<string, FleetDelta>();
  const perRun = TRANSITIONS / RUNS;
  let written = 0;
  if (!reuse) db.transaction(() => {
    for (let i = 0; i < RUNS; i++) {
      const id = `run-${String(i).padStart(6, "0")}`;
      // runs of different lengths (so the live ones rest in every state of the cycle), in pairs that sum to the average's share
      const share = Math.round(perRun * (i + 1)) - Math.round(perRun * i);
      const spread = Math.floor(perRun / 2) * ((i >> 1) % 2 === 0 ? 1 : -1) * ((i >> 2) % 3) / 2;
      const n = Math.max(1, share + (i % 2 === 0 ? Math.round(spread) : -Math.round(spread)));
      const created = START + Math.floor(rand() * (30 * DAY - 3 * 3_600_000));
      const r = rand();
      const live = r < 0.05;
      const end = live ? null : r < 0.08 ? "failed" : r < 0.09 ? "aborted" : "completed";
      // the run's transitions: start into IDLE, then request cycles
      const transitions: TransitionRow[] = [];
      let at = created;
      let state = "IDLE";
      const entered: Record<string, number> = { IDLE: created };
      transitions.push({ runId: id, seq: 1, from: [], to: ["IDLE"], event: "xstate.init", reason: "run started", at, durationMs: 0, payload: { edge: { source: "", targets: ["IDLE"] } } });
      for (let s = 2; s <= n; s++) {
        const [from, to, event] = CYCLE[(s - 2) % CYCLE.length]!;
        const dwell = Math.round(DWELL[from]! * (0.3 + 1.4 * rand()));
        at += dwell;
        transitions.push({ runId: id, seq: s, from: [from], to: [to], event, reason: event, at, durationMs: dwell, payload: { edge: { source: from, targets: [to] } } });
        state = to;
        delete entered[from];
        entered[to] = at;
      }
      const status = live ? (state === "HUMAN_REVIEW" || state === "IDLE" ? "waiting" : "running") : end!;
      const finishedAt = live ? null : at + 1_000;
      const failedStates = status === "failed" ? `|${state}|` : null;
      const row: RunRow = { id, workflow: "swiss-army", status, state: [state], snapshot: {}, context: {}, input: {}, output: null, error: null, entered, version: n, seq: n, parentId: null, forkOf: null, forkSeq: null, scheduleId: null, retries: 0, waitingSince: null, failedStates, createdAt: created, updatedAt: at, finishedAt, name: null };
      insertRun.run(id, "swiss-army", status, JSON.stringify([state]), JSON.stringify({ request: `bench ${i}` }), null, status === "failed" ? '{"message":"boom"}' : null, JSON.stringify(entered), n, n, status === "waiting" && state === "HUMAN_REVIEW" ? sqliteDate(at) : null, failedStates, sqliteDate(created), sqliteDate(at), finishedAt === null ? null : sqliteDate(finishedAt), status === "running" ? 1 : 0);
      // where it is, as the engine's commits keep it (lib/engine/store/active.ts)
      for (const a of activeRows(row)) insertActive.run(a.state, id, sqliteDate(created), "swiss-army", activeVersion(row, row.input), status, a.since === null ? null : sqliteDate(a.since));
      for (const t of transitions) insertT.run(t.runId, t.seq, JSON.stringify(t.from), JSON.stringify(t.to), t.event, t.reason, sqliteDate(t.at), t.durationMs, JSON.stringify(t.payload));
      written += transitions.length;
      if (status === "waiting" && state === "HUMAN_REVIEW") insertReview.run(`${id}-r`, id, "swiss-army", "HUMAN_REVIEW", "approval", "Decide", "{}", "pending", sqliteDate(at), n);
      // the counters the engine's commits would have added: the whole history as one commit
      const item = { run: { ...row, finishedAt: finishedAt ?? null }, transitions, expectVersion: null } as unknown as CommitItem;
      for (const d of withAllTime(fleetDeltas(null, item))) {
        const k = `${d[2]}\u0000${d[3]}\u0000${d[4]}\u0000${d[5]}`;
        const had = counts.get(k);
        if (had) had[6] += d[6];
        else counts.set(k, [...d] as FleetDelta);
      }
    }
    for (const d of counts.values()) insertCount.run(...d);
  })();
  db.pragma("optimize");
  const n = (sql: string) => Number((db.prepare(sql).get() as { n: number | bigint }).n);
  console.log(`data            ${fmt(n(`SELECT COUNT(*) AS n FROM "Run"`))} runs, ${fmt(n(`SELECT COUNT(*) AS n FROM "Transition"`))} transitions, ${fmt(n(`SELECT COUNT(*) AS n FROM "FleetCount"`))} counter rows${reuse ? ` (${kept}, seeded before)` : `, written in ${((performance.now() - t0) / 1000).toFixed(1)} s`}`);
  void written;

  const measure = async (name: string, target: number, fn: () => Promise<unknown>) => {
    for (let i = 0; i < 10; i++) await fn();
    const times: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < QUERIES; i++) {
      const s = performance.now();
      const c = process.cpuUsage();
      await fn();
      const used = process.cpuUsage(c);
      cpu.push((used.user + used.system) / 1000);
      times.push(performance.now() - s);
    }
    times.sort((a, b) => a - b);
    cpu.sort((a, b) => a - b);
    const p = (xs: number[], f: number) => xs[Math.min(xs.length - 1, Math.floor(f * xs.length))]!;
    const ok = p(times, 0.95) <= target;
    // CPU time beside wall time: on a shared machine (see the load average) the wall time is mostly waiting for a core
    console.log(`${name.padEnd(40)} p50 ${p(times, 0.5).toFixed(1).padStart(6)} ms  p95 ${p(times, 0.95).toFixed(1).padStart(6)} ms  max ${times.at(-1)!.toFixed(1).padStart(6)} ms  (CPU p50 ${p(cpu, 0.5).toFixed(1)} ms, p95 ${p(cpu, 0.95).toFixed(1)} ms)   target p95 ≤ ${target} ms: ${ok ? "met" : "NOT MET"}`);
    return ok;
  };
  const f24 = await fleetOf(rt, "swiss-army", { window: "24h" });
  const fAll = await fleetOf(rt, "swiss-army", { window: "all" });
  console.log(`fleet (check)   all: ${fmt(fAll.runs.running + fAll.runs.waiting)} live, ${fmt(fAll.runs.completed)} completed, HUMAN_REVIEW entered ${fmt(fAll.states.HUMAN_REVIEW!.entered)}, p95 ${fAll.states.HUMAN_REVIEW!.dwellMs?.p95} ms; 24h: ${fmt(f24.states.HUMAN_REVIEW!.entered)} entered`);
  const states = ["HUMAN_REVIEW", "EXECUTING", "IDLE", "CONTEXT_SEARCH"];
  let k = 0;
  console.log(`load average    ${os.loadavg().map((x) => x.toFixed(1)).join(" ")} before the queries`);
  const ok = [
    await measure("fleet, window=24h", TARGET.fleet, () => fleetOf(rt, "swiss-army", { window: "24h" })),
    await measure("fleet, window=all", TARGET.fleet, () => fleetOf(rt, "swiss-army", { window: "all" })),
    await measure("runs list, ?state= (page+total+counts)", TARGET.list, () => listRuns(rt, { state: states[k++ % states.length], limit: 25, offset: 0 })),
  ];
  await rt.close();
  return ok.every(Boolean);
}

/** one pass of the engine's workload: transitions/s, and per transition the process's CPU time (all threads) and the writer thread's busy time (µs) */
interface Pass {
  transitions: number;
  rate: number;
  cpuUs: number;
  writerUs: number;
}

async function engineRate(fleetCounters: boolean): Promise<Pass> {
  const url = tempUrl("engine");
  await migrateDatabase(url);
  const rt = await createRuntime({ url, env: {} as NodeJS.ProcessEnv, serviceChoresMs: 0, alerts: { start: false }, schedules: { start: false }, fleetCounters, effects: () => ({ "swiss-army": instantEffects() }) });
  rt.engine.bus.subscribe("*", () => {});
  const started = performance.now();
  const cpu0 = process.cpuUsage();
  await swissCycles(rt.engine, { runs: ENGINE_RUNS, cycles: CYCLES });
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const writerMs = (rt.store as { writerUtilization?: () => { activeMs: number } | null }).writerUtilization?.()?.activeMs ?? 0;
  const db = rt.sqlite!.db;
  const transitions = Number((db.prepare(`SELECT COUNT(*) AS n FROM "Transition"`).get() as { n: number | bigint }).n);
  const counters = Number((db.prepare(`SELECT COUNT(*) AS n FROM "FleetCount"`).get() as { n: number | bigint }).n);
  await rt.close();
  if (fleetCounters !== counters > 0) throw new Error(`counters ${fleetCounters ? "on" : "off"} but ${counters} counter rows written`);
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  return { transitions, rate: transitions / seconds, cpuUs: (cpu.user + cpu.system) / transitions, writerUs: (writerMs * 1000) / transitions };
}

async function main() {
  console.log(`Switchyard fleet benchmark (SQLite, Node ${process.version}, ${os.cpus().length} cores, load average ${os.loadavg().map((x) => x.toFixed(1)).join(" ")} at the start)`);
  const queriesOk = await seedAndQuery();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  if (process.env.BENCH_SKIP_ENGINE === "1") return console.log(`engine          skipped (BENCH_SKIP_ENGINE=1)\nall query targets met: ${queriesOk ? "yes" : "no"}`);
  // warm-up passes: run, not measured
  for (let i = 0; i < WARMUP; i++) {
    await engineRate(true);
    await engineRate(false);
  }
  const rounds: { on: Pass; off: Pass }[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    // alternating order: the machine's drift falls on both sides alike
    const first = r % 2 === 0;
    const a = await engineRate(first);
    const b = await engineRate(!first);
    rounds.push(first ? { on: a, off: b } : { on: b, off: a });
  }
  console.log(`engine          ${ENGINE_RUNS} concurrent swiss-army runs × ${CYCLES} cycles (${fmt(rounds[0]!.on.transitions)} transitions a pass), ${ROUNDS} rounds after ${WARMUP} warm-up pass(es) each way (not counted); load average ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}`);
  const us = (x: number) => `${x.toFixed(0)} µs`;
  for (const [i, r] of rounds.entries()) {
    console.log(
      `  round ${String(i + 1).padEnd(9)} transitions/s on ${fmt(r.on.rate)}, off ${fmt(r.off.rate)}, ratio ${(r.on.rate / r.off.rate).toFixed(3)}   CPU per transition on ${us(r.on.cpuUs)}, off ${us(r.off.cpuUs)}, ratio off/on ${(r.off.cpuUs / r.on.cpuUs).toFixed(3)}   writer busy per transition on ${us(r.on.writerUs)}, off ${us(r.off.writerUs)}`,
    );
  }
  const ratio = median(rounds.map((r) => r.on.rate / r.off.rate));
  const cpuRatio = median(rounds.map((r) => r.off.cpuUs / r.on.cpuUs));
  const ratioOk = ratio >= TARGET.ratio;
  const m = (f: (r: { on: Pass; off: Pass }) => number) => median(rounds.map(f));
  console.log(`engine          median transitions/s: on ${fmt(m((r) => r.on.rate))}, off ${fmt(m((r) => r.off.rate))}; ratio on/off ${ratio.toFixed(3)}   target ≥ ${TARGET.ratio}: ${ratioOk ? "met" : "NOT MET"}`);
  // CPU time per transition: what the counters cost, far less swayed by other processes on the machine than wall time
  console.log(`engine          median process CPU per transition: on ${us(m((r) => r.on.cpuUs))}, off ${us(m((r) => r.off.cpuUs))}; ratio off/on ${cpuRatio.toFixed(3)} (the CPU-time rate on/off)   target ≥ ${TARGET.ratio}: ${cpuRatio >= TARGET.ratio ? "met" : "NOT MET"}`);
  console.log(`engine          median writer thread busy per transition: on ${us(m((r) => r.on.writerUs))}, off ${us(m((r) => r.off.writerUs))}`);
  console.log(`all targets met: ${queriesOk && ratioOk ? "yes" : "no"}`);
}

void main();
