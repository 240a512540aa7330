// Storage faults: while the database refuses writes, requests get a clear 503 and nothing is
// half-written; effect results and timers that could not be committed are retried, and the runs
// carry on when the database answers again.
import { afterEach, describe, expect, it } from "vitest";
import { errorResponse } from "../lib/api/http";
import { StorageError, type EffectContext } from "../lib/engine/engine";
import type { CommitItem } from "../lib/engine/store/types";
import type { Runtime } from "../lib/runtime";
import type { ManualClock } from "../lib/engine/clock";
import { flush, inState, loopRuntime } from "./helpers";

let rt: (Runtime & { clock: ManualClock }) | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
});

/** The store refuses every commit while `down` is set, as SQLite does when the file is locked. */
function faulty(r: Runtime) {
  const state = { down: false, refused: 0 };
  const commit = r.store.commit.bind(r.store);
  r.store.commit = async (items: CommitItem[]) => {
    if (state.down) {
      state.refused++;
      throw Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });
    }
    return commit(items);
  };
  return state;
}

const contiguous = async (id: string) => (await rt!.store.transitions(id)).every((t, i) => t.seq === i + 1);

describe("storage faults", () => {
  it("an effect result the database refused is committed when it answers again; the run carries on", async () => {
    let finish: (v: unknown) => void = () => {};
    let real: ((input: never, ctx: EffectContext) => Promise<unknown>) | null = null;
    rt = await loopRuntime({
      actors: {
        work: (input: never, ctx: EffectContext) => new Promise((resolve) => (finish = () => resolve(real!(input, ctx)))),
      },
    });
    const { defaultEffects } = await import("../lib/runtime");
    real = defaultEffects(rt, {} as NodeJS.ProcessEnv)["loop"].actors.work as never;
    const fault = faulty(rt);
    const { run } = await rt.engine.start("loop", { request: "Summarise the release notes" });
    const executing = await rt.engine.waitFor(run.id, inState("WORK"));

    fault.down = true;
    finish(null);
    for (let i = 0; i < 20 && fault.refused === 0; i++) await flush(10);
    expect(fault.refused).toBeGreaterThan(0);
    // nothing half-written: the run is where it was
    expect((await rt.store.getRun(run.id))!.seq).toBe((await rt.store.transitions(run.id)).length);
    expect((await rt.engine.getRun(run.id)).state).toEqual(["WORK"]);
    // still down at the first retry
    rt.clock.advance(500);
    await flush(20);
    expect(fault.refused).toBeGreaterThan(1);
    expect((await rt.engine.getRun(run.id)).state).toEqual(["WORK"]);

    fault.down = false;
    rt.clock.advance(1_000);
    const review = await rt.engine.waitFor(run.id, inState("REVIEW"));
    expect(review.seq).toBeGreaterThan(executing.seq);
    expect(await contiguous(run.id)).toBe(true);
  });

  it("a timer that fires while the database refuses writes fires again when it answers", async () => {
    rt = await loopRuntime({ actors: { work: () => new Promise(() => {}) } });
    const fault = faulty(rt);
    const { run } = await rt.engine.start("loop", { request: "Summarise the release notes" });
    await rt.engine.waitFor(run.id, inState("WORK"));
    fault.down = true;
    rt.clock.advance(60_000); // the 1 min work timeout
    await flush(20);
    expect(fault.refused).toBeGreaterThan(0);
    expect((await rt.engine.getRun(run.id)).state).toEqual(["WORK"]);
    fault.down = false;
    rt.clock.advance(500);
    const after = await rt.engine.waitFor(run.id, (r) => !r.state.includes("WORK"));
    expect(after.state).not.toContain("WORK");
    expect(await contiguous(run.id)).toBe(true);
  });

  it("a request while the database refuses writes is a 503 with a message, and changes nothing", async () => {
    rt = await loopRuntime();
    const { run } = await rt.engine.start("loop", { request: "Summarise the release notes" });
    const waiting = await rt.engine.waitFor(run.id, inState("REVIEW"));
    const fault = faulty(rt);
    fault.down = true;
    const failed = await rt.engine.decide(waiting.reviewId!, { decision: "approve" }).catch((e) => e);
    expect(failed).toBeInstanceOf(StorageError);
    const res = errorResponse(failed);
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("2");
    expect(await res.json()).toMatchObject({ code: "storage_unavailable", error: expect.stringMatching(/storage unavailable: database is locked/) });
    // a database error raised outside the engine (a read while locked) maps the same way
    const raw = errorResponse(Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" }));
    expect(raw.status).toBe(503);
    expect(await raw.json()).toMatchObject({ code: "storage_unavailable", error: expect.stringMatching(/storage unavailable: database is locked/) });
    expect((await rt.store.getReview(waiting.reviewId!))!.status).toBe("pending");
    fault.down = false;
    const decided = await rt.engine.decide(waiting.reviewId!, { decision: "approve" });
    expect(decided.run.state).toEqual(["IDLE"]);
  });
});
