// The Context Manager: ranked retrieval, pattern confidence that follows decisions, and
// degraded mode (search skipped with a warning, writes queued and flushed when it returns).
import { afterEach, describe, expect, it } from "vitest";
import { ContextManager } from "../lib/knowledge/context-manager";
import type { SwissContext } from "../workflows/swiss-army/types";
import type { Runtime } from "../lib/runtime";
import { inState } from "./helpers";
import { swissRuntime } from "../workflows/swiss-army/test/support";

let rt: Runtime | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
});

describe("Context Manager", () => {
  it("ranks the matching solution pattern first (BM25)", async () => {
    rt = await swissRuntime();
    const { hits, queries } = await rt.cm.search("Add retries with exponential backoff to the HTTP client", "code");
    expect(queries.length).toBeGreaterThan(0);
    expect(hits[0].title).toBe("Retry with exponential backoff");
    expect(hits[0].score).toBeGreaterThan(hits.at(-1)!.score - 1e-9);
    const docs = await rt.cm.search("write a README quick start guide for the project", "docs");
    expect(docs.hits[0].title).toBe("README that answers first questions");
  });

  it("raises the confidence of applied patterns on approval and lowers it on rejection", async () => {
    rt = await swissRuntime();
    const before = (await rt.cm.patterns()).find((p) => p.name === "Retry with exponential backoff")!.confidence;
    const { run } = await rt.engine.start("swiss-army", { request: "Write a function that retries a fetch with exponential backoff and jitter" });
    let r = await rt.engine.waitFor(run.id, inState("HUMAN_REVIEW"));
    await rt.engine.decide(r.reviewId!, { decision: "approve" });
    await rt.engine.stop(); // waits for the post-commit logDecision action
    const afterApprove = (await rt.cm.patterns()).find((p) => p.name === "Retry with exponential backoff")!;
    expect(afterApprove.confidence).toBeGreaterThan(before);
    expect(afterApprove.approvals).toBe(1);
    expect(afterApprove.uses).toBeGreaterThan(0);
    await rt.close();

    rt = await swissRuntime();
    const { run: run2 } = await rt.engine.start("swiss-army", { request: "Write a function that retries a fetch with exponential backoff and jitter" });
    r = await rt.engine.waitFor(run2.id, inState("HUMAN_REVIEW"));
    await rt.engine.decide(r.reviewId!, { decision: "reject", feedback: "no" });
    await rt.engine.stop();
    const p = (await rt.cm.patterns()).find((x) => x.name === "Retry with exponential backoff")!;
    expect(p.rejections).toBe(1);
    expect(p.confidence).toBeLessThan(before);
    const stored = await rt.db.cmResult.findMany();
    expect(stored).toHaveLength(1);
    expect(stored[0].decision).toBe("rejected");
  });

  it("degraded mode: skips the search with a warning, queues writes, flushes them when it returns", async () => {
    rt = await swissRuntime();
    await rt.cm.setMaintenance("index rebuild");
    const { run } = await rt.engine.start("swiss-army", { request: "Write a TypeScript function that validates an email address" });
    const r = await rt.engine.waitFor(run.id, inState("HUMAN_REVIEW"));
    const ctx = r.context as SwissContext;
    expect(ctx.records.context_search?.status).toBe("unavailable");
    expect(ctx.warnings.join(" ")).toMatch(/Context Manager unavailable/);
    expect(ctx.records.execution_result?.storage_status).toBe("failed");
    expect(ctx.records.execution_result?.queued).toBe(true);
    expect((await rt.store.transitions(run.id)).map((t) => t.reason)).toEqual(
      expect.arrayContaining(["Context Manager unavailable: skip search with a warning", "Save failed (proceed with warning)"]),
    );
    expect(await rt.db.cmResult.count()).toBe(0);
    expect((await rt.cm.status()).queued).toBe(2); // the request log and the result

    await rt.cm.setMaintenance(null);
    const flushed = await rt.cm.flushOutbox();
    expect(flushed).toEqual({ flushed: 2, left: 0 });
    expect(await rt.db.cmResult.count()).toBe(1);
    expect(await rt.db.cmRequest.count()).toBe(1);
    // flushing twice stores nothing twice
    await rt.db.cmOutbox.create({ data: { id: "dup", key: "result:again", kind: "result", payload: (await rt.db.cmResult.findFirst())!.id === ctx.request!.id ? JSON.stringify({ runId: run.id, requestId: ctx.request!.id, content: "x", requestType: "code", output: "y", success: true, partial: false, execution: null, hits: [], tokens: 0, executionMs: 0, patterns_discovered: [], context_links: [], context_relevance: 0 }) : "{}", createdAt: new Date() } });
    await rt.cm.flushOutbox();
    expect(await rt.db.cmResult.count()).toBe(1);
  });

  it("a queued decision is applied once, however many flushes (processes) take the outbox at the same time", async () => {
    rt = await swissRuntime();
    const name = "Retry with exponential backoff";
    const before = (await rt.cm.patterns()).find((p) => p.name === name)!;
    const { run } = await rt.engine.start("swiss-army", { request: "Write a function that retries a fetch with exponential backoff and jitter" });
    const r = await rt.engine.waitFor(run.id, inState("HUMAN_REVIEW"));
    await rt.cm.setMaintenance("index rebuild");
    await rt.engine.decide(r.reviewId!, { decision: "approve" });
    await rt.engine.stop(); // the decision is written (queued) after the commit
    expect(await rt.db.cmOutbox.count()).toBe(1);
    await rt.cm.setMaintenance(null);
    // three flushers on the same database: this one and two other "processes"
    const others = [new ContextManager(rt.db, rt.clock, rt.provider), new ContextManager(rt.db, rt.clock, rt.provider)];
    const results = await Promise.all([rt.cm.flushOutbox(), ...others.map((cm) => cm.flushOutbox())]);
    expect(results.reduce((n, x) => n + x.flushed, 0)).toBe(1);
    const after = (await rt.cm.patterns()).find((p) => p.name === name)!;
    expect(after.approvals).toBe(before.approvals + 1);
    expect(after.confidence).toBeCloseTo(Math.min(0.99, before.confidence + (1 - before.confidence) * 0.2), 9);
    expect(await rt.db.cmOutbox.count()).toBe(0);
  });
});
