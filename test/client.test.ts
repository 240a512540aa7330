// @switchyard/client (clients/typescript, imported as the package: its built dist/) against a real
// server: the app's route handlers behind an HTTP server in this process (test/support/app-server.ts),
// so every body it sends passes the server's own validation (unknown fields are a 422) and every
// answer is the server's, over TCP. Reviews: list, get, decide, a refusal as SwitchyardError; runs;
// the worker loop on an external step (complete, a retryable failure offered again, a permanent one
// taking on_error, a clean stop, 4 at a time over many tasks, each completed exactly once).
// e2e/external-workers.spec.ts runs the example workers against a built server.
import { afterAll, beforeAll, describe, expect, expectTypeOf, it, vi } from "vitest";
import type { z } from "zod";
import { saveUserWorkflow } from "../lib/flows/store";
import type { DecisionBody, ReviewListQuery, StartRunBody } from "../lib/api/schemas";
import { Switchyard, SwitchyardError, TaskFailure, type DecisionPayload, type Run, type Task } from "@switchyard/client";
import { flush, testRuntime } from "./helpers";
import { serveApp, type AppServer } from "./support/app-server";
import type { Runtime } from "../lib/runtime";
import type { ManualClock } from "../lib/engine/clock";

const REVIEW_FLOW = `id: client-review
initial_stage: REVIEW
stages: [REVIEW, DONE, REDO]
transitions: { REVIEW: [DONE, REDO], DONE: [], REDO: [] }
steps:
  REVIEW:
    review: { prompt: "Ship {{input.text}}?", show: "the release notes", decisions: [approve, reject, edit], approvers: 2 }
    on: { approve: DONE, edit: DONE, reject: REDO }
`;
const EXTERNAL_FLOW = `id: client-external
initial_stage: NOTIFY
stages: [NOTIFY, DONE, FAILED]
transitions: { NOTIFY: [DONE, FAILED], DONE: [], FAILED: [] }
steps:
  NOTIFY:
    external: { queue: client-q }
    retry: { max: 2, backoff_s: 0 }
    next: DONE
    on_error: FAILED
`;

/** fetch over the network, recording what the client sent */
const sent: { method: string; path: string; body: unknown }[] = [];
const recording: typeof fetch = async (input, init) => {
  const url = new URL(String(input));
  sent.push({ method: init?.method ?? "GET", path: url.pathname, body: typeof init?.body === "string" ? JSON.parse(init.body) : undefined });
  return fetch(input, init);
};

let rt: Runtime & { clock: ManualClock };
let server: AppServer;
let client: Switchyard;

beforeAll(async () => {
  rt = await testRuntime();
  await saveUserWorkflow(rt.db, "yaml", REVIEW_FLOW);
  await saveUserWorkflow(rt.db, "yaml", EXTERNAL_FLOW);
  server = await serveApp(rt);
  client = new Switchyard({ baseUrl: `${server.url}/`, fetch: recording });
});
afterAll(async () => {
  await server?.close();
  await rt?.close();
});

const steps = (r: Run) => (r.context as { steps: Record<string, { output?: unknown; error?: { message?: string } }> }).steps;

describe("request types follow the server's schemas", () => {
  it("startRun, decide and listReviews send what StartRunBody, DecisionBody and ReviewListQuery accept", () => {
    expectTypeOf<{ workflow: string; input: unknown }>().toExtend<z.input<typeof StartRunBody>>();
    expectTypeOf<DecisionPayload & { decision: string }>().toExtend<z.input<typeof DecisionBody>>();
    expectTypeOf<Required<Omit<z.input<typeof DecisionBody>, "decision">>>().toExtend<Required<DecisionPayload>>();
    expectTypeOf<"pending" | "decided" | "cancelled">().toEqualTypeOf<NonNullable<z.input<typeof ReviewListQuery>["status"]>>();
  });
});

describe("runs and reviews", () => {
  it("starts a run (once per Idempotency-Key), lists, reads and decides its typed review; refusals are SwitchyardErrors", async () => {
    const run = await client.startRun("client-review", { text: "v1.2" }, { idempotencyKey: "k-start-1" });
    expect(run).toMatchObject({ workflow: "client-review", status: "waiting", state: ["REVIEW"] });
    expect((await client.startRun("client-review", { text: "v1.2" }, { idempotencyKey: "k-start-1" })).id).toBe(run.id);
    expect((await client.listRuns({ workflow: "client-review" })).total).toBe(1);
    await flush();

    const [review, ...rest] = await client.listReviews({ runId: run.id, status: "pending" });
    expect(rest).toEqual([]);
    expect(review).toMatchObject({ runId: run.id, state: "REVIEW", decisions: ["approve", "reject", "edit"], approvals: { so_far: 0, needed: 2, by: [] } });
    expect(Object.keys(review!.decisionSchemas)).toEqual(["approve", "reject", "edit"]);
    expect(review!.decisionSchemas.edit).toMatchObject({ properties: { decision: { const: "edit" }, data: { required: ["edited"] } } });
    expect((await client.getReview(review!.id)).prompt).toBe(review!.prompt);

    const one = await client.decide(review!.id, "approve", { reviewer: "ana" });
    expect(one.review).toMatchObject({ status: "decided", decision: "approve", reviewer: "ana" });
    expect(one.run.state).toEqual(["REVIEW"]);
    await flush();
    const [next] = await client.listReviews({ runId: run.id, status: "pending" });
    expect(next!.approvals).toEqual({ so_far: 1, needed: 2, by: ["ana"] });

    const twice = await client.decide(next!.id, "approve", { reviewer: "ana" }).catch((e: unknown) => e);
    expect(twice).toBeInstanceOf(SwitchyardError);
    expect(twice).toMatchObject({ status: 409, message: expect.stringMatching(/ana has already approved/), method: "POST", path: `/api/reviews/${next!.id}/decision` });
    const late = await client.decide(review!.id, "reject", { reviewer: "ben" }).catch((e: unknown) => e);
    expect(late).toMatchObject({ status: 409 });
    const invalid = await client.decide(next!.id, "edit", { reviewer: "ben", data: { edited: "v1.3" }, modifications: ["x".repeat(3_000)] }).catch((e: unknown) => e);
    expect(invalid).toMatchObject({ status: 422, code: "invalid" });
    expect((invalid as SwitchyardError).issues[0]!.path).toBe("modifications.0");

    // an edit must keep the type of what it replaces (the text shown)
    expect(await client.decide(next!.id, "edit", { reviewer: "ben", data: { edited: { text: "v1.3" } } }).catch((e: unknown) => e)).toMatchObject({ status: 422, message: expect.stringMatching(/^edited: expected a string/) });
    // an edit is its editor's approval of the new value; the earlier approval was of another value
    const edited = await client.decide(next!.id, "edit", { reviewer: "ben", data: { edited: "v1.3" } });
    expect(edited.run.state).toEqual(["REVIEW"]);
    await flush();
    const [third] = await client.listReviews({ runId: run.id, status: "pending" });
    expect(third!.approvals).toEqual({ so_far: 1, needed: 2, by: ["ben"] });
    expect((await client.decide(third!.id, "approve", { reviewer: "ana" })).run.status).toBe("completed");
    expect(steps(await client.getRun(run.id)).REVIEW!.output).toBe("v1.3");

    expect(await client.getReview("nope").catch((e: unknown) => e)).toMatchObject({ status: 404, message: "review nope not found" });
    expect(await client.startRun("no-such-flow", {}).catch((e: unknown) => e)).toMatchObject({ status: 422, message: expect.stringMatching(/unknown workflow "no-such-flow"/) });
    expect(await client.sendEvent(run.id, { type: "TRANSITION", to: "REDO" }).catch((e: unknown) => e)).toBeInstanceOf(SwitchyardError);
  });

  it("a server that cannot be reached is a SwitchyardError with status 0", async () => {
    const down = new Switchyard({ baseUrl: "http://127.0.0.1:9", fetch: async () => Promise.reject(new TypeError("fetch failed")) });
    expect(await down.getRun("x").catch((e: unknown) => e)).toMatchObject({ name: "SwitchyardError", status: 0, code: "network" });
  });
});

describe("the worker loop on an external step", () => {
  it("completes tasks with the handler's output, offers a retryable failure again, fails the step on a permanent one, and stops on abort", async () => {
    const ok = await client.startRun("client-external", { text: "ok" });
    const flaky = await client.startRun("client-external", { text: "flaky" });
    const broken = await client.startRun("client-external", { text: "broken" });
    const stop = new AbortController();
    const seen: Task[] = [];
    const working = client.work(
      "client-q",
      async (input, { task }) => {
        seen.push(task);
        const text = (input as { input: { text: string } }).input.text;
        if (text === "flaky" && task.attempt === 1) throw new Error("connection reset"); // retryable by default
        if (text === "broken") throw new TaskFailure("no such channel", { retryable: false });
        return { sent: text, attempt: task.attempt };
      },
      { worker: "vitest", waitMs: 200, signal: stop.signal, onError: () => {} },
    );
    const done = await Promise.all([ok, flaky, broken].map((r) => client.waitForRun(r.id, { timeoutMs: 15_000, intervalMs: 20 })));
    stop.abort();
    const stats = await working;
    expect(stats).toEqual({ claimed: 4, completed: 2, failed: 2, lost: 0 });
    expect(done.map((r) => r.status)).toEqual(["completed", "completed", "failed"]);
    expect(steps(done[0]!).NOTIFY!.output).toEqual({ sent: "ok", attempt: 1 });
    expect(steps(done[1]!).NOTIFY!.output).toEqual({ sent: "flaky", attempt: 2 });
    expect(done[2]!.state).toEqual(["FAILED"]);
    expect(steps(done[2]!).NOTIFY!.error!.message).toMatch(/no such channel/);
    // the loop spoke for its claim in every report: the claim's lease token (worker name and attempt for information)
    const reports = sent.filter((s) => /\/api\/tasks\/[^/]+\/(complete|fail)$/.test(s.path));
    expect(reports).toHaveLength(4);
    for (const r of reports) expect(r.body).toMatchObject({ leaseToken: expect.stringMatching(/^lease_/), worker: "vitest", attempt: expect.any(Number) });
    expect(new Set(reports.map((r) => (r.body as { leaseToken: string }).leaseToken)).size).toBe(4);
    expect(reports.filter((r) => r.path.endsWith("/fail")).map((r) => (r.body as { retryable: boolean }).retryable).sort()).toEqual([false, true]);
  });

  it("a stop asked while a handler works lets it finish and report, then claims nothing more", async () => {
    const run = await client.startRun("client-external", { text: "in hand" });
    const later = await client.startRun("client-external", { text: "later" });
    const stop = new AbortController();
    let sawStopping = false;
    let handled = "";
    const stats = await client.work(
      "client-q",
      async (input, { stopping }) => {
        stop.abort(); // Ctrl-C while this task is in hand
        // the handler is told (its `stopping` signal), and still finishes its task
        await vi.waitFor(() => expect(stopping.aborted).toBe(true));
        sawStopping = stopping.aborted;
        handled = (input as { input: { text: string } }).input.text;
        return { sent: handled };
      },
      { worker: "stopper", waitMs: 1_000, signal: stop.signal },
    );
    expect(stats).toEqual({ claimed: 1, completed: 1, failed: 0, lost: 0 });
    expect(sawStopping).toBe(true);
    // each run's task is queued by its effect after the run's commit, so either may be first
    const [first, second] = handled === "in hand" ? [run, later] : [later, run];
    expect(steps(await client.waitForRun(first.id, { timeoutMs: 15_000, intervalMs: 20 })).NOTIFY!.output).toEqual({ sent: handled });
    // the other task is still queued for the next worker
    const next = await client.claimTask("client-q", "next", 5_000);
    expect(next).toMatchObject({ runId: second.id, attempt: 1 });
    await client.complete(next!, { sent: "later" }, { worker: "next" });
  });

  it("completing twice is a no-op; a call without the lease or with another's is refused; a claim the server refuses rejects work()", async () => {
    const run = await client.startRun("client-external", { text: "twice" });
    const task = await client.claimTask("client-q", "manual", 1_000);
    expect(task).toMatchObject({ runId: run.id, stage: "NOTIFY", attempt: 1, leaseMs: expect.any(Number), leaseToken: expect.stringMatching(/^lease_/) });
    // by its id alone the client cannot speak for the claim
    await expect(client.complete(task!.id, { n: 0 })).rejects.toThrow(/lease token is needed/);
    expect(await client.heartbeat(task!.id, { leaseToken: "lease_someone-else" }).catch((e: unknown) => e)).toMatchObject({ status: 409, code: "lease_lost" });
    expect(await client.heartbeat(task!)).toMatchObject({ id: task!.id, attempt: 1 });
    const first = await client.complete(task!, { n: 1 }, { worker: "manual" });
    const second = await client.complete(task!.id, { n: 2 }, { leaseToken: task!.leaseToken });
    expect(second).toEqual(first);
    expect(steps(await client.waitForRun(run.id, { timeoutMs: 15_000, intervalMs: 20 })).NOTIFY!.output).toEqual({ n: 1 });
    expect(await client.claimTask("client-q", "manual", 0)).toBeNull();
    await expect(client.work("Not A Queue", () => null, { worker: "w", waitMs: 0 })).rejects.toMatchObject({ status: 422 });
  });

  it("four at a time over many tasks: each task is claimed once and completed exactly once", async () => {
    const runs = await Promise.all(Array.from({ length: 24 }, (_, n) => client.startRun("client-external", { text: `many ${n}` })));
    const stop = new AbortController();
    const handled: string[] = [];
    let inFlight = 0;
    let most = 0;
    // the first four handlers wait for each other: four slots must be working side by side
    let fourInHand!: () => void;
    const barrier = new Promise<void>((r) => (fourInHand = r));
    const working = client.work(
      "client-q",
      async (input, { task }) => {
        inFlight++;
        most = Math.max(most, inFlight);
        handled.push(task.id);
        if (handled.length === 4) fourInHand();
        if (handled.length <= 4) await barrier;
        inFlight--;
        return { echoed: (input as { input: { text: string } }).input.text };
      },
      { worker: "many", waitMs: 500, concurrency: 4, signal: stop.signal },
    );
    const done = await Promise.all(runs.map((r) => client.waitForRun(r.id, { timeoutMs: 30_000, intervalMs: 20 })));
    stop.abort();
    const stats = await working;
    expect(stats).toEqual({ claimed: 24, completed: 24, failed: 0, lost: 0 });
    expect(most).toBe(4);
    expect(new Set(handled).size).toBe(24);
    expect(done.map((r) => steps(r).NOTIFY!.output)).toEqual(runs.map((_, n) => ({ echoed: `many ${n}` })));
    for (const r of runs) expect(await rt.tasks.store.list({ runId: r.id })).toEqual([expect.objectContaining({ status: "done", attempt: 1, settledBy: "many" })]);
  });
});
