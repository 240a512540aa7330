// The Context Manager: ranked retrieval, pattern confidence that follows decisions, and
// degraded mode (search skipped with a warning, writes queued and flushed when it returns).
import { afterEach, describe, expect, it } from "vitest";
import { ContextManager } from "../context-manager/context-manager";
import { contextManagerOf as cm } from "../services";
import type { SwissContext } from "../types";
import type { Runtime } from "../../../lib/runtime";
import { inState, swissRuntime } from "../../../test/helpers";

let rt: Runtime | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
});

describe("Context Manager", () => {
  it("ranks the matching solution pattern first (BM25)", async () => {
    rt = await swissRuntime();
    const { hits, queries } = await cm(rt).search("Add retries with exponential backoff to the HTTP client", "code");
    expect(queries.length).toBeGreaterThan(0);
    expect(hits[0].title).toBe("Retry with exponential backoff");
    expect(hits[0].score).toBeGreaterThan(hits.at(-1)!.score - 1e-9);
    const docs = await cm(rt).search("write a README quick start guide for the project", "docs");
    expect(docs.hits[0].title).toBe("README that answers first questions");
  });

  it("raises the confidence of applied patterns on approval and lowers it on rejection", async () => {
    rt = await swissRuntime();
    const before = (await cm(rt).patterns()).find((p) => p.name === "Retry with exponential backoff")!.confidence;
    const { run } = await rt.engine.start("swiss-army", { request: "Write a function that retries a fetch with exponential backoff and jitter" });
    let r = await rt.engine.waitFor(run.id, inState("HUMAN_REVIEW"));
    await rt.engine.decide(r.reviewId!, { decision: "approve" });
    await rt.engine.stop(); // waits for the post-commit logDecision action
    const afterApprove = (await cm(rt).patterns()).find((p) => p.name === "Retry with exponential backoff")!;
    expect(afterApprove.confidence).toBeGreaterThan(before);
    expect(afterApprove.approvals).toBe(1);
    expect(afterApprove.uses).toBeGreaterThan(0);
    await rt.close();

    rt = await swissRuntime();
    const { run: run2 } = await rt.engine.start("swiss-army", { request: "Write a function that retries a fetch with exponential backoff and jitter" });
    r = await rt.engine.waitFor(run2.id, inState("HUMAN_REVIEW"));
    await rt.engine.decide(r.reviewId!, { decision: "reject", feedback: "no" });
    await rt.engine.stop();
    const p = (await cm(rt).patterns()).find((x) => x.name === "Retry with exponential backoff")!;
    expect(p.rejections).toBe(1);
    expect(p.confidence).toBeLessThan(before);
    const stored = await rt.db.cmResult.findMany();
    expect(stored).toHaveLength(1);
    expect(stored[0].decision).toBe("rejected");
  });

  it("degraded mode: skips the search with a warning, queues writes, flushes them when it returns", async () => {
    rt = await swissRuntime();
    await cm(rt).setMaintenance("index rebuild");
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
    expect((await cm(rt).status()).queued).toBe(2); // the request log and the result

    await cm(rt).setMaintenance(null);
    const flushed = await cm(rt).flushOutbox();
    expect(flushed).toEqual({ flushed: 2, left: 0 });
    expect(await rt.db.cmResult.count()).toBe(1);
    expect(await rt.db.cmRequest.count()).toBe(1);
    // flushing twice stores nothing twice
    await rt.db.cmOutbox.create({ data: { id: "dup", key: "result:again", kind: "result", payload: (await rt.db.cmResult.findFirst())!.id === ctx.request!.id ? JSON.stringify({ runId: run.id, requestId: ctx.request!.id, content: "x", requestType: "code", output: "y", success: true, partial: false, execution: null, hits: [], tokens: 0, executionMs: 0, patterns_discovered: [], context_links: [], context_relevance: 0 }) : "{}", createdAt: new Date() } });
    await cm(rt).flushOutbox();
    expect(await rt.db.cmResult.count()).toBe(1);
  });

  it("a queued decision is applied once, however many flushes (processes) take the outbox at the same time", async () => {
    rt = await swissRuntime();
    const name = "Retry with exponential backoff";
    const before = (await cm(rt).patterns()).find((p) => p.name === name)!;
    const { run } = await rt.engine.start("swiss-army", { request: "Write a function that retries a fetch with exponential backoff and jitter" });
    const r = await rt.engine.waitFor(run.id, inState("HUMAN_REVIEW"));
    await cm(rt).setMaintenance("index rebuild");
    await rt.engine.decide(r.reviewId!, { decision: "approve" });
    await rt.engine.stop(); // the decision is written (queued) after the commit
    expect(await rt.db.cmOutbox.count()).toBe(1);
    await cm(rt).setMaintenance(null);
    // three flushers on the same database: this one and two other "processes"
    const others = [new ContextManager(rt.db, rt.clock, rt.provider), new ContextManager(rt.db, rt.clock, rt.provider)];
    const results = await Promise.all([cm(rt).flushOutbox(), ...others.map((cm) => cm.flushOutbox())]);
    expect(results.reduce((n, x) => n + x.flushed, 0)).toBe(1);
    const after = (await cm(rt).patterns()).find((p) => p.name === name)!;
    expect(after.approvals).toBe(before.approvals + 1);
    expect(after.confidence).toBeCloseTo(Math.min(0.99, before.confidence + (1 - before.confidence) * 0.2), 9);
    expect(await rt.db.cmOutbox.count()).toBe(0);
  });

  it("logDecision with the same key raises a pattern's approvals once; another key (another cycle) counts again", async () => {
    rt = await swissRuntime();
    const [pattern] = await rt.db.cmPattern.findMany({ take: 1 });
    expect(pattern).toBeDefined();
    const before = pattern.approvals;
    for (let i = 0; i < 3; i++) await cm(rt).logDecision("req-1", "approved", "", [`pattern:${pattern.id}`], "run-1:7:logDecision");
    expect((await rt.db.cmPattern.findUniqueOrThrow({ where: { id: pattern.id } })).approvals).toBe(before + 1);
    await cm(rt).logDecision("req-1", "approved", "", [`pattern:${pattern.id}`], "run-1:12:logDecision");
    expect((await rt.db.cmPattern.findUniqueOrThrow({ where: { id: pattern.id } })).approvals).toBe(before + 2);
  });
});
