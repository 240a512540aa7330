// The monitor in the browser: why a run waits (the Now card and the badge on its node), the runs
// list's filters by state and by what runs wait on, the workflow page's Fleet overlay against the
// fleet API's numbers (a click on a state opens the runs in it), and bulk abort and retry with
// per-run results. Runs are set up over the REST API; the offline engine drafts; an external
// worker is played over /api/tasks.
import fs from "node:fs";
import type { APIRequestContext, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { claimTask, pendingReviewFor } from "./helpers";

const SHOTS = "/tmp/t31-shots";
const WF = `fleet-e2e-${process.env.E2E_STAMP ?? Date.now()}`;
const FLOW = `id: ${WF}
title: Fleet check
initial_stage: DRAFT
stages: [DRAFT, REVIEW, NOTIFY, DONE, FAILED]
transitions: { DRAFT: [REVIEW], REVIEW: [DRAFT, NOTIFY], NOTIFY: [DONE, FAILED], DONE: [], FAILED: [] }
steps:
  DRAFT:
    llm: { prompt: "Write a short post about {{input.topic}}." }
    next: REVIEW
  REVIEW:
    review: { prompt: "Send this post?", show: "{{steps.DRAFT.output}}", decisions: [approve, reject], approvers: 2 }
    on: { approve: NOTIFY, reject: DRAFT }
    timeout: { after_s: 3600, to: DRAFT }
  NOTIFY:
    external: { queue: ${WF}-q }
    next: DONE
    on_error: FAILED
`;

const ids: Record<string, string> = {};

async function shot(page: Page, name: string) {
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: `${SHOTS}/${name}.png` });
}
async function start(request: APIRequestContext, topic: string): Promise<string> {
  const res = await request.post("/api/runs", { data: { workflow: WF, input: { topic } } });
  expect(res.status()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}
async function approve(request: APIRequestContext, runId: string, reviewer: string) {
  const res = await request.post(`/api/reviews/${await pendingReviewFor(request, runId)}/decision`, { data: { decision: "approve", reviewer } });
  expect(res.status()).toBe(200);
}
async function run(request: APIRequestContext, id: string) {
  return (await (await request.get(`/api/runs/${id}`)).json()) as { status: string; stateIds: string[]; waitingFor: { kind: string }[] };
}
async function until(request: APIRequestContext, id: string, test: (r: Awaited<ReturnType<typeof run>>) => boolean) {
  await expect.poll(async () => test(await run(request, id)), { timeout: 20_000 }).toBe(true);
}

test.describe.configure({ mode: "serial" });

test.beforeAll(async ({ request }) => {
  const saved = await request.post("/api/workflows", { data: { yaml: FLOW } });
  expect([200, 201]).toContain(saved.status());
  // the worker fails it for good: FAILED (started first: its task is the first one offered)
  ids.failed = await start(request, "cats");
  await approve(request, ids.failed, "ana");
  await approve(request, ids.failed, "bo");
  await until(request, ids.failed, (r) => r.waitingFor.some((w) => w.kind === "task"));
  const claimed = await claimTask(request, `${WF}-q`, "py-w9");
  expect(claimed.runId).toBe(ids.failed);
  const fail = await request.post(`/api/tasks/${claimed.id}/fail`, { data: { error: "mail server refused", retryable: false, leaseToken: claimed.leaseToken } });
  expect(fail.status()).toBe(200);
  await until(request, ids.failed, (r) => r.status === "failed");
  // one approval of two: waits in REVIEW
  ids.review = await start(request, "owls");
  await approve(request, ids.review, "ana");
  await until(request, ids.review, (r) => r.waitingFor.some((w) => w.kind === "review") && r.waitingFor.length === 2);
  // approved twice: waits for the worker in NOTIFY
  ids.task = await start(request, "bats");
  await approve(request, ids.task, "ana");
  await approve(request, ids.task, "bo");
  await until(request, ids.task, (r) => r.waitingFor.some((w) => w.kind === "task"));
});

test("a run waiting for its review: the approvals and the timeout in the Now card, a badge on the node", async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/runs/${ids.review}`);
  const now = page.getByTestId("waiting-for");
  await expect(now.locator("li[data-kind=review]")).toContainText(/1 of 2 approvals · due in (59 min|1 h)/);
  await expect(now.locator("li[data-kind=timer]")).toContainText(/fires \d\d:\d\d → DRAFT/);
  await expect(page.locator('[data-testid=diagram] [data-state="REVIEW"] [data-testid=node-tags]')).toContainText("1 of 2 approvals");
  await shot(page, "run-waiting-review-1440");
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(now.locator("li[data-kind=review]")).toBeVisible();
  await shot(page, "run-waiting-review-390");
});

test("a run waiting for a worker: queued, then who claimed it, the attempt and the heartbeat", async ({ page, request }) => {
  await page.goto(`/runs/${ids.task}`);
  const unclaimed = (await (await request.get(`/api/runs?workflow=${WF}&unclaimedLongerThan=0`)).json()) as { runs: { id: string }[] };
  expect(unclaimed.runs.map((r) => r.id)).toEqual([ids.task]);
  const line = page.locator("[data-testid=waiting-for] li[data-kind=task]");
  await expect(line).toContainText(`queued on ${WF}-q, not claimed yet`);
  await expect(page.locator('[data-testid=diagram] [data-state="NOTIFY"] [data-testid=node-tags]')).toContainText(`queued: ${WF}-q`);
  const claimed = await claimTask(request, `${WF}-q`, "py-w1");
  expect(claimed.runId).toBe(ids.task);
  await expect(line).toContainText(/claimed by py-w1 · attempt \d+ · heartbeat (just now|\d+ s ago)/, { timeout: 15_000 });
  await shot(page, "run-waiting-task-1440");
});

test("the runs list filters by state, by what runs wait on, and by tasks left unclaimed", async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/?workflow=${WF}&state=REVIEW`);
  await expect(page.locator("[data-testid=runs-table] tbody tr[data-run]")).toHaveCount(1);
  await expect(page.locator(`[data-run="${ids.review}"]`)).toBeVisible();
  await expect(page.getByTestId("filter-state")).toHaveValue("REVIEW");
  // the form: tick "task" and search
  await page.getByTestId("filter-state").fill("");
  await page.getByTestId("filter-waiting-task").check();
  await page.getByRole("button", { name: "Search" }).click();
  await expect(page).toHaveURL(/waitingFor=task/);
  await expect(page.locator("[data-testid=runs-table] tbody tr[data-run]")).toHaveCount(1);
  await expect(page.locator(`[data-run="${ids.task}"]`)).toBeVisible();
  await page.goto(`/?workflow=${WF}&waitingFor=review,task`);
  await expect(page.locator("[data-testid=runs-table] tbody tr[data-run]")).toHaveCount(2);
  // (its task is claimed by now: none unclaimed)
  await page.goto(`/?workflow=${WF}&unclaimedLongerThan=0`);
  await expect(page.locator("[data-testid=runs-table] tbody tr[data-run]")).toHaveCount(0);
  await shot(page, "runs-filtered-1440");
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/?workflow=${WF}&waitingFor=review,task`);
  await shot(page, "runs-filtered-390");
});

test("the Fleet overlay shows what the fleet API counts; a state opens the runs in it", async ({ page, request }) => {
  const fleet = (await (await request.get(`/api/workflows/${WF}/fleet?window=all`)).json()) as {
    runs: Record<string, number>;
    states: Record<string, { now: { running: number; waiting: number }; entered: number; failedHere: number; stuck: number; dwellMs: { p95: number } | null }>;
    edges: { from: string; to: string; count: number }[];
  };
  expect(fleet.runs).toMatchObject({ failed: 1 });
  expect(fleet.states.REVIEW!.now.waiting + fleet.states.REVIEW!.now.running).toBe(1);
  expect(fleet.states.NOTIFY!.now.waiting + fleet.states.NOTIFY!.now.running).toBe(1);
  expect(fleet.states.NOTIFY!.failedHere).toBe(1);
  for (const size of [{ width: 1440, height: 900, name: "1440" }, { width: 390, height: 844, name: "390" }]) {
    await page.setViewportSize(size);
    await page.goto(`/workflows/${WF}?overlay=fleet&window=all`);
    await expect(page.locator("[data-testid=diagram][data-ready]")).toBeVisible();
    const review = page.locator('[data-testid=diagram] [data-state="REVIEW"] [data-testid=node-tags]');
    await expect(review).toContainText(/1 now · p95 /);
    const notify = page.locator('[data-testid=diagram] [data-state="NOTIFY"] [data-testid=node-tags]');
    await expect(notify).toContainText("1 now");
    await expect(notify.locator("[data-tone=bad]")).toContainText("1 failed");
    // the panel's numbers are the API's
    for (const [state, s] of Object.entries(fleet.states)) {
      if (s.now.running + s.now.waiting + s.entered + s.failedHere === 0) continue;
      const row = page.locator(`[data-testid=fleet-states] tr[data-fleet-state="${state}"]`);
      await expect(row.locator("[data-cell=now]")).toHaveText(String(s.now.running + s.now.waiting));
      await expect(row.locator("[data-cell=entered]")).toHaveText(String(s.entered));
      await expect(row.locator("[data-cell=failed]")).toHaveText(String(s.failedHere));
    }
    // edges drawn by traffic: the busiest edge's label carries its count
    const busiest = fleet.edges[0]!;
    await expect(page.locator(`[data-edge][data-traffic="${busiest.count}"]`).first()).toBeAttached();
    await shot(page, `fleet-overlay-${size.name}`);
  }
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/workflows/${WF}?overlay=fleet&window=all`);
  await page.locator('[data-testid=diagram] [data-state="REVIEW"]').first().click();
  await expect(page).toHaveURL(new RegExp(`/\\?workflow=${WF}&state=REVIEW$`));
  await expect(page.locator(`[data-run="${ids.review}"]`)).toBeVisible();
});

test("bulk: abort the ticked runs, retry all failed runs matching the filter, one line per run refused", async ({ page, request }) => {
  page.on("dialog", (d) => void d.accept());
  await page.setViewportSize({ width: 1440, height: 900 });
  // retry every failed run of the workflow: a fork at the failed step
  await page.goto(`/?workflow=${WF}&status=failed`);
  await expect(page.locator("[data-testid=runs-table] tbody tr[data-run]")).toHaveCount(1);
  await page.getByTestId("bulk-all").check();
  await page.getByTestId("bulk-retry").click();
  await expect(page.getByTestId("bulk-outcome")).toHaveText("1 retried.");
  const forks = (await (await request.get(`/api/runs?workflow=${WF}`)).json()) as { runs: { id: string; forkOf: string | null }[] };
  expect(forks.runs.filter((r) => r.forkOf === ids.failed)).toHaveLength(1);
  // abort two ticked runs and one that has already finished
  await page.goto(`/?workflow=${WF}`);
  for (const id of [ids.review!, ids.task!, ids.failed!]) await page.locator(`[data-run="${id}"] [data-testid=compare-pick]`).check();
  await page.getByTestId("bulk-reason").fill("cleaning up");
  await page.getByTestId("bulk-abort").click();
  const outcome = page.getByTestId("bulk-outcome");
  await expect(outcome).toContainText("2 of 3 aborted; 1 could not be:");
  await expect(outcome).toContainText(`${ids.failed!.slice(0, 8)}: `);
  await shot(page, "bulk-outcome-1440");
  expect((await run(request, ids.review!)).status).toBe("aborted");
  expect((await run(request, ids.task!)).status).toBe("aborted");
});
