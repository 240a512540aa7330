// The mission timeline viewer: Gantt lanes, scrubbing with keys, slider and bars, the diagram
// replayed to the cursor.
import { expect, test } from "./fixtures";
import { shot, untilCooldownOver } from "./helpers";

/** the conversation workflow's cooldown between two moves (its cooldown_seconds) */
const COOLDOWN_MS = 1_000;

test("scrub a run's history: the diagram and the cursor follow", async ({ page, request }) => {
  const started = await request.post("/api/runs", { data: { workflow: "conversation", input: {} } });
  expect(started.status()).toBe(201);
  const { id } = (await started.json()) as { id: string };
  for (const to of ["PLANNING", "READING", "EXECUTION"]) {
    await untilCooldownOver(request, id, COOLDOWN_MS);
    const moved = await request.post(`/api/runs/${id}/events`, { data: { type: "TRANSITION", to } });
    expect(moved.status()).toBe(200);
  }
  await page.goto(`/runs/${id}`);
  // the run page's own tab: the Gantt and its replay cursor
  await page.getByTestId("history-panel").getByRole("button", { name: "Gantt and replay" }).click();
  await expect(page.getByTestId("history-panel").getByTestId("run-timeline")).toHaveAttribute("data-active", "EXECUTION");
  await page.getByTestId("history-panel").scrollIntoViewIfNeeded();
  await shot(page, "run-page-gantt-tab");
  await page.getByTestId("timeline-link").click();
  await page.waitForURL(new RegExp(`/runs/${id}/timeline$`));
  const view = page.getByTestId("run-timeline");
  await expect(view).toHaveAttribute("data-active", "EXECUTION");
  const last = Number(await view.getAttribute("data-cursor"));
  expect(last).toBeGreaterThanOrEqual(5);
  for (const lane of ["INITIAL", "PLANNING", "READING", "EXECUTION"]) await expect(page.locator(`[data-testid=gantt] [data-lane="${lane}"]`)).toBeVisible();

  const controls = page.getByTestId("timeline-controls");
  await controls.focus();
  await page.keyboard.press("Home");
  await expect(view).toHaveAttribute("data-cursor", "0");
  await expect(view).toHaveAttribute("data-active", "");
  await page.keyboard.press("ArrowRight");
  await expect(view).toHaveAttribute("data-active", "INITIAL");
  await expect(page.locator('[data-testid=diagram] [data-state="INITIAL"]')).toHaveAttribute("data-status", "active");
  await expect(page.locator('[data-testid=diagram] [data-state="EXECUTION"]')).toHaveAttribute("data-status", "idle");

  await page.locator('[data-visit="READING#1"]').click();
  await expect(view).toHaveAttribute("data-active", "READING");
  await expect(page.locator('[data-testid=diagram] [data-state="PLANNING"]')).toHaveAttribute("data-status", "visited");
  await expect(page.getByTestId("cursor-transition")).toContainText("PLANNING → READING");
  await shot(page, "timeline-scrub");

  await controls.focus();
  await page.keyboard.press("End");
  await expect(view).toHaveAttribute("data-cursor", String(last));
  await page.getByLabel("speed").selectOption("100");
  await page.keyboard.press("Home");
  await page.getByRole("button", { name: "Play" }).click();
  await expect(view).toHaveAttribute("data-active", "EXECUTION", { timeout: 10_000 });
});

test.describe("forking from the cursor", () => {
  // a context key the workflow keeps is refused by the server (422), and the form shows why
  test.use({ allowConsoleErrors: [/status of 422 \(Unprocessable Entity\) \(http:\/\/[^)]+\/api\/runs\/[^/]+\/fork\)/] });

  test("the context at the cursor, and a fork from there with edited context", async ({ page, request }) => {
    const started = await request.post("/api/runs", { data: { workflow: "conversation", input: { task: "fork me" } } });
    const { id } = (await started.json()) as { id: string };
    for (const to of ["PLANNING", "READING"]) {
      await untilCooldownOver(request, id, COOLDOWN_MS);
      expect((await request.post(`/api/runs/${id}/events`, { data: { type: "TRANSITION", to } })).status()).toBe(200);
    }
    const history = (await (await request.get(`/api/runs/${id}/transitions`)).json()) as { seq: number; to: string }[];
    const planning = history.find((t) => t.to === "PLANNING")!.seq;
    await page.goto(`/runs/${id}/timeline`);
    await expect(page).toHaveTitle(/^Timeline · fork me · .+ · Switchyard$/);
    const view = page.getByTestId("run-timeline");
    await page.locator('[data-visit="PLANNING#1"]').click();
    await expect(view).toHaveAttribute("data-active", "PLANNING");
    // the context as it was then: PLANNING is the current stage, READING not yet visited
    await expect(page.getByTestId("cursor-context")).toHaveAttribute("data-seq", String(planning));
    const then = JSON.parse((await page.getByTestId("cursor-context-json").textContent({ timeout: 5_000 }))!) as { active: string[]; visits: Record<string, number> };
    expect(then.active).toEqual(["PLANNING"]);
    expect(then.visits.READING).toBeUndefined();
    await page.getByTestId("fork-open").click();
    await page.getByLabel("context edits (JSON)").fill("[1]");
    await page.getByTestId("fork-submit").click();
    await expect(page.getByTestId("fork-error")).toContainText("object");
    // only what came from the run's input may change: the stages visited are the machine's
    await expect(page.getByTestId("fork-editable")).toHaveText("task");
    await page.getByLabel("context edits (JSON)").fill('{"visits": {}}');
    await page.getByTestId("fork-submit").click();
    await expect(page.getByTestId("fork-error")).toContainText("context.visits is kept by the workflow");
    await page.getByLabel("context edits (JSON)").fill('{"task": "forked task"}');
    await shot(page, "timeline-fork-form");
    await page.getByTestId("fork-submit").click();
    await page.waitForURL((u) => /\/runs\/[0-9a-f-]{36}$/.test(u.pathname) && !u.pathname.endsWith(id));
    await expect(page.getByTestId("fork-of")).toContainText(`forked from run ${id.slice(0, 8)} at #${planning}`);
    const forkId = page.url().split("/").at(-1)!;
    const fork = (await (await request.get(`/api/runs/${forkId}`)).json()) as { forkOf: string; state: string[]; context: { task: string } };
    expect(fork).toMatchObject({ forkOf: id, state: ["PLANNING"], context: { task: "forked task" } });
    await page.goto(`/runs/${forkId}/timeline`);
    await expect(page.getByTestId("fork-marker")).toHaveCount(1);
    await expect(page.getByTestId("fork-links")).toContainText(`forked from ${id.slice(0, 8)}`);
    await shot(page, "timeline-fork-branch");
    await page.goto(`/runs/${id}/timeline`);
    await expect(page.getByTestId("fork-links")).toContainText(`${forkId.slice(0, 8)} @#${planning}`);
  });
});

test("model calls show as ticks on the lane of the state that made them", async ({ page, request }) => {
  const started = await request.post("/api/runs", { data: { workflow: "swiss-army", input: { request: "Explain how runs resume after a restart" } } });
  const { id } = (await started.json()) as { id: string };
  await expect.poll(async () => ((await (await request.get(`/api/runs/${id}`)).json()) as { state: string[] }).state[0], { timeout: 20_000 }).toBe("HUMAN_REVIEW");
  await page.goto(`/runs/${id}/timeline`);
  await expect(page.locator('[data-testid=gantt] [data-lane="HUMAN_REVIEW"] rect')).toHaveCount(1);
  await expect(page.getByTestId("model-tick").first()).toBeVisible();
  await shot(page, "timeline-model-calls");
});

test("runs across the system: search in the URL, the runs timeline", async ({ page, request }) => {
  const needle = `needle-${Date.now().toString(36)}`;
  const started = await request.post("/api/runs", { data: { workflow: "conversation", input: { task: `plan the ${needle} refactor` } } });
  const { id } = (await started.json()) as { id: string };
  await page.goto("/");
  await page.getByLabel("Search inputs and outputs").fill(needle);
  await page.getByRole("button", { name: "Search" }).click();
  await page.waitForURL(new RegExp(`[?&]q=${needle}`));
  await expect(page.locator("[data-testid=runs-table] tbody tr")).toHaveCount(1);
  await expect(page.locator(`[data-testid=runs-table] tr[data-run="${id}"]`)).toBeVisible();
  await page.getByTestId("view-switch").getByRole("link", { name: "Timeline" }).click();
  await page.waitForURL(/view=timeline/);
  expect(page.url()).toContain(`q=${needle}`);
  await expect(page.locator(`[data-testid=runs-gantt] [data-run="${id}"]`)).toBeVisible();
  await expect(page.locator("[data-testid=runs-gantt] g[data-run]")).toHaveCount(1);
  await shot(page, "runs-timeline");
  await page.goto("/?from=yesterday");
  await expect(page.getByTestId("run-filters").getByRole("alert")).toContainText("from: must be a date");
});
