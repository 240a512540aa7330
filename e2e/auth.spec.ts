// Accounts on (SWITCHYARD_AUTH=on), on a server of its own: pages send you to sign in, a wrong
// password is refused, the right one lets you in, the API wants a session or a token, and
// signing out ends it.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { shot } from "./helpers";

const PORT = 3124;
const BASE = `http://127.0.0.1:${PORT}`;
let server: ChildProcess;
let dir: string;

test.beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-auth-"));
  const env = { ...process.env, PORT: String(PORT), HOSTNAME: "127.0.0.1", DATABASE_URL: `file:${path.join(dir, "auth.db")}`, SWITCHYARD_AUTH: "on", NEXT_TELEMETRY_DISABLED: "1" };
  // the first admin, as the README says
  const add = spawnSync(process.execPath, ["--import", "tsx", "scripts/user.ts", "add", "--name", "ana", "--role", "admin"], { env: { ...env, SWITCHYARD_PASSWORD: "correct-horse-battery" }, encoding: "utf8" });
  expect(add.stdout + add.stderr).toContain("user ana (admin) created");
  server = spawn(process.execPath, ["scripts/start.mjs"], { env, stdio: "ignore", detached: true });
  for (let i = 0; i < 600; i++) {
    const ok = await fetch(`${BASE}/api/health`).then((r) => r.ok, () => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("auth server did not start");
});

test.afterAll(() => {
  if (server?.pid) process.kill(-server.pid, "SIGKILL");
  fs.rmSync(dir, { recursive: true, force: true });
});

test("sign in, work, sign out", async ({ page, request }) => {
  await page.goto(`${BASE}/review`);
  await page.waitForURL(/\/login\?next=%2Freview/);
  await page.getByLabel("Name").fill("ana");
  await page.getByLabel("Password").fill("wrong-password-here");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.locator("form [role=alert]")).toContainText("wrong name or password");
  await shot(page, "auth-login-refused");
  await page.getByLabel("Password").fill("correct-horse-battery");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${BASE}/review`);
  await expect(page.getByTestId("user-bar")).toContainText("signed in as ana (admin)");
  // the page's own API calls carry the session
  const me = await page.evaluate(() => fetch("/api/auth/me").then((r) => r.json()));
  expect(me).toMatchObject({ accounts: true, user: { name: "ana", role: "admin" } });
  await shot(page, "auth-signed-in");
  // without a session or token the API refuses
  expect((await request.get(`${BASE}/api/runs`)).status()).toBe(401);
  expect((await request.post(`${BASE}/api/runs`, { data: { workflow: "swiss-army", input: { request: "x" } } })).status()).toBe(401);
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(/\/login/);
  await page.goto(`${BASE}/`);
  await page.waitForURL(/\/login/);
  // a forged cookie gets nowhere either
  await page.context().addCookies([{ name: "sy_session", value: "forged", url: BASE }]);
  await page.goto(`${BASE}/workflows`);
  await page.waitForURL(/\/login\?next=%2Fworkflows/);
});
