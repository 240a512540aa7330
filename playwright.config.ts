import { defineConfig } from "@playwright/test";
import { CHROMIUM_ARGS, SUITE_ENV, WORKERS } from "./e2e/suite-env";

const port = Number(process.env.E2E_PORT ?? 3123);
const baseURL = `http://127.0.0.1:${port}`;
// one stamp per test run (set here, inherited by Playwright's worker processes, which load this file again)
const stamp = (process.env.E2E_STAMP ??= String(Date.now()));
// E2E_POSTGRES=1 (or E2E_DATABASE_URL=postgresql://…): the suite runs against a PostgreSQL
// deployment, a web-only server and two workers (`npm run cluster`), on a fresh schema
// sy_e2e_<stamp> of POSTGRES_URL. Otherwise a fresh SQLite file. Either way the server migrates
// it first (`npm start`), which creates it.
const postgres = process.env.E2E_POSTGRES === "1" || /^postgres(ql)?:\/\//i.test(process.env.E2E_DATABASE_URL ?? "");
const pgBase = process.env.POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const database =
  process.env.E2E_DATABASE_URL ?? (postgres ? `${pgBase}${pgBase.includes("?") ? "&" : "?"}schema=sy_e2e_${stamp}` : `file:./data/e2e/run-${stamp}.db`);
// the queue (pg-boss) in the same schema as the tables, so one DROP SCHEMA removes a run's all
const schema = postgres ? (new URL(database).searchParams.get("schema") ?? undefined) : undefined;
// for the specs (auth.spec.ts starts a server of its own) and e2e/global-setup.ts
process.env.E2E_DB = postgres ? "postgres" : "sqlite";
process.env.E2E_DB_URL = database;

export default defineConfig({
  testDir: "e2e",
  // a spec file's tests run in order in one worker; files go to E2E_WORKERS workers (default 2),
  // each with a server and database of its own (the first uses the webServer below, the others
  // start theirs: e2e/fixtures.ts), so no spec sees another worker's runs
  fullyParallel: false,
  workers: WORKERS,
  forbidOnly: !!process.env.CI,
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [["list"]],
  // a folder per database: npm test runs the two suites at once, and each run empties its folder first
  outputDir: postgres ? "test-results/e2e-postgres" : "test-results/e2e",
  globalSetup: "./e2e/global-setup.ts",
  use: {
    baseURL,
    // a trace of a failed test's retry (CI retries once; locally: --trace on). Recording every
    // attempt, to keep the failed ones, cost the suite about a third of its time (measured on
    // run-lifecycle and timeline: 132–143 s with it, 97–100 s without)
    trace: "on-first-retry",
    screenshot: "only-on-failure",
    viewport: { width: 1280, height: 800 },
    // the app honours prefers-reduced-motion (no endless animations: the last edge's flow, the live
    // state's ping), which keeps pages from repainting 60 times a second while a spec waits
    // (measured: an idle run page 3.8 → 0.6 CPU-s per 10 s); e2e/run-lifecycle.spec.ts checks both
    reducedMotion: "reduce",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: CHROMIUM_ARGS,
    },
  },
  webServer: {
    command: postgres ? "node scripts/cluster.mjs --workers 2" : "node scripts/start.mjs",
    url: `${baseURL}/api/health`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: "ignore",
    stderr: "pipe",
    // the cluster: SIGTERM lets the workers hand their jobs back and close their connections
    ...(postgres ? { gracefulShutdown: { signal: "SIGTERM" as const, timeout: 15_000 } } : {}),
    env: {
      PORT: String(port),
      DATABASE_URL: database,
      ...SUITE_ENV,
      ...(schema && !process.env.SWITCHYARD_QUEUE_SCHEMA ? { SWITCHYARD_QUEUE_SCHEMA: schema.toLowerCase() } : {}),
    },
  },
});
