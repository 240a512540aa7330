// Every spec imports `test` and `expect` from here: a page that logs a console error or throws
// an uncaught exception fails its test. A test that provokes an error on purpose (a 4xx answer
// the page shows to the user) names it with `test.use({ allowConsoleErrors: [/…/] })`.
// Each Playwright worker after the first serves its specs from a server and database of its own
// (started the first time one of its tests needs `baseURL`, `page` or `request`), so specs in
// different workers never see each other's runs, reviews or workflows.
import { test as base, expect, type Page } from "@playwright/test";
import { OwnServer } from "./own-server";
import { SUITE_ENV, suitePort } from "./suite-env";

export { expect };

export const test = base.extend<{ allowConsoleErrors: RegExp[] }, { workerServer: string | null }>({
  workerServer: [
    async ({}, use, workerInfo) => {
      if (workerInfo.parallelIndex === 0) return use(null);
      const server = new OwnServer(`suite_${workerInfo.parallelIndex}`, suitePort(workerInfo.parallelIndex), SUITE_ENV);
      await server.start();
      // specs that write to the suite's database directly (e2e/fleet-history.ts) write to this worker's
      process.env.E2E_DB_URL = server.env.DATABASE_URL;
      await use(server.base);
      await server.stop();
    },
    { scope: "worker", timeout: 150_000 },
  ],
  baseURL: async ({ baseURL, workerServer }, use) => use(workerServer ?? baseURL),
  allowConsoleErrors: [[], { option: true }],
  // on the test's context, so a test that only calls the API (`request`) opens no browser at
  // all (a context and its first page cost ~2.8 CPU-s here), and a second page of the test's
  // context is watched as well
  context: async ({ context, allowConsoleErrors }, use) => {
    const errors: string[] = [];
    const watch = (page: Page) => {
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
    };
    context.pages().forEach(watch);
    context.on("page", watch);
    await use(context);
    expect(errors, `console errors on ${context.pages().map((p) => p.url()).join(", ") || "the test's pages"}`).toEqual([]);
  },
});

/**
 * A test of the page alone (a form's errors, a layout, motion, prefetching): the same against any
 * database, so the PostgreSQL pass of `npm test` leaves it out (`--grep-invert @ui`).
 */
export const UI_ONLY = { tag: "@ui" };
