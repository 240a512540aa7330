// Review routing (lib/reviews): a review step's `assign` and `due`, the deadline a durable timer
// that fires on the injected clock after a restart, the escalation in the run's timeline and an
// on_review_escalated webhook delivery in the same commit; the queue's fields and filters; who may
// decide with accounts on. SQLite through the runtime; PostgreSQL through its run store (skipped
// with the reason printed when it is unreachable).
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ManualClock } from "../lib/engine/clock";
import { Engine } from "../lib/engine/engine";
import { migrateDatabase } from "../lib/db/migrations";
import { pgReachable, scratchSchema, type ScratchSchema } from "../lib/db/pg-scratch";
import { PostgresRunStore } from "../lib/engine/store/postgres";
import { saveUserWorkflow } from "../lib/flows/store";
import { findWorkflow } from "../lib/machines/registry";
import { createRuntime, type Runtime } from "../lib/runtime";
import { decideReview, listReviews } from "../lib/api/reviews";
import { sendEvent } from "../lib/api/runs";
import { addToGroup, listGroups, removeFromGroup } from "../lib/auth/groups";
import { REVIEW_ESCALATED, dueTimerId } from "../lib/reviews/routing";
import { ReviewListQuery } from "../lib/api/schemas";
import { checkFlowSource } from "../lib/flows/validate";
import { reviewRoutesFromEnv } from "../lib/reviews/routes";
import { builtInWorkflows } from "../lib/machines/registry";
import type { Principal } from "../lib/auth/accounts";
import { flush, tempDbUrl } from "./helpers";

const FLOW = `id: legal-flow
initial_stage: SIGN_OFF
stages: [SIGN_OFF, DONE]
transitions: { SIGN_OFF: [DONE], DONE: [] }
steps:
  SIGN_OFF:
    review: { prompt: "Sign off the contract", assign: [legal], due: { after_s: 3600, escalate: [legal-leads] } }
    next: DONE
`;

const T0 = Date.parse("2026-05-04T09:00:00Z");
const HOUR = 3_600_000;
const open: Runtime[] = [];

async function runtime(url: string, clock: ManualClock, env: Record<string, string> = {}): Promise<Runtime> {
  const rt = await createRuntime({ url, clock, env: env as NodeJS.ProcessEnv, migrate: migrateDatabase, serviceChoresMs: 0, seedGuide: false, alerts: { start: false }, webhooks: { start: false }, schedules: { start: false } });
  open.push(rt);
  return rt;
}

afterEach(async () => {
  while (open.length) await open.pop()!.close().catch(() => {});
});

describe("review routing on SQLite", () => {
  it("a review step's due is a durable timer: after a restart it escalates on time, in the timeline and to the webhook, and the run stays", async () => {
    const url = tempDbUrl("routing");
    const first = await runtime(url, new ManualClock(T0));
    await saveUserWorkflow(first.db, "yaml", FLOW);
    const hook = await first.webhooks.createWebhook({ workflow: "legal-flow", url: "https://hooks.example.com/escalations", secret: "0123456789abcdef", events: ["on_review_escalated"] });
    const { run } = await first.engine.start("legal-flow", {});
    const waiting = await first.engine.waitFor(run.id, (r) => r.status === "waiting");
    const [item] = await listReviews(first, { status: "pending" });
    expect(item).toMatchObject({ id: waiting.reviewId, assignedTo: ["legal"], dueAt: new Date(T0 + HOUR).toISOString(), overdue: false, escalatedFrom: null });
    expect((await first.store.timers(run.id)).map((t) => [t.id, t.dueAt])).toEqual([[dueTimerId(item!.id), T0 + HOUR]]);
    await first.close();
    open.length = 0;

    // the process is gone for 59 minutes; the new one starts with its own clock at that time
    const clock = new ManualClock(T0 + 59 * 60_000);
    const second = await runtime(url, clock);
    await flush();
    // the restarted process has its wake-up armed for the deadline it read back
    await vi.waitFor(() => expect(clock.pending).toBeGreaterThan(0));
    expect((await second.store.getReview(item!.id))!.assignedTo).toEqual(["legal"]);
    clock.advance(60_000 - 1);
    await flush();
    expect((await second.store.getReview(item!.id))!.escalatedFrom ?? null).toBeNull();
    clock.advance(1);
    await vi.waitFor(async () => expect((await second.store.getReview(item!.id))!.assignedTo).toEqual(["legal-leads"]), { timeout: 20_000 });

    const review = (await second.store.getReview(item!.id))!;
    expect(review).toMatchObject({ status: "pending", escalatedFrom: ["legal"], dueAt: T0 + HOUR });
    const [overdue] = await listReviews(second, { overdue: "true" });
    expect(overdue).toMatchObject({ id: item!.id, overdue: true, assignedTo: ["legal-leads"], escalatedFrom: ["legal"] });
    // the run did not move: one timeline row, in the same state
    const after = await second.engine.getRun(run.id);
    expect(after.state).toEqual(["SIGN_OFF"]);
    expect(after.status).toBe("waiting");
    const escalated = (await second.store.transitions(run.id)).filter((t) => t.event === REVIEW_ESCALATED);
    expect(escalated).toHaveLength(1);
    expect(escalated[0]).toMatchObject({ from: ["SIGN_OFF"], to: ["SIGN_OFF"], at: T0 + HOUR, payload: { reviewId: item!.id, state: "SIGN_OFF", from: ["legal"], to: ["legal-leads"] } });
    expect(escalated[0]!.reason).toMatch(/escalated from legal to legal-leads/);
    expect(await second.store.timers(run.id)).toEqual([]);
    // the webhook's delivery was written in that commit, with the documented body
    const deliveries = await second.db.webhookDelivery.findMany({ where: { webhookId: hook.id } });
    expect(deliveries).toHaveLength(1);
    expect(JSON.parse(deliveries[0]!.body)).toEqual({
      hook: "on_review_escalated",
      deliveryId: deliveries[0]!.id,
      webhookId: hook.id,
      reviewId: item!.id,
      runId: run.id,
      workflow: "legal-flow",
      state: "SIGN_OFF",
      from: ["legal"],
      to: ["legal-leads"],
      dueAt: new Date(T0 + HOUR).toISOString(),
      at: new Date(T0 + HOUR).toISOString(),
    });
    // a person's decision is recorded as a person's
    const out = await decideReview(second, item!.id, { decision: "approve", reviewer: "lea" });
    expect(out.run.status).toBe("completed");
    expect((await second.store.getReview(item!.id))!.decidedBy).toBe("person");
  });

  it("a review decided before its deadline is never escalated: the timer goes with the decision", async () => {
    const clock = new ManualClock(T0);
    const rt = await runtime(tempDbUrl("routing"), clock);
    await saveUserWorkflow(rt.db, "yaml", FLOW);
    const { run } = await rt.engine.start("legal-flow", {});
    const waiting = await rt.engine.waitFor(run.id, (r) => r.status === "waiting");
    await rt.engine.decide(waiting.reviewId!, { decision: "approve" });
    expect(await rt.store.timers(run.id)).toEqual([]);
    clock.advance(2 * HOUR);
    await flush();
    expect((await rt.store.transitions(run.id)).some((t) => t.event === REVIEW_ESCALATED)).toBe(false);
  });

  it("filters: assigned=<group>, assigned=me (accounts on), overdue=true; with accounts on only members and admins decide (403), and the queue offers nothing else", async () => {
    const clock = new ManualClock(T0);
    const rt = await runtime(tempDbUrl("routing"), clock);
    await saveUserWorkflow(rt.db, "yaml", FLOW);
    const plain = FLOW.replace("id: legal-flow", "id: plain-flow").replace(/assign: \[legal\], due: \{[^}]*\} /, "");
    await saveUserWorkflow(rt.db, "yaml", plain);
    const a = await rt.engine.start("legal-flow", {});
    const b = await rt.engine.start("plain-flow", {});
    const ra = (await rt.engine.waitFor(a.run.id, (r) => r.status === "waiting")).reviewId!;
    const rb = (await rt.engine.waitFor(b.run.id, (r) => r.status === "waiting")).reviewId!;
    const ids = async (q: Parameters<typeof listReviews>[1], who: Principal | null = null) => (await listReviews(rt, { status: "pending", ...q }, who)).map((r) => r.id).sort();
    expect(await ids({ assigned: "legal" })).toEqual([ra]);
    expect(await ids({ assigned: "finance" })).toEqual([]);
    expect(await ids({ overdue: "true" })).toEqual([]);
    clock.advance(HOUR - 1);
    expect(await ids({ overdue: "true" })).toEqual([]);
    clock.advance(1);
    // overdue as soon as it is due (the escalation may still be under way)
    expect(await ids({ overdue: "true" })).toEqual([ra]);
    await vi.waitFor(async () => expect(await ids({ assigned: "legal-leads" })).toEqual([ra]), { timeout: 20_000 });
    await expect(listReviews(rt, { assigned: "me" }, null)).rejects.toThrow(/accounts on/);

    // accounts on: ana is in legal-leads, ben in no group, root an admin
    const ana = await rt.accounts.createUser({ name: "ana", password: "correct horse 1", role: "reviewer" });
    const ben = await rt.accounts.createUser({ name: "ben", password: "correct horse 2", role: "reviewer" });
    const root = await rt.accounts.createUser({ name: "root", password: "correct horse 3", role: "admin" });
    expect(await addToGroup(rt.db, "ana", "Legal-Leads", clock.now())).toEqual(["legal-leads"]);
    expect(await addToGroup(rt.db, "ana", "legal-leads", clock.now())).toEqual(["legal-leads"]);
    await addToGroup(rt.db, "ana", "finance", clock.now());
    expect(await removeFromGroup(rt.db, "ana", "finance")).toEqual(["legal-leads"]);
    await expect(removeFromGroup(rt.db, "ben", "finance")).rejects.toThrow(/not in group/);
    await expect(addToGroup(rt.db, "ben", "Not A Group!", clock.now())).rejects.toThrow(/group name/);
    expect(await listGroups(rt.db)).toEqual([{ name: "legal-leads", members: ["ana"] }]);
    const as = (u: { id: string; name: string; role: string }): Principal => ({ userId: u.id, name: u.name, role: u.role as Principal["role"], via: "session" });
    expect(await ids({}, as(ben))).toEqual([rb]);
    expect(await ids({}, as(ana))).toEqual([ra, rb].sort());
    expect(await ids({}, as(root))).toEqual([ra, rb].sort());
    expect(await ids({ assigned: "me" }, as(ana))).toEqual([ra]);
    expect(await ids({ assigned: "me" }, as(ben))).toEqual([]);
    // without a status filter too
    expect((await listReviews(rt, {}, as(ben))).map((r) => r.id)).toEqual([rb]);
    // ben may not decide it, through either route; nothing is written
    await expect(decideReview(rt, ra, { decision: "approve" }, as(ben))).rejects.toMatchObject({ status: 403 });
    await expect(sendEvent(rt, a.run.id, { type: "APPROVE" }, as(ben))).rejects.toMatchObject({ status: 403 });
    expect((await rt.store.getReview(ra))!.status).toBe("pending");
    // an unassigned review: anyone with the role
    await decideReview(rt, rb, { decision: "approve" }, as(ben));
    // ana (a member) does
    const out = await decideReview(rt, ra, { decision: "approve" }, as(ana));
    expect(out.review).toMatchObject({ reviewer: "ana", decidedBy: "person" });
  });

  it("the query is validated: assigned is me or a group name, overdue true or false", () => {
    expect(ReviewListQuery.safeParse({ assigned: "me", overdue: "true" }).success).toBe(true);
    expect(ReviewListQuery.safeParse({ assigned: "Legal" }).data).toEqual({ assigned: "legal" });
    expect(ReviewListQuery.safeParse({ assigned: "a b" }).success).toBe(false);
    expect(ReviewListQuery.safeParse({ overdue: "yes" }).success).toBe(false);
  });
});

describe("routing settings are checked", () => {
  it("a review step's assign and due are validated in the definition", () => {
    const bad = FLOW.replace("escalate: [legal-leads]", "escalate: []").replace("after_s: 3600", "after_s: -5");
    const r = checkFlowSource("yaml", bad);
    expect(r.ok).toBe(false);
    const text = JSON.stringify(r);
    expect(text).toMatch(/after_s/);
    expect(text).toMatch(/at least one group/);
    expect(checkFlowSource("yaml", FLOW.replace("assign: [legal]", "assign: [legal], owner: x")).ok).toBe(false);
    expect(checkFlowSource("yaml", FLOW).ok).toBe(true);
  });

  it("SWITCHYARD_REVIEW_ROUTES: JSON, built-in workflows, their review states, the same keys", () => {
    const def = builtInWorkflows().find((d) => d.id === "swiss-army")!;
    const env = (v: string) => ({ SWITCHYARD_REVIEW_ROUTES: v }) as unknown as NodeJS.ProcessEnv;
    expect(reviewRoutesFromEnv({} as NodeJS.ProcessEnv, builtInWorkflows())).toEqual({});
    expect(reviewRoutesFromEnv(env(`{"swiss-army":{"HUMAN_REVIEW":{"assign":["ops"],"due":{"after_s":60,"escalate":["leads"]}}}}`), [def])).toEqual({
      "swiss-army": { HUMAN_REVIEW: { assign: ["ops"], due: { after_s: 60, escalate: ["leads"] } } },
    });
    expect(() => reviewRoutesFromEnv(env("{nope"), builtInWorkflows())).toThrow(/SWITCHYARD_REVIEW_ROUTES is not JSON/);
    expect(() => reviewRoutesFromEnv(env(`{"nope":{"X":{}}}`), builtInWorkflows())).toThrow(/nope: not a built-in workflow/);
    expect(() => reviewRoutesFromEnv(env(`{"swiss-army":{"IDLE":{"assign":["ops"]}}}`), builtInWorkflows())).toThrow(/swiss-army.IDLE: not a review state of swiss-army/);
    expect(() => reviewRoutesFromEnv(env(`{"swiss-army":{"HUMAN_REVIEW":{"assign":["ops"],"due":{"after_s":60}}}}`), builtInWorkflows())).toThrow(/swiss-army.HUMAN_REVIEW.due.escalate/);
    expect(() => reviewRoutesFromEnv(env(`{"swiss-army":{"HUMAN_REVIEW":{"asign":["ops"]}}}`), builtInWorkflows())).toThrow(/asign/);
  });

  it("a runtime refuses to start with a bad SWITCHYARD_REVIEW_ROUTES, and routes a built-in's review with a good one", async () => {
    await expect(runtime(tempDbUrl("routing"), new ManualClock(T0), { SWITCHYARD_REVIEW_ROUTES: `{"swiss-army":{"NOPE":{}}}` })).rejects.toThrow(/SWITCHYARD_REVIEW_ROUTES is invalid/);
    const rt = await runtime(tempDbUrl("routing"), new ManualClock(T0), { SWITCHYARD_REVIEW_ROUTES: `{"swiss-army":{"HUMAN_REVIEW":{"assign":["ops"],"due":{"after_s":60,"escalate":["leads"]}}}}` });
    const { run } = await rt.engine.start("swiss-army", { request: "Summarise the retention policy" });
    const waiting = await rt.engine.waitFor(run.id, (r) => r.state.includes("HUMAN_REVIEW"), 30_000);
    expect(await rt.store.getReview(waiting.reviewId!)).toMatchObject({ assignedTo: ["ops"], dueAt: rt.clock.now() + 60_000 });
  });
});

describe("review routing on PostgreSQL (the run store)", () => {
  const PG_URL = process.env.POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
  let skip: string | null = null;
  let scratch: ScratchSchema | null = null;
  beforeAll(async () => {
    skip = await pgReachable(PG_URL);
    if (skip) return console.log(`[review-routing] PostgreSQL part skipped: not reachable at ${PG_URL} (${skip})`);
    scratch = await scratchSchema(PG_URL, "sy_routing");
    await migrateDatabase(`${PG_URL}?schema=${scratch.schema}`);
  }, 60_000);
  afterAll(async () => {
    await scratch?.drop();
  }, 60_000);

  it("routing is written and read back, the deadline timer escalates after a restart, and the filters answer", async (ctx) => {
    if (skip || !scratch) return ctx.skip();
    const sqlite = await runtime(tempDbUrl("routing"), new ManualClock(T0));
    await saveUserWorkflow(sqlite.db, "yaml", FLOW); // registers legal-flow in this process
    const def = findWorkflow("legal-flow")!;
    const store = new PostgresRunStore(PG_URL, { options: scratch.options, max: 2 });
    const make = (clock: ManualClock) => new Engine({ store, clock, workflows: (id) => (id === def.id ? def : undefined), effects: () => ({ actors: {} }) });
    let engine = make(new ManualClock(T0));
    try {
      const { run } = await engine.start("legal-flow", {});
      const waiting = await engine.waitFor(run.id, (r) => r.status === "waiting");
      expect(await store.getReview(waiting.reviewId!)).toMatchObject({ assignedTo: ["legal"], dueAt: T0 + HOUR, escalatedFrom: null });
      expect((await store.listReviews({ status: "pending", assigned: ["legal"] })).map((r) => r.id)).toEqual([waiting.reviewId]);
      expect(await store.listReviews({ status: "pending", assigned: ["legal-leads"] })).toEqual([]);
      expect(await store.listReviews({ status: "pending", decidableBy: ["finance"] })).toEqual([]);
      expect(await store.listReviews({ status: "pending", dueBy: T0 + HOUR - 1 })).toEqual([]);
      expect(await store.listReviews({ status: "pending", dueBy: T0 + HOUR })).toHaveLength(1);
      await engine.stop();
      const clock = new ManualClock(T0 + HOUR - 1);
      engine = make(clock);
      await engine.resume();
      await vi.waitFor(() => expect(clock.pending).toBeGreaterThan(0));
      clock.advance(1);
      await vi.waitFor(async () => expect((await store.getReview(waiting.reviewId!))!.assignedTo).toEqual(["legal-leads"]), { timeout: 20_000 });
      expect(await store.getReview(waiting.reviewId!)).toMatchObject({ escalatedFrom: ["legal"], status: "pending" });
      expect((await store.listReviews({ status: "pending", decidableBy: ["legal-leads"] })).map((r) => r.id)).toEqual([waiting.reviewId]);
      expect((await store.transitions(run.id)).filter((t) => t.event === REVIEW_ESCALATED)).toHaveLength(1);
      const out = await engine.decide(waiting.reviewId!, { decision: "approve", reviewer: "lea" });
      expect(out.review.decidedBy).toBe("person");
      expect((await store.getReview(waiting.reviewId!))!.decidedBy).toBe("person");
      // decided: no longer left out for people outside its groups
      expect((await store.listReviews({ decidableBy: ["finance"] })).map((r) => r.id)).toEqual([waiting.reviewId]);
    } finally {
      await engine.stop().catch(() => {});
      await store.close();
    }
  }, 60_000);
});

describe("escalation in cluster mode (PostgreSQL: a web process and two workers, a simulated clock)", () => {
  const PG_URL = process.env.POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
  let skip: string | null = null;
  let scratch: ScratchSchema | null = null;
  beforeAll(async () => {
    skip = await pgReachable(PG_URL);
    if (skip) return console.log(`[review-routing] cluster part skipped: PostgreSQL not reachable at ${PG_URL} (${skip})`);
    scratch = await scratchSchema(PG_URL, "sy_routing_cluster");
  }, 60_000);
  afterAll(async () => {
    while (open.length) await open.pop()!.close().catch(() => {});
    await scratch?.drop();
  }, 60_000);

  /** the three processes of a cluster on one simulated clock */
  async function cluster(clock: ManualClock) {
    const node = async (role: "web" | "worker") => {
      const rt = await createRuntime({
        url: `${PG_URL}?schema=${scratch!.schema}`,
        clock,
        role,
        env: {} as NodeJS.ProcessEnv,
        migrate: migrateDatabase,
        serviceChoresMs: 0,
        seedGuide: false,
        alerts: { start: false },
        webhooks: { start: false },
        schedules: { start: false },
        queue: { schema: scratch!.schema, expireSeconds: 30, maintenanceSeconds: 5 },
        worker: { pollMs: 200 },
      });
      open.push(rt);
      return rt;
    };
    const web = await node("web");
    return { web, workers: [await node("worker"), await node("worker")] };
  }
  const held = (workers: Runtime[]) => workers.reduce((n, w) => n + w.cluster!.worker!.held, 0);

  it("the deadline is kept across a restart of the whole cluster: one escalation, at the due time, whichever worker holds it", async (ctx) => {
    if (skip) return ctx.skip();
    const firstClock = new ManualClock(T0);
    const first = await cluster(firstClock);
    await saveUserWorkflow(first.web.db, "yaml", FLOW);
    const hook = await first.web.webhooks.createWebhook({ workflow: "legal-flow", url: "https://hooks.example.com/escalations", secret: "0123456789abcdef", events: ["on_review_escalated"] });
    const { run } = await first.web.engine.start("legal-flow", {});
    const waiting = await first.web.engine.waitFor(run.id, (r) => r.status === "waiting", 30_000);
    const reviewId = waiting.reviewId!;
    expect(await first.web.store.timers(run.id)).toMatchObject([{ id: dueTimerId(reviewId), dueAt: T0 + HOUR }]);
    // a worker took the deadline's job and waits for the cluster's clock; half an hour passes: nothing
    await vi.waitFor(() => expect(held(first.workers)).toBe(1), { timeout: 20_000 });
    firstClock.advance(30 * 60_000);
    await flush();
    expect((await first.web.store.getReview(reviewId))!.escalatedFrom ?? null).toBeNull();
    // the whole cluster stops (the workers hand the job back) and is started again 29 minutes later
    while (open.length) await open.pop()!.close();
    const clock = new ManualClock(T0 + 59 * 60_000);
    const second = await cluster(clock);
    await vi.waitFor(() => expect(held(second.workers)).toBe(1), { timeout: 30_000 });
    clock.advance(60_000 - 1);
    await flush();
    expect((await second.web.store.getReview(reviewId))!.escalatedFrom ?? null).toBeNull();
    expect((await second.web.store.transitions(run.id)).some((t) => t.event === REVIEW_ESCALATED)).toBe(false);
    clock.advance(1);
    await vi.waitFor(async () => expect((await second.web.store.getReview(reviewId))!.assignedTo).toEqual(["legal-leads"]), { timeout: 20_000 });
    expect(await second.web.store.getReview(reviewId)).toMatchObject({ status: "pending", escalatedFrom: ["legal"], dueAt: T0 + HOUR });
    await vi.waitFor(() => expect(held(second.workers)).toBe(0));
    // exactly once: one timeline row at the due time, one webhook delivery, the timer gone; the job
    // delivered again (a sweep, a retry) is stale on either worker, and time going on adds nothing
    const escalations = () => second.web.store.transitions(run.id).then((t) => t.filter((x) => x.event === REVIEW_ESCALATED));
    expect(await escalations()).toMatchObject([{ at: T0 + HOUR, from: ["SIGN_OFF"], to: ["SIGN_OFF"], payload: { reviewId, from: ["legal"], to: ["legal-leads"] } }]);
    expect(await second.web.store.timers(run.id)).toEqual([]);
    for (const w of second.workers) expect(await w.engine.fireTimer(run.id, dueTimerId(reviewId), T0 + HOUR)).toBe("stale");
    expect((await Promise.all(second.workers.map((w) => w.engine.sweep()))).map((s) => s.timers)).toEqual([0, 0]);
    clock.advance(2 * HOUR);
    await flush();
    expect(await escalations()).toHaveLength(1);
    expect(await second.web.db.webhookDelivery.count({ where: { webhookId: hook.id } })).toBe(1);
    expect(second.workers.reduce((n, w) => n + w.cluster!.worker!.stats.timers, 0)).toBe(1);
    // the run did not move; a person decides it as before
    expect(await second.web.engine.getRun(run.id)).toMatchObject({ status: "waiting", state: ["SIGN_OFF"] });
    await second.web.engine.decide(reviewId, { decision: "approve", reviewer: "lea" });
    await second.web.engine.waitFor(run.id, (r) => r.status === "completed", 30_000);
  }, 180_000);
});
