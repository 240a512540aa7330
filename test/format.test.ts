// The timeline's state-path display and the words a transition's reason falls back to.
import { describe, expect, it } from "vitest";
import { describeEvent } from "../lib/engine/step";
import { transitionParts } from "../lib/format";

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
    expect(describeEvent({ type: "xstate.done.state.processing-modes.ModelRuntime.ProcessorExec.SEARCH" })).toBe("SEARCH done");
    expect(describeEvent({ type: "xstate.after.5000.swiss-army.CONTEXT_SEARCH" })).toBe("timer 5000 elapsed");
    expect(describeEvent({ type: "xstate.done.actor.search" })).toBe("search finished");
    expect(describeEvent({ type: "xstate.error.actor.search", error: { message: "boom" } } as never)).toBe("search failed: boom");
    expect(describeEvent({ type: "xstate.init" })).toBe("run started");
    expect(describeEvent({ type: "APPROVE" })).toBe("APPROVE");
  });
});
