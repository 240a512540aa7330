// Swiss-army's per-state metrics, computed from stored transitions and judged against targets.
import { afterEach, describe, expect, it } from "vitest";
import type { TransitionRow } from "../lib/engine/store/types";
import { swissArmy } from "../workflows/swiss-army/machine";
import { evaluate, stateMetrics } from "../lib/metrics/state-metrics";
import type { Runtime } from "../lib/runtime";
import { fail, inState, swissRuntime } from "./helpers";

const spec = (metric: string) => swissArmy.metrics!.find((m) => m.metric === metric)!;
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
    const parse = spec("Parse time");
    expect(evaluate(parse, [exit("REQUEST_RECEIVED", "x", 200)]).verdict).toBe("ok");
    expect(evaluate(parse, [exit("REQUEST_RECEIVED", "x", 2_000)]).verdict).toBe("warn");
    expect(evaluate(parse, Array.from({ length: 20 }, (_, i) => exit("REQUEST_RECEIVED", "x", i >= 18 ? 6_000 : 100))).verdict).toBe("alert");
    expect(evaluate(parse, Array.from({ length: 20 }, (_, i) => exit("REQUEST_RECEIVED", "x", i === 19 ? 6_000 : 100))).verdict).toBe("ok");
    expect(evaluate(parse, []).verdict).toBe("no-data");
  });

  it("judges rates against target and alert", () => {
    const success = spec("Success rate");
    const runs = (ok: number, bad: number) => [...Array(ok).fill(exit("EXECUTING", "Task complete")), ...Array(bad).fill(exit("EXECUTING", "Execution failed"))];
    expect(evaluate(success, runs(9, 1))).toMatchObject({ verdict: "ok", value: "90%" });
    expect(evaluate(success, runs(7, 3))).toMatchObject({ verdict: "warn", value: "70%" });
    expect(evaluate(success, runs(5, 5))).toMatchObject({ verdict: "alert", value: "50%" });
    expect(evaluate(spec("Approval rate"), [exit("HUMAN_REVIEW", "User rejects"), exit("HUMAN_REVIEW", "User rejects"), exit("HUMAN_REVIEW", "User approves")]).verdict).toBe("alert");
  });

  it("alerts when more than half the searches return nothing", () => {
    const count = spec("Result count");
    const withCount = (n: number) => exit("CONTEXT_SEARCH", "Context retrieved", 5, { output: { record: { results_count: n } } });
    expect(evaluate(count, [withCount(3), withCount(2)]).verdict).toBe("ok");
    expect(evaluate(count, [withCount(0), withCount(0), withCount(4)]).verdict).toBe("alert");
    expect(evaluate(count, [exit("CONTEXT_SEARCH", "Context timeout (proceed anyway)"), withCount(4)]).verdict).toBe("warn");
  });

  it("computes every seed metric from real runs, with breaches flagged", async () => {
    rt = await swissRuntime({ actors: { execute: fail("model down") } });
    for (let i = 0; i < 3; i++) {
      const { run } = await rt.engine.start("swiss-army", { request: `Write a Go program number ${i} that counts words in a file` });
      await rt.engine.waitFor(run.id, (x) => inState("IDLE")(x) && x.seq > 4);
    }
    const metrics = await stateMetrics(rt.store, swissArmy);
    expect(metrics.map((m) => `${m.state}/${m.metric}`)).toEqual(swissArmy.metrics!.map((m) => `${m.state}/${m.metric}`));
    const success = metrics.find((m) => m.metric === "Success rate")!;
    expect(success).toMatchObject({ verdict: "alert", value: "0%", samples: 3 });
    expect(metrics.find((m) => m.metric === "Parse time")!.samples).toBe(3);
    expect(metrics.find((m) => m.metric === "Approval rate")!.verdict).toBe("no-data");
  });
});
