// In the browser: the post pipeline (docs/guide/16-external-workers.md) (llm → review by two people → http → external
// worker) is written as YAML at /workflows/new and run against a local HTTP receiver started
// here. The offline engine drafts; two reviewers, each in their own browser, approve from the
// queue ("1 of 2 approvals" in between; the first one approving again is refused in the form);
// the post reaches the receiver exactly once; a worker claims and completes NOTIFY through the
// task API; the run page's Steps view shows what every step did, and the run completes.
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { claimTask, completeTask, expectWorkflowSaved, openInInbox, shot } from "./helpers";
import { POST_PIPELINE } from "../test/support/post-pipeline";

const YAML = POST_PIPELINE;

type Received = { method: string; path: string; body: unknown; key: string | undefined };
const received: Received[] = [];
let receiver: http.Server;
let publishUrl = "";

test.beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let data = "";
    req.on("data", (c) => (data += c));
    req.on("end", () => {
      received.push({ method: req.method ?? "", path: req.url ?? "", body: data ? JSON.parse(data) : null, key: req.headers["idempotency-key"] as string | undefined });
      res.writeHead(201, { "content-type": "application/json" });
      res.end(JSON.stringify({ id: `post-${received.length}`, published: true }));
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  publishUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/posts`;
});
test.afterAll(async () => {
  await new Promise((r) => receiver.close(r));
});

/** The queue item of this run, in a reviewer's own browser. */
async function queueItem(page: Page, runId: string) {
  await page.goto("/review");
  return openInInbox(page, runId);
}

async function reviewerPage(browser: Browser, baseURL: string | undefined, size = { width: 1440, height: 900 }) {
  const context = await browser.newContext({ baseURL, viewport: size });
  return { context, page: await context.newPage() };
}

test("post pipeline: written as YAML, drafted, approved by two people from the queue, published once, completed by a worker", async ({ page, browser, baseURL, request }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1440, height: 900 });

  // 1. the workflow, pasted as YAML at /workflows/new
  await page.goto("/workflows/new");
  await page.getByRole("tab", { name: "YAML" }).click();
  await page.getByTestId("flow-source").fill(YAML);
  await expect(page.getByTestId("flow-check")).toHaveAttribute("data-valid", "true");
  await expect(page.getByTestId("flow-check")).toContainText("Valid: 6 stages");
  await page.getByRole("button", { name: "Save workflow" }).click();
  await page.waitForURL(/\/workflows\/post-pipeline$/);

  // 2. a run started from the dashboard with its input as JSON
  await page.goto("/");
  await page.getByLabel("Workflow", { exact: true }).selectOption("post-pipeline");
  await page.getByText("Input as JSON").click();
  await page.locator("textarea[name=json]").fill(JSON.stringify({ topic: "solar kettles", publish_url: publishUrl }));
  await page.getByRole("button", { name: "Start run" }).click();
  await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/);
  const runId = page.url().split("/").pop()!;
  const runPage = page.getByTestId("run-page");
  await expect(runPage).toHaveAttribute("data-state", "REVIEW");

  // the draft is in the Steps view: the offline engine's text, the prompt it was sent
  const steps = page.getByTestId("run-steps");
  const draft = steps.locator('[data-testid=step][data-stage="DRAFT"]');
  await expect(draft).toHaveAttribute("data-status", "done");
  await expect(draft.getByTestId("step-kind")).toHaveText("model call");
  await expect(draft.getByTestId("step-output")).toContainText("solar kettles");
  await expect(draft.getByTestId("step-meta")).toContainText("offline engine");
  await draft.getByTestId("step-prompt").locator("summary").click();
  await expect(draft.getByTestId("step-prompt")).toContainText("Write a short post about solar kettles.");
  await expect(steps.locator('[data-testid=step][data-stage="REVIEW"]')).toHaveAttribute("data-status", "waiting");
  // the run page's decision panel counts approvals too
  await expect(page.getByTestId("approvals")).toContainText("0 of 2 approvals");

  // 3. the first reviewer approves from the queue, under the name they give (remembered)
  const ana = await reviewerPage(browser, baseURL);
  let item = await queueItem(ana.page, runId);
  await expect(item.getByTestId("approvals")).toContainText("0 of 2 approvals");
  await expect(item.getByTestId("review-shown")).toContainText("solar kettles");
  await ana.page.getByLabel("Deciding as").fill("Ana Reviewer");
  await item.locator('[data-decision="approve"]').click();
  await expect(item.getByTestId("approvals")).toContainText("1 of 2 approvals", { timeout: 15_000 });
  await expect(item.getByTestId("approvals")).toContainText("approved by Ana Reviewer");
  expect(received).toHaveLength(0);
  await item.scrollIntoViewIfNeeded();
  await shot(ana.page, "post-pipeline-queue-1440");

  // the same person approving again is refused, in the form
  await ana.page.reload();
  item = await openInInbox(ana.page, runId);
  await expect(ana.page.getByLabel("Deciding as")).toHaveValue("Ana Reviewer");
  await item.locator('[data-decision="approve"]').click();
  await expect(item.getByRole("alert")).toContainText("Ana Reviewer has already approved REVIEW; it needs another person's approval");
  await expect(item.getByTestId("approvals")).toContainText("1 of 2 approvals");
  // the count is shown once, by the badge, not again after the question
  await expect(item.getByText("Publish this post?", { exact: true })).toBeVisible();
  await expect(item.getByText("(1 of 2 approvals)")).toHaveCount(0);

  // the queue on a phone
  const phone = await reviewerPage(browser, baseURL, { width: 390, height: 844 });
  const phoneItem = await queueItem(phone.page, runId);
  await expect(phoneItem.getByTestId("approvals")).toContainText("1 of 2 approvals");
  await phoneItem.getByTestId("approvals").scrollIntoViewIfNeeded();
  await shot(phone.page, "post-pipeline-queue-390");
  const overflow = await phone.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, "the queue needs no sideways scrolling at 390 px").toBeLessThanOrEqual(0);
  await phone.context.close();

  // 4. a second person, in another browser, approves: the post is published
  const ben = await reviewerPage(browser, baseURL);
  item = await queueItem(ben.page, runId);
  await expect(ben.page.getByLabel("Deciding as")).toHaveValue("");
  await ben.page.getByLabel("Deciding as").fill("Ben Reviewer");
  await item.locator('[data-decision="approve"]').click();
  await expect(ben.page.locator(`[data-testid=review-row][data-run="${runId}"]`)).toHaveCount(0, { timeout: 15_000 });
  await expect(runPage).toHaveAttribute("data-state", "NOTIFY", { timeout: 20_000 });
  expect(received).toHaveLength(1);
  expect(received[0]).toMatchObject({ method: "POST", path: "/posts" });
  expect((received[0]!.body as { text: string }).text).toContain("solar kettles");
  expect(received[0]!.key).toMatch(new RegExp(`^${runId}:`));
  await ana.context.close();
  await ben.context.close();

  // 5. a worker claims NOTIFY's task on queue "publisher" and completes it
  const task = await claimTask(request, "publisher", "e2e-notifier");
  expect(task).toMatchObject({ runId, stage: "NOTIFY", attempt: 1 });
  expect(task.input.steps.PUBLISH?.output).toEqual({ id: "post-1", published: true });
  await completeTask(request, task, "e2e-notifier", { notified: ["#posts"] });
  await expect(runPage).toHaveAttribute("data-status", "completed", { timeout: 15_000 });
  await expect(runPage).toHaveAttribute("data-state", "DONE");

  // 6. every step's output on the run page
  await expect(steps.getByTestId("step")).toHaveCount(4);
  await expect(steps.getByTestId("step-stage")).toHaveText(["DRAFT", "REVIEW", "PUBLISH", "NOTIFY"]);
  for (const s of ["DRAFT", "REVIEW", "PUBLISH", "NOTIFY"]) await expect(steps.locator(`[data-testid=step][data-stage="${s}"]`)).toHaveAttribute("data-status", "done");
  const review = steps.locator('[data-testid=step][data-stage="REVIEW"]');
  await expect(review.getByTestId("step-decisions").locator("li")).toHaveText([/^approve by Ana Reviewer/, /^approve by Ben Reviewer/]);
  await expect(review.getByTestId("step-output")).toHaveText("Output: DRAFT's output, unchanged.");
  const publish = steps.locator('[data-testid=step][data-stage="PUBLISH"]');
  await expect(publish.getByTestId("step-kind")).toHaveText("HTTP call");
  await expect(publish.getByTestId("step-meta")).toContainText("HTTP 201");
  await expect(publish.getByTestId("step-meta")).toContainText("attempt 1");
  await expect(publish.getByTestId("step-output")).toContainText('"published": true');
  const notify = steps.locator('[data-testid=step][data-stage="NOTIFY"]');
  await expect(notify.getByTestId("step-kind")).toHaveText("external worker");
  await expect(notify.getByTestId("step-meta")).toContainText("worker e2e-notifier");
  await expect(notify.getByTestId("step-output")).toContainText("#posts");
  // names, not raw ids: no run or review id is printed in the Steps view
  const text = (await steps.textContent()) ?? "";
  expect(text).not.toContain(runId);
  expect(text).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
  // the header's link leads to the Steps view, its heading in sight below the sticky navigation
  await page.getByTestId("steps-link").click();
  await expect(steps.getByRole("heading", { name: "Steps" })).toBeInViewport();
  await shot(page, "post-pipeline-steps-1440");
  await page.setViewportSize({ width: 390, height: 844 });
  await steps.evaluate((el) => el.scrollIntoView({ block: "start" }));
  await expect(steps.getByRole("heading", { name: "Steps" })).toBeInViewport();
  await shot(page, "post-pipeline-steps-390");
  await notify.scrollIntoViewIfNeeded();
  await shot(page, "post-pipeline-steps-390-end");
  const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(wide, "the run page needs no sideways scrolling at 390 px").toBeLessThanOrEqual(0);

  // exactly once, still
  expect(received).toHaveLength(1);
});

test("a review step's edit: the run page's panel offers the shown text to edit; the edit is Cleo's approval, the next approver's makes it what gets published", async ({ page, request }) => {
  const yaml = YAML.replace("id: post-pipeline", "id: post-pipeline-edits");
  const defined = await request.post("/api/workflows", { data: { yaml } });
  expectWorkflowSaved(defined.status(), await defined.text());
  const started = await request.post("/api/runs", { data: { workflow: "post-pipeline-edits", input: { topic: "tide tables", publish_url: publishUrl } } });
  expect(started.status()).toBe(201);
  const { id } = (await started.json()) as { id: string };
  const before = received.length;
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/runs/${id}`);
  const runPage = page.getByTestId("run-page");
  await expect(runPage).toHaveAttribute("data-state", "REVIEW");
  const panel = page.getByTestId("decision-panel");
  await expect(panel.getByTestId("approvals")).toContainText("0 of 2 approvals");
  await expect(panel.getByTestId("review-shown")).toContainText("tide tables");
  await expect(panel.locator("[data-decision]")).toHaveText(["Approve", "Reject", "Edit…"]);
  // the decision's buttons are on the first screen, beside the diagram
  await expect(panel.locator('[data-decision="approve"]')).toBeInViewport();
  await shot(page, "post-pipeline-run-review-1440");
  await page.setViewportSize({ width: 390, height: 844 });
  await panel.scrollIntoViewIfNeeded();
  await shot(page, "post-pipeline-run-review-390");
  await page.setViewportSize({ width: 1440, height: 900 });

  // a quorum counts people by name: the field says it is required, and no decision goes without it
  const name = panel.getByLabel("Your name (required)");
  await expect(name).toHaveAttribute("aria-required", "true");
  await panel.locator('[data-decision="reject"]').click();
  await expect(panel.getByText("say who you are: 2 different people must approve")).toBeVisible();

  // Edit… opens the shown text, prefilled; the edit goes as data.edited and counts as Cleo's approval
  await panel.locator('[data-decision="edit"]').click();
  const edited = panel.getByTestId("edited-value");
  await expect(edited).toHaveValue(/Write a short post about tide tables/);
  await edited.fill("Tide tables, by the moon. (edited)");
  await name.fill("Cleo Editor");
  await panel.getByRole("button", { name: "Send my edit" }).click();
  // one person's edit does not publish: the next approver sees the edited text
  await expect(panel.getByTestId("approvals")).toContainText("1 of 2 approvals", { timeout: 20_000 });
  await expect(panel.getByTestId("edited-by")).toHaveText("edited by Cleo Editor: approve the edited value");
  await expect(panel.getByTestId("review-shown")).toContainText("Tide tables, by the moon. (edited)");
  await expect(runPage).toHaveAttribute("data-state", "REVIEW");
  expect(received.length).toBe(before);
  await shot(page, "post-pipeline-run-edited-1440");
  await page.setViewportSize({ width: 390, height: 844 });
  await panel.getByTestId("approvals").scrollIntoViewIfNeeded();
  await shot(page, "post-pipeline-run-edited-390");
  await page.setViewportSize({ width: 1440, height: 900 });
  await name.fill("Dan Approver");
  await panel.locator('[data-decision="approve"]').click();
  await expect(runPage).toHaveAttribute("data-state", "NOTIFY", { timeout: 20_000 });
  expect(received.slice(before).map((r) => r.body)).toEqual([{ text: "Tide tables, by the moon. (edited)" }]);

  const steps = page.getByTestId("run-steps");
  const review = steps.locator('[data-testid=step][data-stage="REVIEW"]');
  await expect(review.getByTestId("step-decisions").locator("li")).toHaveText([/^edit by Cleo Editor/, /^approve by Dan Approver/]);
  await expect(review.getByTestId("step-output")).toContainText("Tide tables, by the moon. (edited)");
  await expect(steps.locator('[data-testid=step][data-stage="DRAFT"]').getByTestId("step-output")).toContainText("(edited)");
  await expect(steps.locator('[data-testid=step][data-stage="NOTIFY"]')).toHaveAttribute("data-status", "waiting");
  // nothing is left on the queue: the run is stopped (its task is withdrawn)
  expect((await request.post(`/api/runs/${id}/abort`, { data: { reason: "e2e done" } })).status()).toBe(200);
});
