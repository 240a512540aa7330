// Degraded mode from the operator's side: take the Context Manager offline, watch a run skip
// its search with a warning and queue its writes, bring it back and see the writes stored.
import { expect, test } from "./fixtures";
import { expectState, shot, startFromUi } from "./helpers";

test("Context Manager offline → degraded run with warnings → back online flushes the queue", async ({ page }) => {
  await page.goto("/workflows/swiss-army");
  const panel = page.getByTestId("cm-panel");
  await expect(panel).toHaveAttribute("data-available", "true");
  await panel.getByRole("button", { name: "Take offline (maintenance)" }).click();
  await expect(panel).toHaveAttribute("data-available", "false");
  await expect(panel).toContainText("degraded mode");

  await startFromUi(page, "Write a TypeScript function that validates an email address");
  await expectState(page, "HUMAN_REVIEW", "waiting");
  const decision = page.getByTestId("decision-panel");
  await expect(decision).toContainText("Context Manager unavailable");
  await expect(decision).toContainText("queued");
  await expect(page.getByTestId("timeline")).toContainText("Context Manager unavailable: skip search with a warning");
  await shot(page, "run-degraded");

  await page.goto("/workflows/swiss-army");
  await expect(panel).toContainText(/[1-9]\d* queued write/);
  await panel.getByRole("button", { name: "Bring back online" }).click();
  await expect(panel).toHaveAttribute("data-available", "true");
  await expect(panel).toContainText("0 queued write(s)");
  await shot(page, "workflow-cm-panel");
});
