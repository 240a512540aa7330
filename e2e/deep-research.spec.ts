// A research mission in the browser, on the offline engine over the shipped guide: topic → plan
// in the review queue → approve → the DAG runs → check-in → report.md rendered with its sources.
import { expect, test } from "./fixtures";
import type { Plan } from "../workflows/deep-research/research/types";
import { openInInbox, pendingReviewFor, shot } from "./helpers";

const TOPIC = "How does Switchyard resume runs after a restart and keep timers durable?";

test("topic → approved plan → task DAG → report.md with cited sources and downloadable artifacts", async ({ page, request }) => {
  // a whole mission through the browser: ~25 s on a quiet machine, past 60 s on a loaded one
  test.setTimeout(120_000);
  await page.goto("/");
  await page.getByLabel("Workflow", { exact: true }).selectOption("deep-research");
  await page.getByTestId("new-run-form").getByLabel("Topic").fill(TOPIC);
  await page.getByRole("button", { name: "Start run" }).click();
  await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/);
  const id = page.url().split("/").pop()!;

  // the plan waits for approval, rendered readably in the decision panel
  await expect(page.getByTestId("run-page")).toHaveAttribute("data-state", "PLANNING.approval");
  const panel = page.getByTestId("decision-panel");
  await expect(panel).toContainText(`Approve the research plan for "${TOPIC}"`);
  await expect(panel).toContainText("Definitions and scope");
  await expect(panel).toContainText("S1");
  // the nav counts this review among the pending ones (other specs may have left some)
  await expect(page.getByTestId("pending-count")).toHaveText(/^[1-9]\d*$/);
  const pendingBefore = Number(await page.getByTestId("pending-count").textContent());
  await shot(page, "research-plan-approval");

  // it is in the review queue too, with the plan; approve it from the run page
  await page.getByRole("link", { name: /Review queue/ }).click();
  const item = await openInInbox(page, id);
  await expect(item).toContainText("Definitions and scope");
  await shot(page, "research-review-queue");
  await page.goto(`/runs/${id}`);
  await page.getByTestId("decision-panel").getByRole("button", { name: "Approve" }).click();

  // a check-in every 10 iterations: continue until the report is written
  const runPage = page.getByTestId("run-page");
  for (let i = 0; i < 6; i++) {
    await expect(runPage).toHaveAttribute("data-state", /RESEARCHING\.checkin|COMPLETED/, { timeout: 30_000 });
    if ((await runPage.getAttribute("data-state")) === "COMPLETED") break;
    const panel = page.getByTestId("decision-panel");
    await expect(panel).toContainText("Check-in at iteration");
    const asked = /Check-in at iteration \d+/.exec((await panel.textContent()) ?? "")![0];
    await panel.getByRole("button", { name: /Continue/ }).click();
    // the run moves on: finished, or a later check-in (which may come before the page sees RESEARCHING.working);
    // the panel may be gone by then, so reading it must not wait for it
    await expect
      .poll(async () => ((await runPage.getAttribute("data-state")) === "COMPLETED" ? "done" : ((await page.getByTestId("decision-panel").textContent({ timeout: 1_000 }).catch(() => "")) ?? "").includes(asked) ? asked : "moved"), { timeout: 30_000 })
      .not.toBe(asked);
  }
  await expect(runPage).toHaveAttribute("data-state", "COMPLETED");
  // …and drops it once the run needs nobody (live, without a reload)
  if (pendingBefore === 1) await expect(page.getByTestId("pending-count")).toHaveCount(0);
  else await expect(page.getByTestId("pending-count")).toHaveText(String(pendingBefore - 1));

  // the report opens first, rendered, citing the source registry
  const report = page.getByTestId("report");
  await expect(report).toContainText("written by offline engine");
  await expect(report.locator("h1")).toHaveText(TOPIC);
  await expect(report).toContainText("[S01]");
  await expect(report.locator("h2", { hasText: "Sources" })).toBeVisible();
  await shot(page, "research-report");

  const views = page.getByTestId("run-views");
  await views.getByRole("button", { name: "Task DAG" }).click();
  await expect(page.getByTestId("task-dag").locator(".react-flow__node")).not.toHaveCount(0);
  await expect(page.getByTestId("task-dag")).toContainText("COMPLETED");
  await shot(page, "research-task-dag");
  await views.getByRole("button", { name: /Knowledge graph/ }).click();
  await expect(views).toContainText("Fact-001");
  await views.getByRole("button", { name: /Sources/ }).click();
  await expect(views).toContainText(/docs\/guide\/|workflows\/[a-z-]+\/guide\.md/);
  await views.getByRole("button", { name: "Files" }).click();
  for (const name of ["task.md", "report.md", "logs/orchestrator.log", "orchestrator.md"]) await expect(views).toContainText(name);
  await shot(page, "research-files");

  // the same files over the API
  const files = (await (await request.get(`/api/runs/${id}/artifacts`)).json()) as { name: string; size: number }[];
  expect(files.map((f) => f.name)).toEqual(expect.arrayContaining(["task.md", "report.md", "logs/orchestrator.log", "orchestrator.md"]));
  const taskMd = await (await request.get(`/api/runs/${id}/artifacts/task.md`)).text();
  expect(taskMd).toMatch(/^---\nmission_id: "DR-\d{8}-\d{3}"\n/);
  expect(taskMd).toContain('status: "COMPLETED"');
  await expect(page.getByTestId("timeline")).toContainText("report.md generated successfully");
});

test("a plan v2 shows what changed since v1 and warns about tasks left without a dimension", async ({ page, request }) => {
  const started = await request.post("/api/runs", { data: { workflow: "deep-research", input: { topic: "What makes a review queue quick to scan?" } } });
  expect(started.status()).toBe(201);
  const runId = ((await started.json()) as { id: string }).id;
  const firstReview = await pendingReviewFor(request, runId);
  const v1 = ((await (await request.get(`/api/reviews/${firstReview}`)).json()) as { payload: { plan: Plan } }).payload.plan;
  // v1 (the offline planner): P1, then a search and a read task per dimension, each task filed under its dimension
  const gone = v1.dimensions[3]!;
  const orphans = v1.tasks.filter((t) => t.dimension === gone).map((t) => t.id);
  expect(orphans).toHaveLength(2);
  const [s1, last] = [v1.tasks.find((t) => t.id === "S1")!, v1.tasks.at(-1)!];
  expect(v1.tasks.some((t) => t.dependsOn.includes(last.id))).toBe(false);
  // the reviewer's v2: a dimension dropped (its tasks kept, still filed under it), one added with a
  // new task, the last task removed, S1's description edited; sent with "modify"
  const v2: Plan = {
    ...v1,
    dimensions: [...v1.dimensions.filter((d) => d !== gone), "Keyboard use"],
    tasks: [
      ...v1.tasks.filter((t) => t !== last).map((t) => (t === s1 ? { ...t, description: `${t.description}, with a glossary` } : t)),
      { id: "S9", type: "Search", description: "Find sources: keyboard use", status: "BLOCKED", dependsOn: ["P1"], dimension: "Keyboard use" },
    ],
  };
  const modified = await request.post(`/api/reviews/${firstReview}/decision`, { data: { decision: "modify", feedback: "drop one dimension, add keyboard use", reviewer: "lea", data: { plan: v2 } } });
  expect(modified.status()).toBe(200);

  // the run page's review of v2
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/runs/${runId}`);
  await expect(page.getByTestId("run-page")).toHaveAttribute("data-state", "PLANNING.approval");
  const panel = page.getByTestId("decision-panel");
  const changes = panel.getByTestId("plan-changes");
  await expect(changes).toContainText("Changes since v1 (this is v2)");
  await expect(changes.locator("li", { hasText: "dimensions added" })).toHaveText("dimensions added: Keyboard use");
  await expect(changes.locator("li", { hasText: "dimensions removed" })).toHaveText(`dimensions removed: ${gone}`);
  await expect(changes.locator("li", { hasText: "tasks added" })).toHaveText("tasks added: S9");
  await expect(changes.locator("li", { hasText: "tasks removed" })).toHaveText(`tasks removed: ${last.id}`);
  await expect(changes.locator("li", { hasText: "tasks edited" })).toHaveText("tasks edited: S1 (description)");
  const warning = panel.getByTestId("plan-orphans");
  await expect(warning).toHaveText(`⚠ 2 tasks are left without a dimension: ${orphans.map((id) => `${id} (was “${gone}”)`).join(", ")}. Give them a dimension or remove them.`);
  await expect(panel.getByTestId("plan-dimensions")).toContainText("Keyboard use");
  await changes.scrollIntoViewIfNeeded();
  await shot(page, "research-plan-v2-changes");

  // the same in the review inbox's panel
  await page.goto("/review");
  const item = await openInInbox(page, runId);
  await expect(item.getByTestId("plan-changes")).toContainText("Changes since v1 (this is v2)");
  await expect(item.getByTestId("plan-orphans")).toContainText("2 tasks are left without a dimension");
});
