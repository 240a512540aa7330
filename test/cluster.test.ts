// Cluster mode on PostgreSQL: a web-only process and two workers on one database. Runs started
// on the web process are advanced by the workers through pg-boss jobs, their commits reach the
// web process's bus over LISTEN/NOTIFY, timers fire once from the queue, and a decision made on
// the web process moves a run the workers hold. Skipped, with the reason printed, when PostgreSQL
// is not reachable.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateDatabase } from "../lib/db/migrations";
import { pgReachable, scratchSchema, type ScratchSchema } from "../lib/db/pg-scratch";
import type { EffectContext } from "../lib/engine/engine";
import type { RunView } from "../lib/engine/views";
import { createRuntime, defaultEffects, type Role, type Runtime } from "../lib/runtime";
import { hang } from "./helpers";
import { loopDecisions } from "./fixtures/workflows/loop/effects";

const PG_URL = process.env.POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/test";

let skip: string | null = null;
let scratch: ScratchSchema | null = null;
let url = "";
const runtimes: Runtime[] = [];

async function node(role: Role, actors: Record<string, (input: never, ctx: EffectContext) => Promise<unknown>> = {}): Promise<Runtime> {
  const env = {} as NodeJS.ProcessEnv;
  const rt = await createRuntime({
    url,
    env,
    role,
    migrate: migrateDatabase,
    serviceChoresMs: 0,
    seedGuide: false,
    alerts: { start: false },
    webhooks: { start: false },
    queue: { schema: scratch!.schema, expireSeconds: 30, maintenanceSeconds: 5 },
    worker: { concurrency: 16, pollMs: 500 },
    log: (m) => process.env.CLUSTER_DEBUG && console.log(role, m),
    effects: (base) => {
      const all = defaultEffects(base, env);
      const loop = all.loop;
      return { ...all, loop: { actors: { ...loop.actors, ...actors }, actions: loop.actions } };
    },
  });
  runtimes.push(rt);
  return rt;
}

beforeAll(async () => {
  skip = await pgReachable(PG_URL);
  if (skip) {
    console.log(`[cluster] skipped: PostgreSQL not reachable at ${PG_URL} (${skip})`);
    return;
  }
  scratch = await scratchSchema(PG_URL, "sy_cluster");
  url = `${PG_URL}?schema=${scratch.schema}`;
}, 60_000);

afterAll(async () => {
  for (const rt of runtimes.reverse()) await rt.close().catch(() => {});
  await scratch?.drop();
}, 60_000);

const seqsOf = (t: { seq: number }[]) => t.map((x) => x.seq);

/** Resolves once `test` holds (polled), or fails after `ms`. */
async function until(test: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("cluster mode (PostgreSQL, pg-boss, LISTEN/NOTIFY)", () => {
  it("a web process and two workers run runs of the loop fixture to review and back to IDLE", async (ctx) => {
    if (skip) return ctx.skip();
    const web = await node("web");
    const a = await node("worker");
    const b = await node("worker");
    expect(web.cluster?.worker).toBeNull();
    const seen: string[] = [];
    const reviews = new Map<string, string>();
    web.engine.bus.subscribe("*", (m) => {
      if (m.type === "run" && m.remote) seen.push(m.run.id);
      if (m.type === "review") reviews.set(m.review.runId, m.review.id);
    });
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await web.engine.start("loop", { request: `Summarise the release notes, part ${i + 1}` })).run.id);
    const atReview = await Promise.all(ids.map((id) => web.engine.waitFor(id, (r) => r.state.includes("REVIEW"), 30_000)));
    // the workers did the work; the web process only heard of it
    // each run's FETCH at least (a WORK job may still be closing when its commit reaches the web process)
    expect(a.cluster!.worker!.stats.effects + b.cluster!.worker!.stats.effects).toBeGreaterThanOrEqual(6);
    // (which worker takes which job is the queue's choice: under load one may take them all)
    for (const id of ids) expect(seen).toContain(id);
    for (const r of atReview) expect(r.reviewId).toBeTruthy();
    // the reviews the workers opened reached the web process's bus too (the review queue listens)
    await until(() => atReview.every((r) => reviews.get(r.id) === r.reviewId));
    // decide on the web process
    for (const r of atReview) await web.engine.decide(r.reviewId!, { decision: "approve", reviewer: "ana" });
    const done = await Promise.all(ids.map((id) => web.engine.waitFor(id, (r: RunView) => r.status === "waiting" && r.state.includes("IDLE"), 30_000)));
    for (const r of done) expect(r.context).toMatchObject({ last: { outcome: "approved" } });
    for (const id of ids) {
      const t = await web.store.transitions(id);
      expect(seqsOf(t)).toEqual(t.map((_, i) => i + 1));
      // each effect's outcome committed once
      const doneEvents = t.filter((x) => x.event.startsWith("xstate.done.actor.")).map((x) => x.event);
      expect(new Set(doneEvents).size).toBe(doneEvents.length);
    }
    // a second decision on a decided review is refused
    await expect(web.engine.decide(atReview[0].reviewId!, { decision: "approve" })).rejects.toMatchObject({ status: 409 });
    // each approval's logDecision went through the outbox on PostgreSQL: run once (by its key) and its row deleted
    await web.engine.outbox.idle();
    expect(await web.store.outbox({ limit: 10, maxAttempts: 99 })).toEqual([]);
    expect(loopDecisions.filter((d) => ids.includes(d.runId)).map((d) => d.runId).sort()).toEqual([...ids].sort());
  }, 90_000);

  it("a timer fires once from the queue while its state's effect hangs, whichever worker is alive", async (ctx) => {
    if (skip) return ctx.skip();
    const web = runtimes.find((r) => r.role === "web") ?? (await node("web"));
    // the two workers stop; a third one, whose fetch never answers, is the only one alive:
    // the 300 ms fetch timeout has to move the runs on
    for (const rt of runtimes.filter((r) => r.role === "worker")) await rt.close();
    const c = await node("worker", { fetch: hang() });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await web.engine.start("loop", { request: `Summarise the release notes while the fetch hangs, case ${i + 1}`, config: { fetchTimeoutMs: 300 } })).run.id);
    await Promise.all(ids.map((id) => web.engine.waitFor(id, (r) => r.state.includes("REVIEW"), 30_000)));
    let timeouts = 0;
    for (const id of ids) {
      const t = await web.store.transitions(id);
      const left = t.filter((x) => x.from.includes("FETCH") && !x.to.includes("FETCH"));
      expect(left).toHaveLength(1);
      if (left[0].event.startsWith("xstate.after")) timeouts++;
      else console.log(`[cluster] run ${id} left FETCH on ${left[0].event}: ${left[0].reason}`);
      expect(await web.store.timers(id)).toHaveLength(0);
    }
    expect(timeouts).toBe(4);
    expect(c.cluster!.worker!.stats.timers).toBe(4);
  }, 90_000);

  it("one process on PostgreSQL (role all) serves and runs the steps itself", async (ctx) => {
    if (skip) return ctx.skip();
    for (const rt of runtimes.splice(0)) await rt.close();
    const solo = await node("all");
    expect(solo.cluster?.worker).toBeTruthy();
    const { run } = await solo.engine.start("loop", { request: "Summarise the release notes for one process" });
    const r = await solo.engine.waitFor(run.id, (x) => x.state.includes("REVIEW"), 30_000);
    expect(solo.cluster!.worker!.stats.effects).toBeGreaterThanOrEqual(1); // FETCH's at least (WORK's job may still be closing)
    await solo.engine.decide(r.reviewId!, { decision: "approve" });
    await solo.engine.waitFor(run.id, (x) => x.status === "waiting" && x.state.includes("IDLE"), 30_000);
    // an idle run is forgotten in memory and read again on its next step
    expect(solo.engine.forgetIdle(0)).toBeGreaterThanOrEqual(1);
    expect(solo.engine.size).toBe(0);
    await solo.engine.send(run.id, { type: "REQUEST", request: "And now the changelog of the next release, please" });
    await solo.engine.waitFor(run.id, (x) => x.state.includes("REVIEW"), 30_000);
  }, 60_000);
});
