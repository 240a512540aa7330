import { expect, type APIRequestContext, type Page } from "@playwright/test";
import fs from "node:fs";

export const SHOTS = "test-results/screens";

/** the phone screen the layout checks use (CSS px) */
export const PHONE = { width: 390, height: 844 } as const;

/** `box` ends within the first screen of a phone: seen without scrolling down */
export function expectInFirstScreen(box: { y: number; height: number }, what?: string) {
  expect(box.y + box.height, what ? `${what} in the first screen` : undefined).toBeLessThanOrEqual(PHONE.height);
}

/** the page is no wider than a phone's screen: no sideways scrolling */
export async function expectNoSidewaysScroll(page: Page) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth), "the page is no wider than the phone").toBeLessThanOrEqual(PHONE.width);
}

/**
 * POST /api/workflows took the definition: 201 when it stored it (a new workflow or a new version),
 * 200 when it was the latest version already (a retried test defines it again). Anything else
 * fails with the server's answer.
 */
export function expectWorkflowSaved(status: number, body: string) {
  expect([200, 201], body).toContain(status);
}

/** The server's clock from its Date header: whole seconds, rounded down, so never ahead of the server. */
async function serverNow(request: APIRequestContext): Promise<number> {
  return Date.parse((await request.get("/api/health")).headers()["date"]!);
}

/**
 * Wait until the server's clock has reached `at` (epoch ms). For rules of the server's time (a
 * stage flow's cooldown, an alert's dwell): the moment is read from what the server recorded and
 * the server's clock is watched, instead of sleeping on this side.
 */
export async function untilServerTime(request: APIRequestContext, at: number) {
  await expect
    .poll(() => serverNow(request), { intervals: [100], timeout: 15_000, message: `the server's clock reaching ${new Date(at).toISOString()}` })
    .toBeGreaterThanOrEqual(at);
}

/** A stage-flow run (e.g. a conversation) may move again: `cooldownMs` has passed on the server's clock since its last move. */
export async function untilCooldownOver(request: APIRequestContext, runId: string, cooldownMs: number) {
  const run = (await (await request.get(`/api/runs/${runId}`)).json()) as { context: { lastTransitionAt: number | null } };
  // the first move has no cooldown to wait out
  if (run.context.lastTransitionAt !== null) await untilServerTime(request, run.context.lastTransitionAt + cooldownMs);
}

/**
 * A screenshot to be looked at, `dir`/`name`.png. Under CI nobody looks, so none is written there
 * unless E2E_SHOTS=1 asks (each costs the browser ~0.2 CPU-s, and the suite takes over a hundred):
 * what a picture shows that can be checked, the specs check.
 */
export async function shot(page: Page, name: string, { dir = SHOTS, fullPage = false }: { dir?: string; fullPage?: boolean } = {}) {
  if (process.env.CI && !process.env.E2E_SHOTS) return;
  fs.mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: `${dir}/${name}.png`, fullPage });
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

/**
 * A port for a spec that starts a server of its own: E2E_PORT + `offset` (E2E_PORT is the suite's
 * server; 3123 when unset), so that parallel suites on one machine keep apart.
 */
export function ownPort(offset: number): number {
  return Number(process.env.E2E_PORT ?? 3123) + offset;
}

/**
 * Whether process `pid` or one of its descendants holds an established TCP connection to local
 * `port` (read from Linux's /proc): lets a test wait until a child's request is in flight
 * instead of sleeping.
 */
export function connectedTo(pid: number, port: number): boolean {
  const pids = new Set([pid]);
  const parents = fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d)).map((d) => {
    try {
      // "pid (comm) state ppid …": the command may hold spaces and parentheses
      const stat = fs.readFileSync(`/proc/${d}/stat`, "utf8");
      return [Number(d), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])] as const;
    } catch {
      return [Number(d), -1] as const;
    }
  });
  for (let grew = true; grew; ) {
    grew = false;
    for (const [p, parent] of parents) if (pids.has(parent) && !pids.has(p)) (pids.add(p), (grew = true));
  }
  const inodes = new Set<string>();
  for (const p of pids) {
    let fds: string[] = [];
    try {
      fds = fs.readdirSync(`/proc/${p}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${p}/fd/${fd}`));
        if (m) inodes.add(m[1]);
      } catch {
        // closed meanwhile
      }
    }
  }
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    if (!fs.existsSync(table)) continue;
    for (const line of fs.readFileSync(table, "utf8").trim().split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      // f[2]: remote address:port, f[3]: state (01 = established), f[9]: inode
      if (f[2]?.endsWith(`:${hexPort}`) && f[3] === "01" && inodes.has(f[9])) return true;
    }
  }
  return false;
}

/** In the review inbox (/review): select the review of `runId` and return its panel. */
export async function openInInbox(page: Page, runId: string) {
  const row = page.locator(`[data-testid=review-row][data-run="${runId}"]`);
  await row.getByRole("button").click();
  const panel = page.locator(`[data-testid=review-panel][data-run="${runId}"]`);
  await expect(panel).toBeVisible();
  return panel;
}

/** Abort every run still waiting on a person (left by an earlier test), so a queue test starts empty. */
export async function clearQueue(request: APIRequestContext) {
  const pending = (await (await request.get("/api/reviews?status=pending&limit=1000")).json()) as { runId: string }[];
  for (const r of pending) await request.post(`/api/runs/${r.runId}/abort`, { data: {} });
  await expect.poll(async () => ((await (await request.get("/api/reviews?status=pending")).json()) as unknown[]).length).toBe(0);
}

/** The review queue takes its keys (j/k, a, r, …): hydrated, its handler on. A key pressed before is lost. */
export async function expectInboxKeys(page: Page) {
  await expect(page.getByTestId("inbox")).toHaveAttribute("data-keys", "on");
}
