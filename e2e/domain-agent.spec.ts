// The domain agent in the browser, on the offline engine: a LOG of two weeks, a QUERY that
// needs a clarification (answered in the decision panel), and a BOTH input whose log and query
// branches run as parallel regions — then the Log page with its filters and global context.
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { shot } from "./helpers";

/** A screenshot with the run's own views (answer, reasoning …) in sight. */
async function viewsShot(page: Page, name: string) {
  await page.getByTestId("run-views").scrollIntoViewIfNeeded();
  await page.mouse.wheel(0, 300);
  await shot(page, name);
}

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/** Last week rested; this week short nights, high stress, low protein. */
function twoWeeks(): string {
  const lines: string[] = [];
  for (let i = 13; i >= 1; i--) {
    const thisWeek = i <= 6;
    lines.push(`${day(-i)}: slept ${thisWeek ? 5.5 : 7.5} h, resting HR ${thisWeek ? 58 : 50}, HRV ${thisWeek ? 52 : 68}, soreness ${thisWeek ? 6 : 3}/10`);
    if (i % 2 === 0) lines.push(`${day(-i)}: ran ${thisWeek ? 14 : 8} km in ${thisWeek ? 80 : 45} min, RPE ${thisWeek ? 8 : 5}`);
    if (thisWeek && i % 3 === 0) lines.push(`${day(-i)}: slept badly again, stress 8/10 with the deadline`);
    lines.push(`${day(-i)}: protein ${thisWeek ? 90 : 130} g, 2400 kcal`);
  }
  return lines.join("\n");
}

async function start(page: Page, text: string): Promise<string> {
  await page.goto("/");
  await page.getByLabel("Workflow", { exact: true }).selectOption("domain-agent");
  await page.getByTestId("new-run-form").getByLabel("Text").fill(text);
  await page.getByRole("button", { name: "Start run" }).click();
  await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/);
  return page.url().split("/").pop()!;
}

test("LOG: two weeks of lines become entries, listed and filtered on the Log page", async ({ page, request }) => {
  const id = await start(page, twoWeeks());
  await expect(page.getByTestId("run-page")).toHaveAttribute("data-state", "COMPLETE", { timeout: 20_000 });
  const views = page.getByTestId("run-views");
  await views.getByRole("button", { name: /Entries/ }).click();
  await expect(page.getByTestId("agent-entries")).toContainText(day(-13));
  await expect(page.getByTestId("agent-entries")).toContainText("sleep hours 5.5 h");
  await viewsShot(page, "agent-log-run");

  const api = (await (await request.get(`/api/entries?domain=sleep&from=${day(-6)}&to=${day(-1)}`)).json()) as { entries: { runId: string; day: string; domains: string[] }[] };
  expect(api.entries.filter((e) => e.runId === id).length).toBeGreaterThanOrEqual(6);
  expect(api.entries.every((e) => e.domains.includes("sleep") && e.day >= day(-6) && e.day <= day(-1))).toBe(true);
  expect((await request.get("/api/entries?domain=astrology")).status()).toBe(422);

  await page.getByRole("link", { name: "Log", exact: true }).click();
  await expect(page).toHaveURL(/\/log$/);
  await expect(page.getByTestId("log-entries")).toContainText("stress 8/10 with the deadline");
  const filters = page.getByTestId("log-filters");
  await filters.getByLabel("Domain").selectOption("sleep");
  await filters.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(/domain=sleep/);
  await expect(page.getByTestId("log-entries")).not.toContainText("2400 kcal");
  await shot(page, "agent-log-page");
});

test("QUERY needing a clarification: the question waits in the decision panel, the answer completes the run and lands in the global context", async ({ page }) => {
  const id = await start(page, "Am I eating enough protein this week?");
  const runPage = page.getByTestId("run-page");
  await expect(runPage).toHaveAttribute("data-state", "WAIT_USER", { timeout: 20_000 });
  const panel = page.getByTestId("decision-panel");
  await expect(panel).toContainText("What is your body weight (kg)?");
  await expect(panel.getByTestId("clarification")).toContainText("Am I eating enough protein this week?");
  await expect(page.locator('[data-testid=diagram] [data-state="WAIT_USER"]')).toHaveAttribute("data-status", "waiting");
  await shot(page, "agent-clarify");

  // an empty answer is refused with a message, the run keeps waiting
  await panel.getByRole("button", { name: "Send answer" }).click();
  await expect(panel).toContainText("an answer is required");
  await panel.getByLabel("Your answer").fill("74 kg");
  await panel.getByRole("button", { name: "Send answer" }).click();
  await expect(runPage).toHaveAttribute("data-state", "COMPLETE", { timeout: 20_000 });

  const answer = page.getByTestId("agent-answer");
  await expect(answer).toContainText("g per kg of body weight (74 kg)");
  await expect(answer).toContainText("data checks passed (offline, no model read it)");
  await expect(answer).not.toContainText("evaluation PASS");
  await viewsShot(page, "agent-clarified-answer");
  await page.getByTestId("run-views").getByRole("button", { name: "Observer" }).click();
  await expect(page.getByTestId("agent-observer")).toContainText("user_correction");
  await expect(page.getByTestId("agent-observer")).toContainText("body_weight_kg");

  await page.goto("/log");
  const fact = page.locator('[data-testid=profile-fact][data-key="body_weight_kg"]');
  await expect(fact.getByTestId("fact-value")).toHaveText("74");
  await expect(fact).toContainText("you answered");
  await shot(page, "agent-log-global-context");
  void id;
});

test("BOTH: the log branch and the query branch run as parallel regions; the answer explains with likely contributors", async ({ page, request }) => {
  const id = await start(page, "slept 4 h, resting HR 66, stress 9/10\nWhy is my recovery worse this week?");
  await expect(page.getByTestId("run-page")).toHaveAttribute("data-state", "COMPLETE", { timeout: 20_000 });
  // the diagram draws BOTH_SPLIT with its two regions side by side
  const diagram = page.getByTestId("diagram");
  for (const s of ["BOTH_SPLIT", "BOTH_SPLIT.PARSE_BRANCH", "BOTH_SPLIT.PLAN_BRANCH", "BOTH_SPLIT.PARSE_BRANCH.STORE", "BOTH_SPLIT.PLAN_BRANCH.EVALUATE"]) {
    await expect(diagram.locator(`[data-state="${s}"]`)).toHaveCount(1);
  }
  const parse = await diagram.locator('[data-state="BOTH_SPLIT.PARSE_BRANCH"]').boundingBox();
  const plan = await diagram.locator('[data-state="BOTH_SPLIT.PLAN_BRANCH"]').boundingBox();
  expect(parse && plan && (parse.x + parse.width <= plan.x || plan.x + plan.width <= parse.x)).toBeTruthy();
  const answer = page.getByTestId("agent-answer");
  await expect(answer).toContainText("Your recovery is worse over this week");
  await expect(answer).toContainText("Likely contributors");
  await shot(page, "agent-both");

  const steps = (await (await request.get(`/api/runs/${id}/transitions`)).json()) as { to: string; reason: string }[];
  const split = steps.find((s) => s.reason.startsWith("input_type == BOTH"))!;
  expect(split.to.split(",").sort()).toEqual(["BOTH_SPLIT.PARSE_BRANCH.PARSE", "BOTH_SPLIT.PLAN_BRANCH.PLAN"]);
  expect(steps.map((s) => s.reason)).toContain("Both branches done");

  await page.getByTestId("run-views").getByRole("button", { name: "Reasoning" }).click();
  await expect(page.getByTestId("agent-reasoning")).toContainText("Expanded from PLAN");
  await viewsShot(page, "agent-both-reasoning");
});
