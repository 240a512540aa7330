// npm run bench:cluster — PostgreSQL cluster mode: persisted transitions per second with one
// worker process and with two, their ratio, and the queue's latency from the commit that
// invokes an effect to the effect's job starting on a worker (p50 / p95). This process is the
// web side (role web): it starts concurrent swiss-army runs and decides each cycle's review;
// the workers (bench/cluster-worker.ts: the real worker with instant effects) do every step in
// between. Everything shares this machine's cores with PostgreSQL.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import { pgReachable, scratchSchema } from "../lib/db/pg-scratch";
import { createRuntime, type Runtime } from "../lib/runtime";
import { instantEffects } from "./instant-effects";
import { swissCycles } from "./workload";
import { provideWorkflows } from "../lib/machines/registry";
import * as workflows from "../workflows/registry";

provideWorkflows(workflows);

const PG = process.env.POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const CYCLES = Number(process.env.BENCH_CYCLES ?? 4);
void [RUNS, CYCLES];

const why = await pgReachable(PG);
if (why) {
  console.log(`bench:cluster skipped: PostgreSQL not reachable at ${PG} (${why})`);
  process.exit(0);
}

interface Stats {
  effects: number;
  timers: number;
  stale: number;
  failed: number;
  startLatencyMs: number[];
}

/** CPU seconds (user + system) used so far by every PostgreSQL server process on this machine (Linux /proc). */
function postgresCpu(): number {
  let ticks = 0;
  for (const pid of fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      if (!comm.startsWith("postgres")) continue;
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(f[11]) + Number(f[12]); // utime, stime
    } catch {
      // gone meanwhile
    }
  }
  return ticks / 100;
}

const pct = (xs: number[], p: number) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

async function phase(workers: number, RUNS: number, CYCLES: number): Promise<{ tps: number; transitions: number; seconds: number; p50: number; p95: number; stats: Stats[]; pgCpu: number }> {
  const scratch = await scratchSchema(PG, "sy_bench_cluster");
  const env = { ...process.env, DATABASE_URL: `${PG}?schema=${scratch.schema}`, SWITCHYARD_QUEUE_SCHEMA: scratch.schema, SWITCHYARD_ALERT_INTERVAL_MS: "0" };
  let web: Runtime | null = null;
  const procs: ChildProcess[] = [];
  try {
    web = await createRuntime({ url: env.DATABASE_URL, env, role: "web", seedGuide: false, serviceChoresMs: 0, alerts: { start: false }, webhooks: { start: false }, effects: () => ({ "swiss-army": instantEffects() }), log: () => {} });
    const outputs: string[] = [];
    for (let i = 0; i < workers; i++) {
      const p = spawn(process.execPath, ["--import", "tsx", "bench/cluster-worker.ts"], { env, stdio: ["ignore", "pipe", "inherit"] });
      let out = "";
      p.stdout!.on("data", (d) => (out += d));
      procs.push(p);
      outputs.push("");
      await new Promise<void>((resolve, reject) => {
        const t = setInterval(() => {
          if (out.includes("READY")) {
            clearInterval(t);
            resolve();
          } else if (p.exitCode !== null) {
            clearInterval(t);
            reject(new Error("worker exited"));
          }
        }, 50);
      });
      p.stdout!.on("data", () => (outputs[i] = out));
    }
    const started = performance.now();
    const pg0 = postgresCpu();
    // timeouts out of the way: an overloaded queue must not turn the workload into timeout paths
    await swissCycles(web.engine, { runs: RUNS, cycles: CYCLES, remote: true, config: { parseTimeoutMs: 60_000, searchTimeoutMs: 60_000, updateTimeoutMs: 600_000 } });
    const seconds = (performance.now() - started) / 1000;
    const pgCpu = postgresCpu() - pg0;
    const transitions = Number((await web.pg!.query(`SELECT COUNT(*) AS n FROM "Transition"`)).rows[0].n);
    const stats: Stats[] = [];
    for (const p of procs) p.kill("SIGTERM");
    await Promise.all(procs.map((p) => new Promise((r) => p.once("exit", r))));
    for (const o of outputs) {
      const line = o.split("\n").find((l) => l.startsWith("STATS "));
      if (line) stats.push(JSON.parse(line.slice(6)));
    }
    const lat = stats.flatMap((s) => s.startLatencyMs);
    return { tps: transitions / seconds, transitions, seconds, p50: pct(lat, 50), p95: pct(lat, 95), stats, pgCpu };
  } finally {
    for (const p of procs) if (p.exitCode === null) p.kill("SIGKILL");
    await web?.close();
    await scratch.drop();
  }
}

console.log(`bench:cluster — ${RUNS} concurrent swiss-army runs × ${CYCLES} review cycles, instant effects, PostgreSQL at ${PG.replace(/\/\/[^@]*@/, "//")}, ${os.cpus().length} cores shared by everything`);
const one = await phase(1, RUNS, CYCLES);
const two = await phase(2, RUNS, CYCLES);
// the queue's own latency, without a backlog: one run at a time, 25 cycles
const rest = await phase(2, 1, 25);
const row = (n: number, r: typeof one) =>
  `  ${n} worker${n > 1 ? "s" : " "}  ${r.tps.toFixed(0).padStart(6)} transitions/s  (${r.transitions} in ${r.seconds.toFixed(1)} s)  queue latency p50 ${r.p50.toFixed(1)} ms, p95 ${r.p95.toFixed(1)} ms  effects ${r.stats.map((s) => s.effects).join("+")}, stale ${r.stats.reduce((a, s) => a + s.stale, 0)}, failed ${r.stats.reduce((a, s) => a + s.failed, 0)}; PostgreSQL CPU ${((r.pgCpu / r.transitions) * 1000).toFixed(2)} ms per transition (one core's worth: ${(r.transitions / r.pgCpu).toFixed(0)} transitions/s)`;
console.log(row(1, one));
console.log(row(2, two));
console.log(`  ratio two/one: ${(two.tps / one.tps).toFixed(2)}×`);
console.log(`  queue latency at rest (one run at a time, two workers): p50 ${rest.p50.toFixed(1)} ms, p95 ${rest.p95.toFixed(1)} ms over ${rest.stats.reduce((a, s) => a + s.startLatencyMs.length, 0)} effects`);
