// Steps carried in a Mermaid diagram's front matter, in the browser: the editor checks
// them as you type, each problem on its line (a broken when: expression); the diagram draws each
// when: guard as its own labelled edge; a run of the saved workflow takes the guarded route.
import { expect, test } from "./fixtures";
import { shot } from "./helpers";

const diagram = (expr: string) =>
  [
    "---",
    "title: Scored posts",
    "switchyard:",
    "  steps:",
    "    SCORE:",
    '      code: { source: "({ score: input.score })" }',
    "      when:",
    `        - { if: "${expr}", to: PUBLISH }`,
    "      next: DROP",
    "---",
    "stateDiagram-v2",
    "    [*] --> SCORE",
    "    SCORE --> PUBLISH",
    "    SCORE --> DROP",
    "    PUBLISH --> [*]",
    "    DROP --> [*]",
  ].join("\n");

for (const size of [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
]) {
  test(`Mermaid front-matter steps at ${size.width}: checked on their line, guards drawn as labelled edges, a run takes the guarded route`, async ({ page }) => {
    test.setTimeout(90_000);
    await page.setViewportSize(size);
    const id = `scored-${size.width}-${Date.now().toString(36)}`;
    await page.goto("/workflows/new");
    await page.getByLabel("workflow id").fill(id);
    const editor = page.getByTestId("flow-source");
    await editor.fill(diagram("steps.SCORE.output.score >="));
    await expect(page.getByTestId("flow-check")).toContainText('line 8: steps.SCORE.when.0.if: "steps.SCORE.output.score >=": Unexpected token: EOF');
    await expect(page.getByRole("button", { name: "Save workflow" })).toBeDisabled();

    await editor.fill(diagram("steps.SCORE.output.score >= 0.8"));
    await expect(page.getByTestId("flow-check")).toHaveAttribute("data-valid", "true");
    const guarded = page.locator("[data-testid=diagram] [data-edge]").filter({ hasText: "when" });
    await expect(guarded).toHaveCount(1);
    // the label is the expression, wrapped into rows (no guard name after it)
    await expect(guarded.locator("div")).toHaveText(["when", "steps.SCORE.output.score >=", "0.8"]);
    await shot(page, `flows-front-matter-${size.width}`);
    await page.getByRole("button", { name: "Save workflow" }).click();
    await page.waitForURL(new RegExp(`/workflows/${id}$`));

    await page.goto("/");
    await page.getByLabel("Workflow", { exact: true }).selectOption(id);
    await page.getByText("Input as JSON").click();
    await page.locator("textarea[name=json]").fill(JSON.stringify({ score: 0.9 }));
    await page.getByRole("button", { name: "Start run" }).click();
    await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/);
    const run = page.getByTestId("run-page");
    await expect(run).toHaveAttribute("data-status", "completed", { timeout: 30_000 });
    await expect(run).toHaveAttribute("data-state", "PUBLISH");
  });
}
