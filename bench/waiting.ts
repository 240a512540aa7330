// npm run bench:waiting — what runs that wait for a person cost the production server.
// Three measures in one run, each against its target, printed as a table with PASS / FAIL:
//
//  1. memory: the RSS that BENCH_WAITING_RUNS (10,000) swiss-army runs waiting at HUMAN_REVIEW
//     add to a real server (`npm start` on a fresh SQLite file, runs started over the REST API),
//     read from /proc after the eviction delay and a full garbage collection (target ≤ 50 MB);
//  2. restart: spawn → first healthy /api/health of `npm start` on a database holding
//     BENCH_RESTART_RUNS (100,000) waiting runs, against the same database without them
//     (target ≤ 2×). The runs are one real waiting run's rows copied with new ids in SQL (its
//     latest snapshot only, as retention leaves old runs; BENCH_RESTART_HISTORY=full: all);
//  3. decision → SSE: from posting a review decision to the run's stream (and the all-runs
//     stream) carrying the APPROVE transition, BENCH_LATENCY_RUNS (50) runs decided right after
//     they reached the review (live) and as many decided after the eviction delay (evicted);
//     target: p95 evicted ≤ 2 × p95 live.
//
// Needs a production build (`npm run build`; made first when there is none). Exits 1 when a target is missed, 2 when something
// could not be measured. Other settings: BENCH_PORT (3290; the inspector uses BENCH_PORT + 8),
// BENCH_CONCURRENCY (16 requests at once), BENCH_RESTARTS (2 timed starts per database, median
// printed), SWITCHYARD_EVICT_AFTER_MS (passed to the server when set; the bench waits that long
// plus BENCH_EVICT_MARGIN_MS, 10 s, for eviction), BENCH_KEEP=1 keeps the temp directory.
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, getJson, Inspector, openSse, postJson, rssBytes, sleep, startServer, type Server, type SseEvent } from "./waiting-server";

const int = (name: string, dflt: number) => {
  const v = process.env[name];
  if (v === undefined || v === "") return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a whole number, got "${v}"`);
  return n;
};

const WAITING_RUNS = int("BENCH_WAITING_RUNS", 10_000);
const RESTART_RUNS = int("BENCH_RESTART_RUNS", 100_000);
const LATENCY_RUNS = Math.max(2, int("BENCH_LATENCY_RUNS", 50));
const PORT = int("BENCH_PORT", 3290);
const INSPECT_PORT = int("BENCH_INSPECT_PORT", PORT + 8);
const CONCURRENCY = Math.max(1, int("BENCH_CONCURRENCY", 16));
const RESTARTS = Math.max(1, int("BENCH_RESTARTS", 2));
const EVICT_ENV = process.env.SWITCHYARD_EVICT_AFTER_MS;
/** how long the server keeps an idle waiting run (its default when the variable is unset) */
const EVICT_AFTER_MS = EVICT_ENV ? Number(EVICT_ENV) : 5_000;
const EVICT_MARGIN_MS = int("BENCH_EVICT_MARGIN_MS", 10_000);
const FULL_HISTORY = process.env.BENCH_RESTART_HISTORY === "full";
const WORKFLOW = "swiss-army";
/** BENCH_ONLY=memory,latency,restart (any of them): the measures to take */
const PHASES = new Set((process.env.BENCH_ONLY ?? "memory,latency,restart").split(",").map((p) => p.trim()));
for (const p of PHASES) if (!["memory", "latency", "restart"].includes(p)) throw new Error(`BENCH_ONLY: unknown measure "${p}" (memory, latency, restart)`);
const TARGET = { addedMb: 50, restartRatio: 2, p95Ratio: 2 };

const serverExtraEnv: Record<string, string> = EVICT_ENV ? { SWITCHYARD_EVICT_AFTER_MS: EVICT_ENV } : {};
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-bench-waiting-"));
const servers = new Set<Server>();

interface RunOut {
  id: string;
  status: string;
  stateIds?: string[];
  reviewId?: string | null;
}
interface Transition {
  event: string;
  from: string;
}

const MB = 1024 * 1024;
const fmtMb = (b: number) => `${(b / MB).toFixed(1)} MB`;
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const log = (msg: string) => console.log(`  [${new Date().toISOString().slice(11, 19)}] ${msg}`);

async function launch(name: string, dbFile: string, timeoutMs = 15 * 60_000): Promise<Server> {
  const s = await startServer({ port: PORT, inspectPort: INSPECT_PORT, dbFile, log: path.join(dir, `${name}.log`), env: serverExtraEnv, timeoutMs });
  servers.add(s);
  return s;
}

async function stop(s: Server) {
  await s.stop();
  servers.delete(s);
}

/** `p`, or an error after `ms` */
async function within<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  let t: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => (t = setTimeout(() => reject(new Error(message)), ms)))]);
  } finally {
    clearTimeout(t);
  }
}

const api = (s: Server, p: string) => `http://127.0.0.1:${s.port}${p}`;

/** `n` jobs, `CONCURRENCY` at a time */
async function pool(n: number, job: (i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, CONCURRENCY) }, async () => {
      while (next < n) await job(next++);
    }),
  );
}

async function startRuns(s: Server, n: number, tag: string): Promise<string[]> {
  const ids: string[] = [];
  await pool(n, async (i) => {
    const run = await postJson<RunOut>(api(s, "/api/runs"), { workflow: WORKFLOW, input: { request: `bench:waiting ${tag} ${i}: write a retry helper with backoff` } });
    ids.push(run.id);
  });
  return ids;
}

/** until the server counts `n` waiting runs and none running (every run reached its review) */
async function untilWaiting(s: Server, n: number, timeoutMs: number) {
  const end = performance.now() + timeoutMs;
  for (;;) {
    const h = await s.health();
    const waiting = h.runs?.waiting;
    if (typeof waiting !== "number") throw new Error("/api/health has no runs.waiting");
    if (waiting >= n && (h.runs?.running ?? 0) === 0) return;
    if (performance.now() > end) throw new Error(`only ${waiting} of ${n} runs waiting after ${Math.round(timeoutMs / 1000)} s (running: ${h.runs?.running})`);
    await sleep(500);
  }
}

async function liveRuns(s: Server): Promise<number> {
  const n = (await s.health()).engine?.liveRuns;
  if (typeof n !== "number") throw new Error("/api/health has no engine.liveRuns");
  return n;
}

/** wait the eviction delay plus the margin, or less once no more than `floor` runs are live */
async function untilEvicted(s: Server, floor: number): Promise<number> {
  const end = performance.now() + EVICT_AFTER_MS + EVICT_MARGIN_MS;
  await sleep(Math.min(EVICT_AFTER_MS, 1_000));
  for (;;) {
    const live = await liveRuns(s);
    if (live <= floor || performance.now() > end) return live;
    await sleep(1_000);
  }
}

async function reviewOf(s: Server, runId: string): Promise<string> {
  const run = await getJson<RunOut>(api(s, `/api/runs/${runId}`));
  if (!run.reviewId || !run.stateIds?.includes("HUMAN_REVIEW")) throw new Error(`run ${runId} is not at HUMAN_REVIEW (${run.status} ${JSON.stringify(run.stateIds)})`);
  return run.reviewId;
}

// ------------------------------------------------------------------------------------ memory

interface MemoryResult {
  before: number;
  atCreation: number;
  settled: number;
  after: number;
  heapBefore: number;
  heapAfter: number;
  liveBefore: number;
  liveAtCreation: number;
  liveAfter: number;
  createSeconds: number;
}

/** every route and module the measured runs use is loaded before the first reading; the runs it leaves waiting and live */
async function warmUp(s: Server): Promise<{ waiting: number; live: number }> {
  const warm = await startRuns(s, 20, "warm-up");
  await untilWaiting(s, warm.length, 120_000);
  for (const id of warm.slice(0, 10)) await postJson(api(s, `/api/reviews/${await reviewOf(s, id)}/decision`), { decision: "approve" });
  for (const id of warm) await postJson(api(s, `/api/runs/${id}/abort`), { reason: "bench warm-up" });
  const sse = await openSse(api(s, `/api/runs/${warm[0]}/stream`), () => {});
  await sleep(200);
  sse.close();
  // the approved ones wait in IDLE (swiss-army runs live on): counted apart
  const h = await s.health();
  const waiting = h.runs?.waiting ?? 0;
  if ((h.runs?.running ?? 0) !== 0 || waiting > warm.length) throw new Error(`warm-up runs still moving: ${JSON.stringify(h.runs)}`);
  return { waiting, live: await untilEvicted(s, 0) };
}

async function memory(s: Server, inspector: Inspector, floor: { waiting: number; live: number }): Promise<MemoryResult> {
  const base = floor.waiting;
  await sleep(2_000);
  await inspector.gc();
  const before = rssBytes(s.pid);
  const heapBefore = await inspector.heapUsed();
  const liveBefore = await liveRuns(s);
  log(`server RSS ${fmtMb(before)} before (V8 heap ${fmtMb(heapBefore)}, ${liveBefore} live runs); starting ${WAITING_RUNS} runs, ${CONCURRENCY} at a time`);

  const t0 = performance.now();
  await startRuns(s, WAITING_RUNS, "waiting");
  await untilWaiting(s, base + WAITING_RUNS, 30 * 60_000);
  const createSeconds = (performance.now() - t0) / 1000;
  const atCreation = rssBytes(s.pid);
  const liveAtCreation = await liveRuns(s);
  log(`${WAITING_RUNS} runs at HUMAN_REVIEW in ${createSeconds.toFixed(0)} s; RSS ${fmtMb(atCreation)}, ${liveAtCreation} live runs; waiting for eviction`);
  await untilEvicted(s, liveBefore);
  await sleep(2_000);
  const settled = rssBytes(s.pid);
  await inspector.gc();
  const after = rssBytes(s.pid);
  const heapAfter = await inspector.heapUsed();
  const liveAfter = await liveRuns(s);
  log(`after eviction wait: RSS ${fmtMb(settled)}, after GC ${fmtMb(after)} (V8 heap ${fmtMb(heapAfter)}), ${liveAfter} live runs`);
  return { before, atCreation, settled, after, heapBefore, heapAfter, liveBefore, liveAtCreation, liveAfter, createSeconds };
}

// ------------------------------------------------------------------------------------ latency

interface LatencyResult {
  runStream: number[];
  allStream: number[];
  /** live runs the server held right before the first decision of the phase */
  liveBeforeDecisions: number;
}

/** One decision, timed to the APPROVE transition on the run's stream and on the all-runs stream. */
async function timedDecision(s: Server, runId: string, reviewId: string, all: Map<string, (at: number) => void>): Promise<{ run: number; all: number }> {
  let t0 = 0;
  let resolveRun!: (at: number) => void;
  const onRun = new Promise<number>((r) => (resolveRun = r));
  const onAll = new Promise<number>((r) => all.set(runId, r));
  let hello!: () => void;
  const helloSeen = new Promise<void>((r) => (hello = r));
  const stream = await openSse(api(s, `/api/runs/${runId}/stream`), (e: SseEvent, at) => {
    if (e.event === "hello") hello();
    if (e.event === "run" && approved(e)) resolveRun(at);
  });
  try {
    await within(helloSeen, 60_000, `no hello on the stream of run ${runId} within 60 s`);
    t0 = performance.now();
    await postJson(api(s, `/api/reviews/${reviewId}/decision`), { decision: "approve" });
    const [run, allAt] = await within(Promise.all([onRun, onAll]), 60_000, `no APPROVE transition of run ${runId} on its streams within 60 s`);
    return { run: run - t0, all: allAt - t0 };
  } finally {
    stream.close();
    all.delete(runId);
  }
}

function approved(e: SseEvent): boolean {
  const msg = JSON.parse(e.data) as { transitions?: Transition[] };
  return !!msg.transitions?.some((t) => t.event === "APPROVE");
}

async function allRunsStream(s: Server, waiters: Map<string, (at: number) => void>) {
  return openSse(api(s, "/api/stream"), (e, at) => {
    if (e.event !== "run") return;
    const msg = JSON.parse(e.data) as { run?: { id: string }; transitions?: Transition[] };
    if (msg.run && msg.transitions?.some((t) => t.event === "APPROVE")) waiters.get(msg.run.id)?.(at);
  });
}

/** live: each run decided the moment its own stream shows it at the review */
async function latencyLive(s: Server): Promise<LatencyResult> {
  const waiters = new Map<string, (at: number) => void>();
  const all = await allRunsStream(s, waiters);
  const out: LatencyResult = { runStream: [], allStream: [], liveBeforeDecisions: await liveRuns(s) };
  try {
    for (let i = 0; i < LATENCY_RUNS; i++) {
      const [id] = await startRuns(s, 1, `live ${i}`);
      let reached!: (reviewId: string) => void;
      const atReview = new Promise<string>((r) => (reached = r));
      const sse = await openSse(api(s, `/api/runs/${id}/stream`), (e) => {
        if (e.event !== "hello" && e.event !== "run") return;
        const run = (JSON.parse(e.data) as { run?: RunOut }).run;
        if (run?.reviewId && run.stateIds?.includes("HUMAN_REVIEW")) reached(run.reviewId);
      });
      let reviewId: string;
      try {
        reviewId = await within(atReview, 60_000, `run ${id} did not reach its review within 60 s`);
      } finally {
        sse.close();
      }
      const r = await timedDecision(s, id!, reviewId, waiters);
      out.runStream.push(r.run);
      out.allStream.push(r.all);
    }
  } finally {
    all.close();
  }
  return out;
}

/** evicted: runs that reached their review, then waited past the eviction delay */
async function latencyEvicted(s: Server, liveFloor: number): Promise<LatencyResult> {
  const ids = await startRuns(s, LATENCY_RUNS, "evicted");
  const end = performance.now() + 120_000;
  const reviews = new Map<string, string>();
  while (reviews.size < ids.length) {
    if (performance.now() > end) throw new Error(`only ${reviews.size} of ${ids.length} runs reached their review`);
    for (const id of ids) {
      if (reviews.has(id)) continue;
      const run = await getJson<RunOut>(api(s, `/api/runs/${id}`));
      if (run.reviewId && run.stateIds?.includes("HUMAN_REVIEW")) reviews.set(id, run.reviewId);
    }
    if (reviews.size < ids.length) await sleep(300);
  }
  await untilEvicted(s, liveFloor);
  const waiters = new Map<string, (at: number) => void>();
  const all = await allRunsStream(s, waiters);
  const out: LatencyResult = { runStream: [], allStream: [], liveBeforeDecisions: await liveRuns(s) };
  try {
    for (const id of ids) {
      const r = await timedDecision(s, id, reviews.get(id)!, waiters);
      out.runStream.push(r.run);
      out.allStream.push(r.all);
    }
  } finally {
    all.close();
  }
  return out;
}

// ------------------------------------------------------------------------------------ restart

/** Copy every row of run `runId` (the Run row and every table's rows with its runId) `copies` times, with new ids. */
function seedCopies(file: string, runId: string, copies: number): { rows: number; seconds: number } {
  const t0 = performance.now();
  const db = new Database(file);
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = OFF");
    const tables = db.prepare(`SELECT "name" FROM sqlite_master WHERE "type" = 'table' AND "name" NOT LIKE 'sqlite_%' AND "name" NOT LIKE '\\_%' ESCAPE '\\'`).all() as { name: string }[];
    const plans: { table: string; cols: string[]; rows: Record<string, unknown>[]; insert: Database.Statement }[] = [];
    const oldIds = new Set<string>([runId]);
    for (const { name } of tables) {
      const info = db.prepare(`PRAGMA table_info("${name}")`).all() as { name: string; type: string; pk: number }[];
      // a request's Idempotency-Key row names its run but is the request's, not the run's (and unique per key)
      const key = name === "Run" ? "id" : name !== "IdempotencyKey" && info.some((c) => c.name === "runId") ? "runId" : null;
      if (!key) continue;
      // older snapshots dropped unless BENCH_RESTART_HISTORY=full: retention leaves a run waiting past
      // its age only its latest one, and 100,000 runs' full history is ~6 GB to write
      const thin = name === "Snapshot" && !FULL_HISTORY ? ` AND "seq" = (SELECT "seq" FROM "Run" WHERE "id" = ?)` : "";
      const rows = db.prepare(`SELECT * FROM "${name}" WHERE "${key}" = ?${thin}`).all(...(thin ? [runId, runId] : [runId])) as Record<string, unknown>[];
      if (!rows.length) continue;
      // an INTEGER primary key is the table's own counter: left to SQLite
      const cols = info.filter((c) => !(c.pk === 1 && /^int/i.test(c.type) && info.filter((x) => x.pk > 0).length === 1)).map((c) => c.name);
      if (name !== "Run" && cols.includes("id")) for (const r of rows) if (typeof r.id === "string") oldIds.add(r.id);
      const insert = db.prepare(`INSERT INTO "${name}" (${cols.map((c) => `"${c}"`).join(",")}) VALUES (${cols.map(() => "?").join(",")})`);
      plans.push({ table: name, cols, rows, insert });
    }
    if (!plans.some((p) => p.table === "Run")) throw new Error(`run ${runId} not found in ${file}`);
    const ids = [...oldIds];
    let rows = 0;
    const batch = db.transaction((from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const map = ids.map((old) => [old, randomUUID()] as const);
        const swap = (v: unknown) => {
          if (typeof v !== "string") return v;
          let s = v;
          for (const [old, neu] of map) if (s.includes(old)) s = s.split(old).join(neu);
          return s;
        };
        for (const p of plans) {
          for (const r of p.rows) {
            p.insert.run(...p.cols.map((c) => swap(r[c])));
            rows++;
          }
        }
      }
    });
    for (let i = 0; i < copies; i += 5_000) batch(i, Math.min(copies, i + 5_000));
    db.pragma("wal_checkpoint(TRUNCATE)");
    log(`seeded ${copies} copies of run ${runId} (${plans.map((p) => `${p.table} ×${p.rows.length}`).join(", ")})`);
    return { rows, seconds: (performance.now() - t0) / 1000 };
  } finally {
    db.close();
  }
}

function snapshotDb(from: string, to: string) {
  const db = new Database(from);
  try {
    db.prepare("VACUUM INTO ?").run(to);
  } finally {
    db.close();
  }
}

interface RestartResult {
  emptyMs: number[];
  seededMs: number[];
  emptyRss: number[];
  seededRss: number[];
  seededLive: number[];
  seedSeconds: number;
  dbMb: number;
}

async function restart(): Promise<RestartResult> {
  const work = path.join(dir, "restart.db");
  // a database as the server leaves it after its first start (migrated, guide seeded)
  await stop(await launch("restart-init", work));
  const empty = path.join(dir, "restart-empty.db");
  snapshotDb(work, empty);
  // one real waiting run, made by the server
  const s = await launch("restart-one", work);
  const [id] = await startRuns(s, 1, "restart");
  await untilWaiting(s, 1, 120_000);
  await reviewOf(s, id!);
  await stop(s);
  const seeded = path.join(dir, "restart-seeded.db");
  snapshotDb(work, seeded);
  const seed = seedCopies(seeded, id!, RESTART_RUNS);
  const out: RestartResult = { emptyMs: [], seededMs: [], emptyRss: [], seededRss: [], seededLive: [], seedSeconds: seed.seconds, dbMb: fs.statSync(seeded).size / MB };
  log(`database with ${RESTART_RUNS + 1} waiting runs: ${out.dbMb.toFixed(0)} MB, ${seed.rows} rows written in ${seed.seconds.toFixed(0)} s`);
  for (let i = 0; i < RESTARTS; i++) {
    for (const [name, file] of [
      ["empty", empty],
      ["seeded", seeded],
    ] as const) {
      const s = await launch(`restart-${name}-${i}`, file);
      const rss = rssBytes(s.pid);
      const h = await s.health();
      await stop(s);
      if (name === "seeded") {
        const waiting = h.runs?.waiting ?? 0;
        if (waiting < RESTART_RUNS) throw new Error(`the seeded server counts ${waiting} waiting runs, expected ${RESTART_RUNS + 1}`);
        out.seededMs.push(s.healthyMs);
        out.seededRss.push(rss);
        out.seededLive.push(h.engine?.liveRuns ?? NaN);
      } else {
        out.emptyMs.push(s.healthyMs);
        out.emptyRss.push(rss);
      }
      log(`restart ${name}: healthy after ${(s.healthyMs / 1000).toFixed(2)} s, RSS ${fmtMb(rss)}, ${h.engine?.liveRuns} live runs`);
    }
  }
  return out;
}

// ------------------------------------------------------------------------------------ main

async function main(): Promise<number> {
  if (!fs.existsSync(".next/BUILD_ID")) {
    // the server is measured as it runs in production: build it once when there is no build
    console.log("bench:waiting — no production build (.next/BUILD_ID): running `npm run build` first");
    const built = spawnSync("npm", ["run", "build"], { stdio: "inherit" });
    if (built.status !== 0 || !fs.existsSync(".next/BUILD_ID")) throw new Error(`\`npm run build\` failed (exit ${built.status ?? built.signal}); the bench needs a production build`);
  }
  if (!fs.existsSync("/proc/self/status")) throw new Error("bench:waiting reads memory from /proc (Linux only)");
  console.log(
    `bench:waiting — ${[PHASES.has("memory") && `${WAITING_RUNS} waiting runs (memory)`, PHASES.has("restart") && `${RESTART_RUNS} (restart)`, PHASES.has("latency") && `${LATENCY_RUNS} + ${LATENCY_RUNS} decisions (latency)`].filter(Boolean).join(", ")}; server: npm start on SQLite, port ${PORT}; eviction delay ${EVICT_AFTER_MS} ms${EVICT_ENV ? "" : " (server default assumed)"}; ${os.cpus().length} cores`,
  );
  const started = performance.now();

  let mem: MemoryResult | null = null;
  let live: LatencyResult | null = null;
  let evicted: LatencyResult | null = null;
  if (PHASES.has("memory") || PHASES.has("latency")) {
    const s = await launch("main", path.join(dir, "main.db"));
    const inspector = new Inspector(s.pid, INSPECT_PORT);
    try {
      const floor = await warmUp(s);
      if (PHASES.has("memory")) mem = await memory(s, inspector, floor);
      if (PHASES.has("latency")) {
        log(`latency: ${LATENCY_RUNS} runs decided live`);
        live = await latencyLive(s);
        log(`latency: ${LATENCY_RUNS} runs decided after the eviction delay`);
        evicted = await latencyEvicted(s, floor.live);
      }
    } finally {
      inspector.close();
      await stop(s);
    }
  }
  const rs = PHASES.has("restart") ? await restart() : null;

  const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL");
  const ms = (x: number) => `${x.toFixed(1)} ms`;
  const secs = (xs: number[]) => xs.map((x) => (x / 1000).toFixed(2)).join(", ");
  let ok = true;
  const details: string[] = [];
  console.log("");
  console.log(`measure                                   result                                   target     verdict`);
  if (mem) {
    const added = mem.after - mem.before;
    const okMem = added / MB <= TARGET.addedMb;
    ok &&= okMem;
    console.log(`RSS added by ${WAITING_RUNS} waiting runs`.padEnd(42) + `${fmtMb(added)} (${(added / Math.max(1, WAITING_RUNS) / 1024).toFixed(1)} KB/run)`.padEnd(41) + `≤ ${TARGET.addedMb} MB`.padEnd(11) + verdict(okMem));
    details.push(`  memory   server RSS ${fmtMb(mem.before)} → ${fmtMb(mem.atCreation)} when the last run reached its review (${mem.liveAtCreation} live runs) → ${fmtMb(mem.settled)} after the eviction wait → ${fmtMb(mem.after)} after a full GC (${mem.liveAfter} live runs, ${mem.liveBefore} before)`);
    details.push(`           V8 heap used ${fmtMb(mem.heapBefore)} → ${fmtMb(mem.heapAfter)} (+${fmtMb(mem.heapAfter - mem.heapBefore)}); ${WAITING_RUNS} runs started over HTTP and at their review in ${mem.createSeconds.toFixed(0)} s`);
  }
  if (rs) {
    const restartRatio = median(rs.seededMs) / median(rs.emptyMs);
    const okRestart = restartRatio <= TARGET.restartRatio;
    ok &&= okRestart;
    console.log(`restart-to-healthy, ${RESTART_RUNS} vs 0 waiting`.padEnd(42) + `${(median(rs.seededMs) / 1000).toFixed(2)} s vs ${(median(rs.emptyMs) / 1000).toFixed(2)} s = ${restartRatio.toFixed(2)}×`.padEnd(41) + `≤ ${TARGET.restartRatio}×`.padEnd(11) + verdict(okRestart));
    details.push(`  restart  empty database: ${secs(rs.emptyMs)} s (RSS ${rs.emptyRss.map(fmtMb).join(", ")}); ${RESTART_RUNS + 1} waiting runs (${rs.dbMb.toFixed(0)} MB file): ${secs(rs.seededMs)} s (RSS ${rs.seededRss.map(fmtMb).join(", ")}, live runs ${rs.seededLive.join(", ")}); medians compared`);
  }
  if (live && evicted) {
    const ratioRun = pct(evicted.runStream, 95) / pct(live.runStream, 95);
    const ratioAll = pct(evicted.allStream, 95) / pct(live.allStream, 95);
    const okLatency = ratioRun <= TARGET.p95Ratio && ratioAll <= TARGET.p95Ratio;
    ok &&= okLatency;
    console.log(`decision→SSE p95, evicted vs live`.padEnd(42) + `run stream ${ratioRun.toFixed(2)}×, all-runs stream ${ratioAll.toFixed(2)}×`.padEnd(41) + `≤ ${TARGET.p95Ratio}×`.padEnd(11) + verdict(okLatency));
    for (const [name, r] of [
      ["live", live],
      ["evicted", evicted],
    ] as const) {
      details.push(`  latency  ${name.padEnd(8)} run stream p50 ${ms(pct(r.runStream, 50))}, p95 ${ms(pct(r.runStream, 95))}; all-runs stream p50 ${ms(pct(r.allStream, 50))}, p95 ${ms(pct(r.allStream, 95))}; ${r.runStream.length} decisions, ${r.liveBeforeDecisions} live runs before them`);
    }
  }
  console.log("");
  console.log("details");
  for (const d of details) console.log(d);
  console.log(`  took ${((performance.now() - started) / 1000).toFixed(0)} s`);
  return ok ? 0 : 1;
}

for (const sig of ["SIGINT", "SIGTERM"] as const)
  process.on(sig, () => {
    console.error(`bench:waiting: ${sig}, stopping its servers`);
    void Promise.all([...servers].map((s) => s.stop().catch(() => {}))).finally(() => {
      fs.rmSync(dir, { recursive: true, force: true });
      process.exit(2);
    });
  });

let code = 2;
try {
  code = await main();
} catch (e) {
  console.error(`bench:waiting could not measure: ${describe(e)}`);
  code = 2;
  // the servers' last words
  for (const f of fs.readdirSync(dir).filter((f) => f.endsWith(".log"))) {
    const lines = fs.readFileSync(path.join(dir, f), "utf8").trimEnd().split("\n");
    console.error(`--- ${f} (last lines)\n${lines.slice(-15).join("\n")}`);
  }
} finally {
  for (const s of servers) await s.stop().catch(() => {});
  if (process.env.BENCH_KEEP === "1") console.log(`  kept ${dir}`);
  else fs.rmSync(dir, { recursive: true, force: true });
}
process.exit(code);
