// task.md of deep-research (workflows/deep-research/guide.md) round-trips: what is written parses back to the same mission.
import { describe, expect, it } from "vitest";
import { parseTaskMd, renderTaskMd, TaskMdError, type TaskFile } from "../research/taskmd";

const file: TaskFile = {
  meta: {
    mission_id: "DR-20261123-001",
    created_at: "2026-11-23T02:00:00Z",
    status: "RESEARCHING",
    topic: 'Solid-state batteries: "when" will they ship (2027)?',
    iteration: 7,
    max_iterations: 50,
    cost_tracking: { total_tokens: 1234, tools_used: 9 },
  },
  dimensions: ["Technology state", "Manufacturing | scale", "Timeline"],
  tasks: [
    { id: "P1", type: "Planning", description: "Decompose the topic (scope, terms)", status: "COMPLETED", dependsOn: [] },
    { id: "S1", type: "Search", description: "Find sources on cell chemistry", status: "IN_PROGRESS", dependsOn: ["P1"] },
    { id: "R1", type: "Read", description: "Extract numbers", status: "BLOCKED", dependsOn: ["S1", "P1"] },
    { id: "C1", type: "Conflict", description: "Resolve 2027 vs 2030", status: "FAILED", dependsOn: [] },
  ],
  facts: [{ id: "Fact-001", statement: "Toyota plans solid-state cells for 2027.", source: "S01", confidence: "High", rawFile: "assets/html/s01.html", extracted: "2026-11-23", task: "" }],
  sources: [{ id: "S01", url: "https://example.org/a|b", title: 'Toyota "Technical" Review 2024', type: "HTML", accessDate: "2026-11-23", localPath: "assets/html/s01.html" }],
};

describe("task.md", () => {
  it("writes the seed's frontmatter", () => {
    const md = renderTaskMd(file);
    expect(md.split("---")[1].trim().split("\n")).toEqual([
      'mission_id: "DR-20261123-001"',
      'created_at: "2026-11-23T02:00:00Z"',
      'status: "RESEARCHING"',
      'topic: "Solid-state batteries: \\"when\\" will they ship (2027)?"',
      "iteration: 7",
      "max_iterations: 50",
      "cost_tracking:",
      "  total_tokens: 1234",
      "  tools_used: 9",
    ]);
    expect(md).toContain("- [x] P1: Planning: Decompose the topic (scope, terms) (Status: COMPLETED, DependsOn: )");
    expect(md).toContain("- [ ] R1: Read: Extract numbers (Status: BLOCKED, DependsOn: S1, P1)");
  });

  it("round-trips", () => {
    const md = renderTaskMd(file);
    const back = parseTaskMd(md);
    expect(back).toEqual(file);
    expect(renderTaskMd(back)).toBe(md);
  });

  it("refuses a file without frontmatter or with an unknown status", () => {
    expect(() => parseTaskMd("# no frontmatter")).toThrow(TaskMdError);
    const bad = renderTaskMd(file).replace("(Status: BLOCKED", "(Status: SLEEPING");
    expect(() => parseTaskMd(bad)).toThrow(/unknown status/);
  });
});
