// npm run cluster [-- --workers N] — a PostgreSQL deployment on one machine: one web server
// (`npm start` with SWITCHYARD_ROLE=web: requests, pages, SSE) and N workers (`npm run worker`,
// default 2) that run the effects and timers, all with this process's environment (set
// DATABASE_URL=postgresql://…, and SWITCHYARD_QUEUE_SCHEMA / PORT as you like). Their output is
// forwarded, each line prefixed with [web] / [worker-i]. SIGINT/SIGTERM go to every child; when the
// web server exits the workers are stopped and this exits with the server's code. A worker that
// dies on its own is reported and started again (after a pause that grows while it keeps dying
// quickly), as a supervisor would. The migrations are applied once, before anything starts, and
// the first worker starts alone (it creates the job queues), then the web server and the others.
import "dotenv/config";
import { spawn, spawnSync } from "node:child_process";
import { serverNodeOptions } from "./node-options.mjs";
import readline from "node:readline";

const args = process.argv.slice(2);
const at = args.indexOf("--workers");
const N = at >= 0 ? Number(args[at + 1]) : 2;
if (!Number.isInteger(N) || N < 0 || N > 64) {
  console.error(`cluster: --workers must be a whole number from 0 to 64; got "${args[at + 1]}"`);
  process.exit(2);
}
const url = process.env.DATABASE_URL?.trim() ?? "";
if (!/^postgres(ql)?:\/\//i.test(url)) {
  console.error("cluster: needs PostgreSQL: set DATABASE_URL=postgresql://… (on SQLite, `npm start` runs everything in one process)");
  process.exit(2);
}

const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
// whoever reads our output may go away first (a closed pipe): keep supervising regardless
for (const s of [process.stdout, process.stderr]) s.on("error", () => {});
const say = (msg) => console.error(`[cluster] ${msg}`);

// once, before the web server and the workers each try it at the same moment on a fresh schema
const migrate = spawnSync(process.execPath, ["--import", "tsx", "scripts/db-migrate.ts"], { stdio: "inherit", env });
if (migrate.status !== 0) process.exit(migrate.status ?? 1);

/** a child whose stdout/stderr lines are forwarded with a prefix (and shown to `onLine`) */
function launch(name, argv, extra = {}, onLine = () => {}) {
  const child = spawn(process.execPath, argv, { env: { ...env, NODE_OPTIONS: serverNodeOptions(env), ...extra }, stdio: ["ignore", "pipe", "pipe"] });
  for (const [from, to] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ]) {
    readline.createInterface({ input: from, crlfDelay: Infinity }).on("line", (line) => {
      to.write(`[${name}] ${line}\n`);
      onLine(line);
    });
  }
  return child;
}

let stopping = false;
const workers = new Array(N).fill(null);
const quickDeaths = new Array(N).fill(0);

function startWorker(i, onStarted = () => {}) {
  const t0 = Date.now();
  const w = launch(`worker-${i}`, ["--import", "tsx", "scripts/worker.ts"], {}, (line) => {
    if (/^switchyard worker \S+ started/.test(line)) onStarted();
  });
  workers[i] = w;
  w.on("exit", (code, signal) => {
    if (workers[i] === w) workers[i] = null;
    onStarted();
    if (stopping) return;
    // died on its own: say so and bring it back (a worker that keeps dying at once waits longer)
    quickDeaths[i] = Date.now() - t0 < 10_000 ? quickDeaths[i] + 1 : 0;
    const delay = Math.min(30_000, 500 * 2 ** Math.min(quickDeaths[i], 6));
    say(`worker-${i} (pid ${w.pid}) died unexpectedly (${signal ? `signal ${signal}` : `exit code ${code}`}); restarting it in ${(delay / 1000).toFixed(1)} s`);
    setTimeout(() => {
      if (!stopping && !workers[i]) startWorker(i);
    }, delay).unref();
  });
}

/** stop the workers (SIGTERM, SIGKILL after a grace period) and wait for them */
function stopWorkers(graceMs = 10_000) {
  const alive = workers.filter((w) => w && w.exitCode === null && w.signalCode === null);
  return Promise.all(
    alive.map(
      (w) =>
        new Promise((resolve) => {
          const kill = setTimeout(() => w.kill("SIGKILL"), graceMs);
          w.once("exit", () => {
            clearTimeout(kill);
            resolve();
          });
          w.kill("SIGTERM");
        }),
    ),
  );
}

let web = null;
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, () => {
    if (stopping) return;
    stopping = true;
    say(`${sig}: stopping the web server and the workers`);
    web?.kill(sig);
    for (const w of workers) w?.kill(sig);
    if (!web) stopWorkers().then(() => process.exit(1));
  });
}

// The first worker alone, until it says it started: on a fresh queue schema every process creates
// pg-boss's queues as it starts, and several doing that at the same moment can deadlock (see
// startQueue in lib/cluster/queue.ts). Then the web server and the other workers.
if (N > 0) {
  await new Promise((resolve) => {
    const t = setTimeout(resolve, 60_000);
    startWorker(0, () => {
      clearTimeout(t);
      resolve();
    });
  });
}
if (stopping) await new Promise(() => {}); // stopWorkers() exits
web = launch("web", ["scripts/start.mjs", ...args.filter((a, i) => i !== at && i !== at + 1 && a !== "--")], { SWITCHYARD_ROLE: "web" });
for (let i = 1; i < N; i++) startWorker(i);
say(`web server (pid ${web.pid}) and ${N} worker(s) started on ${url.replace(/\/\/([^:@/]+):[^@/]*@/, "//$1:***@")}`);

web.on("exit", async (code, signal) => {
  if (!stopping) say(`web server exited (${signal ? `signal ${signal}` : `exit code ${code}`}); stopping the workers`);
  stopping = true;
  await stopWorkers();
  process.exit(code ?? (signal ? 1 : 0));
});
