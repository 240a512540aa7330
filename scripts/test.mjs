// npm test — everything, in order: type-check, unit + integration tests (vitest), one
// production build, then the Playwright e2e suite against it in Debian's Chromium.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import pg from "pg";

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

function step(name, args, extra = {}) {
  const started = Date.now();
  console.log(`\n▶ ${name}`);
  const r = spawnSync(process.execPath, args, { stdio: "inherit", env: { ...env, ...extra } });
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  if (r.status !== 0) {
    console.error(`✖ ${name} failed after ${secs} s`);
    process.exit(r.status ?? 1);
  }
  console.log(`✔ ${name} (${secs} s)`);
}

const chromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
if (!fs.existsSync(chromium)) {
  console.error(`Chromium not found at ${chromium}. Install Debian's package (as root: apt-get update && apt-get install -y chromium), or set CHROMIUM_PATH. \`npm run setup\` does this when it can.`);
  process.exit(1);
}

step("type-check (tsc)", [bin("typescript", "bin/tsc"), "--noEmit", "-p", "."]);
step("unit and integration tests (vitest)", [bin("vitest", "vitest.mjs"), "run"]);
if (!process.env.SWITCHYARD_SKIP_BUILD) step("production build (next build)", [bin("next", "dist/bin/next"), "build"]);
step("crash survival, small (npm run chaos with 5 kills)", ["--import", "tsx", "scripts/chaos.ts"], { CHAOS_KILLS: process.env.CHAOS_KILLS ?? "5" });
step("crash survival on PostgreSQL, small (a web server, two workers, 5 worker kills; skipped when PostgreSQL is not reachable)", ["--import", "tsx", "scripts/chaos.ts", "--postgres"], { CHAOS_KILLS: process.env.CHAOS_KILLS ?? "5" });
step("end-to-end tests (playwright)", [bin("@playwright/test", "cli.js"), "test"]);
// the same browser tests against a PostgreSQL deployment (a web server and two workers), on the
// specs that cross processes most: live updates from workers, child runs, alerts, sign-in
const pgUrl = process.env.POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const why = await pgReachable(pgUrl);
if (why) console.log(`\n▶ end-to-end tests on PostgreSQL skipped: PostgreSQL is not reachable at ${pgUrl} (${why})`);
else step("end-to-end tests on PostgreSQL (a web server and two workers; run-lifecycle, timeline, deep-research, alerts, auth)", [bin("@playwright/test", "cli.js"), "test", "run-lifecycle", "timeline", "deep-research", "alerts", "auth"], { E2E_POSTGRES: "1", E2E_STAMP: String(Date.now()) });
console.log("\nall tests passed");
