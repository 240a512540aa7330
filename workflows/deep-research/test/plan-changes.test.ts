import { describe, expect, it } from "vitest";
import { changed, orphanTasks, planChanges } from "@/workflows/deep-research/plan-changes";

const t = (id: string, o: Partial<{ type: string; description: string; dependsOn: string[]; dimension: string }> = {}) => ({ id, type: "Search", description: `task ${id}`, dependsOn: [], ...o });

describe("deep-research plan: changes since v1", () => {
  const v1 = { dimensions: ["Costs", "Risks", "Scope"], tasks: [t("P1", { type: "Planning" }), t("S1", { dependsOn: ["P1"], dimension: "Costs" }), t("S2", { dependsOn: ["P1"], dimension: "Risks" }), t("S3", { dimension: "Scope" })] };
  it("dimensions and tasks added, removed and edited", () => {
    const v2 = { dimensions: ["costs", "Scope", "Mechanisms"], tasks: [t("P1", { type: "Planning" }), t("S1", { dependsOn: ["P1"], dimension: "Costs", description: "cost reports" }), t("S3", { dimension: "Mechanisms", dependsOn: ["P1"] }), t("R1", { type: "Read", dependsOn: ["S1"] })] };
    const c = planChanges(v1, v2);
    expect(c.dimensions).toEqual({ added: ["Mechanisms"], removed: ["Risks"] });
    expect(c.tasks.added).toEqual(["R1"]);
    expect(c.tasks.removed).toEqual(["S2"]);
    expect(c.tasks.edited).toEqual([
      { id: "S1", what: ["description"] },
      { id: "S3", what: ["after nothing → P1", "dimension Scope → Mechanisms"] },
    ]);
    expect(changed(c)).toBe(true);
    expect(changed(planChanges(v1, structuredClone(v1)))).toBe(false);
  });
  it("tasks left without a dimension", () => {
    expect(orphanTasks(v1)).toEqual([]);
    expect(orphanTasks({ ...v1, dimensions: ["Costs", "scope"] })).toEqual([{ id: "S2", dimension: "Risks" }]);
  });
});
