// The small text helpers the offline engine and the research extractor share.
import { describe, expect, it } from "vitest";
import { clip, isProse, quotable, sentences, stem, stems } from "../lib/knowledge/text";
import { synthesize, withoutOwnScaffolding } from "../lib/llm/offline";

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

  it("sentences break at Markdown list items, headings and blank lines, without their markers", () => {
    const md = "## Context search\nThe search ranks hits with BM25\n- **Context retrieved** goes to EXECUTING\n- Context Manager unavailable: skip search\n\n1. First step\n2) Second step";
    expect(sentences(md)).toEqual([
      "Context search",
      "The search ranks hits with BM25",
      "**Context retrieved** goes to EXECUTING",
      "Context Manager unavailable: skip search",
      "First step",
      "Second step",
    ]);
    expect(sentences("One sentence here. Another one follows. **Bold** starts a third.")).toEqual(["One sentence here.", "Another one follows.", "**Bold** starts a third."]);
  });

  it("quotable makes a sentence plain and refuses one cut short", () => {
    expect(quotable("The **Context Manager** keeps *patterns* with `confidence`.")).toBe("The Context Manager keeps patterns with `confidence`.");
    expect(quotable("Multiply 2 * 3 with a*b intact.")).toBe("Multiply 2 * 3 with a*b intact.");
    expect(quotable("Cut inside `code that never clos")).toBe("Cut inside code that never clos");
    expect(quotable("The search stops at the **Context Mana…")).toBeNull();
    expect(quotable("The search stops at the Context Mana...")).toBeNull();
  });

  it("the offline engine quotes whole plain sentences: no list markers, bold markers or clipped ends", () => {
    const text = "The search ranks hits with BM25 and keeps at most five of them.\n- **Context retrieved** → EXECUTING with the hits when the search finds context.\n- **Context Manager unavailable** skips the search with a warning and the hits are…";
    const out = synthesize({ purpose: "execute", system: "", prompt: "How does the context search rank hits and skip the search?", passages: [{ id: "p1", title: "Search", text, score: 1 }] } as never);
    const approach = out.text.split("**Approach, from what worked before:**")[1].split("**Sources:**")[0];
    expect(approach).toMatch(/^\n1\. (The search ranks hits|Context retrieved)/);
    expect(approach).not.toContain("**");
    expect(approach).not.toContain(" - ");
    expect(approach).not.toContain("…");
  });

  it("an earlier offline answer given back as context is quoted for its content, not its notes, headings or citations", () => {
    const ask = (text: string) =>
      synthesize({ purpose: "execute", system: "", prompt: "Summarise the retry policy for search timeouts", passages: [{ id: "p", title: "Earlier", text, score: 0.9 }] } as never).text;
    const first = ask("Wrap the call in a loop that retries only transient failures (timeouts, 429, 5xx).");
    expect(withoutOwnScaffolding(first).trim()).toBe("1. Wrap the call in a loop that retries only transient failures (timeouts, 429, 5xx).");
    const second = ask(first);
    const approach = second.split("**Approach, from what worked before:**")[1].split("**Sources:**")[0].trim();
    expect(approach).toBe("1. Wrap the call in a loop that retries only transient failures (timeouts, 429, 5xx). [1]");
  });
});
