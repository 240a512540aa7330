// Accounts on, on a server of its own (SQLite): the sign-in page shows no pending count and no
// names; a reviewer's pages offer no operator controls (Start run, Abort, event forms, abort
// from the queue) but do offer decisions; a viewer sees decisions disabled, with the reason.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser } from "@playwright/test";
import { expect, test } from "./fixtures";
import { ownPort } from "./helpers";
import AxeBuilder from "@axe-core/playwright";

const PORT = ownPort(41);
const BASE = `http://127.0.0.1:${PORT}`;
const PASSWORD = "correct-horse-battery";
let server: ChildProcess;
let dir: string;

test.skip(process.env.E2E_DB === "postgres", "accounts on a SQLite file of its own (auth.spec.ts covers PostgreSQL)");

test.beforeAll(async () => {
  test.setTimeout(150_000);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-roles-"));
  const env = { ...process.env, PORT: String(PORT), HOSTNAME: "127.0.0.1", DATABASE_URL: `file:${path.join(dir, "roles.db")}`, SWITCHYARD_AUTH: "on", NEXT_TELEMETRY_DISABLED: "1" };
  for (const [name, role] of [["ana", "admin"], ["rita", "reviewer"], ["vic", "viewer"]]) {
    const add = spawnSync(process.execPath, ["--import", "tsx", "scripts/user.ts", "add", "--name", name!, "--role", role!], { env: { ...env, SWITCHYARD_PASSWORD: PASSWORD }, encoding: "utf8" });
    expect(add.stdout + add.stderr).toContain(`user ${name} (${role}) created`);
  }
  server = spawn(process.execPath, ["scripts/start.mjs"], { env, stdio: "ignore", detached: true });
  for (let i = 0; i < 1200; i++) {
    if (await fetch(`${BASE}/api/health`).then((r) => r.ok, () => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("roles server did not start");
});

test.afterAll(async () => {
  if (server?.pid) {
    const gone = server.exitCode === null && server.signalCode === null ? new Promise((r) => server.once("exit", r)) : null;
    process.kill(-server.pid, "SIGKILL");
    await gone;
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

async function signedIn(browser: Browser, name: string, size = { width: 1440, height: 900 }) {
  const context = await browser.newContext({ baseURL: BASE, viewport: size });
  const page = await context.newPage();
  const res = await page.request.post(`${BASE}/api/auth/login`, { data: { name, password: PASSWORD } });
  expect(res.status()).toBe(200);
  return { context, page };
}

test("before sign-in no counts or names; a reviewer's pages without operator controls; a viewer cannot decide", async ({ page, browser }) => {
  test.setTimeout(120_000);
  const ana = await signedIn(browser, "ana");
  const started = await ana.page.request.post(`${BASE}/api/runs`, { data: { workflow: "swiss-army", input: { request: "Roles: a Bash script that rotates logs" } } });
  expect(started.status()).toBe(201);
  const runId = ((await started.json()) as { id: string }).id;
  await expect.poll(async () => ((await (await ana.page.request.get(`${BASE}/api/reviews?status=pending`)).json()) as unknown[]).length).toBe(1);

  // the sign-in page: no pending count, no run names
  await page.goto(`${BASE}/login`);
  await expect(page.getByRole("button", { name: "Sign in" })).toBeVisible();
  await expect(page.getByTestId("pending-count")).toHaveCount(0);
  await expect(page.locator("body")).not.toContainText("rotates logs");
  await page.screenshot({ path: "/tmp/t32-roles-login.png" });
  // and it passes axe-core, light and dark
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const found = (await new AxeBuilder({ page }).analyze()).violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
    expect(found, `sign-in page in ${scheme}`).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: "light" });
  // the admin sees the count
  await ana.page.goto("/");
  await expect(ana.page.getByTestId("pending-count")).toHaveText("1");
  await expect(ana.page.getByRole("button", { name: "Start run" })).toBeVisible();

  // a reviewer: no Start run (the reason instead), no Abort, no event forms; decisions offered
  const rita = await signedIn(browser, "rita");
  await rita.page.goto("/");
  await expect(rita.page.getByRole("button", { name: "Start run" })).toHaveCount(0);
  await expect(rita.page.getByTestId("not-allowed").first()).toContainText("Your role (reviewer) cannot start, steer and stop runs");
  await expect(rita.page.getByTestId("new-run-jump")).toHaveCount(0);
  await rita.page.screenshot({ path: "/tmp/t32-roles-reviewer-runs.png" });
  await rita.page.goto("/workflows/swiss-army");
  await expect(rita.page.getByTestId("run-workflow")).toHaveCount(0);
  await rita.page.goto(`/runs/${runId}`);
  await expect(rita.page.getByTestId("run-page")).toHaveAttribute("data-state", "HUMAN_REVIEW");
  await expect(rita.page.getByTestId("abort-open")).toHaveCount(0);
  await expect(rita.page.locator("[data-testid^=event-form-]")).toHaveCount(0);
  const approve = rita.page.getByTestId("decision-panel").locator("[data-decision=approve]");
  await expect(approve).toBeEnabled();
  await rita.page.screenshot({ path: "/tmp/t32-roles-reviewer-run.png" });
  await rita.page.goto("/review");
  await expect(rita.page.getByRole("button", { name: "Abort selected" })).toHaveCount(0);
  await expect(rita.page.getByRole("button", { name: "Approve selected" })).toBeVisible();
  await expect(rita.page.getByTestId("deciding-as")).toContainText("rita");

  // a viewer: the decision buttons off, with the reason
  const vic = await signedIn(browser, "vic");
  await vic.page.goto("/review");
  const panel = vic.page.locator("[data-testid=review-panel]:visible");
  await expect(panel.locator("[data-decision=approve]")).toBeDisabled();
  await expect(panel.getByTestId("not-allowed")).toContainText("Your role (viewer) cannot decide reviews");
  await expect(vic.page.getByRole("button", { name: "Approve selected" })).toHaveCount(0);
  await vic.page.screenshot({ path: "/tmp/t32-roles-viewer-queue.png" });

  // and the reviewer decides
  await rita.page.goto(`/runs/${runId}`);
  await rita.page.getByTestId("decision-panel").locator("[data-decision=approve]").click();
  await expect(rita.page.getByTestId("run-page")).toHaveAttribute("data-state", "IDLE");
  // now idle: the next request form is an operator's, so the reviewer sees why not
  await expect(rita.page.getByTestId("not-allowed")).toContainText("cannot start, steer and stop runs");
  for (const c of [ana, rita, vic]) await c.context.close();
});
