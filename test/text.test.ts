// The small text helpers the offline engine and the research extractor share.
import { describe, expect, it } from "vitest";
import { clip, isProse, stem, stems } from "../lib/knowledge/text";
import { synthesize } from "../lib/llm/offline";

describe("text helpers", () => {
  it("isProse keeps sentences and drops flattened table rows and mid-sentence fragments", () => {
    expect(isProse("Timers are durable: they are stored with their due time.")).toBe(true);
    expect(isProse("Use a | pipe once in prose.")).toBe(true);
    expect(isProse("| table | what | |---|---| | `Run` | one row per run |")).toBe(false);
    expect(isProse("execute, store), runs its post-commit actions and arms its timers.")).toBe(false);
  });

  it("clip cuts with an ellipsis only when needed; stems match word forms", () => {
    expect(clip("abcdef", 3)).toBe("abc…");
    expect(clip("abc", 3)).toBe("abc");
    expect(stem("resumes")).toBe(stem("resuming"));
    expect(stems("Runs resumed")).toEqual(new Set([stem("runs"), stem("resumed")]));
  });

  it("the offline engine quotes prose, not table rows, from its passages", () => {
    const out = synthesize({
      purpose: "execute",
      system: "",
      prompt: "Explain how durable timers survive a restart",
      passages: [{ id: "p1", title: "Durability", text: "| table | what | |---|---| | `Timer` | durable timers with their due time survive restart |. Durable timers survive a restart because each due time is stored.", score: 1 }],
    } as never);
    expect(out.text).toContain("Durable timers survive a restart because each due time is stored.");
    expect(out.text).not.toContain("|---|");
  });
});
