// A disabled workflow is not offered in the New-run form and is marked in the
// catalog; a deleted one leaves both, while its old run's page still opens.
import { expect, test } from "./fixtures";
import { shot } from "./helpers";

const yaml = (id: string) => `id: ${id}
title: Switch ${id}
initial_stage: ASK
stages: [ASK, DONE]
transitions: { ASK: [DONE], DONE: [] }
steps:
  ASK:
    review: { prompt: "Go on?" }
    next: DONE
`;

test("disable hides a workflow from the New-run form; delete takes it out of the catalog", async ({ page, request }) => {
  const id = `switch-${Date.now().toString(36)}`;
  expect((await request.post("/api/workflows", { data: { yaml: yaml(id) } })).status()).toBe(201);
  const run = await request.post("/api/runs", { data: { workflow: id, input: {} } });
  expect(run.status()).toBe(201);
  const runId = ((await run.json()) as { id: string }).id;
  const offered = () => page.locator("#workflow option").evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));

  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto("/");
  expect(await offered()).toContain(id);

  expect((await request.patch(`/api/workflows/${id}`, { data: { disabled: true } })).status()).toBe(200);
  await page.goto(`/?workflow=${id}`);
  expect(await offered()).not.toContain(id);
  await page.goto("/workflows");
  const card = page.locator(`[data-workflow="${id}"]`);
  await expect(card.getByTestId("workflow-disabled")).toHaveText("disabled: no new runs");
  await card.scrollIntoViewIfNeeded();
  await shot(page, "workflow-disabled-1440");
  await page.setViewportSize({ width: 390, height: 844 });
  await card.scrollIntoViewIfNeeded();
  await shot(page, "workflow-disabled-390");

  expect((await request.delete(`/api/workflows/${id}?force=true`)).status()).toBe(200);
  await page.goto("/workflows");
  await expect(page.getByTestId("workflow-catalog")).toBeVisible();
  await expect(card).toHaveCount(0);
  await page.goto("/");
  expect(await offered()).not.toContain(id);
  // the aborted run keeps its page
  await page.goto(`/runs/${runId}`);
  await expect(page.getByText("aborted").first()).toBeVisible();
});
