// The task DAG of deep-research (workflows/deep-research/guide.md): dependencies, the concurrency limit, failure and compensation.
import { describe, expect, it } from "vitest";
import { allFinished, compensate, dispatchable, nextTaskId, refresh, setStatus, validate } from "../research/dag";
import type { Task } from "../research/types";

const t = (id: string, deps: string[] = [], status: Task["status"] = "BLOCKED"): Task => ({
  id,
  type: id.startsWith("S") ? "Search" : id.startsWith("R") ? "Read" : id.startsWith("C") ? "Conflict" : "Planning",
  description: `task ${id}`,
  status,
  dependsOn: deps,
});

describe("research DAG", () => {
  it("unblocks a task when all its dependencies are finished", () => {
    let dag = refresh([t("P1"), t("S1", ["P1"]), t("S2", ["P1"]), t("R1", ["S1", "S2"])]);
    expect(dag.map((x) => x.status)).toEqual(["PENDING", "BLOCKED", "BLOCKED", "BLOCKED"]);
    dag = refresh(setStatus(dag, "P1", { status: "COMPLETED" }));
    expect(dag.map((x) => x.status)).toEqual(["COMPLETED", "PENDING", "PENDING", "BLOCKED"]);
    dag = refresh(setStatus(dag, "S1", { status: "COMPLETED" }));
    expect(dag.find((x) => x.id === "R1")!.status).toBe("BLOCKED");
    dag = refresh(setStatus(dag, "S2", { status: "COMPLETED" }));
    expect(dag.find((x) => x.id === "R1")!.status).toBe("PENDING");
    expect(allFinished(dag)).toBe(false);
    expect(allFinished(refresh(setStatus(dag, "R1", { status: "COMPLETED" })))).toBe(true);
  });

  it("dispatches independent tasks concurrently up to the limit, in plan order", () => {
    const dag = refresh([t("S1"), t("S2"), t("S3"), t("S4"), t("R1", ["S1"])]);
    expect(dispatchable(dag, 3).map((x) => x.id)).toEqual(["S1", "S2", "S3"]);
    const running = setStatus(setStatus(dag, "S1", { status: "IN_PROGRESS" }), "S2", { status: "IN_PROGRESS" });
    expect(dispatchable(running, 3).map((x) => x.id)).toEqual(["S3"]);
    expect(dispatchable(running, 2)).toEqual([]);
  });

  it("marks a failed task FAILED and adds a compensating task that its dependents wait for", () => {
    const dag = refresh([t("S1", [], "IN_PROGRESS"), t("R1", ["S1"]), t("R2", ["S1"])]);
    const { tasks, added } = compensate(dag, "S1", "no results");
    expect(added).toMatchObject({ id: "S2", type: "Search", compensates: "S1", status: "PENDING" });
    expect(tasks.find((x) => x.id === "S1")).toMatchObject({ status: "FAILED", error: "no results" });
    expect(tasks.find((x) => x.id === "R1")!.dependsOn).toEqual(["S2"]);
    expect(tasks.find((x) => x.id === "R1")!.status).toBe("BLOCKED");
  });

  it("lets dependents of a failed task without compensation proceed", () => {
    const dag = refresh(setStatus(refresh([t("S1"), t("R1", ["S1"])]), "S1", { status: "FAILED" }));
    expect(dag.find((x) => x.id === "R1")!.status).toBe("PENDING");
  });

  it("validates ids, dependencies and cycles", () => {
    expect(validate([t("S1"), t("R1", ["S1"])])).toEqual([]);
    expect(validate([t("S1", ["X9"])])).toEqual(["S1 depends on unknown task X9"]);
    expect(validate([t("S1"), t("S1")])).toContain("duplicate task id S1");
    expect(validate([t("S1", ["R1"]), t("R1", ["S1"])]).join()).toContain("cycle");
  });

  it("numbers new tasks per prefix", () => {
    expect(nextTaskId([t("S1"), t("S7"), t("C2")], "Search")).toBe("S8");
    expect(nextTaskId([t("S1")], "Conflict")).toBe("C1");
  });
});
