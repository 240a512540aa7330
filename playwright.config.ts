import { defineConfig } from "@playwright/test";

const port = Number(process.env.E2E_PORT ?? 3123);
const baseURL = `http://127.0.0.1:${port}`;
// a fresh database per test run, created by `npm start` (which migrates first)
const database = process.env.E2E_DATABASE_URL ?? `file:./data/e2e/run-${process.env.E2E_STAMP ?? Date.now()}.db`;
process.env.E2E_STAMP ??= String(Date.now());

export default defineConfig({
  testDir: "e2e",
  fullyParallel: false,
  workers: 1,
  forbidOnly: !!process.env.CI,
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [["list"]],
  outputDir: "test-results/e2e",
  use: {
    baseURL,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    viewport: { width: 1280, height: 800 },
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"],
    },
  },
  webServer: {
    command: "node scripts/start.mjs",
    url: `${baseURL}/api/health`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: "ignore",
    stderr: "pipe",
    env: { PORT: String(port), DATABASE_URL: database, NEXT_TELEMETRY_DISABLED: "1", HOSTNAME: "127.0.0.1", SWITCHYARD_ALERT_INTERVAL_MS: "1000" },
  },
});
