// The mission timeline viewer: Gantt lanes, scrubbing with keys, slider and bars, the diagram
// replayed to the cursor.
import { expect, test } from "@playwright/test";
import { shot } from "./helpers";

test("scrub a run's history: the diagram and the cursor follow", async ({ page, request }) => {
  const started = await request.post("/api/runs", { data: { workflow: "conversation", input: {} } });
  expect(started.status()).toBe(201);
  const { id } = (await started.json()) as { id: string };
  for (const to of ["PLANNING", "READING", "EXECUTION"]) {
    await new Promise((r) => setTimeout(r, 1_050)); // the conversation's 1 s cooldown
    const moved = await request.post(`/api/runs/${id}/events`, { data: { type: "TRANSITION", to } });
    expect(moved.status()).toBe(200);
  }
  await page.goto(`/runs/${id}`);
  // the run page's own tab: the Gantt and its replay cursor
  await page.getByTestId("history-panel").getByRole("button", { name: "Gantt and replay" }).click();
  await expect(page.getByTestId("history-panel").getByTestId("run-timeline")).toHaveAttribute("data-active", "EXECUTION");
  await page.getByTestId("history-panel").scrollIntoViewIfNeeded();
  await shot(page, "run-page-gantt-tab");
  await page.getByTestId("timeline-link").click();
  await page.waitForURL(new RegExp(`/runs/${id}/timeline$`));
  const view = page.getByTestId("run-timeline");
  await expect(view).toHaveAttribute("data-active", "EXECUTION");
  const last = Number(await view.getAttribute("data-cursor"));
  expect(last).toBeGreaterThanOrEqual(5);
  for (const lane of ["INITIAL", "PLANNING", "READING", "EXECUTION"]) await expect(page.locator(`[data-testid=gantt] [data-lane="${lane}"]`)).toBeVisible();

  const controls = page.getByTestId("timeline-controls");
  await controls.focus();
  await page.keyboard.press("Home");
  await expect(view).toHaveAttribute("data-cursor", "0");
  await expect(view).toHaveAttribute("data-active", "");
  await page.keyboard.press("ArrowRight");
  await expect(view).toHaveAttribute("data-active", "INITIAL");
  await expect(page.locator('[data-testid=diagram] [data-state="INITIAL"]')).toHaveAttribute("data-status", "active");
  await expect(page.locator('[data-testid=diagram] [data-state="EXECUTION"]')).toHaveAttribute("data-status", "idle");

  await page.locator('[data-visit="READING#1"]').click();
  await expect(view).toHaveAttribute("data-active", "READING");
  await expect(page.locator('[data-testid=diagram] [data-state="PLANNING"]')).toHaveAttribute("data-status", "visited");
  await expect(page.getByTestId("cursor-transition")).toContainText("PLANNING → READING");
  await shot(page, "timeline-scrub");

  await controls.focus();
  await page.keyboard.press("End");
  await expect(view).toHaveAttribute("data-cursor", String(last));
  await page.getByLabel("speed").selectOption("100");
  await page.keyboard.press("Home");
  await page.getByRole("button", { name: "Play" }).click();
  await expect(view).toHaveAttribute("data-active", "EXECUTION", { timeout: 10_000 });
});

test("model calls show as ticks on the lane of the state that made them", async ({ page, request }) => {
  const started = await request.post("/api/runs", { data: { workflow: "swiss-army", input: { request: "Explain how runs resume after a restart" } } });
  const { id } = (await started.json()) as { id: string };
  await expect.poll(async () => ((await (await request.get(`/api/runs/${id}`)).json()) as { state: string[] }).state[0], { timeout: 20_000 }).toBe("HUMAN_REVIEW");
  await page.goto(`/runs/${id}/timeline`);
  await expect(page.locator('[data-testid=gantt] [data-lane="HUMAN_REVIEW"] rect')).toHaveCount(1);
  await expect(page.getByTestId("model-tick").first()).toBeVisible();
  await shot(page, "timeline-model-calls");
});

test("runs across the system: search in the URL, the runs timeline", async ({ page, request }) => {
  const needle = `needle-${Date.now().toString(36)}`;
  const started = await request.post("/api/runs", { data: { workflow: "conversation", input: { task: `plan the ${needle} refactor` } } });
  const { id } = (await started.json()) as { id: string };
  await page.goto("/");
  await page.getByLabel("Search inputs and outputs").fill(needle);
  await page.getByRole("button", { name: "Search" }).click();
  await page.waitForURL(new RegExp(`[?&]q=${needle}`));
  await expect(page.locator("[data-testid=runs-table] tbody tr")).toHaveCount(1);
  await expect(page.locator(`[data-testid=runs-table] tr[data-run="${id}"]`)).toBeVisible();
  await page.getByTestId("view-switch").getByRole("link", { name: "Timeline" }).click();
  await page.waitForURL(/view=timeline/);
  expect(page.url()).toContain(`q=${needle}`);
  await expect(page.locator(`[data-testid=runs-gantt] [data-run="${id}"]`)).toBeVisible();
  await expect(page.locator("[data-testid=runs-gantt] g[data-run]")).toHaveCount(1);
  await shot(page, "runs-timeline");
  await page.goto("/?from=yesterday");
  await expect(page.getByTestId("run-filters").getByRole("alert")).toContainText("from: must be a date");
});
