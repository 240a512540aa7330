// The timeline's state-path display and the words a transition's reason falls back to.
import { describe, expect, it } from "vitest";
import { describeEvent } from "../lib/engine/step";
import { durationTicks, formatDuration, transitionParts } from "../lib/format";

describe("transitionParts", () => {
  it("names a move inside one parent once, as its scope", () => {
    expect(transitionParts("ModelRuntime.ProcessorExec.SEARCH.CallLLM", "ModelRuntime.ProcessorExec.SEARCH.ReturnResult")).toEqual({
      scope: "ModelRuntime.ProcessorExec.SEARCH.",
      from: "CallLLM",
      to: "ReturnResult",
    });
    expect(transitionParts("PLANNING.generating", "PLANNING.approval")).toEqual({ scope: "PLANNING.", from: "generating", to: "approval" });
  });

  it("keeps whole paths when nothing is shared, a path is a prefix of the other, or states are parallel", () => {
    expect(transitionParts("IDLE", "REQUEST_RECEIVED")).toEqual({ scope: "", from: "IDLE", to: "REQUEST_RECEIVED" });
    expect(transitionParts("A.B", "A")).toEqual({ scope: "", from: "A.B", to: "A" });
    expect(transitionParts("A.B", "A.B")).toEqual({ scope: "A.", from: "B", to: "B" });
    expect(transitionParts("P.x,P.y", "P.z")).toEqual({ scope: "", from: "P.x,P.y", to: "P.z" });
    expect(transitionParts("", "PLANNING.generating")).toEqual({ scope: "", from: "", to: "PLANNING.generating" });
  });
});

describe("describeEvent", () => {
  it("says in words what an XState event was", () => {
    expect(describeEvent({ type: "xstate.done.state.nest.BUILD.RIGHT" })).toBe("RIGHT done");
    expect(describeEvent({ type: "xstate.after.5000.loop.FETCH" })).toBe("timer 5000 elapsed");
    expect(describeEvent({ type: "xstate.done.actor.search" })).toBe("search finished");
    expect(describeEvent({ type: "xstate.error.actor.search", error: { message: "boom" } } as never)).toBe("search failed: boom");
    expect(describeEvent({ type: "xstate.init" })).toBe("run started");
    expect(describeEvent({ type: "APPROVE" })).toBe("APPROVE");
  });
});

describe("formatDuration", () => {
  it("rounds the whole before splitting it into units, and leaves out a zero second unit", () => {
    expect(formatDuration(999.6)).toBe("1.0 s");
    expect(formatDuration(59_700)).toBe("1 min");
    expect(formatDuration(539_700)).toBe("9 min");
    expect(formatDuration(3_599_600)).toBe("1 h");
    expect(formatDuration(3_700_000)).toBe("1 h 2 min");
    expect(formatDuration(48 * 3_600_000 - 1_000)).toBe("2 d");
    expect(formatDuration(50 * 3_600_000)).toBe("2 d 2 h");
    expect(formatDuration(12)).toBe("12 ms");
    expect(formatDuration(4_250)).toBe("4.3 s");
    expect(formatDuration(75_000)).toBe("1 min 15 s");
    expect(formatDuration(null)).toBe("—");
  });
});

describe("durationTicks", () => {
  it("puts at most max + 1 ticks on round offsets", () => {
    expect(durationTicks(27 * 60_000)).toEqual([0, 5, 10, 15, 20, 25].map((m) => m * 60_000));
    expect(durationTicks(3_000)).toEqual([0, 500, 1_000, 1_500, 2_000, 2_500, 3_000]);
    expect(durationTicks(40)).toEqual([0, 10, 20, 30, 40]);
    expect(durationTicks(0)).toEqual([0]);
    for (const span of [1, 7, 999, 61_000, 3_600_000, 10 * 86_400_000]) expect(durationTicks(span).length).toBeLessThanOrEqual(7);
  });
});
