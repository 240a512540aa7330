// The TypeScript client (clients/typescript) against the real route handlers, in process: its
// fetch is routed to app/api/**/route.ts with Request/Response, so every body it sends passes the
// server's own validation (unknown fields are a 422) and every answer is the server's. Reviews:
// list, get, decide, a refusal as SwitchyardError; runs; the worker loop on an external step
// (complete, a retryable failure offered again, a permanent one taking on_error, a clean stop).
// e2e/external-workers.spec.ts runs the same against a built server with the example workers.
import { afterAll, beforeAll, describe, expect, expectTypeOf, it, vi } from "vitest";
import type { z } from "zod";
import { saveUserWorkflow } from "../lib/flows/store";
import type { DecisionBody, ReviewListQuery, StartRunBody } from "../lib/api/schemas";
import { Switchyard, SwitchyardError, TaskFailure, type DecisionPayload, type Run, type Task } from "../clients/typescript/index.ts";
import { flush, workflowRuntime } from "./helpers";
import type { Runtime } from "../lib/runtime";
import type { ManualClock } from "../lib/engine/clock";

const REVIEW_FLOW = `id: client-review
initial_stage: REVIEW
stages: [REVIEW, DONE, REDO]
transitions: { REVIEW: [DONE, REDO], DONE: [], REDO: [] }
steps:
  REVIEW:
    review: { prompt: "Ship {{input.text}}?", show: "{{input.text}}", decisions: [approve, reject, edit], approvers: 2 }
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

type Route = Record<string, (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>>;
const ROUTES: [RegExp, string][] = [
  [/^\/api\/runs$/, "../app/api/runs/route"],
  [/^\/api\/runs\/(?<id>[^/]+)$/, "../app/api/runs/[id]/route"],
  [/^\/api\/runs\/(?<id>[^/]+)\/events$/, "../app/api/runs/[id]/events/route"],
  [/^\/api\/reviews$/, "../app/api/reviews/route"],
  [/^\/api\/reviews\/(?<id>[^/]+)$/, "../app/api/reviews/[id]/route"],
  [/^\/api\/reviews\/(?<id>[^/]+)\/decision$/, "../app/api/reviews/[id]/decision/route"],
  [/^\/api\/tasks\/claim$/, "../app/api/tasks/claim/route"],
  [/^\/api\/tasks\/(?<id>[^/]+)\/heartbeat$/, "../app/api/tasks/[id]/heartbeat/route"],
  [/^\/api\/tasks\/(?<id>[^/]+)\/complete$/, "../app/api/tasks/[id]/complete/route"],
  [/^\/api\/tasks\/(?<id>[^/]+)\/fail$/, "../app/api/tasks/[id]/fail/route"],
];

/** fetch, answered by the app's route handlers */
const sent: { method: string; path: string; body: unknown }[] = [];
const routed: typeof fetch = async (input, init) => {
  const req = new Request(input as string, init);
  const url = new URL(req.url);
  for (const [re, mod] of ROUTES) {
    const m = re.exec(url.pathname);
    if (!m) continue;
    const route = (await import(/* @vite-ignore */ mod)) as Route;
    const fn = route[req.method];
    if (!fn) return new Response(null, { status: 405 });
    sent.push({ method: req.method, path: url.pathname, body: req.method === "GET" ? undefined : await req.clone().json().catch(() => undefined) });
    return fn(req, { params: Promise.resolve({ ...m.groups }) });
  }
  return new Response(JSON.stringify({ error: `no route ${url.pathname}` }), { status: 404 });
};

let rt: Runtime & { clock: ManualClock };
let client: Switchyard;

beforeAll(async () => {
  rt = await workflowRuntime("conversation", { seedGuide: false });
  await saveUserWorkflow(rt.db, "yaml", REVIEW_FLOW);
  await saveUserWorkflow(rt.db, "yaml", EXTERNAL_FLOW);
  (globalThis as Record<symbol, unknown>)[Symbol.for("switchyard.runtime")] = Promise.resolve(rt);
  client = new Switchyard({ baseUrl: "http://switchyard.test/", fetch: routed });
});
afterAll(async () => {
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

    const edited = await client.decide(next!.id, "edit", { reviewer: "ben", data: { edited: "v1.3" } });
    expect(edited.run.status).toBe("completed");
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
    // the loop spoke for its claim in every report: worker name and attempt
    const reports = sent.filter((s) => /\/api\/tasks\/[^/]+\/(complete|fail)$/.test(s.path));
    expect(reports).toHaveLength(4);
    for (const r of reports) expect(r.body).toMatchObject({ worker: "vitest", attempt: expect.any(Number) });
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
    await client.complete(next!.id, { sent: "later" }, { worker: "next", attempt: 1 });
  });

  it("completing twice is a no-op; a claim the server refuses rejects work()", async () => {
    const run = await client.startRun("client-external", { text: "twice" });
    const task = await client.claimTask("client-q", "manual", 1_000);
    expect(task).toMatchObject({ runId: run.id, stage: "NOTIFY", attempt: 1, leaseMs: expect.any(Number) });
    const first = await client.complete(task!.id, { n: 1 }, { worker: "manual", attempt: 1 });
    const second = await client.complete(task!.id, { n: 2 }, { worker: "manual", attempt: 1 });
    expect(second).toEqual(first);
    expect(steps(await client.waitForRun(run.id, { timeoutMs: 15_000, intervalMs: 20 })).NOTIFY!.output).toEqual({ n: 1 });
    expect(await client.claimTask("client-q", "manual", 0)).toBeNull();
    await expect(client.work("Not A Queue", () => null, { worker: "w", waitMs: 0 })).rejects.toMatchObject({ status: 422 });
  });
});
