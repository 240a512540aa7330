// Offline re-planning reads the reviewer's feedback: it drops the dimensions the feedback tells it
// to drop and adds the ones it asks for, instead of copying the feedback as a dimension's title.
import { describe, expect, it } from "vitest";
import { offlinePlan, replanDimensions } from "../effects/offline";

const ASPECTS = ["Definitions and scope", "Mechanisms and design", "Practice, tools and actors", "Numbers and evidence", "Risks, limitations and open questions"];

describe("offline re-planning from feedback", () => {
  it("drops and adds the dimensions the feedback names", () => {
    expect(replanDimensions(ASPECTS, "Drop the numbers and evidence. Add a section on cost and pricing")).toEqual([
      "Definitions and scope",
      "Mechanisms and design",
      "Practice, tools and actors",
      "Risks, limitations and open questions",
      "Cost and pricing",
    ]);
    expect(replanDimensions(ASPECTS, "no risks; also cover regulation in the EU, skip definitions")).toEqual(["Mechanisms and design", "Practice, tools and actors", "Numbers and evidence", "Regulation in the EU"]);
  });

  it("keeps the dimensions when the feedback asks for neither, and never adds one twice or past 12", () => {
    expect(replanDimensions(ASPECTS, "looks fine to me")).toEqual(ASPECTS);
    expect(replanDimensions(ASPECTS, "add numbers and evidence")).toEqual(ASPECTS);
    const many = Array.from({ length: 12 }, (_, i) => `add topic number ${i}`).join(". ");
    expect(replanDimensions(ASPECTS, many)).toHaveLength(12);
  });

  it("re-plans from the previous plan's dimensions, with tasks for each", () => {
    const first = offlinePlan("How do durable workflow engines recover from crashes?");
    const second = offlinePlan(first.topic, { previous: first, feedback: "remove mechanisms, add vendor comparison" });
    expect(second.dimensions).not.toContain("Mechanisms and design");
    expect(second.dimensions).toContain("Vendor comparison");
    expect(second.dimensions.some((d) => /requested by the reviewer/.test(d))).toBe(false);
    expect(second.tasks.filter((t) => t.type === "Search").map((t) => t.dimension)).toEqual(second.dimensions);
  });
});
