import { describe, expect, it } from "vitest";
import { tagsByNode, type OverlayTag } from "@/lib/graph/overlay";

// G is a collapsed group holding G.A, G.B, G.C, G.D; X stands alone
const shown = (id: string) => (id.startsWith("G.") ? "G" : id);
const nameOf = (id: string) => id.split(".").at(-1)!;
const info = (label: string): OverlayTag => ({ label, tone: "info" });

describe("tags on drawn nodes", () => {
  it("a state drawn as itself keeps its tags", () => {
    expect(tagsByNode({ X: [info("1 now")] }, shown, nameOf)).toEqual({ X: [info("1 now")] });
  });

  it("a collapsed group's own tags stand for its insides", () => {
    expect(tagsByNode({ G: [info("2 now")], "G.A": [info("p95 1 s")] }, shown, nameOf)).toEqual({ G: [info("2 now")] });
  });

  it("tags from inside are said once each, their states named in the tooltip", () => {
    const out = tagsByNode({ "G.A": [info("A")], "G.B": [info("A")], "G.C": [{ label: "1 failed", tone: "bad", title: "1 run failed here" }] }, shown, nameOf);
    expect(out.G).toEqual([
      { label: "A", tone: "info", title: "A: A\nB: A" },
      { label: "1 failed", tone: "bad", title: "C: 1 run failed here" },
    ]);
  });

  it("more than two different notes from inside become one tag per tone", () => {
    const out = tagsByNode({ "G.A": [info("p95 1 s")], "G.B": [info("p95 2 s")], "G.C": [info("p95 3 s")] }, shown, nameOf);
    expect(out.G).toEqual([{ label: "3 notes inside", tone: "info", title: "A: p95 1 s\nB: p95 2 s\nC: p95 3 s" }]);
  });
});
