import { expect, type APIRequestContext, type Page } from "@playwright/test";
import fs from "node:fs";

export const SHOTS = "test-results/screens";

export async function shot(page: Page, name: string) {
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: false });
}

/** Start a swiss-army run from the dashboard form and land on its page. */
export async function startFromUi(page: Page, request: string): Promise<string> {
  await page.goto("/");
  await page.getByLabel("Request").fill(request);
  await page.getByRole("button", { name: "Start run" }).click();
  await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/);
  return page.url().split("/").pop()!;
}

export async function expectState(page: Page, state: string, status?: "active" | "waiting") {
  await expect(page.getByTestId("run-page")).toHaveAttribute("data-state", state);
  if (status) await expect(page.locator(`[data-testid=diagram] [data-state="${state}"]`)).toHaveAttribute("data-status", status);
}

export async function pendingReviewFor(request: APIRequestContext, runId: string): Promise<string> {
  let id: string | undefined;
  await expect
    .poll(async () => {
      const list = (await (await request.get("/api/reviews?status=pending")).json()) as { id: string; runId: string }[];
      id = list.find((r) => r.runId === runId)?.id;
      return id;
    })
    .toBeTruthy();
  return id!;
}

/** A task claimed over the workers' API, as a worker gets it. */
export interface ClaimedTask {
  id: string;
  runId: string;
  stage: string;
  attempt: number;
  /** the claim's lease: complete, fail and heartbeat send it */
  leaseToken: string;
  input: { steps: Record<string, { output?: unknown }> };
}

/** Claim the next task of `queue` as `worker` (long-poll up to 10 s); the claim must succeed. */
export async function claimTask(request: APIRequestContext, queue: string, worker: string): Promise<ClaimedTask> {
  const claim = await request.post("/api/tasks/claim", { data: { queue, worker, waitMs: 10_000 } });
  expect(claim.status()).toBe(200);
  return (await claim.json()) as ClaimedTask;
}

/** Complete a claimed task as the worker that holds it; the completion must be accepted. */
export async function completeTask(request: APIRequestContext, task: ClaimedTask, worker: string, output: unknown): Promise<void> {
  const done = await request.post(`/api/tasks/${task.id}/complete`, { data: { output, leaseToken: task.leaseToken, worker, attempt: task.attempt } });
  expect(done.status()).toBe(200);
}
