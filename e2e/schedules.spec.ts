// Schedules: created from the page (a refused pattern shows next to its field), listed with the
// next three fire times in their own zone, run now, paused and resumed; the API sees the same.
import { expect, test } from "./fixtures";
import { shot } from "./helpers";

test("create a schedule on the page, run it now, pause and resume it", async ({ page, request }) => {
  await page.goto("/schedules");
  const form = page.getByTestId("schedule-form");
  await form.locator('input[name="name"]').fill("Morning digest");
  await form.locator('select[name="workflow"]').selectOption("conversation");
  await form.locator('textarea[name="input"]').fill('{"task": "read the overnight tickets"}');
  await form.locator('input[name="cron"]').fill("0 9 * * 1-9");
  await form.locator('input[name="timezone"]').fill("Europe/Berlin");
  await form.getByRole("button", { name: "Create schedule" }).click();
  await expect(form.locator('[data-field-error="cron"]')).toBeVisible();
  await form.locator('input[name="cron"]').fill("0 9 * * 1-5");
  await form.getByRole("button", { name: "Create schedule" }).click();
  const card = page.getByTestId("schedule").filter({ hasText: "Morning digest" });
  await expect(card).toBeVisible();
  await expect(card.getByTestId("next-fires")).toContainText(/\d{4}-\d{2}-\d{2} 09:00 · \d{4}-\d{2}-\d{2} 09:00 · \d{4}-\d{2}-\d{2} 09:00/);
  await shot(page, "schedules-1440");

  const list = (await (await request.get("/api/schedules")).json()) as { schedules: { id: string; name: string; timezone: string; nextFires: string[] }[] };
  const s = list.schedules.find((x) => x.name === "Morning digest")!;
  expect(s.timezone).toBe("Europe/Berlin");
  expect(s.nextFires).toHaveLength(3);

  await card.getByRole("button", { name: "Run now" }).click();
  await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/);
  const runId = page.url().split("/").pop()!;
  const run = (await (await request.get(`/api/runs/${runId}`)).json()) as { scheduleId: string };
  expect(run.scheduleId).toBe(s.id);

  await page.goto("/schedules");
  await expect(card.getByTestId("schedule-runs").locator(`a[href="/runs/${runId}"]`)).toBeVisible();
  await card.getByRole("button", { name: "Pause" }).click();
  await expect(card.getByText("paused", { exact: true })).toBeVisible();
  await expect(card.getByTestId("next-fires")).toContainText("none while paused");
  expect(((await (await request.get(`/api/schedules/${s.id}`)).json()) as { schedule: { paused: boolean } }).schedule.paused).toBe(true);
  await card.getByRole("button", { name: "Resume" }).click();
  await expect(card.getByText("paused", { exact: true })).toHaveCount(0);

  await card.getByRole("link", { name: "all runs" }).click();
  await expect(page.getByTestId("schedule-filter")).toContainText("Morning digest");
  await expect(page.getByTestId("runs-table").locator(`a[href="/runs/${runId}"]`).first()).toBeVisible();

  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/schedules");
  await expect(card).toBeVisible();
  await shot(page, "schedules-390");
});
