// Conveniences: the nav on one line and "New run" at the top on a phone; a Run
// button on each workflow page that preselects the workflow with a placeholder of its own; a
// message naming an edge's label moves along it; export a run and its report; bulk actions and
// the keyboard in the review queue; dark mode that follows the system.
import fs from "node:fs";
import type { APIRequestContext, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { expectInboxKeys, expectNoSidewaysScroll, pendingReviewFor, shot } from "./helpers";

async function startSwiss(request: APIRequestContext, text: string): Promise<string> {
  const res = await request.post("/api/runs", { data: { workflow: "swiss-army", input: { request: text } } });
  expect(res.status()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

test.use({ viewport: { width: 1440, height: 900 } });

/** abort every run still waiting on a person (left by an earlier test), so a queue test starts empty */
async function clearQueue(request: APIRequestContext) {
  const pending = (await (await request.get("/api/reviews?status=pending&limit=1000")).json()) as { runId: string }[];
  for (const r of pending) await request.post(`/api/runs/${r.runId}/abort`, { data: {} });
  await expect.poll(async () => ((await (await request.get("/api/reviews?status=pending")).json()) as unknown[]).length).toBe(0);
}

/** luminance (0..255) above which text reads as light: on the dark theme's cards it stays readable */
const LIGHT_TEXT = 120;

/** a CSS colour (Tailwind 4 computes oklch) as sRGB luminance 0..255, read back from a canvas */
async function luminance(page: Page, color: string): Promise<number> {
  return page.evaluate((c) => {
    const ctx = document.createElement("canvas").getContext("2d")!;
    ctx.fillStyle = c;
    ctx.fillRect(0, 0, 1, 1);
    const [r, g, b] = ctx.getImageData(0, 0, 1, 1).data;
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  }, color);
}

const item = (page: Page, runId: string) => page.locator(`[data-testid=review-row][data-run="${runId}"]`);

test("on a phone the nav is one line and New run is reachable from the top", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/");
  const header = await page.locator("header").boundingBox();
  expect(header!.height).toBeLessThanOrEqual(56);
  const tops = new Set<number>();
  for (const label of [/^Runs$/, /^Review queue/, /^Workflows$/, /^Log$/, /^Knowledge$/, /^Settings$/]) {
    const box = (await page.locator("header nav").getByRole("link", { name: label }).boundingBox())!;
    expect(box.x >= 0 && box.x + box.width <= 390, `${label} is on screen`).toBe(true);
    tops.add(Math.round(box.y));
  }
  expect([...tops]).toHaveLength(1);
  const jump = page.getByTestId("new-run-jump");
  const box = (await jump.boundingBox())!;
  expect(box.y + box.height).toBeLessThan(844 / 2);
  await shot(page, "conveniences-phone-top");
  await jump.click();
  await expect(page).toHaveURL(/#new-run$/);
  await expect(page.getByTestId("new-run-form").getByLabel("Request")).toBeFocused();
  await expect(page.getByTestId("new-run-form").getByLabel("Request")).toBeInViewport();
  await shot(page, "conveniences-phone-new-run");
});

test("a workflow page's Run button opens the New run form with the workflow and its own placeholder", async ({ page }) => {
  await page.goto("/workflows/deep-research");
  await page.getByTestId("run-workflow").click();
  await page.waitForURL(/\/\?workflow=deep-research#new-run$/);
  await expect(page.getByLabel("Workflow", { exact: true })).toHaveValue("deep-research");
  const field = page.getByTestId("new-run-form").locator("textarea").first();
  await expect(field).toBeFocused();
  const placeholder = await field.getAttribute("placeholder");
  expect(placeholder?.length).toBeGreaterThan(5);
  // another workflow's placeholder is its own
  await page.goto("/?workflow=swiss-army");
  await expect(page.getByLabel("Workflow", { exact: true })).toHaveValue("swiss-army");
  await expect(page.getByTestId("new-run-form").getByLabel("Request")).not.toHaveAttribute("placeholder", placeholder!);
  await shot(page, "conveniences-run-button");
});

test("a user-defined workflow: Run button, a placeholder from its labels, a message naming a label moves along it", async ({ page, request }) => {
  const id = `labels-${Date.now().toString(36)}`;
  const mermaid = ["stateDiagram-v2", "    [*] --> NEW", "    NEW --> TRIAGE: assigned to a team", "    TRIAGE --> DONE: fixed", "    TRIAGE --> NEW: bounced", "    DONE --> [*]"].join("\n");
  expect((await request.post("/api/workflows", { data: { id, mermaid } })).status()).toBe(201);
  await page.goto(`/workflows/${id}`);
  await page.getByTestId("run-workflow").click();
  await expect(page.getByLabel("Workflow", { exact: true })).toHaveValue(id);
  await expect(page.getByRole("textbox", { name: "task", exact: true })).toHaveAttribute("placeholder", 'e.g. "assigned to a team" (moves NEW → TRIAGE)');
  await shot(page, "conveniences-user-workflow-form");
  await page.getByRole("textbox", { name: "task", exact: true }).fill("Assigned to a team");
  await page.getByRole("button", { name: "Start run" }).click();
  await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId("run-page")).toHaveAttribute("data-state", "TRIAGE");
  const runId = page.url().split("/").pop()!;
  // a later message containing a label takes that edge
  expect((await request.post(`/api/runs/${runId}/events`, { data: { type: "MESSAGE", text: "The bug is fixed now" } })).status()).toBe(200);
  await expect(page.getByTestId("run-page")).toHaveAttribute("data-state", "DONE");
});

test("export a run as JSON and download its report from the run page", async ({ page, request }) => {
  const runId = await startSwiss(request, "Write a Python function that reverses a linked list");
  const reviewId = await pendingReviewFor(request, runId);
  expect((await request.post(`/api/reviews/${reviewId}/decision`, { data: { decision: "approve" } })).status()).toBe(200);
  await page.goto(`/runs/${runId}`);
  const [json] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-json").click()]);
  expect(json.suggestedFilename()).toBe(`run-${runId}.json`);
  const doc = JSON.parse(fs.readFileSync((await json.path())!, "utf8")) as { format: string; run: { id: string } };
  expect(doc.format).toBe("switchyard-run");
  expect(doc.run.id).toBe(runId);
  const report = page.getByTestId("export-report");
  await expect(report).toBeVisible();
  const [file] = await Promise.all([page.waitForEvent("download"), report.click()]);
  expect(file.suggestedFilename()).toMatch(/\.md$/);
  expect(fs.readFileSync((await file.path())!, "utf8").length).toBeGreaterThan(20);
  await shot(page, "conveniences-export");
});

test("review queue: bulk approve, reject and abort, each failure named", async ({ page, request }) => {
  await clearQueue(request);
  const runs: string[] = [];
  for (const text of ["Bulk one: a Bash script that counts lines", "Bulk two: a SQL query for the top customers", "Bulk three: a regex for ISO dates", "Bulk four: a CSS grid layout"]) runs.push(await startSwiss(request, text));
  const reviews: string[] = [];
  for (const r of runs) reviews.push(await pendingReviewFor(request, r));
  // the live refresh is held back, so the page keeps showing a review decided elsewhere
  await page.route("**/api/stream", (route) => route.fulfill({ status: 200, headers: { "content-type": "text/event-stream" }, body: ": held\n\n" }));
  await page.goto("/review");
  for (const r of runs) await expect(item(page, r)).toBeVisible();
  await shot(page, "conveniences-queue");

  // approve two; one of them is decided elsewhere meanwhile: that one is reported by name
  await item(page, runs[0]!).getByTestId("review-select").check();
  await item(page, runs[1]!).getByTestId("review-select").check();
  await expect(page.getByTestId("selected-count")).toHaveText("2 selected");
  expect((await request.post(`/api/reviews/${reviews[1]}/decision`, { data: { decision: "reject", feedback: "decided elsewhere" } })).status()).toBe(200);
  await page.getByRole("button", { name: "Approve selected" }).click();
  await expect(page.getByTestId("confirm-dialog")).toContainText("Approve 2 selected reviews?");
  await page.getByTestId("confirm-dialog").getByRole("button", { name: "Approve" }).click();
  const result = page.getByTestId("bulk-result");
  await expect(result).toContainText("1 of 2 reviews approved; 1 failed:");
  await expect(result).toContainText("Bulk two");
  await shot(page, "conveniences-bulk-result");
  await expect.poll(async () => ((await (await request.get(`/api/runs/${runs[0]}`)).json()) as { context: { last?: { outcome?: string } } }).context.last?.outcome).toBe("approved");

  // reject one, abort another
  await item(page, runs[2]!).getByTestId("review-select").check();
  await page.getByRole("button", { name: "Reject selected" }).click();
  await page.getByTestId("confirm-dialog").getByRole("button", { name: "Reject" }).click();
  await expect(result).toHaveText("1 review rejected.");
  await expect(item(page, runs[2]!)).toHaveCount(0);
  await item(page, runs[3]!).getByTestId("review-select").check();
  await page.getByRole("button", { name: "Abort selected" }).click();
  await page.getByTestId("confirm-dialog").getByRole("button", { name: "Abort" }).click();
  await expect(result).toHaveText("1 aborted.");
  await expect(item(page, runs[3]!)).toHaveCount(0);
  // swiss-army aborts the request under review (its own ABORT) and waits for the next one
  await expect.poll(async () => ((await (await request.get(`/api/runs/${runs[3]}`)).json()) as { context: { last?: { outcome?: string } } }).context.last?.outcome).toBe("aborted");
});

test("review queue keyboard: j/k move, a/r approve or reject after a confirmation", async ({ page, request }) => {
  await clearQueue(request);
  const runs = [await startSwiss(request, "Keys one: a Go HTTP handler"), await startSwiss(request, "Keys two: a Rust iterator")];
  for (const r of runs) await pendingReviewFor(request, r);
  await page.goto("/review");
  await expectInboxKeys(page);
  const items = page.getByTestId("review-row");
  await expect(items).toHaveCount(2);
  // the oldest is selected to begin with
  await expect(items.nth(0)).toHaveAttribute("data-selected", "true");
  await page.keyboard.press("j");
  await expect(items.nth(1)).toHaveAttribute("data-selected", "true");
  await page.keyboard.press("k");
  await expect(items.nth(0)).toHaveAttribute("data-selected", "true");
  const first = (await items.nth(0).getAttribute("data-run"))!;
  const second = (await items.nth(1).getAttribute("data-run"))!;
  // a: a confirmation; Escape leaves the review as it was
  await page.keyboard.press("a");
  await expect(page.getByTestId("confirm-dialog")).toBeVisible();
  await shot(page, "conveniences-keyboard-confirm");
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("confirm-dialog")).toHaveCount(0);
  await expect(item(page, first)).toBeVisible();
  // typing in a field is not a shortcut
  await page.locator(`[data-testid=review-panel][data-run="${first}"]`).getByLabel("Feedback").pressSequentially("ja");
  await expect(page.getByTestId("confirm-dialog")).toHaveCount(0);
  await page.keyboard.press("Escape");
  await items.nth(0).getByRole("button").focus();
  await page.keyboard.press("a");
  await page.getByTestId("confirm-dialog").getByRole("button", { name: "Approve" }).click();
  await expect(item(page, first)).toHaveCount(0);
  await expect.poll(async () => ((await (await request.get(`/api/runs/${first}`)).json()) as { context: { last?: { outcome?: string; feedback?: string } } }).context.last?.outcome).toBe("approved");
  // through the item's own button: what was written in it went with the decision
  expect(((await (await request.get(`/api/runs/${first}`)).json()) as { context: { last?: { feedback?: string } } }).context.last?.feedback).toBe("ja");
  await expect(item(page, second)).toHaveAttribute("data-selected", "true");
  await page.keyboard.press("r");
  await expect(page.getByTestId("confirm-dialog")).toContainText("Reject");
  await page.keyboard.press("Enter");
  await expect(item(page, second)).toHaveCount(0);
  await expect.poll(async () => ((await (await request.get(`/api/runs/${second}`)).json()) as { context: { last?: { outcome?: string } } }).context.last?.outcome).toBe("rejected");
});

test("dark mode follows the system", async ({ page, request }) => {
  await startSwiss(request, "Dark: a shell one-liner that finds large files");
  await page.emulateMedia({ colorScheme: "dark" });
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto("/");
  const bg = (sel: string) => page.locator(sel).first().evaluate((el) => getComputedStyle(el).backgroundColor);
  expect(await bg("body")).toBe("rgb(2, 6, 23)");
  const card = page.getByTestId("runs-table").locator("xpath=..");
  expect(await card.evaluate((el) => getComputedStyle(el).backgroundColor)).not.toBe("rgb(255, 255, 255)");
  // text stays readable: the run's name is light on the dark card
  const color = await page.getByTestId("run-name").first().evaluate((el) => getComputedStyle(el).color);
  expect(await luminance(page, color)).toBeGreaterThan(LIGHT_TEXT);
  await shot(page, "conveniences-dark-runs");
  await page.goto("/review");
  await shot(page, "conveniences-dark-review");
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/");
  await shot(page, "conveniences-dark-phone");
  await page.emulateMedia({ colorScheme: "light" });
  await page.goto("/");
  expect(await bg("body")).toBe("rgb(248, 250, 252)");
});

test("plan review: the plan is edited in a form with a live preview, and approve runs the edit", async ({ page, request }) => {
  const started = await request.post("/api/runs", { data: { workflow: "deep-research", input: { topic: "How do durable timers survive a restart?" } } });
  expect(started.status()).toBe(201);
  const runId = ((await started.json()) as { id: string }).id;
  await page.goto(`/runs/${runId}`);
  await expect(page.getByTestId("run-page")).toHaveAttribute("data-state", "PLANNING.approval");
  const panel = page.getByTestId("decision-panel");
  await panel.getByRole("button", { name: "Edit the plan" }).click();
  const editor = panel.getByTestId("plan-editor");
  await editor.getByRole("button", { name: "+ Add dimension" }).click();
  await editor.getByTestId("dimension-row").last().getByRole("textbox").fill("Operational costs");
  await expect(panel.getByTestId("plan-dimensions")).toContainText("Operational costs");
  // move the new dimension to the top: the preview follows
  const rows = await editor.getByTestId("dimension-row").count();
  for (let i = rows - 1; i > 0; i--) await editor.getByTestId("dimension-row").nth(i).getByRole("button", { name: /Move dimension \d+ up/ }).click();
  await expect(panel.getByTestId("plan-dimensions").locator("li").first()).toHaveText("Operational costs");
  // a new task needs a description; its dependency is picked from the existing tasks
  const firstTask = (await editor.getByTestId("task-row").first().getAttribute("data-task"))!;
  await editor.getByRole("button", { name: "+ Search task" }).click();
  await expect(editor.getByTestId("plan-problems")).toContainText("has no description");
  const added = editor.getByTestId("task-row").last();
  const addedId = (await added.getAttribute("data-task"))!;
  await added.getByRole("textbox").fill("Search for cost reports");
  await added.getByRole("group").getByRole("button", { name: firstTask, exact: true }).click();
  await expect(editor.getByTestId("plan-problems")).toHaveCount(0);
  await expect(panel.getByTestId("plan-tasks")).toContainText(`Search for cost reports`);
  await expect(panel.getByTestId("plan-tasks")).toContainText(`after ${firstTask}`);
  await shot(page, "conveniences-plan-editor");
  await panel.getByRole("button", { name: "Approve" }).click();
  await expect
    .poll(async () => {
      const run = (await (await request.get(`/api/runs/${runId}`)).json()) as { context: { plan?: { dimensions: string[]; tasks: { id: string; description: string; dependsOn: string[] }[] } } };
      const plan = run.context.plan;
      return plan ? { first: plan.dimensions[0], task: plan.tasks.find((t) => t.id === addedId)?.dependsOn } : null;
    })
    .toEqual({ first: "Operational costs", task: [firstTask] });
});

test("at 390×844 the new controls fit: Run button, export, queue bar, plan editor", async ({ page, request }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  // the new controls lie within the screen
  const fits = async (testId: string) => {
    const box = (await page.getByTestId(testId).first().boundingBox())!;
    expect(box.x >= 0 && box.x + box.width <= 390, `${testId} is within the screen`).toBe(true);
  };
  await page.goto("/workflows/swiss-army");
  await expect(page.getByTestId("run-workflow")).toBeInViewport();
  await fits("run-workflow");
  // and the page itself, diagram included, needs no sideways scrolling
  await expectNoSidewaysScroll(page);
  await shot(page, "conveniences-phone-workflow");
  await clearQueue(request);
  const runId = await startSwiss(request, "Phone: a Makefile for a C project");
  await pendingReviewFor(request, runId);
  await page.goto(`/runs/${runId}`);
  await expect(page.getByTestId("export-json")).toBeVisible();
  await fits("run-export");
  await shot(page, "conveniences-phone-run");
  await page.goto("/review");
  await expect(page.getByTestId("bulk-bar")).toBeVisible();
  await item(page, runId).getByTestId("review-select").check();
  await fits("bulk-bar");
  await fits("review-queue");
  await shot(page, "conveniences-phone-queue");
  const started = await request.post("/api/runs", { data: { workflow: "deep-research", input: { topic: "Phone plan editing" } } });
  const research = ((await started.json()) as { id: string }).id;
  await page.goto(`/runs/${research}`);
  await expect(page.getByTestId("run-page")).toHaveAttribute("data-state", "PLANNING.approval");
  await page.getByTestId("decision-panel").getByRole("button", { name: "Edit the plan" }).click();
  await expect(page.getByTestId("plan-editor")).toBeVisible();
  await fits("plan-editor");
  // nothing inside it is cut off (a fieldset grows to its content's width unless told otherwise)
  const editor = page.getByTestId("plan-editor");
  expect(await editor.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(1);
  expect(await page.getByTestId("decision-panel").evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(1);
  await page.getByTestId("plan-editor").scrollIntoViewIfNeeded();
  await shot(page, "conveniences-phone-plan-editor");
});
