// Every page through axe-core, in light with every rule and in dark with the colour rules (all that
// the scheme changes): no serious or critical violation (contrast, names, links told apart by colour
// only, scroll regions a keyboard cannot reach, …).
import type { APIRequestContext } from "@playwright/test";
import { seriousViolations as violations } from "./axe";
import { expect, test } from "./fixtures";
import { pendingReviewFor } from "./helpers";

test.use({ viewport: { width: 1440, height: 900 } });
// the parts are the suite's longest tests: they share both workers (each on its worker's server)
test.describe.configure({ mode: "parallel" });

async function start(request: APIRequestContext, workflow: string, input: Record<string, string>): Promise<string> {
  const res = await request.post("/api/runs", { data: { workflow, input } });
  expect(res.status()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

/**
 * The rules whose outcome depends on colours: all that can change between light and dark (the
 * schemes differ only in CSS colours; names, roles, structure and layout are the same).
 */
const COLOUR_RULES = ["color-contrast", "link-in-text-block"];

/** the runs the pages show, started once per worker (its server) and shared by its tests */
let seeded: Promise<{ waiting: string; plan: string; done: string }> | undefined;

async function seed(request: APIRequestContext) {
  const waiting = await start(request, "swiss-army", { request: "Accessibility: a Bash script that backs up a folder" });
  const plan = await start(request, "deep-research", { topic: "Accessibility: how are durable timers stored?" });
  const done = await start(request, "swiss-army", { request: "Accessibility: a regex for hex colours" });
  const review = await pendingReviewFor(request, done);
  expect((await request.post(`/api/reviews/${review}/decision`, { data: { decision: "approve" } })).status()).toBe(200);
  await pendingReviewFor(request, waiting);
  await pendingReviewFor(request, plan);
  return { waiting, plan, done };
}

let pages: string[] = [];
let ruleId = "";

// in parallel mode each test runs the hooks for itself: the runs are made by the worker's first
// test only; the alert rule is each test's own (its afterAll removes it before the worker's next spec)
test.beforeAll(async ({ request }) => {
  const { waiting, plan, done } = await (seeded ??= seed(request));
  // an open alert, so the banner on every page and the workflow page's alerts panel are checked too
  // (a run waiting in HUMAN_REVIEW longer than half a second breaches the rule; removed afterwards)
  const rule = await request.post("/api/alerts/rules", { data: { workflow: "swiss-army", state: "HUMAN_REVIEW", metric: "waiting", threshold: 500 } });
  expect(rule.status(), await rule.text()).toBe(201);
  ruleId = ((await rule.json()) as { rule: { id: string } }).rule.id;
  await expect
    .poll(async () => ((await (await request.get("/api/alerts?status=open&workflow=swiss-army")).json()) as { alerts: { ruleId?: string; state: string }[] }).alerts.some((a) => a.state === "HUMAN_REVIEW"), { timeout: 30_000 })
    .toBe(true);
  pages = [
    "/",
    "/runs",
    "/review",
    `/runs/${waiting}`,
    `/runs/${plan}`,
    `/runs/${done}`,
    `/runs/${done}/timeline`,
    `/runs/${waiting}/compare/${done}`,
    "/workflows",
    "/workflows/swiss-army",
    "/workflows/deep-research",
    "/workflows/new",
    "/schedules",
    "/evals",
    "/log",
    "/knowledge",
    "/settings",
    "/compare",
    "/api-reference",
  ];
});

test.afterAll(async ({ request }) => {
  if (ruleId) await expect(await request.delete(`/api/alerts/rules/${ruleId}`)).toBeOK();
  ruleId = "";
});

// each page is loaded once and checked twice: in light with every rule, then in dark with the
// colour rules (the rest cannot differ from light); in parts of a few pages each (axe is the
// suite's heaviest work: a part is a test the workers share)
const PARTS = 4;
for (let part = 0; part < PARTS; part++) {
  test(`every page (part ${part + 1} of ${PARTS}): no serious or critical axe-core violation in light, nor of colour in dark`, async ({ page }) => {
    test.setTimeout(240_000);
    const found: Record<string, string[]> = {};
    for (const path of pages.filter((_, i) => i % PARTS === part)) {
      await page.emulateMedia({ colorScheme: "light" });
      await page.goto(path);
      await page.waitForLoadState("load");
      await expect(page.locator("main")).toBeVisible();
      // Swagger UI renders after the page loads: check it once its operations are there
      if (path === "/api-reference") await expect(page.locator("[data-testid=api-reference] .opblock").first()).toBeVisible({ timeout: 20_000 });
      const light = await violations(page);
      await page.emulateMedia({ colorScheme: "dark" });
      // the page has taken the dark scheme (the body's colours come from prefers-color-scheme)
      await expect.poll(() => page.evaluate(() => matchMedia("(prefers-color-scheme: dark)").matches)).toBe(true);
      // colour transitions (Tailwind's transition-colors) ended: axe reads the dark colours, not a blend
      await page.evaluate(() => Promise.all(document.getAnimations().filter((a) => a.effect?.getTiming().iterations !== Infinity).map((a) => a.finished.catch(() => {}))));
      const dark = await violations(page, COLOUR_RULES);
      if (light.length) found[`${path} (light)`] = light;
      if (dark.length) found[`${path} (dark)`] = dark;
    }
    expect(found).toEqual({});
  });
}
