// The review inbox: a dense list beside the selected review's panel at 1440×900, filters and
// search in the URL, the keys, a review decided elsewhere kept in place, and on a phone the list
// then a full-screen review whose decision bar stays on screen (the run page's too).
import type { APIRequestContext, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { clearQueue, expectInboxKeys, expectInFirstScreen, expectNoSidewaysScroll, openInInbox, pendingReviewFor } from "./helpers";

/** at 1440×900 the review panel's top is in the upper part of the screen, level with the list's first rows */
const PANEL_TOP_BELOW = 400;

async function start(request: APIRequestContext, workflow: string, input: Record<string, string>): Promise<string> {
  const res = await request.post("/api/runs", { data: { workflow, input } });
  expect(res.status()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}
const swiss = (request: APIRequestContext, text: string) => start(request, "swiss-army", { request: text });
const row = (page: Page, runId: string) => page.locator(`[data-testid=review-row][data-run="${runId}"]`);
const outcome = async (request: APIRequestContext, runId: string) => ((await (await request.get(`/api/runs/${runId}`)).json()) as { context: { last?: { outcome?: string; feedback?: string } } }).context.last;

test.describe("at 1440×900", () => {
  test.use({ viewport: { width: 1440, height: 900 } });

  test("ten pending reviews: at least eight rows on the first screen, the selected review beside them", async ({ page, request }) => {
    await clearQueue(request);
    const runs: string[] = [];
    for (let i = 1; i <= 9; i++) runs.push(await swiss(request, `Inbox ${i}: a shell script that renames photos by date, variant ${i}`));
    runs.push(await start(request, "deep-research", { topic: "Inbox: how do durable timers survive restarts?" }));
    for (const r of runs) await pendingReviewFor(request, r);
    await page.goto("/review");
    const rows = page.getByTestId("review-row");
    await expect(rows).toHaveCount(10);
    let onScreen = 0;
    for (let i = 0; i < 10; i++) {
      const box = (await rows.nth(i).boundingBox())!;
      if (box.y >= 0 && box.y + box.height <= 900) onScreen++;
    }
    expect(onScreen).toBeGreaterThanOrEqual(8);
    // the oldest is selected, its panel to the right of the list, on the same screen
    const panel = page.locator("[data-testid=review-panel]:visible");
    await expect(panel).toHaveCount(1);
    await expect(panel).toHaveAttribute("data-run", (await rows.first().getAttribute("data-run"))!);
    const list = (await page.getByTestId("review-queue").boundingBox())!;
    const side = (await panel.boundingBox())!;
    expect(side.x).toBeGreaterThanOrEqual(list.x + list.width);
    expect(side.y, "the panel starts in the upper part of the 900 px screen").toBeLessThan(PANEL_TOP_BELOW);
    await expect(panel.locator("[data-decision=approve]")).toBeInViewport();
    // one "deciding as" field for the page, none in the panels
    await expect(page.getByLabel("Deciding as")).toHaveCount(1);
    await expect(panel.getByLabel("Reviewer")).toHaveCount(0);
    await page.screenshot({ path: "/tmp/t32-inbox-1440.png" });

    // filters and search, kept in the URL
    await page.getByLabel("Workflow", { exact: true }).selectOption("deep-research");
    await expect(rows).toHaveCount(1);
    await expect(page).toHaveURL(/\/review\?workflow=deep-research$/);
    await expect(page.locator("[data-testid=review-panel]:visible")).toHaveAttribute("data-run", runs[9]!);
    await page.getByLabel("Workflow", { exact: true }).selectOption("");
    await page.getByRole("searchbox", { name: "Search" }).fill("variant 7");
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toHaveAttribute("data-run", runs[6]!);
    await expect(page).toHaveURL(/\?q=variant\+7$/);
    await page.getByRole("searchbox", { name: "Search" }).fill("");
    await page.getByLabel("Order").selectOption("due");
    await expect(page).toHaveURL(/\?sort=due$/);
    // a link with filters opens filtered; a bad value is left out
    await page.goto(`/review?kind=plan_approval&sort=size`);
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toHaveAttribute("data-run", runs[9]!);
    await expect(page.getByLabel("Kind")).toHaveValue("plan_approval");
    await expect(page.getByLabel("Order")).toHaveValue("age");
    await page.screenshot({ path: "/tmp/t32-inbox-1440-filtered.png" });
    await page.goto(`/review?workflow=swiss-army&q=variant`);
    await expect(rows).toHaveCount(9);
  });

  test("keys: j/k move, ? shows them, a approves after a confirmation, c and e go to the fields, o opens the run", async ({ page, request }) => {
    await clearQueue(request);
    const runs = [await swiss(request, "Keys one: a Go HTTP handler"), await swiss(request, "Keys two: a Rust iterator"), await start(request, "deep-research", { topic: "Keys: what is a saga?" })];
    for (const r of runs) await pendingReviewFor(request, r);
    await page.goto("/review");
    await expectInboxKeys(page);
    const rows = page.getByTestId("review-row");
    await expect(rows).toHaveCount(3);
    // the oldest first, selected; the order is the reviews' (not the runs')
    const order = await rows.evaluateAll((els) => els.map((el) => el.getAttribute("data-run")!));
    const firstSwiss = order.find((r) => r !== runs[2])!;
    await expect(rows.nth(0)).toHaveAttribute("data-selected", "true");
    await page.keyboard.press("j");
    await expect(rows.nth(1)).toHaveAttribute("data-selected", "true");
    await expect(rows.nth(1).getByRole("button")).toBeFocused();
    await page.keyboard.press("k");
    await expect(rows.nth(0)).toHaveAttribute("data-selected", "true");
    await page.keyboard.press("?");
    await expect(page.getByTestId("keys-help")).toContainText("request changes");
    await page.screenshot({ path: "/tmp/t32-inbox-keys.png" });
    await page.keyboard.press("Escape");
    await expect(page.getByTestId("keys-help")).toHaveCount(0);
    // c: to the feedback field, where keys are text
    await row(page, firstSwiss).getByRole("button").click();
    await page.keyboard.press("c");
    const panel = page.locator(`[data-testid=review-panel][data-run="${firstSwiss}"]`);
    await expect(panel.getByLabel("Feedback")).toBeFocused();
    await page.keyboard.type("ja, tidy");
    await expect(page.getByTestId("confirm-dialog")).toHaveCount(0);
    await expect(row(page, firstSwiss)).toHaveAttribute("data-selected", "true");
    await page.keyboard.press("Escape");
    await row(page, firstSwiss).getByRole("button").focus();
    // a: a confirmation, then the panel's own Approve with what was written
    await page.keyboard.press("a");
    await expect(page.getByTestId("confirm-dialog")).toContainText("Approve “Keys");
    await page.keyboard.press("Enter");
    await expect(row(page, firstSwiss)).toHaveCount(0);
    await expect.poll(async () => (await outcome(request, firstSwiss))?.outcome).toBe("approved");
    expect((await outcome(request, firstSwiss))?.feedback).toBe("ja, tidy");
    // e on a plan: its editor opens
    await row(page, runs[2]!).getByRole("button").click();
    await page.keyboard.press("e");
    await expect(page.locator(`[data-testid=review-panel][data-run="${runs[2]}"]`).getByTestId("plan-editor")).toBeVisible();
    // o: the run's page
    const other = runs.find((r) => r !== firstSwiss && r !== runs[2])!;
    await row(page, other).getByRole("button").focus();
    await page.keyboard.press("o");
    await page.waitForURL(`**/runs/${other}`);
  });

  test("a review decided elsewhere stays in place, greyed, says who decided, keeps the draft and is announced", async ({ page, request }) => {
    await clearQueue(request);
    const runs = [await swiss(request, "Elsewhere one: a Python CSV reader"), await swiss(request, "Elsewhere two: a YAML linter")];
    const reviews = [await pendingReviewFor(request, runs[0]!), await pendingReviewFor(request, runs[1]!)];
    await page.goto("/review");
    await expectInboxKeys(page);
    await page.getByLabel("Deciding as").fill("ana");
    const panel = await openInInbox(page, runs[1]!);
    await panel.getByLabel("Feedback").fill("my half-written thoughts");
    expect((await request.post(`/api/reviews/${reviews[1]}/decision`, { data: { decision: "reject", reviewer: "ben", feedback: "no" } })).status()).toBe(200);
    const gone = row(page, runs[1]!);
    await expect(gone).toHaveAttribute("data-gone", "true");
    await expect(gone.getByTestId("review-decided")).toContainText("Rejected by ben");
    await expect(panel.getByTestId("decided-elsewhere")).toContainText(/Rejected by ben · (just now|\d+ s ago)/);
    await expect(panel.getByLabel("Feedback")).toHaveValue("my half-written thoughts");
    await expect(panel.locator("[data-decision=approve]")).toBeDisabled();
    await expect(page.getByTestId("inbox-announce")).toContainText("Rejected by ben");
    // still second: it stays where it was
    await expect(page.getByTestId("review-row").nth(1)).toHaveAttribute("data-run", runs[1]!);
    await page.screenshot({ path: "/tmp/t32-inbox-decided-elsewhere.png" });
    // a keyboard approve on it is refused, the other one still works
    await page.keyboard.press("Escape");
    await gone.getByRole("button").focus();
    await page.keyboard.press("a");
    await expect(page.getByTestId("bulk-result")).toContainText("decided elsewhere");
    await panel.getByRole("button", { name: "Dismiss" }).click();
    await expect(gone).toHaveCount(0);
    await expect(row(page, runs[0]!)).toBeVisible();
  });
});

test.describe("at 390×844", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test("the list, then the review full screen with its decision bar on screen", async ({ page, request }) => {
    await clearQueue(request);
    const runs = [await start(request, "deep-research", { topic: "Phone: how do sagas compensate?" }), await swiss(request, "Phone two: a Makefile for a C project")];
    for (const r of runs) await pendingReviewFor(request, r);
    await page.goto("/review");
    await expect(page.getByTestId("review-row")).toHaveCount(2);
    await expect(page.locator("[data-testid=review-panel]:visible")).toHaveCount(0);
    await expectNoSidewaysScroll(page);
    await page.screenshot({ path: "/tmp/t32-inbox-phone-list.png" });
    const panel = await openInInbox(page, runs[0]!);
    await expect(page.getByTestId("review-row").first()).toBeHidden();
    const approve = panel.locator("[data-decision=approve]");
    const box = (await approve.boundingBox())!;
    expectInFirstScreen(box, "approve");
    expect(box.y).toBeGreaterThan(0);
    await page.screenshot({ path: "/tmp/t32-inbox-phone-review.png" });
    // back to the list
    await panel.getByTestId("inbox-back").click();
    await expect(page.getByTestId("review-row").first()).toBeVisible();
    // and the run page: its first decision within the first screen
    await page.goto(`/runs/${runs[0]}`);
    await expect(page.getByTestId("run-page")).toHaveAttribute("data-state", "PLANNING.approval");
    const first = page.locator("[data-testid=decision-panel] [data-decision]").first();
    const b = (await first.boundingBox())!;
    expectInFirstScreen(b, "the first decision");
    await page.screenshot({ path: "/tmp/t32-run-phone.png" });
    await page.goto(`/runs/${runs[1]}`);
    const b2 = (await page.locator("[data-testid=decision-panel] [data-decision]").first().boundingBox())!;
    expectInFirstScreen(b2, "the first decision");
    await page.screenshot({ path: "/tmp/t32-run-phone-swiss.png" });
  });
});

test("a run page that waits for a person: its first decision button within three Tab presses", async ({ page, request }) => {
  const runId = await swiss(request, "Skip: a regex for UK postcodes");
  await pendingReviewFor(request, runId);
  await page.goto(`/runs/${runId}`);
  await expect(page.locator("[data-testid=decision-panel] [data-decision]").first()).toBeVisible();
  let presses = 0;
  for (; presses < 3; presses++) {
    const focused = await page.evaluate(() => document.activeElement?.getAttribute("data-decision") ?? null);
    if (focused) break;
    await page.keyboard.press("Tab");
    const skip = page.getByTestId("skip-link");
    if (await skip.evaluate((el) => el === document.activeElement)) {
      await expect(skip).toHaveText("Skip to the decision");
      await page.keyboard.press("Enter");
    }
  }
  expect(presses).toBeLessThanOrEqual(3);
  await expect(page.locator("[data-testid=decision-panel] [data-decision=approve]")).toBeFocused();
  // a page without a decision: the link goes to the main content
  await page.goto("/workflows");
  await page.keyboard.press("Tab");
  await expect(page.getByTestId("skip-link")).toHaveText("Skip to main content");
  await expect(page.getByTestId("skip-link")).toBeInViewport();
});
