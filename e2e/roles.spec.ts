// Accounts on, on a server of its own (a SQLite file, or with E2E_POSTGRES=1 a PostgreSQL schema
// served by a web server and a worker: e2e/own-server.ts): the sign-in page shows no pending
// count and no names; a reviewer's pages offer no operator controls (Start run, Abort, event
// forms, abort from the queue) but do offer decisions; a viewer sees decisions disabled, with
// the reason.
import type { Browser } from "@playwright/test";
import { expect, test } from "./fixtures";
import { ownPort } from "./helpers";
import { OwnServer } from "./own-server";
import { seriousViolations } from "./axe";

const PASSWORD = "correct-horse-battery";
const server = new OwnServer("roles", ownPort(41), { SWITCHYARD_AUTH: "on" });
const BASE = server.base;

test.beforeAll(async () => {
  test.setTimeout(150_000);
  for (const [name, role] of [["ana", "admin"], ["rita", "reviewer"], ["vic", "viewer"]] as const) expect(server.addUser(name, role, PASSWORD)).toContain(`user ${name} (${role}) created`);
  await server.start();
});

test.afterAll(() => server.stop());

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
    expect(await seriousViolations(page), `sign-in page in ${scheme}`).toEqual([]);
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
