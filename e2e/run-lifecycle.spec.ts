// A reviewer's whole loop in the browser: start a run, watch the diagram move, find the review
// in the queue, decide it, and see the run return to IDLE; plus modify, abort and a second request.
import { expect, test, UI_ONLY } from "./fixtures";
import { expectState, openInInbox, pendingReviewFor, shot, startFromUi } from "./helpers";

test("new run → diagram moves → review in the queue → approve → back in IDLE, approved", async ({ page, request }) => {
  const id = await startFromUi(page, "Write a TypeScript function that retries a fetch with exponential backoff and jitter");
  await expectState(page, "HUMAN_REVIEW", "waiting");
  // the tab names the run by what it is about and its workflow, not by a raw id
  await expect(page).toHaveTitle(/^Write a TypeScript function that retries a fetch.*… · Swiss Army Knife · Switchyard$/);
  // the run went through every state of the loop, and the diagram marks them visited
  for (const s of ["REQUEST_RECEIVED", "CONTEXT_SEARCH", "EXECUTING", "CONTEXT_UPDATE"]) {
    await expect(page.locator(`[data-testid=diagram] [data-state="${s}"]`)).toHaveAttribute("data-status", "visited");
  }
  await expect(page.getByTestId("timeline").locator("tbody tr")).toHaveCount(8);
  await expect(page.getByTestId("decision-panel")).toContainText("Retry with exponential backoff");
  await shot(page, "run-waiting-for-review");

  await page.getByRole("link", { name: /Review queue/ }).click();
  const item = await openInInbox(page, id);
  await expect(item).toContainText("waiting");
  await shot(page, "review-queue");
  await page.getByLabel("Deciding as").fill("e2e");
  await item.getByRole("button", { name: "Approve" }).click();
  await expect(page.locator(`[data-testid=review-row][data-run="${id}"]`)).toHaveCount(0);

  await page.goto(`/runs/${id}`);
  await expectState(page, "IDLE");
  await expect(page.getByTestId("last-outcome")).toHaveAttribute("data-outcome", "approved");
  await expect(page.getByTestId("timeline").locator("tbody tr").first()).toContainText("User approves");
  await shot(page, "run-approved-idle");
  // on SQLite, the production server wrote those commits on its writer thread
  const health = await (await request.get("/api/health")).json();
  if (health.database.provider === "sqlite") expect(health.database.writer).toMatchObject({ mode: "thread", busy: expect.any(Number) });
  // the icon, at the address browsers ask for whatever the page links
  const icon = await request.get("/favicon.ico");
  expect(icon.status()).toBe(200);
  expect(icon.headers()["content-type"]).toContain("image/svg+xml");
});

test("modify starts a new cycle at REQUEST_RECEIVED with the feedback", async ({ page }) => {
  await startFromUi(page, "Write a Python script that renames photos by their EXIF date");
  await expectState(page, "HUMAN_REVIEW", "waiting");
  const panel = page.getByTestId("decision-panel");
  await panel.getByRole("button", { name: "Request changes" }).click();
  await expect(panel).toContainText("describe the modification");
  await panel.getByLabel("Feedback").fill("also handle photos without EXIF data");
  await panel.getByRole("button", { name: "Request changes" }).click();
  await expect(page.getByTestId("timeline")).toContainText("Modify requested (new cycle)");
  await expectState(page, "HUMAN_REVIEW", "waiting");
  await expect(page.getByTestId("decision-panel")).toContainText("request 2");
  await expect(page.getByTestId("context-panel")).toContainText("also handle photos without EXIF data");
  await shot(page, "run-modified-second-cycle");
});

test("abort from a non-idle state returns to IDLE keeping partial results; stopping an idle run ends it", async ({ page }) => {
  await startFromUi(page, "Explain how keyset pagination works in PostgreSQL");
  await expectState(page, "HUMAN_REVIEW", "waiting");
  await page.getByTestId("abort-open").click();
  await page.getByPlaceholder("Reason (optional)").fill("wrong database");
  await page.getByRole("button", { name: "Confirm abort" }).click();
  await expectState(page, "IDLE");
  await expect(page.getByTestId("last-outcome")).toHaveAttribute("data-outcome", "aborted");
  await expect(page.getByTestId("run-error")).toContainText("wrong database");
  await expect(page.getByTestId("run-error")).toContainText("Partial result kept");
  await expect(page.getByTestId("timeline").locator("tbody tr").first()).toContainText("User abort");
  await shot(page, "run-aborted");

  await page.getByTestId("abort-open").click();
  await page.getByRole("button", { name: "Stop the run" }).click();
  await expect(page.getByTestId("run-page")).toHaveAttribute("data-status", "aborted");
});

test("a second request to the same run, and live updates without a reload", async ({ page, request }) => {
  const id = await startFromUi(page, "Refactor the payment module to extract the tax calculation into its own function");
  await expectState(page, "HUMAN_REVIEW", "waiting");
  const reviewId = await pendingReviewFor(request, id);
  // decided elsewhere (another reviewer, through the API): this page follows by SSE
  const res = await request.post(`/api/reviews/${reviewId}/decision`, { data: { decision: "reject", feedback: "not what I meant" } });
  expect(res.status()).toBe(200);
  await expectState(page, "IDLE");
  await expect(page.getByTestId("last-outcome")).toHaveAttribute("data-outcome", "rejected");
  await expect(page.getByTestId("last-outcome")).toContainText("Last request (#1)");

  await page.getByLabel("Next request").fill("Refactor the payment module: extract only the VAT calculation");
  await page.getByRole("button", { name: "Send" }).click();
  await expectState(page, "HUMAN_REVIEW", "waiting");
  await expect(page.getByTestId("decision-panel")).toContainText("request 2");
  // the outcome shown is the one of the cycle that ended, named by its own number
  await expect(page.getByTestId("last-outcome")).toContainText("Previous request (#1)");
  await expect(page.getByTestId("last-outcome")).toContainText("rejected");
  // the decided cycle's output stays readable, with its decision
  await page.getByRole("button", { name: /^Cycles/ }).click();
  const cycle1 = page.getByTestId("cycle-history").locator('[data-cycle="1"]');
  await expect(cycle1).toContainText("rejected");
  await expect(cycle1).toContainText("not what I meant");
  await expect(cycle1).toContainText("Refactor the payment module to extract the tax calculation");
  const again = await request.post(`/api/reviews/${reviewId}/decision`, { data: { decision: "approve" } });
  expect(again.status()).toBe(409);
});

test("bad input in the New run form shows a field error and starts nothing", UI_ONLY, async ({ page, request }) => {
  const before = (await (await request.get("/api/runs")).json()).total;
  await page.goto("/");
  await page.getByText("Input as JSON").click();
  await page.locator("textarea[name=json]").fill("{not json");
  await page.getByRole("button", { name: "Start run" }).click();
  await expect(page.getByText("not valid JSON")).toBeVisible();
  await page.locator("textarea[name=json]").fill('{"request": 12}');
  await page.getByRole("button", { name: "Start run" }).click();
  await expect(page.getByText("Invalid input: expected string, received number")).toBeVisible();
  expect((await (await request.get("/api/runs")).json()).total).toBe(before);
});

test("pages read well on a narrow screen", UI_ONLY, async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const id = await startFromUi(page, "Write a Bash script that archives log files older than 7 days");
  await expectState(page, "HUMAN_REVIEW", "waiting");
  await shot(page, "run-narrow");
  await page.goto("/");
  await expect(page.getByTestId("runs-table")).toContainText(id.slice(0, 8));
  await shot(page, "dashboard-narrow");
  // every section stays reachable: the nav wraps rather than scrolling links off-screen
  for (const label of [/^Runs$/, /^Review queue/, /^Workflows$/, /^Log$/, /^Knowledge$/, /^Settings$/]) {
    const box = await page.locator("header nav").getByRole("link", { name: label }).boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 390, `${label} is on screen`).toBe(true);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto("/workflows/swiss-army");
  await expect(page.getByTestId("metrics")).toBeVisible();
  await shot(page, "workflow-metrics");
  await page.goto("/");
  await shot(page, "dashboard");
});

test("the diagram moves while motion is welcome and stands still for a reader who asks for less", UI_ONLY, async ({ page, request }) => {
  // (the suite runs with reduced motion: an endless animation keeps headless Chromium repainting)
  const res = await request.post("/api/runs", { data: { workflow: "swiss-army", input: { request: "Motion: a regex for ISO dates" } } });
  expect(res.status()).toBe(201);
  const id = ((await res.json()) as { id: string }).id;
  await pendingReviewFor(request, id);
  await page.emulateMedia({ reducedMotion: "no-preference" });
  await page.goto(`/runs/${id}`);
  await expectState(page, "HUMAN_REVIEW", "waiting");
  const lastEdge = page.locator("[data-testid=diagram] path.edge-last");
  const ping = page.locator('[data-testid=diagram] [data-state="HUMAN_REVIEW"] [class*="animate-ping"]').first();
  const animation = (l: typeof lastEdge) => l.evaluate((el) => getComputedStyle(el).animationName);
  await expect.poll(() => animation(lastEdge)).toBe("edge-flow");
  await expect.poll(() => animation(ping)).toBe("ping");
  await page.emulateMedia({ reducedMotion: "reduce" });
  await expect.poll(() => animation(lastEdge)).toBe("none");
  await expect(ping).toBeHidden();
  // the state still shows it is live: the still dot stays
  await expect(page.locator('[data-testid=diagram] [data-state="HUMAN_REVIEW"]')).toHaveAttribute("data-status", "waiting");
});

test("a page view fetches only itself: a link prefetches its page when the pointer is over it", UI_ONLY, async ({ page }) => {
  const prefetched: string[] = [];
  page.on("request", (r) => {
    if (r.headers()["next-router-prefetch"]) prefetched.push(new URL(r.url()).pathname);
  });
  await page.goto("/");
  await expect(page.getByTestId("runs-table")).toBeVisible();
  await page.locator("header nav").getByRole("link", { name: /^Review queue/ }).hover();
  await expect.poll(() => prefetched).toContain("/review");
  // none of the page's other links (the nav, the runs, the filters) was fetched on sight
  expect(prefetched.filter((p) => p !== "/review")).toEqual([]);
});

test("a history read before a transition the stream then delivers does not take that transition away", async ({ page, request }) => {
  const res = await request.post("/api/runs", { data: { workflow: "swiss-army", input: { request: "Race: a regex for UK postcodes" } } });
  expect(res.status()).toBe(201);
  const id = ((await res.json()) as { id: string }).id;
  const review = await pendingReviewFor(request, id);
  const seqOf = async () => ((await (await request.get(`/api/runs/${id}`)).json()) as { seq: number }).seq;
  const before = await seqOf();
  // the history the page reloads when its stream connects is read now, and handed to the page
  // only after the run has moved on and the stream has delivered the newer transitions
  let read!: () => void;
  const wasRead = new Promise<void>((r) => (read = r));
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  await page.route(`**/api/runs/${id}/transitions?**`, async (route) => {
    const stale = await route.fetch();
    read();
    await released;
    await route.fulfill({ response: stale });
  });
  await page.goto(`/runs/${id}`);
  const rows = page.getByTestId("timeline").locator("tbody tr");
  await expect(rows).toHaveCount(before);
  await wasRead;
  const decided = await request.post(`/api/reviews/${review}/decision`, { data: { decision: "approve", reviewer: "e2e" } });
  expect(decided.status(), await decided.text()).toBe(200);
  await expectState(page, "IDLE");
  const after = await seqOf();
  expect(after).toBeGreaterThan(before);
  await expect(rows).toHaveCount(after);
  const handed = page.waitForEvent("requestfinished", (r) => r.url().includes(`/api/runs/${id}/transitions?`));
  release();
  await handed;
  // the page has taken the stale history in (a frame for React to commit it): nothing is lost
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await expect(rows).toHaveCount(after);
  await expect(rows.first()).toContainText("User approves");
});
