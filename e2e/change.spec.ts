// Changing an agent (guide 19) in the browser (lean): the compare view (reached from the runs list by ticking two runs,
// and from a replay's page), the evaluation report, and the migration dry run painted on the new
// version's diagram, then applied. Runs, decisions and versions are set up over the REST API; the
// offline engine drafts.
import type { APIRequestContext, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { pendingReviewFor, shot, SHOTS } from "./helpers";

const V1 = (id: string) => `id: ${id}
title: Post with review
initial_stage: DRAFT
stages: [DRAFT, REVIEW, HOLD, DONE]
transitions: { DRAFT: [REVIEW], REVIEW: [DRAFT, DONE, HOLD], HOLD: [REVIEW], DONE: [] }
steps:
  DRAFT:
    llm: { prompt: "Write a short post about {{input.topic}}. {{review.feedback}}" }
    next: REVIEW
  REVIEW:
    review: { prompt: "Publish this post?", show: "{{steps.DRAFT.output}}", decisions: [approve, reject, edit, hold] }
    on: { approve: DONE, edit: DONE, reject: DRAFT, hold: HOLD }
`;
// v2: the prompt changed, a POLISH step after the review, no HOLD
const V2 = (id: string) => `id: ${id}
title: Post with review
initial_stage: DRAFT
stages: [DRAFT, REVIEW, POLISH, DONE]
transitions: { DRAFT: [REVIEW], REVIEW: [DRAFT, POLISH], POLISH: [DONE], DONE: [] }
steps:
  DRAFT:
    llm: { prompt: "Write a friendly post about {{input.topic}}. {{review.feedback}}" }
    next: REVIEW
  REVIEW:
    review: { prompt: "Publish this post?", show: "{{steps.DRAFT.output}}", decisions: [approve, reject, edit, hold] }
    on: { approve: POLISH, edit: POLISH, reject: DRAFT, hold: DRAFT }
  POLISH:
    code: { source: "({ text: String(steps.DRAFT.output).trim() })" }
    next: DONE
`;

async function save(request: APIRequestContext, yaml: string): Promise<number> {
  const res = await request.post("/api/workflows", { data: { yaml } });
  expect([200, 201]).toContain(res.status());
  return ((await res.json()) as { version: number }).version;
}
async function start(request: APIRequestContext, workflow: string, topic: string): Promise<string> {
  const res = await request.post("/api/runs", { data: { workflow, input: { topic } } });
  expect(res.status()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}
async function decide(request: APIRequestContext, runId: string, body: Record<string, unknown>) {
  const res = await request.post(`/api/reviews/${await pendingReviewFor(request, runId)}/decision`, { data: body });
  expect(res.status()).toBe(200);
}
async function settled(request: APIRequestContext, runId: string, status = "completed") {
  await expect.poll(async () => ((await (await request.get(`/api/runs/${runId}`)).json()) as { status: string }).status, { timeout: 20_000 }).toBe(status);
}
async function diagramReady(page: Page) {
  await expect(page.locator("[data-testid=diagram][data-ready]").first()).toBeVisible();
}

test("compare a run with its replay on v2: both paths, the first divergence, the diffs", async ({ page, request }) => {
  const wf = `cmp-${Date.now().toString(36)}`;
  await save(request, V1(wf));
  const source = await start(request, wf, "owls");
  await decide(request, source, { decision: "reject", feedback: "Shorter, please.", reviewer: "ana" });
  await decide(request, source, { decision: "edit", reviewer: "bo", data: { edited: "Owls hunt at night." } });
  await settled(request, source);
  expect(await save(request, V2(wf))).toBe(2);
  const replay = await request.post(`/api/runs/${source}/replay`, { data: {} });
  expect(replay.status()).toBe(201);
  const replayId = ((await replay.json()) as { run: { id: string; replayOf: string; workflowVersion: number } }).run;
  expect(replayId).toMatchObject({ replayOf: source, workflowVersion: 2 });
  await settled(request, replayId.id);

  // from the replay's page: "compare with source"
  await page.goto(`/runs/${replayId.id}`);
  await page.getByTestId("compare-source").click();
  await page.waitForURL(new RegExp(`/runs/${source}/compare/${replayId.id}$`));
  await diagramReady(page);
  await expect(page.getByTestId("compare-summary")).toContainText("First divergence at DRAFT#1: the inputs differ");
  await expect(page.locator('[data-testid=diagram] [data-state="DRAFT"]')).toHaveAttribute("data-outlined", "");
  await expect(page.locator('[data-testid=diagram] [data-state="DRAFT"] [data-tone=a]')).toHaveText("A×2");
  // drawn on A's version: POLISH (v2 only) is named, not drawn; on B's version it is, tagged B
  await expect(page.getByTestId("compare-summary")).toContainText("Not on this diagram (states of the other version): POLISH");
  await page.getByRole("link", { name: "B's version v2 instead" }).click();
  await page.waitForURL(/\?on=b$/);
  await diagramReady(page);
  await expect(page.locator('[data-testid=diagram] [data-state="POLISH"] [data-tone=b]')).toHaveText("B");
  await expect(page.locator('[data-testid=diagram] [data-state="POLISH"] [data-tone=a]')).toHaveCount(0);
  const steps = page.getByTestId("compare-steps");
  await expect(steps.locator("li")).toHaveCount(6);
  await expect(steps.locator('[data-step="POLISH#1"]')).toContainText("not on this path");
  // the first divergence is open: the two drafts word by word
  const first = steps.locator('[data-step="DRAFT#1"]');
  await expect(first.getByTestId("first-divergence-step")).toHaveText("first divergence: input");
  await expect(first.getByTestId("text-diff").locator("[data-diff=added]").first()).toBeVisible();
  await page.setViewportSize({ width: 1440, height: 900 });
  await diagramReady(page);
  await shot(page, "compare-1440");
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.locator('[data-testid=diagram] [data-state="DRAFT"]')).toBeInViewport();
  await shot(page, "compare-390");
  await page.setViewportSize({ width: 1280, height: 800 });
  await steps.screenshot({ path: `${SHOTS}/compare-steps-1280.png` });

  // from the runs list: tick two runs, Compare
  await page.goto(`/?workflow=${wf}&replays=1`);
  await expect(page.getByTestId("replay-badge")).toHaveCount(1);
  await page.locator(`[data-run="${source}"] [data-testid=compare-pick]`).check();
  await page.locator(`[data-run="${replayId.id}"] [data-testid=compare-pick]`).check();
  await page.getByTestId("compare-form").getByRole("button", { name: "Compare" }).click();
  await page.waitForURL(/\/runs\/[0-9a-f-]{36}\/compare\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId("compare-summary")).toContainText("First divergence");
  // replays are left out of the list by default
  await page.goto(`/?workflow=${wf}`);
  await expect(page.locator("[data-testid=runs-table] [data-run]")).toHaveCount(1);
});

test("an evaluation's report: agreement on the review state of the diagram, regressions linked to compare", async ({ page, request }) => {
  const wf = `ev-${Date.now().toString(36)}`;
  await save(request, V1(wf));
  const approved = await start(request, wf, "bats");
  await decide(request, approved, { decision: "approve", reviewer: "ana" });
  const rejected = await start(request, wf, "cats");
  await decide(request, rejected, { decision: "reject", feedback: "More facts", reviewer: "ana" });
  await decide(request, rejected, { decision: "approve", reviewer: "ana" });
  await settled(request, approved);
  await settled(request, rejected);
  // the candidate changes the prompt: the offline engine's drafts quote it, so the approved drafts differ
  const res = await request.post("/api/evals", { data: { workflow: wf, candidate: { definition: { yaml: V2(wf) } }, cases: { from: "decided-reviews" } } });
  expect(res.status()).toBe(202);
  const { id } = (await res.json()) as { id: string };
  await expect.poll(async () => ((await (await request.get(`/api/evals/${id}`)).json()) as { status: string }).status, { timeout: 30_000 }).toBe("done");
  const report = (await (await request.get(`/api/evals/${id}`)).json()) as { cases: number; agreement: number; regressions: unknown[] };
  expect(report.cases).toBe(3);

  await page.goto("/evals");
  await page.locator(`[data-eval="${id}"] a`).click();
  await page.waitForURL(new RegExp(`/evals/${id}$`));
  await diagramReady(page);
  const pct = `${((report.agreement ?? 0) * 100).toFixed(1)}%`;
  await expect(page.getByTestId("eval-agreement")).toHaveText(pct);
  await expect(page.locator('[data-testid=diagram] [data-state="REVIEW"] [data-testid=node-tags]')).toContainText(`${pct} agree`);
  await expect(page.getByTestId("eval-states").locator('[data-state="REVIEW"]')).toContainText("3");
  await expect(page.getByTestId("regression-compare")).toHaveCount(report.regressions.length);
  await page.setViewportSize({ width: 1440, height: 900 });
  await diagramReady(page);
  await shot(page, "evals-1440");
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.locator('[data-testid=diagram] [data-state="REVIEW"]')).toBeInViewport();
  await shot(page, "evals-390");
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.getByTestId("regression-compare").first().click();
  await page.waitForURL(/\/runs\/[0-9a-f-]{36}\/compare\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId("compare-summary")).toContainText("B against A");
});

test("move waiting runs to v2: the dry run painted on v2's diagram, the mapping, then the move", async ({ page, request }) => {
  const wf = `mv-${Date.now().toString(36)}`;
  await save(request, V1(wf));
  const waiting = await start(request, wf, "owls");
  await pendingReviewFor(request, waiting);
  const held = await start(request, wf, "bats");
  await decide(request, held, { decision: "hold", reviewer: "ana" });
  await expect.poll(async () => ((await (await request.get(`/api/runs/${held}`)).json()) as { state: string[] }).state).toEqual(["HOLD"]);
  await save(request, V2(wf));

  await page.goto(`/workflows/${wf}`);
  await expect(page.getByTestId("workflow-origin")).toHaveText("User-defined");
  await expect(page.getByTestId("move-panel")).toContainText("2 runs on v1");
  await page.getByTestId("move-from-1").click();
  await page.waitForURL(new RegExp(`/workflows/${wf}\\?from=1$`));
  await diagramReady(page);
  await expect(page.getByTestId("move-summary")).toHaveText("1 can move: 1 to REVIEW; 1 cannot.");
  await expect(page.getByTestId("move-cannot")).toContainText("unmapped state: HOLD");
  await expect(page.locator('[data-testid=diagram] [data-state="REVIEW"] [data-testid=node-tags]')).toContainText("1 run lands here");
  // map HOLD to REVIEW: both can move
  await page.getByTestId("move-map").getByRole("combobox").selectOption("REVIEW");
  await page.getByTestId("move-map").getByRole("button", { name: "Dry run again" }).click();
  await expect(page.getByTestId("move-summary")).toHaveText("2 can move: 2 to REVIEW; 0 cannot.");
  await expect(page.locator('[data-testid=diagram] [data-state="REVIEW"] [data-testid=node-tags]')).toContainText("2 runs land here");
  await page.setViewportSize({ width: 1440, height: 900 });
  await diagramReady(page);
  await shot(page, "migrate-dry-run-1440");
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByTestId("move-dry-run").scrollIntoViewIfNeeded();
  await shot(page, "migrate-dry-run-390");
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.getByTestId("move-apply").click();
  await expect(page.getByTestId("move-message")).toHaveText("Moved 2 runs to v2.");
  const run = (await (await request.get(`/api/runs/${held}`)).json()) as { workflowVersion: number; state: string[] };
  expect(run).toMatchObject({ workflowVersion: 2, state: ["REVIEW"] });
  const last = ((await (await request.get(`/api/runs/${held}/transitions`)).json()) as { reason: string }[]).at(-1)!;
  expect(last.reason).toBe("migrated v1 → v2 by local user");
  // the version diff, painted too
  await page.goto(`/workflows/${wf}?diff=1`);
  await diagramReady(page);
  await expect(page.getByTestId("version-diff")).toContainText("States added: POLISH; removed: HOLD");
  await expect(page.locator('[data-testid=diagram] [data-state="POLISH"] [data-testid=node-tags]')).toContainText("+ new");
});
