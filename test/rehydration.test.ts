// Restart: a new engine on the same database resumes every unfinished run, re-arms timers at
// their original deadline and never repeats a side effect that already completed.
import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../lib/engine/clock";
import type { EffectContext } from "../lib/engine/engine";
import type { Runtime } from "../lib/runtime";
import { loopEffects } from "./fixtures/workflows/loop/effects";
import { flush, hang, inState, loopRuntime, tempDbUrl } from "./helpers";
import { WordModel } from "./support/word-model";

// a model for WORK: its call is journaled, and a restart replays it (an offline answer is recorded
// too, but never journaled: lib/llm/recording.ts)
const model = new WordModel();

const open: Runtime[] = [];
afterEach(async () => {
  for (const rt of open.splice(0)) await rt.close().catch(() => {});
});
const REQUEST = "Summarise the release notes of the last three versions";

async function contiguous(rt: Runtime, runId: string) {
  const seqs = (await rt.store.transitions(runId)).map((t) => t.seq);
  expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  const run = await rt.store.getRun(runId);
  expect(run!.seq).toBe(seqs.length);
}

/** the loop's real effect, on runtime `rt` (its recording model) */
const real = (rt: () => Runtime, name: "fetch" | "work") => (input: never, ctx: EffectContext) => loopEffects({ model: () => rt().model }).actors[name](input, ctx);

describe("engine restart", () => {
  it("finishes a run after a restart mid-run, with contiguous seq and no repeated side effect", async () => {
    const url = tempDbUrl();
    const clock = new ManualClock();
    const calls = { fetch: 0 };
    const counting = (rt: () => Runtime) => async (input: never, ctx: EffectContext) => {
      calls.fetch++;
      return real(rt, "fetch")(input, ctx);
    };
    let a!: Runtime;
    a = await loopRuntime({ url, clock, actors: { fetch: counting(() => a), work: hang() } });
    open.push(a);
    const { run } = await a.engine.start("loop", { request: REQUEST });
    await a.engine.waitFor(run.id, inState("WORK"));
    await a.close();

    let b!: Runtime;
    b = await loopRuntime({ url, clock, actors: { fetch: counting(() => b) } });
    open.push(b);
    const r = await b.engine.waitFor(run.id, inState("REVIEW"));
    expect(r.status).toBe("waiting");
    // FETCH completed before the restart: not run again; WORK was in flight: run again, once
    expect(calls).toEqual({ fetch: 1 });
    expect(await b.db.modelCall.count({ where: { runId: run.id } })).toBe(1);
    await contiguous(b, run.id);
    const done = await b.engine.decide(r.reviewId!, { decision: "approve" });
    expect(done.run.state).toEqual(["IDLE"]);
    await contiguous(b, run.id);
  });

  // with a model, WORK's call is journaled and replayed; offline, the offline engine answers again
  // and its one offline row is not written twice (both keyed by the invocation)
  for (const [who, port] of [["a model", model], ["the offline engine", undefined]] as const) it(`re-runs an effect that was cut off mid-way without duplicating its writes (${who})`, async () => {
    const url = tempDbUrl();
    const clock = new ManualClock();
    // engine A: WORK's call completes (and is recorded), then the process "dies" before the result is committed
    let a!: Runtime;
    a = await loopRuntime({
      url,
      clock,
      model: port,
      actors: {
        work: async (input: never, ctx: EffectContext) => {
          await real(() => a, "work")(input, ctx);
          return hang()(input, ctx);
        },
      },
    });
    open.push(a);
    const { run } = await a.engine.start("loop", { request: REQUEST });
    for (let i = 0; i < 50 && (await a.db.modelCall.count({ where: { runId: run.id } })) === 0; i++) await flush();
    expect(await a.db.modelCall.count({ where: { runId: run.id } })).toBe(1);
    await a.close();

    const b = await loopRuntime({ url, clock, model: port });
    open.push(b);
    const r = await b.engine.waitFor(run.id, inState("REVIEW"));
    // one row still: the model's call answered from the journal (no second call), or the offline answer recorded once
    const rows = await b.db.modelCall.findMany({ where: { runId: run.id } });
    expect(rows.map((x) => x.adapter)).toEqual([port ? "word-model @ test" : "offline engine"]);
    expect((r.context as { output: string }).output).not.toBe("");
    await contiguous(b, run.id);
  });

  it("fires a timer pending at shutdown at its original deadline after restart", async () => {
    const url = tempDbUrl();
    const clock = new ManualClock();
    const a = await loopRuntime({ url, clock, actors: { fetch: hang() } });
    open.push(a);
    const { run } = await a.engine.start("loop", { request: REQUEST });
    await a.engine.waitFor(run.id, inState("FETCH"));
    const [timer] = await a.store.timers(run.id);
    expect(timer.id).toContain("fetchTimeout");
    clock.advance(3_000);
    await flush();
    await a.close();

    const b = await loopRuntime({ url, clock, actors: { fetch: hang(), work: hang() } });
    open.push(b);
    expect((await b.store.timers(run.id))[0].dueAt).toBe(timer.dueAt);
    clock.advance(1_999);
    await flush();
    expect((await b.engine.getRun(run.id)).state).toEqual(["FETCH"]);
    clock.advance(1);
    await b.engine.waitFor(run.id, inState("WORK"));
    expect((await b.store.transitions(run.id)).map((t) => t.reason)).toContain("Fetch timed out (proceed anyway)");
    await contiguous(b, run.id);
  });

  it("fires an overdue timer at once on resume", async () => {
    const url = tempDbUrl();
    const clock = new ManualClock();
    const a = await loopRuntime({ url, clock, actors: { fetch: hang() } });
    open.push(a);
    const { run } = await a.engine.start("loop", { request: REQUEST });
    await a.engine.waitFor(run.id, inState("FETCH"));
    await a.close();
    clock.advance(60_000); // the server was down past the 5 s fetch deadline
    const b = await loopRuntime({ url, clock, actors: { fetch: hang(), work: hang() } });
    open.push(b);
    clock.advance(0);
    const r = await b.engine.waitFor(run.id, inState("WORK"));
    expect((await b.store.transitions(run.id)).at(-1)!.reason).toBe("Fetch timed out (proceed anyway)");
    expect(r.status).toBe("running");
  });

  it("keeps a pending review across a restart and applies its decision once", async () => {
    const url = tempDbUrl();
    const clock = new ManualClock();
    const a = await loopRuntime({ url, clock });
    open.push(a);
    const { run } = await a.engine.start("loop", { request: REQUEST });
    const r = await a.engine.waitFor(run.id, inState("REVIEW"));
    await a.close();
    const b = await loopRuntime({ url, clock });
    open.push(b);
    const out = await b.engine.decide(r.reviewId!, { decision: "approve", reviewer: "bo" });
    expect(out.run.state).toEqual(["IDLE"]);
    await expect(b.engine.decide(r.reviewId!, { decision: "reject" })).rejects.toMatchObject({ status: 409 });
  });
});
