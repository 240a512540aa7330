// axe-core on a page, as the accessibility checks run it (e2e/accessibility.spec.ts, e2e/roles.spec.ts).
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";

/**
 * Serious and critical violations on the page as it is, one line each with where; `rules`: only
 * those. In axe's legacy mode: `axe.run` in the page itself. The default mode collects each
 * frame's partial results and finishes them in a blank page it opens for every check, which cost
 * about as much as the check (measured on 17 pages: 50 s of checking against 27 s in legacy mode);
 * the app's pages have no frames of other origins, which is all the default mode adds.
 */
export async function seriousViolations(page: Page, rules?: string[]): Promise<string[]> {
  const builder = new AxeBuilder({ page }).setLegacyMode();
  const result = await (rules ? builder.withRules(rules) : builder).analyze();
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .flatMap((v) => v.nodes.slice(0, 5).map((n) => `${v.id} (${v.impact}): ${n.target.join(" ")} — ${n.failureSummary?.split("\n").slice(1, 2).join(" ").trim() ?? v.help}`));
}
