// The suite's Chromium (playwright.config.ts): headless Chromium 156 opens a hidden omnibox popup
// page (chrome://omnibox-popup.top-chrome) in a renderer of its own for every window, i.e. for
// every test's context: ~2.8 CPU-s each, more than most pages under test cost. The config turns
// those features off; this fails the day a Chromium update brings another such page back.
import { expect, test } from "./fixtures";

test("the suite's browser opens no page but the test's own", async ({ browser, page }) => {
  await page.goto("/api/health");
  const cdp = await browser.newBrowserCDPSession();
  const { targetInfos } = await cdp.send("Target.getTargets");
  await cdp.detach();
  expect(targetInfos.filter((t) => t.type === "browser_ui" || t.url.startsWith("chrome://")).map((t) => t.url)).toEqual([]);
});
