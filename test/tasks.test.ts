// External workers: an `external: { queue }` step becomes a task that workers claim,
// heartbeat, complete or fail over /api/tasks/*. The routes are called as the server calls them
// (Request in, Response out) on SQLite with a simulated clock (leases expire by moving it).
import { execFile } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { saveUserWorkflow } from "../lib/flows/store";
import { checkFlowSource } from "../lib/flows/validate";
import type { RunView } from "../lib/engine/views";
import type { Runtime } from "../lib/runtime";
import type { ManualClock } from "../lib/engine/clock";
import { flush, tempDbUrl, testRuntime } from "./helpers";

const FLOW = `id: ext-notify
title: Draft, then a worker notifies
initial_stage: DRAFT
stages: [DRAFT, NOTIFY, DONE, FAILED]
transitions: { DRAFT: [NOTIFY], NOTIFY: [DONE, FAILED], DONE: [], FAILED: [] }
steps:
  DRAFT:
    llm: { prompt: "Write a line about {{input.topic}}." }
    next: NOTIFY
  NOTIFY:
    external: { queue: publisher }
    retry: { max: 1, backoff_s: 0 }
    timeout: { after_s: 600, to: FAILED }
    next: DONE
    on_error: FAILED
`;

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;
type Mod = { POST: Handler };
let rt: Runtime & { clock: ManualClock };
let claimRoute: Mod, heartbeatRoute: Mod, completeRoute: Mod, failRoute: Mod;
const KEY = Symbol.for("switchyard.runtime");

async function routes() {
  claimRoute = (await import("../app/api/tasks/claim/route")) as never;
  heartbeatRoute = (await import("../app/api/tasks/[id]/heartbeat/route")) as never;
  completeRoute = (await import("../app/api/tasks/[id]/complete/route")) as never;
  failRoute = (await import("../app/api/tasks/[id]/fail/route")) as never;
}

const post = (mod: Mod, path: string, body: unknown, params: Record<string, string> = {}, headers: Record<string, string> = {}) =>
  mod.POST(new Request(`http://localhost:3000${path}`, { method: "POST", headers: { host: "localhost:3000", "content-type": "application/json", ...headers }, body: body === undefined ? undefined : JSON.stringify(body) }), { params: Promise.resolve(params) });

const claim = (worker: string, waitMs?: number, queue = "publisher", headers?: Record<string, string>) => post(claimRoute, "/api/tasks/claim", { queue, worker, ...(waitMs !== undefined ? { waitMs } : {}) }, {}, headers);
const complete = (id: string, body: unknown) => post(completeRoute, `/api/tasks/${id}/complete`, body, { id });
const fail = (id: string, body: unknown) => post(failRoute, `/api/tasks/${id}/fail`, body, { id });
const heartbeat = (id: string, body?: unknown) => post(heartbeatRoute, `/api/tasks/${id}/heartbeat`, body, { id });

type Claimed = { id: string; runId: string; stage: string; input: { input: Record<string, unknown>; steps: Record<string, { output?: unknown }>; review: unknown }; attempt: number; leaseMs: number; leaseToken: string };
const steps = (r: RunView) => (r.context as { steps: Record<string, { output?: unknown; error?: { message: string; category?: string }; by?: string }> }).steps;
const at = (stage: string) => (r: RunView) => r.state.includes(stage);

async function toNotify(topic: string, on = rt) {
  const out = await on.engine.start("ext-notify", { topic });
  const run = await on.engine.waitFor(out.run.id, at("NOTIFY"));
  await flush();
  return run;
}

async function claimed(worker: string): Promise<Claimed> {
  const res = await claim(worker);
  expect(res.status).toBe(200);
  return (await res.json()) as Claimed;
}

beforeAll(async () => {
  rt = await testRuntime();
  await saveUserWorkflow(rt.db, "yaml", FLOW);
  (globalThis as Record<symbol, unknown>)[KEY] = Promise.resolve(rt);
  await routes();
});
afterAll(async () => {
  await rt?.close();
  delete (globalThis as Record<symbol, unknown>)[KEY];
});

describe("an external step", () => {
  it("is accepted by validation", () => {
    const r = checkFlowSource("yaml", FLOW);
    expect(r.ok ? [] : r.issues.map((i) => i.message)).toEqual([]);
  });

  it("claim → complete: the worker's output is the step's output and the run completes", async () => {
    const run = await toNotify("kettles");
    const t = await claimed("w1");
    expect(t).toMatchObject({ runId: run.id, stage: "NOTIFY", attempt: 1, leaseMs: 30_000, traceparent: null });
    expect(t.input.input).toEqual({ topic: "kettles" });
    expect(String(t.input.steps.DRAFT!.output)).toContain("Write a line about kettles");
    expect(t.input.review).toBeNull();
    // nothing else is queued
    expect((await claim("w2")).status).toBe(204);
    const res = await complete(t.id, { output: { sent: true, channel: "#news" }, leaseToken: t.leaseToken, worker: "w1", attempt: 1 });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: t.id, status: "done", output: { sent: true, channel: "#news" } });
    const done = await rt.engine.waitFor(run.id, (r) => r.status === "completed");
    expect(done.state).toEqual(["DONE"]);
    expect(steps(done).NOTIFY).toMatchObject({ output: { sent: true, channel: "#news" }, by: "worker w1", worker: "w1" });

    // completing twice (the same lease): 200, the first result, nothing moves
    const before = (await rt.store.transitions(run.id)).length;
    const again = await complete(t.id, { output: { sent: false }, leaseToken: t.leaseToken });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ id: t.id, status: "done", output: { sent: true, channel: "#news" } });
    await flush();
    expect((await rt.store.transitions(run.id)).length).toBe(before);
  });

  it("completing a task whose run moved on (the step timed out) is 409, and the task is withdrawn", async () => {
    const run = await toNotify("late");
    const t = await claimed("slow");
    rt.clock.advance(600_000);
    const moved = await rt.engine.waitFor(run.id, at("FAILED"));
    expect(steps(moved).NOTIFY!.error!.message).toMatch(/timed out after 600 s/);
    await vi.waitFor(async () => expect((await rt.tasks.store.get(t.id))!.status).toBe("cancelled"));
    const res = await complete(t.id, { output: { sent: true }, leaseToken: t.leaseToken });
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ code: "run_moved_on" });
    expect((await heartbeat(t.id, { leaseToken: t.leaseToken })).status).toBe(409);
  });

  it("a run waiting for a worker is evicted like one waiting for a person: the completion loads it, a timeout withdraws its task", async () => {
    const run = await toNotify("evicted");
    const t = await claimed("w-evict");
    // the effect parked (no effect held in memory), so the idle run leaves memory
    await flush();
    rt.engine.evictIdle(0);
    expect(rt.engine.holds(run.id)).toBe(false);
    expect((await heartbeat(t.id, { leaseToken: t.leaseToken })).status).toBe(200);
    const res = await complete(t.id, { output: { sent: true, evicted: true }, leaseToken: t.leaseToken });
    expect(res.status).toBe(200);
    const done = await rt.engine.waitFor(run.id, at("DONE"));
    expect(steps(done).NOTIFY).toMatchObject({ output: { sent: true, evicted: true }, worker: "w-evict" });
    await vi.waitFor(async () => expect((await rt.tasks.store.get(t.id))!.consumedAt).not.toBeNull());

    // evicted at NOTIFY, then its step times out: the timer loads the run, the task is withdrawn at once
    const late = await toNotify("evicted late");
    const lateTask = await claimed("w-slow");
    await flush();
    rt.engine.evictIdle(0);
    expect(rt.engine.holds(late.id)).toBe(false);
    rt.clock.advance(600_000);
    await rt.engine.waitFor(late.id, at("FAILED"));
    await vi.waitFor(async () => expect((await rt.tasks.store.get(lateTask.id))!.status).toBe("cancelled"));
    expect(await (await complete(lateTask.id, { output: 1, leaseToken: lateTask.leaseToken })).json()).toMatchObject({ code: "run_moved_on" });
  });

  it("a run that moved on while nobody noticed (task still claimed) is found out on complete", async () => {
    const run = await toNotify("aborted");
    const t = await claimed("w1");
    await rt.engine.abort(run.id, "test");
    // the abort withdraws it; put it back as a process dying before that would have left it
    await vi.waitFor(async () => expect((await rt.tasks.store.get(t.id))!.status).toBe("cancelled"));
    await rt.sqlite!.db.prepare(`UPDATE "Task" SET "status" = 'claimed' WHERE "id" = ?`).run(t.id);
    const res = await complete(t.id, { output: 1, leaseToken: t.leaseToken });
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ code: "run_moved_on" });
    expect((await rt.tasks.store.get(t.id))!.status).toBe("cancelled");
  });

  it("fail retryable → offered again (attempt 2); with no attempts left, fail routes to on_error", async () => {
    const run = await toNotify("flaky");
    const t = await claimed("w1");
    const res = await fail(t.id, { error: "smtp down", retryable: true, leaseToken: t.leaseToken, worker: "w1", attempt: 1 });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: t.id, status: "queued", attempt: 1 });
    // failing again with the same lease changes nothing
    expect(await (await fail(t.id, { error: "smtp down", retryable: true, leaseToken: t.leaseToken })).json()).toMatchObject({ status: "queued", attempt: 1 });
    const second = await claimed("w2");
    expect(second).toMatchObject({ id: t.id, attempt: 2 });
    // retry: { max: 1 } → 2 attempts: a second retryable failure ends the step
    const last = await fail(t.id, { error: { message: "smtp still down", category: "NETWORK" }, retryable: true, leaseToken: second.leaseToken });
    expect(await last.json()).toMatchObject({ status: "failed" });
    const failed = await rt.engine.waitFor(run.id, at("FAILED"));
    expect(steps(failed).NOTIFY!.error).toMatchObject({ name: "TaskFailed", category: "NETWORK" });
    expect(steps(failed).NOTIFY!.error!.message).toContain("smtp still down");
  });

  it("fail not retryable → the step fails at once and the run takes on_error", async () => {
    const run = await toNotify("bad address");
    const t = await claimed("w1");
    const res = await fail(t.id, { error: "no such channel", retryable: false, leaseToken: t.leaseToken });
    expect(await res.json()).toMatchObject({ status: "failed" });
    const failed = await rt.engine.waitFor(run.id, at("FAILED"));
    expect(steps(failed).NOTIFY!.error!.message).toContain("no such channel");
    expect((await claim("w2")).status).toBe(204);
  });

  it("a lease that expires is offered again with attempt 2; the first worker's late calls are refused", async () => {
    const run = await toNotify("dead worker");
    const t = await claimed("w1");
    const hb = await heartbeat(t.id, { leaseToken: t.leaseToken });
    expect(hb.status).toBe(200);
    expect(await hb.json()).toMatchObject({ id: t.id, leaseMs: 30_000, leaseUntil: new Date(rt.clock.now() + 30_000).toISOString() });
    rt.clock.advance(29_000);
    expect((await claim("w2")).status).toBe(204); // the heartbeat kept it
    rt.clock.advance(2_000);
    const again = await claimed("w2");
    expect(again).toMatchObject({ id: t.id, attempt: 2 });
    const late = await complete(t.id, { output: { from: "w1" }, leaseToken: t.leaseToken });
    expect(late.status).toBe(409);
    expect(await late.json()).toMatchObject({ code: "lease_lost" });
    expect((await heartbeat(t.id, { leaseToken: t.leaseToken })).status).toBe(409);
    expect((await complete(t.id, { output: { from: "w2" }, leaseToken: again.leaseToken })).status).toBe(200);
    const done = await rt.engine.waitFor(run.id, (r) => r.status === "completed");
    expect(steps(done).NOTIFY!.output).toEqual({ from: "w2" });
    // and after w2's completion, w1's late completion is still refused
    expect((await complete(t.id, { output: { from: "w1" }, leaseToken: t.leaseToken })).status).toBe(409);
  });

  it("50 workers claiming at once: each of 10 tasks to exactly one, 40 get 204", async () => {
    const runs = await Promise.all(Array.from({ length: 10 }, (_, i) => toNotify(`burst ${i}`)));
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => claim(`w${i}`)));
    const got = answers.filter((r) => r.status === 200);
    expect(got).toHaveLength(10);
    expect(answers.filter((r) => r.status === 204)).toHaveLength(40);
    const tasks = (await Promise.all(got.map((r) => r.json()))) as Claimed[];
    expect(new Set(tasks.map((t) => t.id)).size).toBe(10);
    expect(new Set(tasks.map((t) => t.runId))).toEqual(new Set(runs.map((r) => r.id)));
    expect(tasks.every((t) => t.attempt === 1)).toBe(true);
    await Promise.all(tasks.map((t) => complete(t.id, { output: { ok: t.runId }, leaseToken: t.leaseToken })));
    for (const r of runs) expect((await rt.engine.waitFor(r.id, (x) => x.status === "completed")).status).toBe("completed");
  });

  it("a long-polling claim returns when a task is queued", async () => {
    // each look at the queue, and whether it found a task
    const looks: boolean[] = [];
    const store = rt.tasks.store;
    const real = store.claim.bind(store);
    store.claim = async (...args) => {
      const t = await real(...args);
      looks.push(!!t);
      return t;
    };
    try {
      const pending = claim("poller", 10_000);
      // the claim found the queue empty and waits
      await vi.waitFor(() => expect(looks).toEqual([false]));
      const run = await toNotify("poll");
      const res = await pending;
      expect(res.status).toBe(200);
      const got = (await res.json()) as Claimed;
      expect(got.runId).toBe(run.id);
      expect((await complete(got.id, { output: "polled", leaseToken: got.leaseToken })).status).toBe(200);
      // an empty queue: 204 once waitMs has passed, after looking before and after waiting
      looks.length = 0;
      expect((await claim("poller", 400)).status).toBe(204);
      expect(looks.length).toBeGreaterThanOrEqual(2);
      expect(looks.every((found) => !found)).toBe(true);
    } finally {
      store.claim = real;
    }
  });

  it("a database that refuses the task for a while delays it; the step does not fail", async () => {
    const store = rt.tasks.store;
    const real = store.create.bind(store);
    let refused = 0;
    store.create = async (...args) => {
      if (refused < 2) {
        refused++;
        throw Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });
      }
      return real(...args);
    };
    try {
      const run = await toNotify("locked");
      await vi.waitFor(() => expect(refused).toBe(1));
      expect((await claim("w1")).status).toBe(204);
      rt.clock.advance(500);
      await vi.waitFor(() => expect(refused).toBe(2));
      rt.clock.advance(1_000);
      const t = await vi.waitFor(async () => {
        const res = await claim("w1");
        expect(res.status).toBe(200);
        return (await res.json()) as Claimed;
      });
      expect(t.runId).toBe(run.id);
      expect((await complete(t.id, { output: "ok", leaseToken: t.leaseToken })).status).toBe(200);
      expect((await rt.engine.waitFor(run.id, (r) => r.status === "completed")).state).toEqual(["DONE"]);
    } finally {
      store.create = real;
    }
  });

  it("open tasks per queue are in /api/metrics", async () => {
    const { prometheusText } = await import("../lib/metrics/prometheus");
    const run = await toNotify("metrics");
    let text = await prometheusText(rt);
    expect(text).toContain('switchyard_tasks{queue="publisher",status="queued"} 1');
    expect(text).toContain('switchyard_tasks{queue="publisher",status="claimed"} 0');
    expect(text).toMatch(/switchyard_task_oldest_queued_seconds\{queue="publisher"\} \d/);
    const t = await claimed("w1");
    text = await prometheusText(rt);
    expect(text).toContain('switchyard_tasks{queue="publisher",status="claimed"} 1');
    expect(text).not.toContain("switchyard_task_oldest_queued_seconds{");
    await complete(t.id, { output: 1, leaseToken: t.leaseToken });
    await rt.engine.waitFor(run.id, (r) => r.status === "completed");
    expect(await prometheusText(rt)).not.toContain('switchyard_tasks{queue="publisher"');
  });

  it("bad input is a 4xx with a message", async () => {
    expect((await post(claimRoute, "/api/tasks/claim", { queue: "Bad Queue", worker: "w" })).status).toBe(422);
    expect((await post(claimRoute, "/api/tasks/claim", { queue: "q", worker: "w", waitMs: 60_000 })).status).toBe(422);
    expect((await post(claimRoute, "/api/tasks/claim", { queue: "q" })).status).toBe(422);
    const missing = await complete("00000000-0000-4000-8000-000000000000", { output: 1, leaseToken: "lease_x" });
    expect(missing.status).toBe(404);
    expect((await complete("not-a-uuid", { output: 1, leaseToken: "lease_x" })).status).toBe(422);
    const noOutput = await complete("00000000-0000-4000-8000-000000000000", { leaseToken: "lease_x" });
    expect(noOutput.status).toBe(422);
    expect(((await noOutput.json()) as { error: string }).error).toMatch(/output/);
    expect((await fail("00000000-0000-4000-8000-000000000000", { error: "x", leaseToken: "lease_x" })).status).toBe(422);
  });
});

describe("restart while a task is claimed", () => {
  it("a new runtime: the worker completes, the run completes once, no second task", async () => {
    const first = await testRuntime();
    await saveUserWorkflow(first.db, "yaml", FLOW);
    const run = await toNotify("restart twice", first);
    const c = (await first.tasks.claim("publisher", "survivor"))!;
    await first.close();
    const second = await testRuntime({ url: first.url });
    try {
      (globalThis as Record<symbol, unknown>)[KEY] = Promise.resolve(second);
      const res = await complete(c.id, { output: { after: "restart" }, leaseToken: c.leaseToken, worker: "survivor", attempt: 1 });
      expect(res.status).toBe(200);
      const done = await second.engine.waitFor(run.id, (r) => r.status === "completed");
      expect(steps(done).NOTIFY!.output).toEqual({ after: "restart" });
      const all = await second.tasks.store.list({ runId: run.id });
      expect(all).toHaveLength(1);
      expect(all[0]).toMatchObject({ status: "done", attempt: 1 });
      expect((await second.store.transitions(run.id)).filter((t) => t.from.includes("NOTIFY"))).toHaveLength(1);
    } finally {
      (globalThis as Record<symbol, unknown>)[KEY] = Promise.resolve(rt);
      await second.close();
    }
  });

  it("completed while no server ran the run: the resumed effect takes the result at once", async () => {
    const first = await testRuntime();
    await saveUserWorkflow(first.db, "yaml", FLOW);
    const run = await toNotify("down", first);
    const c = (await first.tasks.claim("publisher", "survivor"))!;
    await first.close();
    const idle = await testRuntime({ url: first.url, resume: false });
    await idle.tasks.complete(c.id, { while: "down" }, { leaseToken: c.leaseToken });
    await idle.close();
    const second = await testRuntime({ url: first.url });
    try {
      const done = await second.engine.waitFor(run.id, (r) => r.status === "completed");
      expect(steps(done).NOTIFY!.output).toEqual({ while: "down" });
      expect(await second.tasks.store.list({ runId: run.id })).toHaveLength(1);
    } finally {
      await second.close();
    }
  });

  it("SIGKILLed twice while a worker holds the task: no poison pill, the same task, the run completes once", async () => {
    const url = tempDbUrl("killed");
    const child = path.join(__dirname, "support", "tasks-child.ts");
    const life = (...args: string[]) =>
      new Promise<{ runId: string; taskId: string; status: string; attempt: number; leaseToken?: string }>((resolve, reject) =>
        // a hang guard, not a speed limit: one life loads the whole runtime through tsx, ~10 s alone and several times that on a loaded machine
        execFile(process.execPath, ["--import", "tsx", child, url, ...args], { timeout: 240_000, env: { ...process.env, SWITCHYARD_LOG: "" } }, (e, stdout, stderr) => {
          if ((e as { signal?: string } | null)?.signal !== "SIGKILL") return reject(new Error(`child did not die by SIGKILL: ${stderr || String(e)}`));
          resolve(JSON.parse(stdout.trim().split("\n").at(-1)!));
        }),
      );
    const first = await life("start", FLOW);
    expect(first).toMatchObject({ status: "claimed", attempt: 1 });
    // a second life resumes the run (the effect waits on the same task) and is killed too
    const second = await life("resume");
    expect(second).toMatchObject({ taskId: first.taskId, status: "claimed", attempt: 1 });
    const rt3 = await testRuntime({ url });
    try {
      const waiting = await rt3.engine.waitFor(first.runId, () => true);
      // two crashes in a row with the effect in flight would make it a poison pill: waiting for a worker is not that
      expect(waiting).toMatchObject({ status: "running", state: ["NOTIFY"] });
      await rt3.tasks.complete(first.taskId, { after: "two kills" }, { leaseToken: first.leaseToken! });
      const done = await rt3.engine.waitFor(first.runId, (r) => r.status === "completed");
      expect(steps(done).NOTIFY).toMatchObject({ output: { after: "two kills" }, by: "worker survivor" });
      expect(await rt3.tasks.store.list({ runId: first.runId })).toHaveLength(1);
    } finally {
      await rt3.close();
    }
  }, 600_000);
});
