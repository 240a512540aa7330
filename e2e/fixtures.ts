// Every spec imports `test` and `expect` from here: a page that logs a console error or throws
// an uncaught exception fails its test. A test that provokes an error on purpose (a 4xx answer
// the page shows to the user) names it with `test.use({ allowConsoleErrors: [/…/] })`.
import { test as base, expect } from "@playwright/test";

export { expect };

export const test = base.extend<{ allowConsoleErrors: RegExp[]; consoleGuard: void }>({
  allowConsoleErrors: [[], { option: true }],
  consoleGuard: [
    async ({ page, allowConsoleErrors }, use) => {
      const errors: string[] = [];
      page.on("console", (m) => {
        if (m.type() !== "error") return;
        const where = m.location()?.url ? ` (${m.location().url})` : "";
        const text = `${m.text()}${where}`;
        if (!allowConsoleErrors.some((r) => r.test(text))) errors.push(text);
      });
      page.on("pageerror", (e) => {
        const text = `uncaught: ${e.message}`;
        if (!allowConsoleErrors.some((r) => r.test(text))) errors.push(text);
      });
      await use();
      expect(errors, `console errors on ${page.url()}`).toEqual([]);
    },
    { auto: true },
  ],
});
