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
