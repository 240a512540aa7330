// Per-state alerts: a rule set on a workflow's page, breached by a run, shows as the banner on
// every page and as a badge on the diagram node; deleting the rule resolves it.
import { expect, test } from "./fixtures";
import { shot, untilServerTime } from "./helpers";

test("a dwell rule breached by a run: banner, workflow panel, node badge; deleting it resolves", async ({ page, request }) => {
  await page.goto("/workflows/conversation");
  const form = page.getByTestId("alert-rule-form");
  // a field error first: no state chosen, no threshold
  await form.getByRole("button", { name: "Add rule" }).click();
  await expect(form.getByText(/choose|required|state/i).first()).toBeVisible();
  await form.locator('select[name="metric"]').selectOption("dwell");
  await form.locator('select[name="state"]').selectOption("INITIAL");
  await form.locator('input[name="threshold"]').fill("0.5");
  await form.getByRole("button", { name: "Add rule" }).click();
  await expect(form.getByText("Saved.")).toBeVisible();
  await expect(page.getByTestId("alert-rules")).toContainText("INITIAL");

  // a run that stays in INITIAL for more than half a second
  const started = await request.post("/api/runs", { data: { workflow: "conversation", input: {} } });
  const { id, since } = (await started.json()) as { id: string; since: string };
  // a full second in INITIAL by the server's clock (the rule's threshold is half of it)
  await untilServerTime(request, Date.parse(since) + 1_000);
  expect((await request.post(`/api/runs/${id}/events`, { data: { type: "TRANSITION", to: "PLANNING" } })).status()).toBe(200);
  await expect
    .poll(async () => ((await (await request.get("/api/alerts?status=open&workflow=conversation")).json()) as { alerts: { state: string; metric: string }[] }).alerts, { timeout: 15_000 })
    .toEqual([expect.objectContaining({ state: "INITIAL", metric: "dwell" })]);

  await page.goto("/");
  await expect(page.getByTestId("alert-banner")).toContainText("conversation");
  await shot(page, "alerts-banner");
  await page.goto("/workflows/conversation");
  await expect(page.getByTestId("open-alerts")).toContainText("INITIAL");
  await expect(page.locator('[data-testid=diagram] [data-state="INITIAL"] [data-testid=node-alert]')).toBeVisible();
  await page.getByTestId("alerts-panel").scrollIntoViewIfNeeded();
  await shot(page, "alerts-workflow-panel");
  await page.goto(`/runs/${id}`);
  await expect(page.locator('[data-testid=diagram] [data-state="INITIAL"] [data-testid=node-alert]')).toBeVisible();

  // delete the rule: its alert resolves and the banner goes
  const rules = (await (await request.get("/api/alerts/rules?workflow=conversation")).json()) as { rules: { id: string }[] };
  for (const r of rules.rules) expect((await request.delete(`/api/alerts/rules/${r.id}`)).status()).toBe(204);
  const after = (await (await request.get("/api/alerts?status=open&workflow=conversation")).json()) as { alerts: unknown[] };
  expect(after.alerts).toEqual([]);
  await page.goto("/workflows/conversation");
  await expect(page.getByTestId("node-alert")).toHaveCount(0);
});
