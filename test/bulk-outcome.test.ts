// The review queue's bulk actions report each failure by name.
import { describe, expect, it } from "vitest";
import { bulkOutcome } from "../components/runs/bulk-outcome";

describe("bulkOutcome", () => {
  it("counts what was done", () => {
    expect(bulkOutcome("approve", [{ name: "a", ok: true }, { name: "b", ok: true }])).toEqual({ text: "2 reviews approved.", failures: [] });
    expect(bulkOutcome("abort", [{ name: "a", ok: true }])).toEqual({ text: "1 aborted.", failures: [] });
  });
  it("names every item that failed, with its error", () => {
    const out = bulkOutcome("reject", [
      { name: "first", ok: true },
      { name: "second", ok: false, error: "no reject decision here (answer, decline)" },
      { name: "third", ok: false },
    ]);
    expect(out.text).toBe("1 of 3 reviews rejected; 2 failed:");
    expect(out.failures).toEqual(["“second”: no reject decision here (answer, decline)", "“third”: failed"]);
  });
});
