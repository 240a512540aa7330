// Issue 26: the Context Manager keeps in memory only what ranking weighs per stored result (its
// kind, confidence, decision); a hit's title and snippet are read from the database for the best
// candidates of a search. Search results look as they did when every text was held in memory.
import { afterEach, describe, expect, it } from "vitest";
import { ContextManager } from "../lib/knowledge/context-manager";
import { clip } from "../lib/knowledge/text";
import type { Runtime } from "../lib/runtime";
import { swissRuntime } from "./helpers";

let rt: Runtime | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
});

const output = (topic: string) => Array.from({ length: 40 }, (_, i) => `Step ${i}: handle the ${topic} case and log what happened.`).join(" ");

describe("Context Manager memory", () => {
  it("holds no result text in memory, yet a hit has the stored title and snippet", async () => {
    rt = await swissRuntime();
    const cm = new ContextManager(rt.db, rt.clock);
    await cm.seed();
    await cm.search("warm the index", "code"); // built before the writes: they are added one by one
    const requests = [
      "Implement quaternion slerp interpolation for smooth camera rotation in the renderer",
      "Parse semicolon separated invoice exports into ledger entries",
      "Throttle webhook deliveries per tenant with a token bucket",
    ];
    for (const [i, content] of requests.entries()) {
      const stored = await cm.storeResult({
        runId: `run-${i}`,
        requestId: `req-${i}`,
        content,
        requestType: "code",
        output: output(content.split(" ")[1]),
        success: true,
        partial: false,
        execution: null,
        hits: [],
        tokens: 10,
        executionMs: 1,
      });
      expect(stored.storage).toBe("stored");
    }
    const { hits } = await cm.search("quaternion slerp camera rotation", "code");
    const hit = hits.find((h) => h.id === "result:req-0");
    expect(hit, JSON.stringify(hits.map((h) => h.id))).toBeDefined();
    expect(hit!.title).toBe(`Earlier request: ${requests[0]}`);
    expect(hit!.snippet).toBe(clip(`${requests[0]}\n${output("quaternion")}`, 400));
    expect(hits.some((h) => h.id === "result:req-1")).toBe(false);

    // what the index keeps per document: no strings but a kind and a decision
    const docs = (cm as unknown as { docs: Map<string, Record<string, unknown>> }).docs;
    expect(docs.size).toBeGreaterThanOrEqual(requests.length);
    for (const doc of docs.values()) {
      for (const value of Object.values(doc)) if (typeof value === "string") expect(value.length).toBeLessThan(16);
    }

    // a decision still weighs in the ranking (read from memory, not from the row)
    await cm.logDecision("req-0", "approved", "", []);
    const again = await cm.search("quaternion slerp camera rotation", "code");
    expect(again.hits.find((h) => h.id === "result:req-0")!.score).toBeGreaterThan(hit!.score);
  });
});
