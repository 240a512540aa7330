// npm run bench:runs (tsx bench/runs-list.ts) — the runs list with 100,000 runs: one filtered
// page (GET /api/runs's listRuns: page of 25 + total + counts) per query, for each filter of the
// dashboard's search. Printed: p50 / p95 / max per filter and whether p95 ≤ 20 ms.
//
// Data: BENCH_RUNS (default 100,000) runs of five workflows spread over 60 days, statuses mixed
// (a tenth waiting with a pending review of varying age, some failed in varying states), each
// with 4 transitions; written with raw SQL in one transaction (the engine's commit path is
// measured by bench/engine-throughput.ts). Inputs carry a few words from a small vocabulary.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { listRuns, type RunFilters } from "../lib/api/runs";
import { migrateDatabase } from "../lib/db/migrations";
import { sqliteDate } from "../lib/db/sqlite";
import { ManualClock } from "../lib/engine/clock";
import { createRuntime } from "../lib/runtime";
import { provideWorkflows } from "../lib/machines/registry";
import * as workflows from "../workflows/registry";

provideWorkflows(workflows);

const RUNS = Number(process.env.BENCH_RUNS ?? 100_000);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 200);
const P95_TARGET_MS = 20;
const DAY = 86_400_000;
const START = Date.UTC(2026, 8, 1);

let seed = 42;
const rand = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;

const WORKFLOWS = ["swiss-army", "deep-research", "domain-agent", "processing-modes", "conversation"] as const;
const WORDS = ["retry", "auth", "cache", "report", "sleep", "invoice", "deploy", "schema", "latency", "refactor", "budget", "outage"];
const STATES = ["EXECUTING", "CONTEXT_SEARCH", "RESEARCHING", "RETRIEVE", "PLAN", "FAILED"];

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-bench-runs-"));
  const url = `file:${path.join(dir, "runs.db")}`;
  await migrateDatabase(url);
  const clock = new ManualClock(START + 60 * DAY);
  const rt = await createRuntime({ url, clock, env: {} as NodeJS.ProcessEnv, serviceChoresMs: 0, resume: false, seedGuide: false, webhooks: { start: false }, alerts: { start: false } });
  const db = rt.sqlite!.db;
  const t0 = performance.now();
  const insertRun = db.prepare(
    `INSERT INTO "Run" ("id","workflow","status","state","input","output","error","entered","version","seq","parentId","retries","waitingSince","failedStates","createdAt","updatedAt","finishedAt") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
  );
  const insertSnapshot = db.prepare(`INSERT INTO "Snapshot" ("runId","seq","first","snapshot","context","timers","at") VALUES (?,4,4,'{}','{}','[]',?)`);
  const insertT = db.prepare(`INSERT INTO "Transition" ("runId","seq","from","to","event","reason","at","durationMs","payload") VALUES (?,?,?,?,?,?,?,?,?)`);
  const insertReview = db.prepare(
    `INSERT INTO "Review" ("id","runId","workflow","state","kind","prompt","payload","status","decision","feedback","reviewer","createdAt","decidedAt","seq") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
  );
  db.transaction(() => {
    for (let i = 0; i < RUNS; i++) {
      const id = `run-${String(i).padStart(6, "0")}`;
      const workflow = pick(WORKFLOWS);
      const created = START + Math.floor(rand() * 60 * DAY);
      const r = rand();
      const status = r < 0.1 ? "waiting" : r < 0.15 ? "failed" : r < 0.2 ? "running" : r < 0.22 ? "aborted" : "completed";
      const state = status === "failed" ? pick(STATES) : status === "waiting" ? "HUMAN_REVIEW" : status === "running" ? "EXECUTING" : "DONE";
      const input = JSON.stringify({ request: `${pick(WORDS)} ${pick(WORDS)} task number ${i}` });
      const error = status === "failed" ? JSON.stringify({ message: "boom", category: "critical", state }) : null;
      const finished = ["completed", "failed", "aborted"].includes(status) ? sqliteDate(created + 60_000) : null;
      // retries, waitingSince and failedStates as the engine keeps them (lib/engine/draft.ts)
      const retried = rand() < 0.05;
      const waitingSince = status === "waiting" ? sqliteDate(created + 4_000) : null;
      insertRun.run(id, workflow, status, JSON.stringify([state]), input, null, error, "{}", 4, 4, null, retried ? 1 : 0, waitingSince, status === "failed" ? `|${state}|` : null, sqliteDate(created), sqliteDate(created + 60_000), finished);
      insertSnapshot.run(id, sqliteDate(created + 60_000));
      for (let s = 1; s <= 4; s++) {
        const reason = s === 3 && retried ? "retry 1 of 2 after a network error" : "done";
        insertT.run(id, s, '["A"]', s === 4 ? JSON.stringify([state]) : '["B"]', "EV", reason, sqliteDate(created + s * 1_000), 1_000, "{}");
      }
      if (status === "waiting") insertReview.run(`${id}-r`, id, workflow, "HUMAN_REVIEW", "approval", "Decide", "{}", "pending", null, null, null, sqliteDate(created + 4_000), null, 4);
    }
  })();
  db.pragma("optimize");
  console.log(`${RUNS.toLocaleString()} runs written in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const cases: [string, () => RunFilters][] = [
    ["no filter", () => ({})],
    ["workflow", () => ({ workflow: pick(WORKFLOWS) })],
    ["status", () => ({ status: [pick(["waiting", "failed", "running"] as const)] })],
    ["date range (7 days)", () => {
      const from = START + Math.floor(rand() * 50) * DAY;
      return { from, to: from + 7 * DAY };
    }],
    ["free text", () => ({ q: pick(WORDS) })],
    ["waiting longer than N", () => ({ waitingLongerThan: Math.floor(rand() * 30) * 24 * 60 })],
    ["retrying", () => ({ retrying: true })],
    ["failed in state", () => ({ failedIn: pick(STATES) })],
    ["workflow + text + dates", () => {
      const from = START + Math.floor(rand() * 30) * DAY;
      return { workflow: pick(WORKFLOWS), q: pick(WORDS), from, to: from + 30 * DAY };
    }],
  ];
  console.log(`\n${"filter".padEnd(26)} ${"p50 ms".padStart(8)} ${"p95 ms".padStart(8)} ${"max ms".padStart(8)}  p95 ≤ ${P95_TARGET_MS} ms`);
  let allOk = true;
  for (const [name, make] of cases) {
    for (let i = 0; i < 10; i++) await listRuns(rt, { ...make(), limit: 25, offset: 0 });
    const times: number[] = [];
    for (let i = 0; i < QUERIES; i++) {
      const q = make();
      const s = performance.now();
      await listRuns(rt, { ...q, limit: 25, offset: 0 });
      times.push(performance.now() - s);
    }
    times.sort((a, b) => a - b);
    const p = (f: number) => times[Math.min(times.length - 1, Math.floor(f * times.length))]!;
    const ok = p(0.95) <= P95_TARGET_MS;
    allOk &&= ok;
    console.log(`${name.padEnd(26)} ${p(0.5).toFixed(2).padStart(8)} ${p(0.95).toFixed(2).padStart(8)} ${times.at(-1)!.toFixed(2).padStart(8)}  ${ok ? "yes" : "NO"}`);
  }
  console.log(`\nall filters within target: ${allOk ? "yes" : "no"}`);
  await rt.close();
  if (process.env.BENCH_KEEP) console.log(`kept ${dir}`);
  else fs.rmSync(dir, { recursive: true, force: true });
}

void main();
