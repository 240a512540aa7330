// The knowledge store in the browser, offline: the shipped guide is there on first start; paste a
// document, find it with scores and passages, see a bad import refused, delete it.
import { expect, test } from "./fixtures";
import { shot } from "./helpers";

test("guide seeded → paste a document → ranked search with passages → bad input refused → delete", async ({ page }) => {
  await page.goto("/knowledge");
  await expect(page.getByTestId("kb-documents")).toContainText("The swiss-army workflow");

  const paste = page.getByTestId("kb-paste");
  await paste.getByLabel("Title (optional)").fill("Quokka runbook");
  await paste.getByLabel("Text").fill("# Quokka runbook\n\nDuring a zebrafish rollout each quokka node drains for 90 seconds before the next one starts.\n");
  await paste.getByRole("button", { name: "Import text" }).click();
  await expect(page.getByTestId("kb-paste-result")).toContainText("Imported “Quokka runbook”, 1 chunk.");
  await expect(page.getByTestId("kb-documents")).toContainText("Quokka runbook");

  await page.getByLabel("Search the knowledge store").fill("zebrafish rollout drain");
  await page.getByRole("button", { name: "Search", exact: true }).click();
  const first = page.getByTestId("kb-hit").first();
  await expect(first).toContainText("Quokka runbook");
  await expect(first.getByTestId("kb-passage")).toContainText("90 seconds");
  await expect(first.getByTestId("kb-score")).toHaveText(/^\d\.\d\d$/);
  await expect(first.getByTestId("kb-method")).toHaveText("bm25");
  await shot(page, "knowledge-search");

  await paste.getByLabel("Text").fill("   ");
  await paste.getByRole("button", { name: "Import text" }).click();
  await expect(paste.getByTestId("kb-paste-error")).toHaveText("paste some text");

  await page.goto("/knowledge");
  page.once("dialog", (d) => void d.accept());
  const row = page.locator("[data-testid=kb-documents] tr", { hasText: "Quokka runbook" });
  await row.getByTestId("kb-delete").click();
  await expect(page.getByTestId("kb-documents")).not.toContainText("Quokka runbook");
});
