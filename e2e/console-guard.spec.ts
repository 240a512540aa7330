// The suite's console guard (e2e/fixtures.ts) itself: a test whose page logs an error or throws
// fails, on its first page and on any further page of its context. Each test here is marked as
// expected to fail, so it turns red the day the guard stops failing tests.
import { test } from "./fixtures";

test("a console error on the test's page fails the test", async ({ page }) => {
  test.fail();
  await page.evaluate(() => console.error("the guard must see this"));
});

test("an uncaught exception on a second page of the test's context fails the test", async ({ context }) => {
  test.fail();
  const second = await context.newPage();
  const thrown = second.waitForEvent("pageerror");
  await second.evaluate(() => setTimeout(() => { throw new Error("the guard must see this too"); }));
  await thrown;
});
