// Each processing mode from the UI, on the offline engine: the mode chosen in the New run form
// (or routed), the nested diagram of the mode's states, the result, routing, cache and metrics.
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { shot } from "./helpers";

async function start(page: Page, query: string, mode: string): Promise<string> {
  await page.goto("/");
  // within the form: the runs list beside it has checkboxes labelled with run names, which may say "query"
  const form = page.getByTestId("new-run-form");
  await form.getByLabel("Workflow", { exact: true }).selectOption("processing-modes");
  await form.getByLabel("Query").fill(query);
  await form.getByLabel("Mode").selectOption(mode);
  await page.getByRole("button", { name: "Start run" }).click();
  await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/);
  return page.url().split("/").pop()!;
}

const runPage = (page: Page) => page.getByTestId("run-page");

async function viewsShot(page: Page, name: string) {
  await page.getByTestId("run-views").scrollIntoViewIfNeeded();
  await shot(page, name);
}

test("CHAT twice: the second request is served from the System 1 cache", async ({ page }) => {
  const query = `hello, what can you do? (${Date.now()})`;
  await start(page, query, "CHAT");
  await expect(runPage(page)).toHaveAttribute("data-state", "Done", { timeout: 20_000 });
  await expect(page.getByTestId("mode-result")).toContainText("offline engine");
  await page.getByTestId("run-views").getByRole("button", { name: "Routing & metrics" }).click();
  await expect(page.getByTestId("mode-routing")).toContainText("miss");
  await start(page, query, "CHAT");
  await expect(runPage(page)).toHaveAttribute("data-state", "Done", { timeout: 20_000 });
  await expect(page.getByTestId("mode-result")).toContainText("served from cache");
  await expect(page.locator('[data-testid=diagram] [data-state="ModelRuntime.CacheHit"]')).toHaveAttribute("data-status", "visited");
  await viewsShot(page, "modes-chat-cached");
});

test("KNOWLEDGE: a grounded answer citing the guide", async ({ page }) => {
  await start(page, "How does Switchyard resume runs after a restart?", "KNOWLEDGE");
  await expect(runPage(page)).toHaveAttribute("data-state", "Done", { timeout: 20_000 });
  await expect(page.getByTestId("run-result")).toContainText("What the sources say");
  await expect(page.getByTestId("mode-result").locator("ol li").first()).toBeVisible();
  await page.getByTestId("run-views").getByRole("button", { name: "What the mode did" }).click();
  await expect(page.getByTestId("mode-work")).toContainText("BM25 terms");
  await viewsShot(page, "modes-knowledge");
});

test("SEARCH: generated queries run and are listed", async ({ page }) => {
  await start(page, "latest notes on durable timers and restarts", "SEARCH");
  await expect(runPage(page)).toHaveAttribute("data-state", "Done", { timeout: 20_000 });
  await page.getByTestId("run-views").getByRole("button", { name: "What the mode did" }).click();
  await expect(page.getByTestId("mode-work").getByText(/result/).first()).toBeVisible();
  await expect(page.getByTestId("mode-work")).toContainText("knowledge store");
});

test("CODE: the request's code block runs in the sandbox; a bad program is formatted as an error", async ({ page }) => {
  await start(page, "Run this:\n```js\nconsole.log('hi from the sandbox');\n6 * 7\n```", "CODE");
  await expect(runPage(page)).toHaveAttribute("data-state", "Done", { timeout: 20_000 });
  await expect(page.getByTestId("run-result")).toContainText("hi from the sandbox");
  await expect(page.getByTestId("run-result")).toContainText("42");
  await expect(page.locator('[data-testid=diagram] [data-state="ModelRuntime.ProcessorExec.CODE.FormatSuccess"]')).toHaveAttribute("data-status", "visited");
  await viewsShot(page, "modes-code");
  await start(page, "```js\nwhile (true) {}\n```", "CODE");
  await expect(runPage(page)).toHaveAttribute("data-state", "Done", { timeout: 30_000 });
  await expect(page.getByTestId("run-result")).toContainText("timeout");
});

test("THINKING: five stages, each shown", async ({ page }) => {
  await start(page, "Should we shard the database now, or add read replicas first?", "THINKING");
  await expect(runPage(page)).toHaveAttribute("data-state", "Done", { timeout: 20_000 });
  await page.getByTestId("run-views").getByRole("button", { name: "What the mode did" }).click();
  for (const [i, s] of ["Problem Analysis", "Multi Perspective", "Deep Reasoning", "Synthesis And Reflection", "Final Answer"].entries()) await expect(page.getByTestId("mode-work")).toContainText(`${i + 1}. ${s}`);
  await viewsShot(page, "modes-thinking");
});

test("DEEP_RESEARCH: the processing-modes workflow's own states are lit in the diagram; the report cites its sources", async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await start(page, "How does Switchyard resume runs after a restart?", "DEEP_RESEARCH");
  await expect(runPage(page)).toHaveAttribute("data-state", "Done", { timeout: 30_000 });
  for (const s of ["AgentRuntime.WorkflowInit.InitWorkflow", "AgentRuntime.RetryableExec.RetryBoundary.WriteReportPlan", "AgentRuntime.RetryableExec.RetryBoundary.GenerateSearchQueries", "AgentRuntime.RetryableExec.RetryBoundary.ExecuteSearchTasks.SearchTask", "AgentRuntime.RetryableExec.RetryBoundary.ExecuteSearchTasks.ProcessResult", "AgentRuntime.RetryableExec.RetryBoundary.WriteFinalReport", "AgentRuntime.WorkflowComplete"]) {
    await expect(page.locator(`[data-testid=diagram] [data-state="${s}"]`), s).toHaveAttribute("data-status", "visited");
  }
  // no error: the ErrorClassify box was never entered
  await expect(page.locator('[data-testid=diagram] [data-state="AgentRuntime.ErrorClassify"]')).toHaveAttribute("data-status", "idle");
  await expect(page.getByTestId("run-result")).toContainText("Assembled by the offline engine");
  await expect(page.getByTestId("run-result")).toContainText("[S01]");
  // the answer is shown once: in the result card, not again in the Result tab
  await expect(page.getByText("Assembled by the offline engine").locator("visible=true")).toHaveCount(1);
  await expect(page.getByTestId("mode-result")).toContainText("The answer is at the top of this page");
  await page.getByTestId("diagram").scrollIntoViewIfNeeded();
  await page.getByTestId("diagram").getByRole("button", { name: "Fit" }).click();
  await shot(page, "modes-research-diagram");
  await page.getByRole("button", { name: "Open all groups" }).click();
  await expect(page.locator('[data-testid=diagram] [data-state="AgentRuntime.ErrorClassify.ErrorHandling"]')).toHaveAttribute("data-status", "idle");
  await page.getByTestId("diagram").getByRole("button", { name: "Fit" }).click();
  await shot(page, "modes-research-diagram-open");
  await page.getByTestId("run-views").getByRole("button", { name: "What the mode did" }).click();
  await expect(page.getByTestId("research-plan")).toBeVisible();
  await expect(page.getByTestId("research-tasks").locator("li").first()).toContainText("result(s) via");
  await viewsShot(page, "modes-research-done");
});

test("routed: no mode chosen, the router classifies and the metrics page counts the requests", async ({ page, request }) => {
  await start(page, "Think step by step: pros and cons of a monorepo?", "");
  await expect(runPage(page)).toHaveAttribute("data-state", "Done", { timeout: 20_000 });
  await page.getByTestId("run-views").getByRole("button", { name: "Routing & metrics" }).click();
  await expect(page.getByTestId("mode-routing")).toContainText("THINKING");
  await expect(page.getByTestId("mode-routing")).toContainText("classified");
  const m = (await (await request.get("/api/metrics/modes")).json()) as { modes: { mode: string; requests: number }[] };
  expect(m.modes.find((x) => x.mode === "THINKING")!.requests).toBeGreaterThanOrEqual(1);
  expect((await request.get("/api/metrics/modes?since=yesterday")).status()).toBe(422);
  await page.goto("/workflows/processing-modes");
  await expect(page.getByTestId("mode-metrics").locator('tr[data-mode="THINKING"]')).toBeVisible();
  await shot(page, "modes-workflow-page");
});
