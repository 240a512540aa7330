// npm run chaos — crash survival. Starts the production server (`npm start`, after a build) on a
// fresh SQLite database, launches a mix of runs of every workflow and decides their reviews over
// HTTP, and kills the server with SIGKILL at random moments (CHAOS_KILLS, default 30), restarting
// it each time. Then it lets everything settle and checks the invariants on the database itself:
// every run finished or waits where it should, transition seq contiguous with no duplicates, no
// review lost or decided twice, no artifact truncated. Prints the counts; exit 1 on a violation.
//
// CHAOS_KILLS=5 is the small version `npm test` runs. CHAOS_SEED fixes the random choices.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { TERMINAL, type RunStatus } from "../lib/engine/store/types";
import { deriveGraph } from "../lib/graph/derive";
import { listWorkflows } from "../lib/machines/registry";

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

if (!fs.existsSync(".next/BUILD_ID")) {
  console.error("chaos: no production build (.next/BUILD_ID); run `npm run build` first");
  process.exit(2);
}
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-chaos-"));
const file = path.join(dir, "chaos.db");
const env = { ...process.env, PORT: String(PORT), HOSTNAME: "127.0.0.1", DATABASE_URL: `file:${file}`, NEXT_TELEMETRY_DISABLED: "1", SWITCHYARD_ALERT_INTERVAL_MS: "0" };

let server: ChildProcess | null = null;
async function up(): Promise<void> {
  server = spawn(process.execPath, ["scripts/start.mjs"], { env, stdio: ["ignore", "ignore", "pipe"], detached: true });
  let err = "";
  server.stderr?.on("data", (d) => (err = (err + d).slice(-4_000)));
  const t0 = Date.now();
  for (;;) {
    try {
      if ((await fetch(`${BASE}/api/health`)).ok) return;
    } catch {
      // not yet
    }
    if (server.exitCode !== null || Date.now() - t0 > 60_000) throw new Error(`server did not come up:\n${err}`);
    await sleep(100);
  }
}
function kill(): void {
  if (server?.pid) {
    try {
      process.kill(-server.pid, "SIGKILL"); // the whole group: start.mjs and next
    } catch {
      // already gone
    }
  }
  server = null;
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
console.log(`chaos: ${KILLS} kills, seed ${SEED}, database ${file}`);
await up();
for (let k = 0; k < KILLS; k++) {
  // the kill lands whenever it lands: between requests, under one, inside a run's step
  const alive: ChildProcess | null = server;
  const killer = sleep(300 + rand() * 1_500).then(() => {
    kill();
    counts.kills++;
  });
  while (server === alive) {
    await load();
    await sleep(20);
  }
  await killer;
  await up();
}
// settle: decide everything until no run is left moving
const db = new Database(file, { readonly: true });
/** a "running" run is moving while it has work in flight (an invoked effect) or a timer to come;
 *  without either it waits for an event from outside (a conversation waits for messages) */
const moving = (id: string, snapshot: string) =>
  Object.values((JSON.parse(snapshot) as { children?: Record<string, { snapshot?: { status?: string } }> }).children ?? {}).some((c) => c.snapshot?.status === "active") ||
  !!db.prepare(`SELECT 1 FROM "Timer" WHERE "runId" = ?`).get(id);
const stillMoving = () => (db.prepare(`SELECT "id","snapshot" FROM "Run" WHERE "status" = 'running'`).all() as { id: string; snapshot: string }[]).filter((r) => moving(r.id, r.snapshot));
for (let round = 0; round < 120 && (round === 0 || stillMoving().length); round++) {
  await decideSome(true);
  await sleep(500);
}
kill();

// ---------------------------------------------------------------- invariants, on the file itself
const violations: string[] = [];
const runs = db.prepare(`SELECT "id","workflow","status","state","seq","snapshot" FROM "Run"`).all() as { id: string; workflow: string; status: string; state: string; seq: number; snapshot: string }[];
const seqs = db.prepare(`SELECT "seq" FROM "Transition" WHERE "runId" = ? ORDER BY "seq"`).pluck();
const pending = db.prepare(`SELECT "id","state" FROM "Review" WHERE "runId" = ? AND "status" = 'pending'`);
let transitions = 0;
for (const r of runs) {
  const s = seqs.all(r.id) as number[];
  transitions += s.length;
  if (s.some((x, i) => x !== i + 1) || s.length !== r.seq) violations.push(`run ${r.id}: seq not contiguous 1..${r.seq} (${s.length} rows)`);
  if (r.status === "running" && moving(r.id, r.snapshot)) violations.push(`run ${r.id} (${r.workflow}) still moving in ${r.state}`);
  const open = pending.all(r.id) as { id: string; state: string }[];
  if (TERMINAL.includes(r.status as RunStatus) && open.length) violations.push(`run ${r.id} is ${r.status} with a pending review`);
  if (open.length > 1 && new Set(open.map((o) => o.state)).size !== open.length) violations.push(`run ${r.id}: two pending reviews for one state`);
  for (const o of open) if (!(JSON.parse(r.state) as string[]).some((st) => st === o.state || st.startsWith(`${o.state}.`))) violations.push(`run ${r.id}: pending review ${o.id} for ${o.state}, but the run is in ${r.state}`);
}
// a review state without its pending review would be a lost review
const waiting = runs.filter((r) => r.status === "waiting");
const inHumanState = (r: (typeof runs)[number]) => (JSON.parse(r.state) as string[]).some((id) => STATES.get(r.workflow)?.get(id)?.human);
for (const r of waiting) if (inHumanState(r) && (pending.all(r.id) as unknown[]).length === 0) violations.push(`run ${r.id} (${r.workflow}) waits in ${r.state} without a pending review`);
// decided once: a decided review has one decision time and its run moved past its seq
const decided = db.prepare(`SELECT v."id", v."runId", v."seq", r."seq" AS runSeq FROM "Review" v JOIN "Run" r ON r."id" = v."runId" WHERE v."status" = 'decided'`).all() as { id: string; runId: string; seq: number; runSeq: number }[];
for (const d of decided) if (d.runSeq <= d.seq) violations.push(`review ${d.id}: decided, but run ${d.runId} never moved after it`);
const artifacts = db.prepare(`SELECT "runId","name","size",length(CAST("content" AS BLOB)) AS bytes FROM "Artifact"`).all() as { runId: string; name: string; size: number; bytes: number }[];
for (const a of artifacts) if (a.size !== a.bytes) violations.push(`artifact ${a.runId}/${a.name}: size ${a.size} but ${a.bytes} bytes stored`);
const byStatus: Record<string, number> = {};
for (const r of runs) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
db.close();

console.log(
  `chaos: ${counts.kills} kills in ${((Date.now() - started) / 1000).toFixed(0)} s · ${counts.started} runs started (${Object.entries(byStatus).map(([s, n]) => `${n} ${s}`).join(", ")}) · ${transitions} transitions · ${decided.length} reviews decided (${counts.decisions} accepted, ${counts.conflicts} refused as stale) · ${artifacts.length} artifacts · ${counts.requestErrors} requests cut by a kill · ${counts.refused} 5xx`,
);
if (counts.refused) violations.push(`${counts.refused} requests answered 5xx`);
if (violations.length) {
  console.error(`chaos: ${violations.length} invariant violation(s):\n  ${violations.slice(0, 30).join("\n  ")}`);
  process.exit(1);
}
console.log("chaos: every invariant holds");
fs.rmSync(dir, { recursive: true, force: true });
