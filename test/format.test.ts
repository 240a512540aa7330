// The timeline's state-path display.
import { describe, expect, it } from "vitest";
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
