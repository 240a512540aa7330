// The stage machine (docs/guide/15-conversation-and-your-own-workflows.md) in the browser: define a workflow from Mermaid in the editor (live validation and
// preview), run it and move it through its states; the conversation workflow's stage panel.
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { shot, untilCooldownOver } from "./helpers";

/** the conversation workflow's cooldown between two moves (its cooldown_seconds) */
const COOLDOWN_MS = 1_000;
/** the run the page shows (/runs/{id}) */
const runIdOf = (page: Page) => page.url().split("/").pop()!;

const runPage = (page: Page) => page.getByTestId("run-page");

async function startRun(page: Page, workflow: string, task?: string) {
  await page.goto("/");
  await page.getByLabel("Workflow", { exact: true }).selectOption(workflow);
  if (task) await page.getByRole("textbox", { name: "task", exact: true }).fill(task);
  await page.getByRole("button", { name: "Start run" }).click();
  await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/);
}

test("create a workflow from Mermaid in the editor, run it, move it through its states", async ({ page }) => {
  const id = `ticket-${Date.now().toString(36)}`;
  await page.goto("/workflows");
  await page.getByTestId("new-workflow").click();
  await page.waitForURL(/\/workflows\/new$/);
  await page.getByLabel("workflow id").fill(id);
  const editor = page.getByTestId("flow-source");
  // "NEW -> GONE" is not Mermaid (a bare line of words would be state names to Mermaid)
  await editor.fill("stateDiagram-v2\n    [*] --> NEW\n    NEW --> TRIAGE: assigned\n    TRIAGE --> GONE\n    NEW -> GONE\n");
  await expect(page.getByTestId("flow-check")).toContainText('line 5: cannot read "NEW -> GONE"');
  await expect(page.getByRole("button", { name: "Save workflow" })).toBeDisabled();
  const diagram = [
    "---",
    "title: Support ticket",
    "---",
    "stateDiagram-v2",
    "    [*] --> NEW",
    "    NEW --> TRIAGE: assigned",
    "    TRIAGE --> WORKING: accepted",
    "    TRIAGE --> CLOSED: duplicate",
    "    state WORKING {",
    "        [*] --> INVESTIGATING",
    "        INVESTIGATING --> FIXING: cause found",
    "    }",
    "    WORKING --> RESOLVED: fix shipped",
    "    RESOLVED --> CLOSED",
    "    CLOSED --> [*]",
  ].join("\n");
  await editor.fill(diagram);
  await expect(page.getByTestId("flow-check")).toHaveAttribute("data-valid", "true");
  await expect(page.getByTestId("flow-check")).toContainText("Valid: 7 stages");
  await expect(page.locator('[data-testid=diagram] [data-state="WORKING.FIXING"]')).toBeVisible();
  await shot(page, "flows-editor");
  await page.getByRole("button", { name: "Save workflow" }).click();
  await page.waitForURL(new RegExp(`/workflows/${id}$`));
  await expect(page.getByRole("heading", { name: "Support ticket" })).toBeVisible();
  await expect(page.getByTestId("export-mermaid")).toBeVisible();
  await shot(page, "flows-saved");

  await startRun(page, id);
  await expect(page.getByTestId("stage")).toHaveText("NEW");
  for (const [to, state] of [["TRIAGE", "TRIAGE"], ["WORKING", "WORKING.INVESTIGATING"], ["FIXING", "WORKING.FIXING"], ["RESOLVED", "RESOLVED"]]) {
    await page.getByTestId("next-stages").getByRole("button", { name: `→ ${to}` }).click();
    await expect(runPage(page)).toHaveAttribute("data-state", state);
  }
  // the run waits in its stage for the next move: lit as waiting, and listed as waiting
  await expect(page.locator(`[data-testid=diagram] [data-state="RESOLVED"]`)).toHaveAttribute("data-status", "waiting");
  await expect(runPage(page)).toHaveAttribute("data-status", "waiting");
  await shot(page, "flows-run");
  await page.getByTestId("next-stages").getByRole("button", { name: "→ CLOSED" }).click();
  await expect(runPage(page)).toHaveAttribute("data-status", "completed");
  await expect(page.getByTestId("stage-decisions").locator("li")).toHaveCount(5);
});

test("conversation: messages are scored, moves follow the stage rules, refusals are shown", async ({ page }) => {
  await startRun(page, "conversation", "What is the plan and approach for refactoring the auth module?");
  await expect(page.getByTestId("stage")).toHaveText("PLANNING");
  await expect(page.getByTestId("stage-tools")).toContainText("code_search");
  // the conversation's cooldown after its first move, on the server's clock
  await untilCooldownOver(page.request, runIdOf(page), COOLDOWN_MS);
  await page.getByLabel("Message").fill("Let me read the session code and examine the token checks");
  await page.getByRole("button", { name: "Send message" }).click();
  await expect(page.getByTestId("stage")).toHaveText("READING");
  await expect(page.getByTestId("detection")).toContainText("Detected READING with confidence 1");
  await untilCooldownOver(page.request, runIdOf(page), COOLDOWN_MS);
  await page.getByTestId("next-stages").getByRole("button", { name: "→ EXECUTION" }).click();
  await expect(page.getByTestId("stage")).toHaveText("EXECUTION");
  await page.getByTestId("stage-tools").getByRole("button", { name: "edit" }).click();
  await expect(page.getByTestId("stage-tools")).toContainText("1 call(s) so far");
  await untilCooldownOver(page.request, runIdOf(page), COOLDOWN_MS);
  await page.getByTestId("next-stages").getByRole("button", { name: "→ COMPLETION" }).click();
  await expect(page.getByTestId("stage-decisions").locator("li").first()).toContainText("Need at least 3 tool calls before COMPLETION (1 so far)");
  await expect(page.getByTestId("stage")).toHaveText("EXECUTION");
  await expect(page.getByTestId("last-refusal")).toContainText("EXECUTION → COMPLETION refused: Need at least 3 tool calls");
  await shot(page, "conversation-refused");
});

test.describe("webhooks", () => {
  // the form's refused inputs are 422 answers from /api/webhooks, which Chromium logs as failed loads
  test.use({ allowConsoleErrors: [/status of 422/] });

  test("webhooks: add one on a workflow's page, see its deliveries with their answers", async ({ page, request, baseURL }) => {
    await page.goto("/workflows/conversation");
    const panel = page.getByTestId("webhooks-panel");
    // a cloud metadata address is refused with the reason, in the form
    await panel.getByLabel("webhook URL").fill("http://169.254.169.254/latest/meta-data/");
    await panel.getByLabel("webhook secret").fill("a-shared-secret-of-enough-length");
    await panel.getByRole("button", { name: "Add webhook" }).click();
    // …next to the URL field, said once (not "url: url must…")
    await expect(panel.getByRole("alert")).toContainText("must not point at a link-local address");
    await expect(panel.locator("#webhook-url-error")).toHaveText(/^url must not point at a link-local address/);
    await expect(panel.getByLabel("webhook URL")).toHaveAttribute("aria-invalid", "true");
    // the app's own health check answers POST with 405: a delivery that fails and is not retried
    await panel.getByLabel("webhook URL").fill(`${baseURL}/api/health`);
    await panel.getByLabel("webhook secret").fill("short");
    await panel.getByRole("button", { name: "Add webhook" }).click();
    await expect(panel.getByRole("alert")).toHaveText("secret must be at least 16 characters");
    await expect(panel.locator("#webhook-url-error")).toHaveCount(0);
    await expect(panel.getByLabel("webhook secret")).toHaveAttribute("aria-invalid", "true");
    await panel.getByLabel("webhook secret").fill("a-shared-secret-of-enough-length");
    await panel.getByRole("button", { name: "Add webhook" }).click();
    await expect(panel.locator("li")).toContainText("/api/health");
    await expect(panel.locator("li")).toContainText("••••th");
    const started = await request.post("/api/runs", { data: { workflow: "conversation", input: {} } });
    const { id } = (await started.json()) as { id: string };
    await untilCooldownOver(request, id, COOLDOWN_MS);
    expect((await request.post(`/api/runs/${id}/events`, { data: { type: "TRANSITION", to: "READING" } })).status()).toBe(200);
    await expect
      .poll(async () => {
        await panel.getByRole("button", { name: /Deliveries|Hide deliveries/ }).first().click();
        const text = (await panel.locator("table").textContent({ timeout: 1_000 }).catch(() => "")) ?? "";
        await panel.getByRole("button", { name: "Hide deliveries" }).first().click().catch(() => {});
        return text.includes(id.slice(0, 8)) && text.includes("HTTP 405");
      }, { timeout: 15_000 })
      .toBe(true);
    await panel.getByRole("button", { name: "Deliveries" }).first().click();
    await panel.scrollIntoViewIfNeeded();
    await shot(page, "webhooks-panel");
  });
});
