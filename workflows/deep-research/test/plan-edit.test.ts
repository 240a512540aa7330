// The plan review's form: its steps keep the plan a valid DAG, and what it reports matches what
// PlanSchema refuses.
import { describe, expect, it } from "vitest";
import { addTask, cleanPlan, move, planProblems, removeDimension, removeTask, renameDimension, setTaskType, toggleDependency, type EditPlan } from "../plan-edit";
import { PlanSchema } from "../machine";

const plan: EditPlan = {
  topic: "Durable timers",
  dimensions: ["Definitions", "Mechanics"],
  tasks: [
    { id: "S1", type: "Search", description: "find the definition", dependsOn: [], dimension: "Definitions", status: "PENDING" },
    { id: "R1", type: "Read", description: "read the engine", dependsOn: ["S1"], dimension: "Mechanics", status: "BLOCKED" },
  ],
  estimatedIterations: 4,
};

const schemaAccepts = (p: EditPlan) => PlanSchema.safeParse(cleanPlan(p)).success;

describe("plan editing", () => {
  it("the starting plan is valid both ways", () => {
    expect(planProblems(plan)).toEqual([]);
    expect(schemaAccepts(plan)).toBe(true);
  });
  it("adds a task with the next id of its type, which must get a description", () => {
    const p = addTask(plan, "Search");
    expect(p.tasks.at(-1)).toMatchObject({ id: "S2", type: "Search", dependsOn: [] });
    expect(planProblems(p)).toEqual(["S2 has no description"]);
    expect(schemaAccepts(p)).toBe(false);
    p.tasks.at(-1)!.description = "search the docs";
    expect(planProblems(p)).toEqual([]);
    expect(schemaAccepts(p)).toBe(true);
  });
  it("removing a task drops it from the dependencies", () => {
    const p = removeTask(plan, "S1");
    expect(p.tasks).toEqual([expect.objectContaining({ id: "R1", dependsOn: [] })]);
    expect(schemaAccepts(p)).toBe(true);
  });
  it("a cycle is reported, as the schema refuses it", () => {
    const p = toggleDependency(plan, "S1", "R1");
    expect(planProblems(p).join("; ")).toMatch(/cycle/);
    expect(schemaAccepts(p)).toBe(false);
    expect(planProblems(toggleDependency(p, "S1", "R1"))).toEqual([]);
  });
  it("changing a task's type renames it and its dependents follow", () => {
    const p = setTaskType(plan, "S1", "Planning");
    expect(p.tasks.map((t) => t.id)).toEqual(["P1", "R1"]);
    expect(p.tasks[1]!.dependsOn).toEqual(["P1"]);
    expect(schemaAccepts(p)).toBe(true);
  });
  it("dimensions: rename carries tasks along, remove unfiles them, none left is refused", () => {
    const renamed = renameDimension(plan, 0, "Scope");
    expect(renamed.tasks[0]!.dimension).toBe("Scope");
    const removed = removeDimension(removeDimension(plan, 0), 0);
    expect(removed.tasks.every((t) => t.dimension === undefined)).toBe(true);
    expect(planProblems(removed)).toEqual(["add at least one dimension"]);
    expect(schemaAccepts(removed)).toBe(false);
    expect(planProblems({ ...plan, dimensions: ["ok", " "] })).toEqual(["dimension 2 is empty"]);
  });
  it("reorders rows and leaves the ends alone", () => {
    expect(move(["a", "b", "c"], 0, 1)).toEqual(["b", "a", "c"]);
    expect(move(["a", "b"], 0, -1)).toEqual(["a", "b"]);
  });
});
