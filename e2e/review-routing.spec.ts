// Review routing on the pages: a review due in 3 h and one that went overdue and was escalated
// show their routing in the queue, on the run page (desktop and phone), and the workflow page
// carries the "Review decisions" panel and the approve rate on the diagram.
import { test, expect } from "./fixtures";
import { expectWorkflowSaved, shot } from "./helpers";

const id = `routed-${Date.now().toString(36)}`;
const yaml = (due: string) => `id: ${id}
initial_stage: SIGN_OFF
stages: [SIGN_OFF, DONE]
transitions: { SIGN_OFF: [DONE], DONE: [] }
steps:
  SIGN_OFF:
    review: { prompt: "Sign off the contract", assign: [legal], due: ${due} }
    next: DONE
`;

test("the queue, the run page and the workflow page show routing and decisions", async ({ page, request }) => {
  // version 1: due in 3 h; version 2: due in 1 s (it escalates to legal-leads while we look)
  const v1 = await request.post("/api/workflows", { data: { yaml: yaml("{ after_s: 10800, escalate: [legal-leads] }") } });
  expectWorkflowSaved(v1.status(), await v1.text());
  const later = (await (await request.post("/api/runs", { data: { workflow: id, input: {} } })).json()) as { id: string };
  const v2 = await request.post("/api/workflows", { data: { yaml: yaml("{ after_s: 1, escalate: [legal-leads] }") } });
  expect(v2.status(), `a second version, stored: ${await v2.text()}`).toBe(201);
  const soon = (await (await request.post("/api/runs", { data: { workflow: id, input: {} } })).json()) as { id: string };
  await expect
    .poll(async () => ((await (await request.get(`/api/reviews?status=pending&assigned=legal-leads`)).json()) as { runId: string }[]).map((r) => r.runId), { timeout: 15_000 })
    .toContain(soon.id);
  const overdue = (await (await request.get("/api/reviews?overdue=true")).json()) as { runId: string; overdue: boolean; escalatedFrom: string[] }[];
  expect(overdue.find((r) => r.runId === soon.id)).toMatchObject({ overdue: true, escalatedFrom: ["legal"] });
  expect(overdue.some((r) => r.runId === later.id)).toBe(false);
  // the escalation is a row of the run's timeline; the run stays in SIGN_OFF
  const timeline = (await (await request.get(`/api/runs/${soon.id}/transitions`)).json()) as { event: string; reason: string; to: unknown }[];
  expect(timeline.find((t) => t.event === "review.escalated")?.reason).toBe("review of SIGN_OFF escalated from legal to legal-leads");

  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto("/review");
  const laterItem = page.locator(`li[data-run="${later.id}"]`);
  const soonItem = page.locator(`li[data-run="${soon.id}"]`);
  await expect(laterItem.getByTestId("review-due")).toHaveText(/due in (2|3) h/);
  await expect(laterItem.getByTestId("review-routing")).toContainText("for legal");
  await expect(soonItem.getByTestId("review-due")).toHaveText(/overdue \d+ min/);
  await expect(soonItem.getByTestId("review-escalated")).toHaveText("escalated from legal");
  await expect(soonItem.getByTestId("review-routing")).toContainText("for legal-leads");
  await soonItem.scrollIntoViewIfNeeded();
  await shot(page, "routing-queue-1440");

  await page.goto(`/runs/${soon.id}`);
  await expect(page.getByTestId("review-escalated")).toHaveText("escalated from legal");
  await expect(page.getByTestId("review-due")).toHaveText(/overdue/);
  await shot(page, "routing-run-1440");

  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/runs/${later.id}`);
  await expect(page.getByTestId("review-due")).toBeVisible();
  await shot(page, "routing-run-390");
  await page.goto("/review");
  await expect(page.locator(`li[data-run="${soon.id}"]`).getByTestId("review-escalated")).toBeVisible();
  await shot(page, "routing-queue-390");

  // a decision by a person shows up in the workflow page's analytics and as a tag on the diagram
  const pending = (await (await request.get(`/api/reviews?status=pending&runId=${later.id}`)).json()) as { id: string }[];
  expect((await request.post(`/api/reviews/${pending[0]!.id}/decision`, { data: { decision: "approve", reviewer: "lea" } })).status()).toBe(200);
  const stats = (await (await request.get(`/api/workflows/${id}/reviews/stats?window=1h`)).json()) as { states: Record<string, { decisions: Record<string, number>; reviewers: Record<string, number> }> };
  expect(stats.states.SIGN_OFF).toMatchObject({ decisions: { approve: 1, reject: 0 }, reviewers: { lea: 1 } });
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/workflows/${id}?reviews=1h`);
  const panel = page.getByTestId("review-stats");
  await expect(panel.locator('[data-state="SIGN_OFF"]')).toContainText("1 decision by people");
  await expect(panel.locator('[data-decision="approve"]')).toHaveText("approve 1 · 100%");
  await expect(page.locator('[data-testid=diagram] [data-state="SIGN_OFF"]')).toContainText("✓ 100%");
  await shot(page, "routing-workflow-1440");
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await expect(panel).toBeVisible();
  await shot(page, "routing-workflow-390");
});

test("a review due no sooner than its step times out is warned in the editor and on the workflow page", async ({ page }) => {
  const late = `late-${Date.now().toString(36)}`;
  const diagram = (due: number) =>
    [
      "---",
      "switchyard:",
      "  steps:",
      "    SIGN_OFF:",
      `      review: { prompt: "Sign off the contract", assign: [legal], due: { after_s: ${due}, escalate: [legal-leads] } }`,
      "      next: DONE",
      "      timeout: { after_s: 3600, to: EXPIRED }",
      "---",
      "stateDiagram-v2",
      "    [*] --> SIGN_OFF",
      "    SIGN_OFF --> DONE",
      "    SIGN_OFF --> EXPIRED",
      "    DONE --> [*]",
      "    EXPIRED --> [*]",
    ].join("\n");
  const said = "steps.SIGN_OFF.review.due: after_s 86400 is not before timeout.after_s 3600";
  await page.goto("/workflows/new");
  await page.getByLabel("workflow id").fill(late);
  const editor = page.getByTestId("flow-source");
  // due before the timeout: valid, nothing to say
  await editor.fill(diagram(1800));
  await expect(page.getByTestId("flow-check")).toHaveAttribute("data-valid", "true");
  await expect(page.getByTestId("flow-check")).toContainText("Valid: 3 stages");
  await expect(page.getByTestId("flow-warnings")).toHaveCount(0);
  // due a day later, the timeout an hour: the warning, with its line; it still saves
  await editor.fill(diagram(86_400));
  await expect(page.getByTestId("flow-warnings")).toContainText(`line 5: ${said}`);
  await expect(page.getByTestId("flow-warnings")).toContainText("so it is never escalated");
  await shot(page, "routing-editor-due-warning");
  await page.getByRole("button", { name: "Save workflow" }).click();
  await page.waitForURL(new RegExp(`/workflows/${late}$`));
  await expect(page.getByTestId("workflow-warnings")).toContainText(said);
});
