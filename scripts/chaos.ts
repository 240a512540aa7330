// npm run chaos — crash survival. Starts the production server (`npm start`, after a build) on a
// fresh SQLite database, launches a mix of runs of every workflow and decides their reviews over
// HTTP, and kills the server with SIGKILL at random moments (CHAOS_KILLS, default 30), restarting
// it each time. Then it lets everything settle and checks the invariants on the database itself:
// every run finished or waits where it should, transition seq contiguous with no duplicates, no
// review lost or decided twice, no artifact truncated. Prints the counts; exit 1 on a violation.
//
// CHAOS_KILLS=5 is the small version `npm test` runs. CHAOS_SEED fixes the random choices.
//
// Then a poison pill: a run whose effect kills the process that runs it (the test-only hook
// SWITCHYARD_TEST_CRASH_EFFECT, lib/engine/poison.ts), restarted each time it dies, as a supervisor
// would. The server must be back and serving after at most 2 crashes, the run failed with the
// classified error (POISON_PILL) and its retry offer. At the end every run that is still "running"
// must wait for something (an effect, a timer, a review or an event it accepts): none is stuck.
//
// `npm run chaos -- --postgres` (or CHAOS_DB=postgres) does the same on PostgreSQL (a scratch
// schema on POSTGRES_URL, default 127.0.0.1:5432/test) as a cluster: one web-only server and two
// workers (`npm run worker`); each kill SIGKILLs one worker at random, mid-step, and starts it
// again. A killed worker's steps expire after SWITCHYARD_STEP_EXPIRE_S (5 s here) and another
// worker runs them.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { pgReachable, scratchSchema } from "../lib/db/pg-scratch";
import { RUN_FROM } from "../lib/engine/store/rows";
import { TERMINAL, type RunStatus } from "../lib/engine/store/types";
import { inFlightEffects, stuckReason } from "../lib/engine/invariant";
import { POISON_CATEGORY, POISON_CRASHES } from "../lib/engine/poison";
import { restore } from "../lib/engine/step";
import type { RunRow } from "../lib/engine/store/types";
import { deriveGraph } from "../lib/graph/derive";
import type { EffectPorts } from "../lib/machines/built-in";
import { builtInEntries, findWorkflow, listWorkflows, provideWorkflows } from "../lib/machines/registry";
import * as workflows from "../workflows/registry";

provideWorkflows(workflows);

const KILLS = Number(process.env.CHAOS_KILLS ?? 30);
const PORT = Number(process.env.CHAOS_PORT ?? 3157);
const SEED = Number(process.env.CHAOS_SEED ?? Date.now() % 100_000);
const BASE = `http://127.0.0.1:${PORT}`;

let seed = SEED;
const rand = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// every built-in workflow, started with its own example input; its states (which wait for a
// person, with which decisions) from its machine
const WORKFLOWS = listWorkflows().filter((w) => w.example !== undefined);
const STATES = new Map(WORKFLOWS.map((w) => [w.id, new Map(deriveGraph(w.machine).states.map((s) => [s.id, s]))]));
// the poison pill and the post-commit-action check use the first built-in (catalog order) with an
// example whose effects declare post-commit actions (the engine's outbox); picked through the
// registry, not by its folder. Effect factories only capture their ports, so none are needed here.
const OUTBOX = builtInEntries().find((e) => e.definition.example !== undefined && Object.keys(e.effects?.({} as EffectPorts, {}).actions ?? {}).length > 0)?.definition;
if (!OUTBOX) {
  console.error("chaos: no built-in workflow with an example and post-commit actions");
  process.exit(2);
}
/** its example input, with `marker` appended to each text field (an effect's input then holds it) */
const exampleWith = (marker: string) => Object.fromEntries(Object.entries(OUTBOX.example as Record<string, unknown>).map(([k, v]) => [k, typeof v === "string" ? `${v} (${marker})` : v]));

if (!fs.existsSync(".next/BUILD_ID")) {
  console.error("chaos: no production build (.next/BUILD_ID); run `npm run build` first");
  process.exit(2);
}
const POSTGRES = process.argv.includes("--postgres") || process.env.CHAOS_DB === "postgres";
const PG_URL = process.env.POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-chaos-"));
const file = path.join(dir, "chaos.db");
/** what the poison pill's input holds: an effect whose input holds it kills its process (test-only hook) */
const POISON = "chaos-poison-pill-4b1d9e";
const base = { ...process.env, HOSTNAME: "127.0.0.1", NEXT_TELEMETRY_DISABLED: "1", SWITCHYARD_ALERT_INTERVAL_MS: "0", SWITCHYARD_TEST_CRASH_EFFECT: POISON };
let env: NodeJS.ProcessEnv = { ...base, PORT: String(PORT), DATABASE_URL: `file:${file}` };
let scratch: Awaited<ReturnType<typeof scratchSchema>> | null = null;
if (POSTGRES) {
  const why = await pgReachable(PG_URL);
  if (why) {
    // a machine without PostgreSQL skips this, saying why (npm test runs it where it can)
    console.log(`chaos --postgres skipped: PostgreSQL is not reachable at ${PG_URL} (${why})`);
    process.exit(0);
  }
  scratch = await scratchSchema(PG_URL, "sy_chaos");
  env = {
    ...base,
    PORT: String(PORT),
    DATABASE_URL: `${PG_URL}?schema=${scratch.schema}`,
    SWITCHYARD_QUEUE_SCHEMA: scratch.schema,
    SWITCHYARD_STEP_EXPIRE_S: "5",
    SWITCHYARD_QUEUE_MAINTENANCE_S: "2",
    SWITCHYARD_WORKER_STATS_MS: "0",
    // the poison pill's step (swiss-army's parse) has a 5 s limit: on a loaded machine a worker's
    // restart and the job's return can take longer, and the limit would move the run on (to IDLE)
    // before its second crash is counted
    SWITCHYARD_PARSE_TIMEOUT_MS: "60000",
  };
}

/** a process group started detached, so that one SIGKILL takes all of it */
function launch(args: string[], extra: Record<string, string>, log: string): ChildProcess {
  const out = fs.openSync(path.join(dir, log), "a");
  return spawn(process.execPath, args, { env: { ...env, ...extra }, stdio: ["ignore", out, out], detached: true });
}
function killGroup(p: ChildProcess | null): void {
  if (!p?.pid) return;
  try {
    process.kill(-p.pid, "SIGKILL");
  } catch {
    // already gone
  }
}

let server: ChildProcess | null = null;
const workers: (ChildProcess | null)[] = [null, null];
const gone = (p: ChildProcess | null) => !p || p.exitCode !== null || p.signalCode !== null;
/**
 * Start what is not running: the server (SQLite; or PostgreSQL's web server) and any worker that
 * is gone. `died`: the server may die while it starts (a poison pill kills it at boot, when the
 * runtime resumes the run, before /api/health answers): called for each such death, it is
 * started again; without it such a death throws.
 */
async function up(died?: () => void): Promise<void> {
  if (POSTGRES) {
    // a worker that is gone (killed here, or died on its own) is started again
    for (let i = 0; i < workers.length; i++) if (gone(workers[i])) workers[i] = launch(["--import", "tsx", "scripts/worker.ts"], {}, `worker-${i}.log`);
    if (server) return;
  }
  if (!gone(server)) return;
  for (;;) {
    const proc = launch(["scripts/start.mjs"], POSTGRES ? { SWITCHYARD_ROLE: "web" } : {}, "server.log");
    server = proc;
    const t0 = Date.now();
    for (;;) {
      try {
        if ((await fetch(`${BASE}/api/health`)).ok) return;
      } catch {
        // not yet
      }
      if (gone(proc) && died) break;
      if (gone(proc) || Date.now() - t0 > 60_000) throw new Error(`server did not come up:\n${fs.readFileSync(path.join(dir, "server.log"), "utf8").slice(-4_000)}`);
      await sleep(100);
    }
    died!();
  }
}
/** SQLite: the server (start.mjs and next). PostgreSQL: one of the two workers, at random. */
function kill(): void {
  if (POSTGRES) {
    const i = Math.floor(rand() * workers.length);
    killGroup(workers[i]);
    workers[i] = null;
    return;
  }
  killGroup(server);
  server = null;
}
function killAll(): void {
  killGroup(server);
  server = null;
  for (let i = 0; i < workers.length; i++) {
    killGroup(workers[i]);
    workers[i] = null;
  }
}

/** The database under test, read directly: SQL with ? placeholders on either. */
interface Reader {
  all<T>(sql: string, ...args: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}
async function reader(): Promise<Reader> {
  if (!POSTGRES) {
    const db = new Database(file, { readonly: true });
    return { all: async <T>(sql: string, ...args: unknown[]) => db.prepare(sql).all(...args) as T[], close: async () => void db.close() };
  }
  const c = new pg.Client({ connectionString: PG_URL, options: scratch!.options });
  await c.connect();
  return {
    all: async <T>(sql: string, ...args: unknown[]) => {
      let i = 0;
      return (await c.query(sql.replace(/\?/g, () => `$${++i}`), args)).rows as T[];
    },
    close: () => c.end(),
  };
}

const counts = { started: 0, decisions: 0, conflicts: 0, refused: 0, kills: 0, requestErrors: 0 };
async function call(method: string, url: string, body?: unknown): Promise<{ status: number; data: any }> {
  try {
    const res = await fetch(`${BASE}${url}`, { method, headers: body ? { "content-type": "application/json" } : {}, body: body ? JSON.stringify(body) : undefined, signal: AbortSignal.timeout(10_000) });
    const data = await res.json().catch(() => null);
    if (res.status >= 500) counts.refused++;
    return { status: res.status, data };
  } catch {
    counts.requestErrors++; // the server died under the request: expected here
    return { status: 0, data: null };
  }
}

async function decideSome(all = false): Promise<void> {
  const { data } = await call("GET", "/api/reviews?status=pending");
  if (!Array.isArray(data)) return;
  for (const r of data) {
    if (!all && rand() < 0.5) continue;
    const decision = STATES.get(r.workflow)?.get(r.state)?.decisions.find((d) => d !== "abort");
    if (!decision) continue;
    const res = await call("POST", `/api/reviews/${r.id}/decision`, { decision, feedback: "chaos", reviewer: "chaos" });
    if (res.status === 200) counts.decisions++;
    else if (res.status === 409) counts.conflicts++;
  }
}

async function load(): Promise<void> {
  for (let i = 0; i < 3; i++) {
    const w = pick(WORKFLOWS);
    const res = await call("POST", "/api/runs", { workflow: w.id, input: w.example });
    if (res.status === 201) counts.started++;
  }
  await decideSome();
}

const started = Date.now();
console.log(`chaos: ${KILLS} kills, seed ${SEED}, ${POSTGRES ? `PostgreSQL schema ${scratch!.schema}, a web server and two workers` : `database ${file}`} (logs in ${dir})`);
await up();
for (let k = 0; k < KILLS; k++) {
  // the kill lands whenever it lands: between requests, under one, inside a run's step
  let killed = false;
  const killer = sleep(300 + rand() * 1_500).then(() => {
    kill();
    killed = true;
    counts.kills++;
  });
  while (!killed) {
    await load();
    await sleep(20);
  }
  await killer;
  await up();
}

// ---------------------------------------------------------------- a poison pill
const violations: string[] = [];
const poison = { crashes: 0, seconds: 0 };
{
  const t0 = Date.now();
  // the POST may die with the server (the effect starts right after the commit): the run is found by its input
  await call("POST", "/api/runs", { workflow: OUTBOX.id, input: exampleWith(POISON) });
  const probe = await reader();
  let id: string | null = null;
  let row: { status: string; error: string | null } | undefined;
  for (;;) {
    await sleep(250);
    if (POSTGRES ? workers.some(gone) : gone(server)) {
      // it died: started again, as a supervisor would; a death while it starts again (the run
      // resumed at boot) is a crash too, and it is started again after it as well
      poison.crashes++;
      if (!POSTGRES) server = null;
      await up(() => {
        poison.crashes++;
        if (poison.crashes > POISON_CRASHES + 3) throw new Error(`poison pill: the server died ${poison.crashes} times in a row while starting (at most ${POISON_CRASHES} crashes expected)`);
      });
    }
    id ??= (await probe.all<{ id: string }>(`SELECT "id" FROM "Run" WHERE CAST("input" AS TEXT) LIKE ?`, `%${POISON}%`))[0]?.id ?? null;
    row = id ? (await probe.all<{ status: string; error: string | null }>(`SELECT "status","error" FROM "Run" WHERE "id" = ?`, id))[0] : undefined;
    if (row && TERMINAL.includes(row.status as RunStatus)) break;
    if (Date.now() - t0 > 180_000) break;
  }
  await probe.close();
  poison.seconds = Math.round((Date.now() - t0) / 1000);
  const error = row?.error ? (JSON.parse(row.error) as { category?: string; retry?: { fork?: { seq?: number } }; message?: string }) : null;
  if (!id) violations.push("poison pill: its run was never created");
  else if (row?.status !== "failed" || error?.category !== POISON_CATEGORY) violations.push(`poison pill: run ${id} is ${row?.status ?? "missing"} (${error?.message ?? "no error"}), not failed as a poison pill after ${poison.crashes} crashes`);
  else if (typeof error.retry?.fork?.seq !== "number") violations.push(`poison pill: run ${id} failed without a retry offer`);
  if (poison.crashes > POISON_CRASHES) violations.push(`poison pill: the process died ${poison.crashes} times (at most ${POISON_CRASHES})`);
  // and the server serves: a new run starts
  await up();
  const after = await call("POST", "/api/runs", { workflow: OUTBOX.id, input: OUTBOX.example });
  if (after.status !== 201) violations.push(`poison pill: after it the server answered ${after.status} to a new run`);
  else counts.started++;
}
// settle: decide everything until no run is left moving
const db = await reader();
/** a "running" run is moving while it has work in flight (an invoked effect) or a timer to come;
 *  without either it waits for an event from outside (a conversation waits for messages) */
const moving = async (id: string, snapshot: string) =>
  Object.values((JSON.parse(snapshot) as { children?: Record<string, { snapshot?: { status?: string } }> }).children ?? {}).some((c) => c.snapshot?.status === "active") ||
  (await db.all(`SELECT 1 FROM "Timer" WHERE "runId" = ?`, id)).length > 0;
const stillMoving = async () => {
  const out: string[] = [];
  for (const r of await db.all<{ id: string; snapshot: string }>(`SELECT r."id",s."snapshot" FROM ${RUN_FROM} WHERE r."status" = 'running'`)) if (await moving(r.id, r.snapshot)) out.push(r.id);
  return out;
};
for (let round = 0; round < 120 && (round === 0 || (await stillMoving()).length); round++) {
  await decideSome(true);
  await sleep(500);
}
killAll();

// ---------------------------------------------------------------- invariants, on the file itself
const runs = (await db.all<{ id: string; workflow: string; status: string; state: string; seq: number; snapshot: string; context: string | null }>(`SELECT r."id",r."workflow",r."status",r."state",r."seq",s."snapshot",s."context" FROM ${RUN_FROM}`)).map((r) => ({ ...r, seq: Number(r.seq) }));
const seqs = async (id: string) => (await db.all<{ seq: number }>(`SELECT "seq" FROM "Transition" WHERE "runId" = ? ORDER BY "seq"`, id)).map((x) => Number(x.seq));
const pending = (id: string) => db.all<{ id: string; state: string }>(`SELECT "id","state" FROM "Review" WHERE "runId" = ? AND "status" = 'pending'`, id);
let transitions = 0;
for (const r of runs) {
  const s = await seqs(r.id);
  transitions += s.length;
  if (s.some((x, i) => x !== i + 1) || s.length !== r.seq) violations.push(`run ${r.id}: seq not contiguous 1..${r.seq} (${s.length} rows)`);
  if (r.status === "running" && (await moving(r.id, r.snapshot))) violations.push(`run ${r.id} (${r.workflow}) still moving in ${r.state}`);
  if (r.status === "running") {
    // the engine's invariant: running means waiting for something (an effect, a timer, a review, an event it accepts)
    const def = findWorkflow(r.workflow);
    const row = { id: r.id, status: "running", state: JSON.parse(r.state), snapshot: JSON.parse(r.snapshot) } as RunRow;
    const { effects: _e, ...persisted } = row.snapshot;
    void _e;
    const timers = (await db.all(`SELECT 1 FROM "Timer" WHERE "runId" = ?`, r.id)).length;
    let why: string | null;
    try {
      why = def ? stuckReason(def, row, restore(def.machine, persisted, r.context === null ? null : JSON.parse(r.context)), timers, (await pending(r.id)).length) : null;
    } catch (e) {
      why = `its snapshot does not restore (${(e as Error).message})`;
    }
    if (why) violations.push(`run ${r.id} (${r.workflow}): ${why} (${inFlightEffects(row).length} effects)`);
  }
  const open = await pending(r.id);
  if (TERMINAL.includes(r.status as RunStatus) && open.length) violations.push(`run ${r.id} is ${r.status} with a pending review`);
  if (open.length > 1 && new Set(open.map((o) => o.state)).size !== open.length) violations.push(`run ${r.id}: two pending reviews for one state`);
  for (const o of open) if (!(JSON.parse(r.state) as string[]).some((st) => st === o.state || st.startsWith(`${o.state}.`))) violations.push(`run ${r.id}: pending review ${o.id} for ${o.state}, but the run is in ${r.state}`);
}
// post-commit actions (the engine's outbox): a kill between a decision's commit and its
// logDecision runs the action after the restart, once. None may be left behind (on SQLite the
// restart replays them; in cluster mode a worker's sweep does after a 60 s lease, maybe after
// this run ends), and no decision may be applied twice (at most one CmDecision per decision).
{
  const left = await db.all<{ key: string; attempts: number; lastError: string | null }>(`SELECT "key","attempts","lastError" FROM "ActionOutbox"`);
  if (!POSTGRES) for (const a of left) violations.push(`post-commit action ${a.key} never finished (${a.attempts} attempts${a.lastError ? `: ${a.lastError}` : ""})`);
  const decisions = (await db.all(`SELECT 1 FROM "Transition" t JOIN "Run" r ON r."id" = t."runId" WHERE r."workflow" = ? AND t."event" IN ('APPROVE','REJECT','MODIFY')`, OUTBOX.id)).length;
  const applied = (await db.all(`SELECT 1 FROM "CmDecision"`)).length;
  if (applied > decisions) violations.push(`${applied} decisions applied to patterns for ${decisions} decided reviews (a replayed action applied twice)`);
}
// a review state without its pending review would be a lost review
const waiting = runs.filter((r) => r.status === "waiting");
const inHumanState = (r: (typeof runs)[number]) => (JSON.parse(r.state) as string[]).some((id) => STATES.get(r.workflow)?.get(id)?.human);
for (const r of waiting) if (inHumanState(r) && (await pending(r.id)).length === 0) violations.push(`run ${r.id} (${r.workflow}) waits in ${r.state} without a pending review`);
// decided once: a decided review has one decision time and its run moved past its seq
const decided = await db.all<{ id: string; runId: string; seq: number; runSeq: number }>(`SELECT v."id", v."runId", v."seq", r."seq" AS "runSeq" FROM "Review" v JOIN "Run" r ON r."id" = v."runId" WHERE v."status" = 'decided'`);
for (const d of decided) if (Number(d.runSeq) <= Number(d.seq)) violations.push(`review ${d.id}: decided, but run ${d.runId} never moved after it`);
const artifacts = await db.all<{ runId: string; name: string; size: number; bytes: number }>(`SELECT "runId","name","size",${POSTGRES ? `octet_length("content")` : `length(CAST("content" AS BLOB))`} AS "bytes" FROM "Artifact"`);
for (const a of artifacts) if (Number(a.size) !== Number(a.bytes)) violations.push(`artifact ${a.runId}/${a.name}: size ${a.size} but ${a.bytes} bytes stored`);
const byStatus: Record<string, number> = {};
for (const r of runs) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
await db.close();

console.log(
  `chaos: ${counts.kills} kills, a poison pill (${poison.crashes} crashes, ${poison.seconds} s) in ${((Date.now() - started) / 1000).toFixed(0)} s · ${counts.started} runs started (${Object.entries(byStatus).map(([s, n]) => `${n} ${s}`).join(", ")}) · ${transitions} transitions · ${decided.length} reviews decided (${counts.decisions} accepted, ${counts.conflicts} refused as stale) · ${artifacts.length} artifacts · ${counts.requestErrors} requests cut by a kill · ${counts.refused} 5xx`,
);
if (counts.refused) violations.push(`${counts.refused} requests answered 5xx`);
if (violations.length) {
  console.error(`chaos: ${violations.length} invariant violation(s):\n  ${violations.slice(0, 30).join("\n  ")}`);
  process.exit(1);
}
console.log("chaos: every invariant holds");
await scratch?.drop();
fs.rmSync(dir, { recursive: true, force: true });
