// Every page through axe-core, in light with every rule and in dark with the colour rules (all that
// the scheme changes): no serious or critical violation (contrast, names, links told apart by colour
// only, scroll regions a keyboard cannot reach, …).
import AxeBuilder from "@axe-core/playwright";
import type { APIRequestContext, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { pendingReviewFor } from "./helpers";

test.use({ viewport: { width: 1440, height: 900 } });
// light and dark are the suite's two longest tests: each in its own worker (the beforeAll then runs
// in each, on that worker's server)
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

/** serious and critical violations on the page as it is, one line each with where (the sign-in page: e2e/roles.spec.ts); `rules`: only those */
async function violations(page: Page, rules?: string[]): Promise<string[]> {
  const builder = new AxeBuilder({ page });
  const result = await (rules ? builder.withRules(rules) : builder).analyze();
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .flatMap((v) => v.nodes.slice(0, 5).map((n) => `${v.id} (${v.impact}): ${n.target.join(" ")} — ${n.failureSummary?.split("\n").slice(1, 2).join(" ").trim() ?? v.help}`));
}

let pages: string[] = [];
let ruleId = "";

test.beforeAll(async ({ request }) => {
  const waiting = await start(request, "swiss-army", { request: "Accessibility: a Bash script that backs up a folder" });
  const plan = await start(request, "deep-research", { topic: "Accessibility: how are durable timers stored?" });
  const done = await start(request, "swiss-army", { request: "Accessibility: a regex for hex colours" });
  const review = await pendingReviewFor(request, done);
  expect((await request.post(`/api/reviews/${review}/decision`, { data: { decision: "approve" } })).status()).toBe(200);
  await pendingReviewFor(request, waiting);
  await pendingReviewFor(request, plan);
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
});

// light: every rule; dark: the colour rules (the rest cannot differ from light)
// in parts of a few pages each (axe is the suite's heaviest work: a part is a test the workers share)
const PARTS = 6;
for (const scheme of ["light", "dark"] as const) {
  for (let part = 0; part < PARTS; part++) {
    test(`every page in ${scheme} (part ${part + 1} of ${PARTS}): no serious or critical axe-core violation${scheme === "dark" ? " of colour" : ""}`, async ({ page }) => {
      test.setTimeout(240_000);
      await page.emulateMedia({ colorScheme: scheme });
      const found: Record<string, string[]> = {};
      for (const path of pages.filter((_, i) => i % PARTS === part)) {
        await page.goto(path);
        await page.waitForLoadState("load");
        await expect(page.locator("main")).toBeVisible();
        // Swagger UI renders after the page loads: check it once its operations are there
        if (path === "/api-reference") await expect(page.locator("[data-testid=api-reference] .opblock").first()).toBeVisible({ timeout: 20_000 });
        const v = await violations(page, scheme === "dark" ? COLOUR_RULES : undefined);
        if (v.length) found[path] = v;
      }
      expect(found).toEqual({});
    });
  }
}
