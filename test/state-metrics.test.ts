// A workflow's per-state metrics (the loop fixture's table), computed from stored transitions and judged against targets.
import { afterEach, describe, expect, it } from "vitest";
import type { TransitionRow } from "../lib/engine/store/types";
import { loop, type LoopContext } from "./fixtures/workflows/loop/machine";
import { evaluate, stateMetrics } from "../lib/metrics/state-metrics";
import type { Runtime } from "../lib/runtime";
import { fail, inState, loopRuntime } from "./helpers";

const spec = (metric: string) => loop.metrics!.find((m) => m.metric === metric)!;
const exit = (state: string, reason: string, durationMs = 10, payload: unknown = null): TransitionRow => ({
  runId: "r",
  seq: 1,
  from: [state],
  to: ["IDLE"],
  event: "x",
  reason,
  at: 0,
  durationMs,
  payload,
});

let rt: Runtime | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
});

describe("per-state metrics", () => {
  it("judges durations by their p95 against target and alert", () => {
    const parse = spec("Fetch time");
    expect(evaluate(parse, [exit("FETCH", "x", 200)]).verdict).toBe("ok");
    expect(evaluate(parse, [exit("FETCH", "x", 2_000)]).verdict).toBe("warn");
    expect(evaluate(parse, Array.from({ length: 20 }, (_, i) => exit("FETCH", "x", i >= 18 ? 6_000 : 100))).verdict).toBe("alert");
    expect(evaluate(parse, Array.from({ length: 20 }, (_, i) => exit("FETCH", "x", i === 19 ? 6_000 : 100))).verdict).toBe("ok");
    expect(evaluate(parse, []).verdict).toBe("no-data");
  });

  it("judges rates against target and alert", () => {
    const success = spec("Success rate");
    const runs = (ok: number, bad: number) => [...Array(ok).fill(exit("WORK", "Work done")), ...Array(bad).fill(exit("WORK", "Work failed"))];
    expect(evaluate(success, runs(9, 1))).toMatchObject({ verdict: "ok", value: "90%" });
    expect(evaluate(success, runs(7, 3))).toMatchObject({ verdict: "warn", value: "70%" });
    expect(evaluate(success, runs(5, 5))).toMatchObject({ verdict: "alert", value: "50%" });
    expect(evaluate(spec("Approval rate"), [exit("REVIEW", "User rejects"), exit("REVIEW", "User rejects"), exit("REVIEW", "User approves")]).verdict).toBe("alert");
  });

  it("alerts when more than half the fetches find nothing", () => {
    const count = spec("Hits");
    const withCount = (n: number) => exit("FETCH", "Fetched", 5, { output: { record: { hits: n } } });
    expect(evaluate(count, [withCount(3), withCount(2)]).verdict).toBe("ok");
    expect(evaluate(count, [withCount(0), withCount(0), withCount(4)]).verdict).toBe("alert");
    expect(evaluate(count, [exit("FETCH", "Fetch timed out (proceed anyway)"), withCount(4)]).verdict).toBe("warn");
  });

  it("computes every seed metric from real runs, with breaches flagged", async () => {
    rt = await loopRuntime({ actors: { work: fail("model down") } });
    for (let i = 0; i < 3; i++) {
      const { run } = await rt.engine.start("loop", { request: `Write a Go program number ${i} that counts words in a file` });
      await rt.engine.waitFor(run.id, (x) => inState("IDLE")(x) && (x.context as LoopContext).last !== null);
    }
    const metrics = await stateMetrics(rt.store, loop);
    expect(metrics.map((m) => `${m.state}/${m.metric}`)).toEqual(loop.metrics!.map((m) => `${m.state}/${m.metric}`));
    const success = metrics.find((m) => m.metric === "Success rate")!;
    expect(success).toMatchObject({ verdict: "alert", value: "0%", samples: 3 });
    expect(metrics.find((m) => m.metric === "Fetch time")!.samples).toBe(3);
    expect(metrics.find((m) => m.metric === "Approval rate")!.verdict).toBe("no-data");
  });
});
