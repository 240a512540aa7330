// The New run form's placeholder is the workflow's own.
import { describe, expect, it } from "vitest";
import { inputPlaceholder } from "../components/runs/input-placeholder";
import { flowWorkflow } from "../lib/flows/machine";
import { loop } from "./fixtures/workflows/loop/machine";
import type { FlowConfig } from "../lib/flows/types";

const base: FlowConfig = { id: "pub", title: "Publishing", stages: ["DRAFT", "REVIEW"], initial_stage: "DRAFT", transitions: { DRAFT: ["REVIEW"], REVIEW: [] } };

describe("inputPlaceholder", () => {
  it("is the workflow's example value when it has one", () => {
    expect(inputPlaceholder(loop, "request")).toBe((loop.example as { request: string }).request);
  });
  it("names a labelled move out of a user-defined workflow's first stage", () => {
    const def = flowWorkflow({ ...base, labels: { "DRAFT -> REVIEW": "Ready for review" } }, { version: 1 });
    expect(inputPlaceholder(def, "task")).toBe('e.g. "Ready for review" (moves DRAFT → REVIEW)');
  });
  it("else a keyword of the next stage, else the first stage by name", () => {
    expect(inputPlaceholder(flowWorkflow({ ...base, keywords: { REVIEW: ["proofread"] } }), "task")).toBe("e.g. a message about proofread (moves DRAFT → REVIEW)");
    expect(inputPlaceholder(flowWorkflow(base), "task")).toBe("The first message for Publishing; it starts in DRAFT");
  });
});
