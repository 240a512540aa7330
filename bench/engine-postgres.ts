// npm run bench:postgres — the engine's persisted transitions per second on PostgreSQL (one
// engine process, node-postgres, a scratch schema on POSTGRES_URL, default 127.0.0.1:5432/test),
// with the same workload as `npm run bench` on SQLite: concurrent swiss-army runs, each cycle's
// review decided. Also prints the commit latency per group commit (p50 / p95).
import { Engine } from "../lib/engine/engine";
import { ManualClock } from "../lib/engine/clock";
import { PostgresRunStore } from "../lib/engine/store/postgres";
import type { CommitItem } from "../lib/engine/store/types";
import { pgReachable, scratchSchema } from "../lib/db/pg-scratch";
import { findWorkflow, provideWorkflows } from "../lib/machines/registry";
import { instantEffects } from "./instant-effects";
import { swissCycles } from "./workload";
import * as workflows from "../workflows/registry";

provideWorkflows(workflows);

const URL = process.env.POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const RUNS = Number(process.env.BENCH_RUNS ?? 400);
const CYCLES = Number(process.env.BENCH_CYCLES ?? 8);

const why = await pgReachable(URL);
if (why) {
  console.log(`bench:postgres skipped: PostgreSQL not reachable at ${URL} (${why})`);
  process.exit(0);
}
const scratch = await scratchSchema(URL, "sy_bench");
const store = new PostgresRunStore(URL, { options: scratch.options, max: 8 });
// the bench's own timing of each group commit
const latencies: number[] = [];
const commit = store.commit.bind(store);
store.commit = async (items: CommitItem[]) => {
  const t = performance.now();
  try {
    return await commit(items);
  } finally {
    latencies.push(performance.now() - t);
  }
};
const engine = new Engine({ store, clock: new ManualClock(Date.UTC(2026, 10, 23)), workflows: findWorkflow, effects: () => instantEffects(), log: () => {} });

try {
  const started = performance.now();
  await swissCycles(engine, { runs: RUNS, cycles: CYCLES });
  const seconds = (performance.now() - started) / 1000;
  const transitions = Number((await store.pool.query(`SELECT COUNT(*) AS n FROM "Transition"`)).rows[0].n);
  latencies.sort((a, b) => a - b);
  const p = (f: number) => latencies[Math.min(latencies.length - 1, Math.floor(f * latencies.length))]!;
  console.log(`Switchyard engine throughput on PostgreSQL (${URL.replace(/\/\/[^@]*@/, "//")}, one engine process, Node ${process.version})`);
  console.log(`  workload        ${RUNS} concurrent swiss-army runs × ${CYCLES} request cycles`);
  console.log(`  engine          ${Math.round(transitions / seconds).toLocaleString("en-US")} transitions/s  (${transitions.toLocaleString("en-US")} in ${seconds.toFixed(2)} s, ${engine.committer.stats.batches} group commits)`);
  console.log(`  commit latency  p50 ${p(0.5).toFixed(1)} ms · p95 ${p(0.95).toFixed(1)} ms per group commit`);
} finally {
  await engine.stop();
  await store.close();
  await scratch.drop();
}
