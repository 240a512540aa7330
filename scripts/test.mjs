// npm test — everything: one production build (reused when it is up to date with the sources;
// built without its own type-check); one type-check (tsc) beside the crash harness on SQLite and
// PostgreSQL; unit + integration tests (vitest); then the Playwright e2e suite against the build in
// Debian's Chromium on SQLite, then its PostgreSQL-deployment specs. The type-check and the crash
// harnesses run at once (they mostly wait on different things). Prints each phase's time (and, for
// the phases run at once, each part's) and a table of them at the end.
//
// PostgreSQL suites skip, with the reason printed, when PostgreSQL is not reachable; with
// SWITCHYARD_REQUIRE_POSTGRES=1 (CI) an unreachable PostgreSQL fails them instead.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { ensureBuild } from "./build-stamp.mjs";

/** null when PostgreSQL answers at `url`, else why not */
async function pgReachable(url) {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_500 });
  try {
    await c.connect();
    await c.query("SELECT 1");
    return null;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  } finally {
    await c.end().catch(() => {});
  }
}

const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
const bin = (pkg, file) => path.join("node_modules", pkg, file);
const requirePostgres = process.env.SWITCHYARD_REQUIRE_POSTGRES === "1";

/** [name, seconds, outcome] of each phase, for the table at the end */
const phases = [];
const started = Date.now();

function table() {
  const w = Math.max(...phases.map(([n]) => n.length), 5);
  const total = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`\n${"phase".padEnd(w)}  ${"seconds".padStart(8)}  outcome`);
  for (const [n, s, o] of phases) console.log(`${n.padEnd(w)}  ${s.padStart(8)}  ${o}`);
  console.log(`${"total".padEnd(w)}  ${total.padStart(8)}`);
}

function fail(name, secs, why, rows = []) {
  phases.push([name, secs, "FAILED"], ...rows);
  console.error(`✖ ${name} failed after ${secs} s${why ? `: ${why}` : ""}`);
  table();
  process.exit(1);
}

function timed(name, fn) {
  const t0 = Date.now();
  console.log(`\n▶ ${name}`);
  let outcome;
  try {
    outcome = fn();
  } catch (e) {
    fail(name, ((Date.now() - t0) / 1000).toFixed(1), e instanceof Error ? e.message : String(e));
  }
  const secs = ((Date.now() - t0) / 1000).toFixed(1);
  phases.push([name, secs, outcome ?? "passed"]);
  console.log(`✔ ${name} (${secs} s)`);
}

function step(name, args, extra = {}) {
  timed(name, () => {
    const r = spawnSync(process.execPath, args, { stdio: "inherit", env: { ...env, ...extra } });
    if (r.status !== 0) throw new Error(`exit ${r.status ?? r.signal}`);
  });
}

/**
 * node processes run at once, each one's lines printed as they come (prefixed with its label);
 * each one's time is a row of the table under the phase's; fails when any fails
 */
async function together(name, jobs) {
  const t0 = Date.now();
  console.log(`\n▶ ${name}`);
  const results = await Promise.all(
    jobs.map(
      ([label, args, extra]) =>
        new Promise((resolve) => {
          const child = spawn(process.execPath, args, { env: { ...env, ...extra }, stdio: ["ignore", "pipe", "pipe"] });
          const print = (stream) => {
            let rest = "";
            stream.setEncoding("utf8");
            stream.on("data", (d) => {
              const lines = (rest + d).split("\n");
              rest = lines.pop();
              for (const l of lines) console.log(`[${label}] ${l}`);
            });
            stream.on("end", () => rest && console.log(`[${label}] ${rest}`));
          };
          print(child.stdout);
          print(child.stderr);
          child.on("close", (code, signal) => {
            const secs = ((Date.now() - t0) / 1000).toFixed(1);
            console.log(`── ${label}: ${code === 0 ? "passed" : "FAILED"} (${secs} s) ──`);
            resolve({ label, secs, ok: code === 0, why: `exit ${code ?? signal}` });
          });
        }),
    ),
  );
  const secs = ((Date.now() - t0) / 1000).toFixed(1);
  const failed = results.filter((r) => !r.ok);
  const rows = results.map((r) => [`  · ${r.label}`, r.secs, r.ok ? "passed" : "FAILED"]);
  if (failed.length) fail(name, secs, failed.map((r) => `${r.label}: ${r.why}`).join(", "), rows);
  phases.push([name, secs, "passed"], ...rows);
  console.log(`✔ ${name} (${secs} s)`);
}

function skipped(name, why) {
  if (requirePostgres) {
    phases.push([name, "0.0", "FAILED"]);
    console.error(`\n✖ ${name}: ${why}, and SWITCHYARD_REQUIRE_POSTGRES=1 says it must run`);
    table();
    process.exit(1);
  }
  phases.push([name, "0.0", "skipped"]);
  console.log(`\n▶ ${name} skipped: ${why}`);
}

const chromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
if (!fs.existsSync(chromium)) {
  console.error(`Chromium not found at ${chromium}. Install Debian's package (as root: apt-get update && apt-get install -y chromium), or set CHROMIUM_PATH. \`npm run setup\` does this when it can.`);
  process.exit(1);
}

const pgUrl = process.env.POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const pgWhy = await pgReachable(pgUrl);
const pgSkip = pgWhy && `PostgreSQL is not reachable at ${pgUrl} (${pgWhy})`;

// the build first: `tsc` then also checks the route types it generates (.next/types)
if (process.env.SWITCHYARD_SKIP_BUILD) phases.push(["production build (next build)", "0.0", "skipped (SWITCHYARD_SKIP_BUILD)"]);
else timed("production build (next build, types checked by tsc below)", () => (ensureBuild({ typecheck: false, env }) ? "built" : "reused (up to date)"));
// the type-check (one core) beside the two crash harnesses (their own servers, ports and databases,
// mostly waiting on servers that start and die): together they take about as long as the longest
const kills = process.env.CHAOS_KILLS ?? "5";
const chaosPort = Number(process.env.CHAOS_PORT ?? 3157);
const chaosPg = `crash survival on PostgreSQL, small (a web server, two workers, ${kills} worker kills)`;
if (pgSkip) skipped(chaosPg, pgSkip);
await together(`type-check (tsc) and crash survival, small (npm run chaos with ${kills} kills on SQLite${pgSkip ? "" : " and on PostgreSQL"}), at once`, [
  ["tsc", [bin("typescript", "bin/tsc"), "--noEmit", "-p", "."]],
  ["chaos on SQLite", ["--import", "tsx", "scripts/chaos.ts"], { CHAOS_KILLS: kills, CHAOS_PORT: String(chaosPort) }],
  ...(pgSkip ? [] : [["chaos on PostgreSQL", ["--import", "tsx", "scripts/chaos.ts", "--postgres"], { CHAOS_KILLS: kills, CHAOS_PORT: String(chaosPort + 1) }]]),
]);
step("unit and integration tests (vitest)", [bin("vitest", "vitest.mjs"), "run"]);
step("end-to-end tests (playwright)", [bin("@playwright/test", "cli.js"), "test"]);
// the same browser tests against a PostgreSQL deployment (a web server and two workers), on the
// specs that cross processes most: live updates from workers, child runs, alerts, sign-in and
// roles; their tests of the page alone (tagged @ui: e2e/fixtures.ts) are left out. After the SQLite
// suite, not beside it: two servers, their workers and two browsers on two cores turn the specs'
// waits into load-made timeouts.
const e2ePg = "end-to-end tests on PostgreSQL (a web server and two workers; run-lifecycle, timeline, deep-research, alerts, auth, roles)";
if (pgSkip) skipped(e2ePg, pgSkip);
else step(e2ePg, [bin("@playwright/test", "cli.js"), "test", "--grep-invert", "@ui", "run-lifecycle", "timeline", "deep-research", "alerts", "auth", "roles"], { E2E_POSTGRES: "1", E2E_STAMP: String(Date.now()) });
table();
console.log("\nall tests passed");
