// Accounts on (SWITCHYARD_AUTH=on), on a server of its own: pages send you to sign in, a wrong
// password is refused, the right one lets you in, the API wants a session or a token, and
// signing out ends it. On a SQLite file of its own, or with E2E_POSTGRES=1 on a PostgreSQL
// schema of its own (sy_e2e_<stamp>_auth, dropped afterwards) served by a web server and a worker.
import { expect, test } from "./fixtures";
import { ownPort, shot } from "./helpers";
import { OwnServer } from "./own-server";

const server = new OwnServer("auth", ownPort(1), { SWITCHYARD_AUTH: "on" });
const BASE = server.base;

test.beforeAll(async () => {
  test.setTimeout(150_000);
  // the first admin, as the README says
  expect(server.addUser("ana", "admin", "correct-horse-battery")).toContain("user ana (admin) created");
  await server.start();
});

test.afterAll(() => server.stop());

// the wrong password on purpose: the sign-in call's 401, which Chromium logs as a failed load
test.use({ allowConsoleErrors: [/401 \(Unauthorized\) \(http:\/\/127\.0\.0\.1:\d+\/api\/auth\/login\)/] });

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
  // the API reference is a page like any other: signed in, it renders the document
  await page.goto(`${BASE}/api-reference`);
  await expect(page.locator("[data-testid=api-reference] .opblock").first()).toBeVisible({ timeout: 20_000 });
  await page.goBack();
  // without a session or token the API refuses
  expect((await request.get(`${BASE}/api/runs`)).status()).toBe(401);
  expect((await request.get(`${BASE}/api/openapi.json`)).status()).toBe(401);
  expect((await request.post(`${BASE}/api/runs`, { data: { workflow: "swiss-army", input: { request: "x" } } })).status()).toBe(401);
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(/\/login/);
  await page.goto(`${BASE}/`);
  await page.waitForURL(/\/login/);
  // a forged cookie gets nowhere either
  await page.context().addCookies([{ name: "sy_session", value: "forged", url: BASE }]);
  await page.goto(`${BASE}/workflows`);
  await page.waitForURL(/\/login\?next=%2Fworkflows/);
  await page.goto(`${BASE}/api-reference`);
  await page.waitForURL(/\/login\?next=%2Fapi-reference/);
});

test("an admin puts people in groups on the Settings page", async ({ page }) => {
  await page.goto(`${BASE}/login?next=%2Fsettings`);
  await page.getByLabel("Name").fill("ana");
  await page.getByLabel("Password").fill("correct-horse-battery");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${BASE}/settings`);
  const groups = page.getByTestId("groups");
  await expect(groups).toContainText("No groups yet.");
  await groups.getByLabel("Person").selectOption("ana");
  await groups.getByLabel("Group").fill("Legal");
  await groups.getByRole("button", { name: "Add to group" }).click();
  await expect(groups.getByRole("status")).toHaveText("ana is in legal");
  await expect(groups.locator('[data-group="legal"]')).toContainText("ana");
  // a bad name is refused with the reason, nothing changes
  await groups.getByLabel("Person").selectOption("ana");
  await groups.getByLabel("Group").fill("no spaces please");
  await groups.getByRole("button", { name: "Add to group" }).click();
  await expect(groups.getByRole("status")).toContainText("a group name is lower-case letters");
  await page.setViewportSize({ width: 1440, height: 900 });
  await groups.scrollIntoViewIfNeeded();
  await shot(page, "auth-settings-groups");
  await groups.getByRole("button", { name: "Remove ana from legal" }).click();
  await expect(groups.getByRole("status")).toHaveText("ana is in no group");
  await expect(groups).toContainText("No groups yet.");
});
