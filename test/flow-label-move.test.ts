// A message that names a transition's label moves the run along that transition.
import { describe, expect, it } from "vitest";
import { createActor } from "xstate";
import { labelledEdges, labelMatch } from "../lib/flows/detect";
import { flowMachine } from "../lib/flows/machine";
import type { FlowConfig } from "../lib/flows/types";

const config: FlowConfig = {
  id: "review-flow",
  stages: ["DRAFT", "REVIEW", "PUBLISHED", "ARCHIVED"],
  initial_stage: "DRAFT",
  transitions: { DRAFT: ["REVIEW"], REVIEW: ["DRAFT", "PUBLISHED"], PUBLISHED: ["ARCHIVED"], ARCHIVED: [] },
  keywords: { ARCHIVED: ["send to review"] },
  labels: { "DRAFT -> REVIEW": "Send to review", "REVIEW -> DRAFT": "Needs changes", "REVIEW -> PUBLISHED": "Approved", "PUBLISHED -> ARCHIVED": "Retire" },
};

describe("labelMatch", () => {
  const edges = labelledEdges(config, ["REVIEW"]);
  it("lists the labelled edges out of the active stages", () => {
    expect(edges).toEqual([
      { from: "REVIEW", to: "DRAFT", label: "Needs changes" },
      { from: "REVIEW", to: "PUBLISHED", label: "Approved" },
    ]);
  });
  it("matches a message equal to a label, in any case and with end punctuation", () => {
    expect(labelMatch("approved!", edges)?.to).toBe("PUBLISHED");
    expect(labelMatch("  NEEDS   changes ", edges)?.to).toBe("DRAFT");
  });
  it("matches a label contained as whole words, not inside a word", () => {
    expect(labelMatch("The editor says it needs changes in section 2", edges)?.to).toBe("DRAFT");
    expect(labelMatch("Unapproved so far", edges)).toBeNull();
    expect(labelMatch("nothing here", edges)).toBeNull();
  });
  it("prefers the longest label and refuses a label shared by two targets", () => {
    const two = [
      { from: "A", to: "B", label: "go" },
      { from: "A", to: "C", label: "go further" },
    ];
    expect(labelMatch("let us go further now", two)?.to).toBe("C");
    expect(labelMatch("ok", [{ from: "A", to: "B", label: "ok" }, { from: "A", to: "C", label: "OK" }])).toBeNull();
  });
});

describe("a run of a flow", () => {
  it("moves along the edge a message names, ahead of keyword detection", () => {
    const actor = createActor(flowMachine(config), { input: {} }).start();
    actor.send({ type: "BEGIN" });
    // "send to review" is also ARCHIVED's keyword, which is no valid move from DRAFT: the label wins
    actor.send({ type: "MESSAGE", text: "Send to review" });
    expect(actor.getSnapshot().context.active).toEqual(["REVIEW"]);
    const last = actor.getSnapshot().context.decisions.at(-1)!;
    expect(last).toMatchObject({ by: "message", to: "REVIEW", accepted: true });
    expect(actor.getSnapshot().context.lastDetection).toMatchObject({ stage: "REVIEW", scores: [{ hits: ["Send to review"] }] });
    actor.send({ type: "MESSAGE", text: "It looks approved to me." });
    expect(actor.getSnapshot().context.active).toEqual(["PUBLISHED"]);
    // a label of an edge that does not leave the current stage moves nothing
    actor.send({ type: "MESSAGE", text: "needs changes" });
    expect(actor.getSnapshot().context.active).toEqual(["PUBLISHED"]);
  });
});
