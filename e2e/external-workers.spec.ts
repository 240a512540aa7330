// External workers and the TypeScript client against a real server: the client starts
// runs, lists, reads and decides typed reviews (a refused decision is a SwitchyardError with the
// server's status and message); the Python and TypeScript example workers, run as child
// processes, do a workflow's `external: { queue }` step and the run completes with their output
// (or takes on_error when the worker fails the task); the client's worker loop works in parallel
// and stops on abort. On a server of its own with accounts on and a short lease: a worker-role
// token may claim but do nothing else, heartbeats keep a slow task, and without them the lease is
// lost to another worker whose result counts.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { APIRequestContext } from "@playwright/test";
import { expect, test } from "./fixtures";
import { connectedTo, expectWorkflowSaved, ownPort } from "./helpers";
import { Switchyard, SwitchyardError, TaskFailure, type Review, type Run, type Task } from "@switchyard/client";

const stamp = Date.now().toString(36);
const TSX = path.resolve("node_modules/.bin/tsx");

/** a workflow whose NOTIFY stage is done by a worker on `queue` (failures go to FAILED); `retry`: a YAML line for the step */
const externalFlow = (id: string, queue: string, retry = "") => `id: ${id}
initial_stage: NOTIFY
stages: [NOTIFY, DONE, FAILED]
transitions: { NOTIFY: [DONE, FAILED], DONE: [], FAILED: [] }
steps:
  NOTIFY:
    external: { queue: ${queue} }
    next: DONE
    on_error: FAILED
${retry}`;

/** the guide's post pipeline without the HTTP publish: draft (offline model), two approvals, a worker notifies */
const pipelineFlow = (id: string, queue: string) => `id: ${id}
initial_stage: DRAFT
stages: [DRAFT, REVIEW, NOTIFY, DONE, FAILED]
transitions: { DRAFT: [REVIEW], REVIEW: [DRAFT, NOTIFY], NOTIFY: [DONE, FAILED], DONE: [], FAILED: [] }
steps:
  DRAFT:
    llm: { prompt: "Write a short post about {{input.topic}}. {{review.feedback}}" }
    next: REVIEW
  REVIEW:
    review: { prompt: "Publish this post?", show: "{{steps.DRAFT.output}}", decisions: [approve, reject, edit], approvers: 2 }
    on: { approve: NOTIFY, edit: NOTIFY, reject: DRAFT }
  NOTIFY:
    external: { queue: ${queue} }
    next: DONE
    on_error: FAILED
`;

async function defineWorkflow(request: APIRequestContext, yaml: string) {
  const res = await request.post("/api/workflows", { data: { yaml } });
  expectWorkflowSaved(res.status(), await res.text());
}

/** the same on the own server, with a token */
async function defineWorkflowAt(base: string, token: string, yaml: string) {
  const res = await fetch(`${base}/api/workflows`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${token}` }, body: JSON.stringify({ yaml }) });
  expectWorkflowSaved(res.status, await res.text());
}

/** Run a program to its end; its output and exit code. */
function runProgram(cmd: string, args: string[], env: Record<string, string>, timeoutMs = 45_000, onOutput?: (out: string) => void): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    const take = (d: Buffer) => {
      out += d;
      onOutput?.(out);
    };
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${cmd} ${args.join(" ")} did not finish in ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

const stepOf = (run: Run, stage: string) => (run.context as { steps?: Record<string, { output?: unknown; error?: { message?: string } }> }).steps?.[stage];

/** Every field the client's Review type names is in the server's answer, with the right type. */
function expectReviewShape(r: Review) {
  for (const k of ["id", "runId", "workflow", "state", "kind", "prompt", "status", "createdAt"] as const) expect(typeof r[k], k).toBe("string");
  for (const k of ["decision", "feedback", "reviewer", "decidedAt"] as const) expect(r[k] === null || typeof r[k] === "string", k).toBe(true);
  expect("payload" in r).toBe(true);
  expect(Array.isArray(r.decisions)).toBe(true);
  expect(typeof r.ageMs).toBe("number");
  expect(Object.keys(r.decisionSchemas).sort()).toEqual([...r.decisions].sort());
  expect(typeof r.approvals.so_far).toBe("number");
  expect(typeof r.approvals.needed).toBe("number");
  expect(Array.isArray(r.approvals.by)).toBe(true);
}

function expectRunShape(r: Run) {
  for (const k of ["id", "workflow", "status", "createdAt", "updatedAt"] as const) expect(typeof r[k], k).toBe("string");
  for (const k of ["version", "seq"] as const) expect(typeof r[k], k).toBe("number");
  expect(Array.isArray(r.state) && Array.isArray(r.stateIds)).toBe(true);
  for (const k of ["context", "input", "output", "error", "parentId", "forkOf", "forkSeq", "finishedAt", "since"] as const) expect(k in r, k).toBe(true);
  expect(Array.isArray(r.accepted)).toBe(true);
}

test.describe("the client and the example workers on the suite's server", () => {
  let client: Switchyard;
  test.beforeEach(({ baseURL }) => {
    client = new Switchyard({ baseUrl: baseURL! });
  });

  test("client: start a run, list, read and decide its typed review; refusals are SwitchyardErrors", async ({ request }) => {
    const wf = `client-review-${stamp}`;
    await defineWorkflow(request, pipelineFlow(wf, `q-review-${stamp}`));
    const key = `start-${stamp}`;
    const run = await client.startRun(wf, { topic: "lighthouses" }, { idempotencyKey: key });
    expectRunShape(run);
    // the same key: the same run, not a second one
    expect((await client.startRun(wf, { topic: "lighthouses" }, { idempotencyKey: key })).id).toBe(run.id);
    const waiting = await client.waitForRun(run.id, { until: (r) => r.status === "waiting", timeoutMs: 20_000 });
    expect(waiting.state).toEqual(["REVIEW"]);

    const [listed, ...more] = await client.listReviews({ runId: run.id, status: "pending" });
    expect(more).toEqual([]);
    expectReviewShape(listed!);
    expect(listed!.decisions).toEqual(["approve", "reject", "edit"]);
    expect(listed!.approvals).toEqual({ so_far: 0, needed: 2, by: [] });
    const review = await client.getReview(listed!.id);
    expect(review.id).toBe(listed!.id);
    // what a generic client renders from: each decision's body as JSON Schema
    const schema = review.decisionSchemas.approve as { properties: Record<string, { const?: string }>; required: string[] };
    expect(schema.properties.decision!.const).toBe("approve");
    expect(schema.required).toContain("decision");
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(["feedback", "reviewer"]));

    const first = await client.decide(review.id, "approve", { reviewer: "ana" }, { idempotencyKey: `ana-${stamp}` });
    expectRunShape(first.run);
    expect(first.review).toMatchObject({ id: review.id, status: "decided", decision: "approve", reviewer: "ana" });
    expect(first.run.state).toEqual(["REVIEW"]);
    // the same request again (same key): its first answer, not a 409
    const again = await client.decide(review.id, "approve", { reviewer: "ana" }, { idempotencyKey: `ana-${stamp}` });
    expect(again.run.seq).toBe(first.run.seq);
    // one approval of two: the review is asked again, counting
    const [next] = await client.listReviews({ runId: run.id, status: "pending" });
    expect(next!.id).not.toBe(review.id);
    expect(next!.approvals).toEqual({ so_far: 1, needed: 2, by: ["ana"] });
    // the same person approving twice is refused, as a typed error with the server's status and message
    const twice = await client.decide(next!.id, "approve", { reviewer: "ana" }).catch((e: unknown) => e);
    expect(twice).toBeInstanceOf(SwitchyardError);
    expect((twice as SwitchyardError).status).toBe(409);
    expect((twice as SwitchyardError).message).toMatch(/ana has already approved/);
    // a decision the review does not offer
    const unknown = await client.decide(next!.id, "publish_now", { reviewer: "ben" }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(SwitchyardError);
    expect([409, 422]).toContain((unknown as SwitchyardError).status);
    // a review already decided: 409
    const late = await client.decide(review.id, "reject", { reviewer: "cy" }).catch((e: unknown) => e);
    expect((late as SwitchyardError).status).toBe(409);
    expect((late as SwitchyardError).code).toBeTruthy();

    const second = await client.decide(next!.id, "approve", { reviewer: "ben", feedback: "ship it" });
    expect(second.review.status).toBe("decided");
    expect(second.run.state).toEqual(["NOTIFY"]);

    const missing = await client.getReview("no-such-review").catch((e: unknown) => e);
    expect((missing as SwitchyardError).status).toBe(404);
    const bad = await client.startRun("no-such-workflow-" + stamp, {}).catch((e: unknown) => e);
    expect((bad as SwitchyardError).status).toBe(422);
    expect((bad as SwitchyardError).message).toMatch(/unknown workflow/);
    // the run waits for a worker on its queue: abort it so nothing is left behind
    await request.post(`/api/runs/${run.id}/abort`, { data: {} });
  });

  test("the Python example worker does the post pipeline's NOTIFY step: the run completes with its output", async ({ request, baseURL }) => {
    const wf = `py-pipeline-${stamp}`;
    const queue = `py-notify-${stamp}`;
    await defineWorkflow(request, pipelineFlow(wf, queue));
    const run = await client.startRun(wf, { topic: "tide pools" });
    await client.waitForRun(run.id, { until: (r) => r.status === "waiting", timeoutMs: 20_000 });
    for (const reviewer of ["ana", "ben"]) {
      const [review] = await client.listReviews({ runId: run.id, status: "pending" });
      await client.decide(review!.id, "approve", { reviewer });
    }
    const draft = stepOf(await client.getRun(run.id), "DRAFT")!.output;
    expect(typeof draft).toBe("string");

    const py = await runProgram("python3", ["examples/python/worker.py", "--queue", queue, "--once", "--timeout", "30", "--worker", "py-e2e"], { SWITCHYARD_URL: baseURL! });
    expect(py.code, py.out).toBe(0);
    expect(py.out).toContain("completed");
    const done = await client.waitForRun(run.id, { timeoutMs: 15_000 });
    expect(done.status).toBe("completed");
    expect(done.state).toEqual(["DONE"]);
    expect(stepOf(done, "NOTIFY")!.output).toEqual({ notified: true, by: "py-e2e", language: "python", post: draft, published: null, attempt: 1 });
    // the worker knows its task's id; viewers do not: neither the run page nor the run's document shows it
    const taskId = /task (\S+) completed/.exec(py.out)![1]!;
    expect(taskId).toMatch(/^[0-9a-f-]{36}$/);
    const page = await request.get(`/runs/${run.id}`);
    expect(page.status()).toBe(200);
    expect(await page.text()).not.toContain(taskId);
    expect(await (await request.get(`/api/runs/${run.id}`)).text()).not.toContain(taskId);
  });

  test("the Python example worker fails a task it cannot do: the step fails and the run takes on_error", async ({ request, baseURL }) => {
    const wf = `py-fail-${stamp}`;
    const queue = `py-fail-${stamp}`;
    await defineWorkflow(request, externalFlow(wf, queue));
    // no draft and no text: the worker raises TaskFailure(retryable=False)
    const run = await client.startRun(wf, { topic: "nothing" });
    const py = await runProgram("python3", ["examples/python/worker.py", "--queue", queue, "--once", "--timeout", "30"], { SWITCHYARD_URL: baseURL! });
    expect(py.code, py.out).toBe(0);
    expect(py.out).toContain("not retryable");
    const done = await client.waitForRun(run.id, { timeoutMs: 15_000 });
    expect(done.state).toEqual(["FAILED"]);
    expect(done.status).toBe("failed");
    expect(JSON.stringify(stepOf(done, "NOTIFY"))).toContain("nothing to notify");
  });

  test("the TypeScript example worker does an external step: the run completes with its output", async ({ request, baseURL }) => {
    const wf = `ts-notify-${stamp}`;
    const queue = `ts-notify-${stamp}`;
    await defineWorkflow(request, externalFlow(wf, queue));
    const run = await client.startRun(wf, { text: "Low tide at 6:40" });
    const ts = await runProgram(TSX, ["examples/worker.ts", "--queue", queue, "--once", "--timeout", "30", "--worker", "ts-e2e", "--wait-ms", "20000"], { SWITCHYARD_URL: baseURL! });
    expect(ts.code, ts.out).toBe(0);
    expect(ts.out).toContain("completed");
    const done = await client.waitForRun(run.id, { timeoutMs: 15_000 });
    expect(done.status).toBe("completed");
    expect(stepOf(done, "NOTIFY")!.output).toEqual({ notified: true, by: "ts-e2e", language: "typescript", post: "Low tide at 6:40", published: null, attempt: 1 });
  });

  test("both example workers stop cleanly on Ctrl-C while they wait for a task", async ({ baseURL }) => {
    for (const [cmd, args] of [
      ["python3", ["examples/python/worker.py", "--queue", `idle-${stamp}`, "--wait-ms", "20000"]],
      [TSX, ["examples/worker.ts", "--queue", `idle-${stamp}`, "--wait-ms", "20000"]],
    ] as const) {
      const child = spawn(cmd, [...args], { env: { ...process.env, SWITCHYARD_URL: baseURL! }, stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (out += d));
      const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
      await expect.poll(() => out, { timeout: 15_000 }).toContain("on queue");
      // inside the long-poll: its claim request is open at the server
      await expect.poll(() => connectedTo(child.pid!, Number(new URL(baseURL!).port)), { timeout: 15_000 }).toBe(true);
      child.kill("SIGINT");
      // the claim waits 20 s: a worker that did not cut it short would still be there long after this bound
      const code = await Promise.race([exited, new Promise<"hung">((r) => setTimeout(() => r("hung"), 12_000))]);
      if (code === "hung") child.kill("SIGKILL");
      expect(code, `${cmd}: ${out}`).toBe(0);
      expect(out).toContain("stopped");
    }
  });

  test("the client's worker loop: parallel tasks, a retryable failure offered again, a clean stop on abort", async ({ request }) => {
    const wf = `loop-${stamp}`;
    const queue = `loop-${stamp}`;
    await defineWorkflow(request, externalFlow(wf, queue, "    retry: { max: 2, backoff_s: 0 }\n"));
    const runs = await Promise.all([1, 2, 3].map((n) => client.startRun(wf, { text: `post ${n}` })));
    const stop = new AbortController();
    const seen: Task[] = [];
    let inFlight = 0;
    let most = 0;
    // the first two tasks wait for each other: with fewer than two at once the loop would never go on
    let bothIn!: () => void;
    const two = new Promise<void>((r) => (bothIn = r));
    const working = client.work(
      queue,
      async (input, { task }) => {
        seen.push(task);
        inFlight++;
        most = Math.max(most, inFlight);
        if (inFlight === 2) bothIn();
        if (seen.length <= 2) await two;
        inFlight--;
        const text = (input as { input: { text: string } }).input.text;
        // post 2 fails once, retryably: it is offered again (attempt 2) and then done
        if (text === "post 2" && task.attempt === 1) throw new TaskFailure("flaky network", { retryable: true });
        return { echoed: text, attempt: task.attempt };
      },
      { worker: "loop-e2e", waitMs: 25_000, concurrency: 2, signal: stop.signal, onError: () => {} },
    );
    const done = await Promise.all(runs.map((r) => client.waitForRun(r.id, { timeoutMs: 30_000 })));
    stop.abort();
    // the long-poll in flight (25 s) is cut short: a loop that waited it out would still be running at this bound
    const stats = await Promise.race([working, new Promise<"still polling">((r) => setTimeout(() => r("still polling"), 12_000))]);
    expect(stats).toEqual({ claimed: 4, completed: 3, failed: 1, lost: 0 });
    expect(most).toBe(2);
    expect(done.map((r) => r.status)).toEqual(["completed", "completed", "completed"]);
    expect(done.map((r) => stepOf(r, "NOTIFY")!.output)).toEqual([
      { echoed: "post 1", attempt: 1 },
      { echoed: "post 2", attempt: 2 },
      { echoed: "post 3", attempt: 1 },
    ]);
    expect(seen.filter((t) => t.runId === runs[1]!.id).map((t) => t.attempt)).toEqual([1, 2]);
  });
});

// Accounts on and a 1.5 s lease, on a server of its own (SQLite file in a temp folder).
const PORT = ownPort(2);
const BASE = `http://127.0.0.1:${PORT}`;
const LEASE_MS = 1_500;

test.describe("with accounts on and a short lease (own server)", () => {
  test.skip(process.env.E2E_DB === "postgres", "runs its own SQLite server; the PostgreSQL suite covers the routes through the tests above");
  let server: ChildProcess;
  let dir: string;
  let workerToken = "";
  let adminToken = "";
  let boundToken = "";

  test.beforeAll(async () => {
    test.setTimeout(150_000);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-workers-"));
    const env = { ...process.env, PORT: String(PORT), HOSTNAME: "127.0.0.1", DATABASE_URL: `file:${path.join(dir, "workers.db")}`, SWITCHYARD_AUTH: "on", SWITCHYARD_TASK_LEASE_MS: String(LEASE_MS), NEXT_TELEMETRY_DISABLED: "1" };
    const user = (...args: string[]) => spawnSync(process.execPath, ["--import", "tsx", "scripts/user.ts", ...args], { env: { ...env, SWITCHYARD_PASSWORD: "correct-horse-battery" }, encoding: "utf8" });
    const add = user("add", "--name", "ana", "--role", "admin");
    expect(add.stdout + add.stderr).toContain("user ana (admin) created");
    const tokenOf = (out: string) => out.trim().split("\n").pop()!.trim();
    const w = user("token", "--name", "ana", "--label", "w1", "--role", "worker");
    expect(w.status, w.stdout + w.stderr).toBe(0);
    workerToken = tokenOf(w.stdout);
    const a = user("token", "--name", "ana", "--label", "ops", "--role", "admin");
    adminToken = tokenOf(a.stdout);
    // a worker token bound to one queue (`--queues`)
    const bound = user("token", "--name", "ana", "--label", "notifier", "--role", "worker", "--queues", "auth-notify");
    expect(bound.stdout, bound.stderr).toContain("queues auth-notify");
    boundToken = tokenOf(bound.stdout);
    expect(workerToken).toMatch(/^sy_/);
    server = spawn(process.execPath, ["scripts/start.mjs"], { env, stdio: "ignore", detached: true });
    for (let i = 0; i < 1200; i++) {
      if (await fetch(`${BASE}/api/health`).then((r) => r.ok, () => false)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error("the workers' server did not start");
  });

  test.afterAll(async () => {
    if (server?.pid) {
      const gone = server.exitCode === null && server.signalCode === null ? new Promise((r) => server.once("exit", r)) : null;
      process.kill(-server.pid, "SIGKILL");
      await gone;
    }
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test("a worker token claims and completes, and may do nothing else; without a token the claim is refused", async () => {
    const admin = new Switchyard({ baseUrl: BASE, token: adminToken });
    const worker = new Switchyard({ baseUrl: BASE, token: workerToken });
    await defineWorkflowAt(BASE, adminToken, externalFlow("auth-notify", "auth-notify"));
    const run = await admin.startRun("auth-notify", { text: "members only" });

    const refused = await worker.startRun("auth-notify", {}).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SwitchyardError);
    expect((refused as SwitchyardError).status).toBe(403);
    // the queue-bound token may not claim from another queue
    const elsewhere = await new Switchyard({ baseUrl: BASE, token: boundToken }).claimTask("slow", "bound").catch((e: unknown) => e);
    expect(elsewhere).toMatchObject({ status: 403, code: "queue_not_allowed" });
    const anonymous = await new Switchyard({ baseUrl: BASE }).claimTask("auth-notify", "nobody").catch((e: unknown) => e);
    expect((anonymous as SwitchyardError).status).toBe(401);
    // the loop does not spin on a refusal: it rejects with it
    await expect(new Switchyard({ baseUrl: BASE }).work("auth-notify", () => null, { worker: "nobody", waitMs: 100 })).rejects.toMatchObject({ status: 401 });

    const py = await runProgram("python3", ["examples/python/worker.py", "--queue", "auth-notify", "--once", "--timeout", "30", "--worker", "py-token"], { SWITCHYARD_URL: BASE, SWITCHYARD_TOKEN: boundToken });
    expect(py.code, py.out).toBe(0);
    const done = await admin.waitForRun(run.id, { timeoutMs: 15_000 });
    expect(stepOf(done, "NOTIFY")!.output).toMatchObject({ notified: true, by: "py-token", post: "members only" });
    // credited to the token that completed it, not to the name the worker gave
    expect((done.context as { steps: Record<string, { by?: string }> }).steps.NOTIFY!.by).toBe("worker ana (token notifier)");
  });

  test("heartbeats keep a task that takes three leases; without them another worker gets it and the late result is refused", async () => {
    const admin = new Switchyard({ baseUrl: BASE, token: adminToken });
    const worker = new Switchyard({ baseUrl: BASE, token: workerToken });
    await defineWorkflowAt(BASE, adminToken, externalFlow("slow-notify", "slow"));
    const slow = (ms: number) => async (_input: unknown, { task }: { task: Task }) => {
      await new Promise((r) => setTimeout(r, ms));
      return { attempt: task.attempt, leaseMs: task.leaseMs };
    };

    // a competitor polling the queue while a slow handler works gets nothing: the task's lease is kept
    const competitor = () => worker.claimTask("slow", "competitor", LEASE_MS * 2);

    // with heartbeats (every lease/3): a handler of 3 leases keeps its task
    const kept = await admin.startRun("slow-notify", {});
    let started!: () => void;
    const handling = new Promise<void>((r) => (started = r));
    const steady = worker.work("slow", async (input, ctx) => (started(), slow(LEASE_MS * 3)(input, ctx)), { worker: "steady", waitMs: 5_000, maxTasks: 1 });
    await handling;
    expect(await competitor()).toBeNull();
    expect(await steady).toEqual({ claimed: 1, completed: 1, failed: 0, lost: 0 });
    const keptDone = await admin.waitForRun(kept.id, { timeoutMs: 10_000 });
    expect(stepOf(keptDone, "NOTIFY")!.output).toEqual({ attempt: 1, leaseMs: LEASE_MS });

    // the Python worker's heartbeat thread too: its handler made three leases slow (the module imported, `handle` wrapped)
    const py = await admin.startRun("slow-notify", { text: "slow python" });
    const slowPython = [
      "import sys, time; sys.path.insert(0, 'examples/python'); import worker",
      "orig = worker.handle",
      `worker.handle = lambda task, name: (print('handling', flush=True), time.sleep(${(LEASE_MS * 3) / 1000}), orig(task, name))[2]`,
      "sys.argv = ['worker.py', '--queue', 'slow', '--once', '--timeout', '20', '--worker', 'py-slow']",
      "sys.exit(worker.main())",
    ].join("\n");
    let printed = "";
    const python = runProgram("python3", ["-c", slowPython], { SWITCHYARD_URL: BASE, SWITCHYARD_TOKEN: workerToken }, 45_000, (o) => (printed = o));
    // the Python worker claims as soon as it is up (its task is queued): then compete
    await expect.poll(() => printed, { timeout: 15_000 }).toContain("handling");
    expect(await competitor()).toBeNull();
    const out = await python;
    expect(out.code, out.out).toBe(0);
    const pyDone = await admin.waitForRun(py.id, { timeoutMs: 10_000 });
    expect(stepOf(pyDone, "NOTIFY")!.output).toMatchObject({ notified: true, by: "py-slow", attempt: 1 });

    // without heartbeats (one every 100 leases): the lease runs out, a second worker takes attempt 2 and its result counts
    const lost = await admin.startRun("slow-notify", {});
    let claimed!: () => void;
    const lapsingHas = new Promise<void>((r) => (claimed = r));
    const lapsing = worker.work("slow", async (input, ctx) => (claimed(), slow(LEASE_MS * 3)(input, ctx)), { worker: "lapsing", waitMs: 5_000, maxTasks: 1, heartbeatFraction: 100, onError: () => {} });
    // the rescuer comes once the task is taken: its long-poll gets it when the lease has run out
    await lapsingHas;
    const rescue = await worker.work("slow", slow(10), { worker: "rescuer", waitMs: 10_000, maxTasks: 1 });
    expect(rescue).toEqual({ claimed: 1, completed: 1, failed: 0, lost: 0 });
    expect(await lapsing).toEqual({ claimed: 1, completed: 0, failed: 0, lost: 1 });
    const lostDone = await admin.waitForRun(lost.id, { timeoutMs: 10_000 });
    expect(lostDone.status).toBe("completed");
    expect(stepOf(lostDone, "NOTIFY")!.output).toEqual({ attempt: 2, leaseMs: LEASE_MS });
  });
});
