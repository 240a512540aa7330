// Restart: a new engine on the same database resumes every unfinished run, re-arms timers at
// their original deadline and never repeats a side effect that already completed.
import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../lib/engine/clock";
import type { EffectContext } from "../lib/engine/engine";
import type { Runtime } from "../lib/runtime";
import { flush, hang, inState, swissRuntime, tempDbUrl } from "./helpers";
import { contextManagerOf } from "../workflows/swiss-army/services";

const open: Runtime[] = [];
afterEach(async () => {
  for (const rt of open.splice(0)) await rt.close().catch(() => {});
});
const REQUEST = "Write a TypeScript function that retries a fetch with exponential backoff and jitter";

async function contiguous(rt: Runtime, runId: string) {
  const seqs = (await rt.store.transitions(runId)).map((t) => t.seq);
  expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  const run = await rt.store.getRun(runId);
  expect(run!.seq).toBe(seqs.length);
}

describe("engine restart", () => {
  it("finishes a run after a restart mid-run, with contiguous seq and no repeated side effect", async () => {
    const url = tempDbUrl();
    const clock = new ManualClock();
    const calls: Record<string, number> = { parse: 0, search: 0 };
    const counting = (name: string) => (rt: () => Runtime) => async (input: never, ctx: EffectContext) => {
      calls[name]++;
      const { swissArmyEffects } = await import("../workflows/swiss-army/effects");
      const real = swissArmyEffects({ cm: contextManagerOf(rt()) }).actors[name === "parse" ? "parseRequest" : "searchContext"];
      return real(input, ctx);
    };
    let a!: Runtime;
    a = await swissRuntime({ url, clock, actors: { parseRequest: counting("parse")(() => a), searchContext: counting("search")(() => a), execute: hang() } });
    open.push(a);
    const { run } = await a.engine.start("swiss-army", { request: REQUEST });
    await a.engine.waitFor(run.id, inState("EXECUTING"));
    await a.close();

    let b!: Runtime;
    b = await swissRuntime({ url, clock, actors: { parseRequest: counting("parse")(() => b), searchContext: counting("search")(() => b) } });
    open.push(b);
    const r = await b.engine.waitFor(run.id, inState("HUMAN_REVIEW"));
    expect(r.status).toBe("waiting");
    expect(calls).toEqual({ parse: 1, search: 1 });
    expect(await b.db.cmRequest.count()).toBe(1);
    await contiguous(b, run.id);
    const done = await b.engine.decide(r.reviewId!, { decision: "approve" });
    expect(done.run.state).toEqual(["IDLE"]);
    await contiguous(b, run.id);
  });

  it("re-runs an effect that was cut off mid-way without duplicating its writes", async () => {
    const url = tempDbUrl();
    const clock = new ManualClock();
    // engine A: parse writes to the Context Manager, then the process "dies" before the result is committed
    let a!: Runtime;
    a = await swissRuntime({
      url,
      clock,
      actors: {
        parseRequest: (async (input: never, ctx: EffectContext) => {
          const { swissArmyEffects } = await import("../workflows/swiss-army/effects");
          await swissArmyEffects({ cm: contextManagerOf(a) }).actors.parseRequest(input, ctx);
          return hang()(input, ctx);
        }) as never,
      },
    });
    open.push(a);
    const { run } = await a.engine.start("swiss-army", { request: REQUEST });
    for (let i = 0; i < 50 && (await a.db.cmRequest.count()) === 0; i++) await flush();
    expect(await a.db.cmRequest.count()).toBe(1);
    await a.close();

    const b = await swissRuntime({ url, clock });
    open.push(b);
    await b.engine.waitFor(run.id, inState("HUMAN_REVIEW"));
    expect(await b.db.cmRequest.count()).toBe(1);
    await contiguous(b, run.id);
  });

  it("fires a timer pending at shutdown at its original deadline after restart", async () => {
    const url = tempDbUrl();
    const clock = new ManualClock();
    const a = await swissRuntime({ url, clock, actors: { searchContext: hang() } });
    open.push(a);
    const { run } = await a.engine.start("swiss-army", { request: REQUEST });
    await a.engine.waitFor(run.id, inState("CONTEXT_SEARCH"));
    const [timer] = await a.store.timers(run.id);
    expect(timer.id).toContain("searchTimeout");
    clock.advance(3_000);
    await flush();
    await a.close();

    const b = await swissRuntime({ url, clock, actors: { searchContext: hang() } });
    open.push(b);
    expect((await b.store.timers(run.id))[0].dueAt).toBe(timer.dueAt);
    clock.advance(1_999);
    await flush();
    expect((await b.engine.getRun(run.id)).state).toEqual(["CONTEXT_SEARCH"]);
    clock.advance(1);
    await b.engine.waitFor(run.id, inState("EXECUTING"));
    expect((await b.store.transitions(run.id)).map((t) => t.reason)).toContain("Context timeout (proceed anyway)");
    await contiguous(b, run.id);
  });

  it("fires an overdue timer at once on resume", async () => {
    const url = tempDbUrl();
    const clock = new ManualClock();
    const a = await swissRuntime({ url, clock, actors: { parseRequest: hang() } });
    open.push(a);
    const { run } = await a.engine.start("swiss-army", { request: REQUEST });
    await a.close();
    clock.advance(60_000); // the server was down past the 5 s parse deadline
    const b = await swissRuntime({ url, clock, actors: { parseRequest: hang() } });
    open.push(b);
    clock.advance(0);
    const r = await b.engine.waitFor(run.id, inState("IDLE"));
    expect((await b.store.transitions(run.id)).at(-1)!.reason).toBe("Critical error: parsing exceeded its 5 s maximum");
    expect(r.status).toBe("waiting");
  });

  it("keeps a pending review across a restart and applies its decision once", async () => {
    const url = tempDbUrl();
    const clock = new ManualClock();
    const a = await swissRuntime({ url, clock });
    open.push(a);
    const { run } = await a.engine.start("swiss-army", { request: REQUEST });
    const r = await a.engine.waitFor(run.id, inState("HUMAN_REVIEW"));
    await a.close();
    const b = await swissRuntime({ url, clock });
    open.push(b);
    const out = await b.engine.decide(r.reviewId!, { decision: "approve", reviewer: "bo" });
    expect(out.run.state).toEqual(["IDLE"]);
    await expect(b.engine.decide(r.reviewId!, { decision: "reject" })).rejects.toMatchObject({ status: 409 });
  });
});
