// Every row of swiss-army's transition tables, driven through the real engine on SQLite with a
// simulated clock (timeouts are advanced, never slept).
import { afterEach, describe, expect, it } from "vitest";
import type { SwissContext } from "../types";
import type { Runtime } from "../../../lib/runtime";
import { fail, flush, hang, inState } from "../../../test/helpers";
import { swissRuntime } from "./support";

let rt: (Runtime & { clock: import("../../../lib/engine/clock").ManualClock }) | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
});

const REQUEST = "Write a TypeScript function that retries a fetch with exponential backoff and jitter";

async function path(runId: string) {
  const ts = await rt!.store.transitions(runId);
  return ts.map((t) => `${t.from.join(",") || "*"}>${t.to.join(",")}: ${t.reason}`);
}

describe("swiss-army transitions", () => {
  it("runs the happy path IDLE → … → HUMAN_REVIEW → IDLE and records each reason", async () => {
    rt = await swissRuntime();
    const { run } = await rt.engine.start("swiss-army", { request: REQUEST });
    const review = await rt.engine.waitFor(run.id, inState("HUMAN_REVIEW"));
    expect(review.status).toBe("waiting");
    expect(review.reviewId).toBeTruthy();
    const decided = await rt.engine.decide(review.reviewId!, { decision: "approve", feedback: "looks right", reviewer: "ana" });
    expect(decided.run.state).toEqual(["IDLE"]);
    expect(decided.run.status).toBe("waiting");
    const ctx = decided.run.context as SwissContext;
    expect(ctx.last?.outcome).toBe("approved");
    expect(ctx.records.review_result?.decision).toBe("approved");
    expect(ctx.records.review_result?.reviewer).toBe("ana");
    expect(await path(run.id)).toEqual([
      "*>IDLE: run started",
      "IDLE>REQUEST_RECEIVED: User submits request",
      "REQUEST_RECEIVED>CONTEXT_SEARCH: Request validated",
      "CONTEXT_SEARCH>EXECUTING: Context retrieved",
      "EXECUTING>EXECUTING: Progress update",
      "EXECUTING>EXECUTING: Progress update",
      "EXECUTING>CONTEXT_UPDATE: Task complete",
      "CONTEXT_UPDATE>HUMAN_REVIEW: Context saved",
      "HUMAN_REVIEW>IDLE: User approves",
    ]);
  });

  it("writes the seed's context record in each state", async () => {
    rt = await swissRuntime();
    const { run } = await rt.engine.start("swiss-army", { request: REQUEST });
    const r = await rt.engine.waitFor(run.id, inState("HUMAN_REVIEW"));
    const { records, tokens } = r.context as SwissContext;
    expect(records.request).toMatchObject({ type: "request", content: REQUEST, metadata: { request_type: "code" } });
    expect(records.request!.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(["simple", "medium", "complex"]).toContain(records.request!.metadata.estimated_complexity);
    expect(records.context_search).toMatchObject({ type: "context_search", status: "found" });
    expect(records.context_search!.results_count).toBeGreaterThan(0);
    expect(records.context_search!.relevance_scores).toHaveLength(records.context_search!.results_count);
    expect(records.context_search!.queries.length).toBeGreaterThan(0);
    expect(records.execution).toMatchObject({ type: "execution", status: "completed", adapter: "offline engine" });
    expect(records.execution!.patterns_applied).toContain("Retry with exponential backoff");
    expect(records.execution!.progress_updates.length).toBe(2);
    expect(records.execution_result).toMatchObject({ type: "execution_result", storage_status: "success" });
    expect(records.execution_result!.result.metrics.tokens_used).toBe(tokens);
    // offline: no model ran, so no tokens are claimed
    expect(tokens).toBe(0);
  });

  it("REQUEST_RECEIVED → IDLE on an invalid request, with the seed's user-error guidance", async () => {
    rt = await swissRuntime();
    const { run } = await rt.engine.start("swiss-army", { request: "fix it" });
    const r = await rt.engine.waitFor(run.id, (x) => x.state[0] === "IDLE" && x.seq > 2);
    const ctx = r.context as SwissContext;
    expect(ctx.error?.category).toBe("user");
    expect(ctx.error?.suggestions.length).toBeGreaterThan(0);
    expect(ctx.last?.outcome).toBe("invalid");
    expect((await path(run.id)).at(-1)).toBe("REQUEST_RECEIVED>IDLE: Invalid request");
  });

  it("REQUEST_RECEIVED → IDLE when parsing exceeds 5 s, and on a parsing crash", async () => {
    rt = await swissRuntime({ actors: { parseRequest: hang() } });
    const { run } = await rt.engine.start("swiss-army", { request: REQUEST });
    await flush();
    rt.clock.advance(4_999);
    await flush();
    expect((await rt.engine.getRun(run.id)).state).toEqual(["REQUEST_RECEIVED"]);
    rt.clock.advance(1);
    const r = await rt.engine.waitFor(run.id, inState("IDLE"));
    expect((r.context as SwissContext).error?.category).toBe("critical");
    expect((await path(run.id)).at(-1)).toBe("REQUEST_RECEIVED>IDLE: Critical error: parsing exceeded its 5 s maximum");
    await rt.close();

    rt = await swissRuntime({ actors: { parseRequest: fail("tokenizer exploded") } });
    const b = await rt.engine.start("swiss-army", { request: REQUEST });
    const rb = await rt.engine.waitFor(b.run.id, (x) => x.state[0] === "IDLE" && x.seq > 2);
    expect((rb.context as SwissContext).error?.message).toContain("tokenizer exploded");
    expect((await path(b.run.id)).at(-1)).toBe("REQUEST_RECEIVED>IDLE: Critical error: request parsing failure");
  });

  it("CONTEXT_SEARCH → EXECUTING after the 5 s timeout, proceeding without context", async () => {
    rt = await swissRuntime({ actors: { searchContext: hang() } });
    const { run } = await rt.engine.start("swiss-army", { request: REQUEST });
    await rt.engine.waitFor(run.id, inState("CONTEXT_SEARCH"));
    rt.clock.advance(5_000);
    const r = await rt.engine.waitFor(run.id, inState("HUMAN_REVIEW"));
    const ctx = r.context as SwissContext;
    expect(ctx.records.context_search?.status).toBe("timeout");
    expect(ctx.hits).toEqual([]);
    expect(ctx.warnings).toContain("Context search timed out after 5 s: proceeding without context");
    expect(await path(run.id)).toContain("CONTEXT_SEARCH>EXECUTING: Context timeout (proceed anyway)");
  });

  it("a configured search or storage timeout is the one its warning names", async () => {
    rt = await swissRuntime({ actors: { searchContext: hang(), storeResult: hang() } });
    const { run } = await rt.engine.start("swiss-army", { request: REQUEST, config: { searchTimeoutMs: 1_500, updateTimeoutMs: 60_000 } });
    await rt.engine.waitFor(run.id, inState("CONTEXT_SEARCH"));
    rt.clock.advance(1_500);
    await rt.engine.waitFor(run.id, inState("CONTEXT_UPDATE"));
    rt.clock.advance(60_000);
    const r = await rt.engine.waitFor(run.id, inState("HUMAN_REVIEW"));
    expect((r.context as SwissContext).warnings).toEqual(
      expect.arrayContaining(["Context search timed out after 1.5 s: proceeding without context", "Context storage timed out after 60 s: results were not saved"]),
    );
  });

  it("CONTEXT_SEARCH → IDLE on a critical error", async () => {
    rt = await swissRuntime({ actors: { searchContext: fail("index corrupted") } });
    const { run } = await rt.engine.start("swiss-army", { request: REQUEST });
    const r = await rt.engine.waitFor(run.id, (x) => x.state[0] === "IDLE" && x.seq > 3);
    expect((r.context as SwissContext).error).toMatchObject({ category: "critical", state: "CONTEXT_SEARCH" });
    expect((await path(run.id)).at(-1)).toBe("CONTEXT_SEARCH>IDLE: Critical error");
  });

  it("EXECUTING → IDLE when execution fails, with an error report", async () => {
    rt = await swissRuntime({ actors: { execute: fail("model crashed") } });
    const { run } = await rt.engine.start("swiss-army", { request: REQUEST });
    const r = await rt.engine.waitFor(run.id, (x) => x.state[0] === "IDLE" && x.seq > 4);
    const ctx = r.context as SwissContext;
    expect(ctx.error?.message).toContain("model crashed");
    expect(ctx.last?.outcome).toBe("failed");
    expect((await path(run.id)).at(-1)).toBe("EXECUTING>IDLE: Execution failed");
  });

  it("EXECUTING → CONTEXT_UPDATE with partial results after the 10 min timeout", async () => {
    rt = await swissRuntime({
      actors: {
        execute: ((_input: unknown, ctx: import("../../../lib/engine/engine").EffectContext) => {
          ctx.emit({ type: "EXECUTION.PROGRESS", message: "drafted step 1", partial: "Step 1: wrap fetch in a loop" });
          return hang()(undefined as never, ctx);
        }) as never,
      },
    });
    const { run } = await rt.engine.start("swiss-army", { request: REQUEST });
    await rt.engine.waitFor(run.id, (x) => x.state[0] === "EXECUTING" && (x.context as SwissContext).output !== "");
    rt.clock.advance(10 * 60_000 - 1);
    await flush();
    expect((await rt.engine.getRun(run.id)).state).toEqual(["EXECUTING"]);
    rt.clock.advance(1);
    const r = await rt.engine.waitFor(run.id, inState("HUMAN_REVIEW"));
    const ctx = r.context as SwissContext;
    expect(ctx.records.execution?.status).toBe("partial");
    expect(ctx.output).toBe("Step 1: wrap fetch in a loop");
    expect(ctx.records.execution_result?.result.success).toBe(false);
    expect(await path(run.id)).toContain("EXECUTING>CONTEXT_UPDATE: Timeout (10 min): partial results");
  });

  it("honours a configured execution timeout", async () => {
    rt = await swissRuntime({ actors: { execute: hang() } });
    const { run } = await rt.engine.start("swiss-army", { request: REQUEST, config: { executionTimeoutMs: 2_000 } });
    await rt.engine.waitFor(run.id, inState("EXECUTING"));
    rt.clock.advance(2_000);
    await rt.engine.waitFor(run.id, inState("HUMAN_REVIEW"));
  });

  it("CONTEXT_UPDATE → HUMAN_REVIEW with a warning when storing fails or times out, → IDLE when it fails critically", async () => {
    rt = await swissRuntime({ actors: { storeResult: hang() } });
    const a = await rt.engine.start("swiss-army", { request: REQUEST });
    await rt.engine.waitFor(a.run.id, inState("CONTEXT_UPDATE"));
    rt.clock.advance(10_000);
    const ra = await rt.engine.waitFor(a.run.id, inState("HUMAN_REVIEW"));
    expect((ra.context as SwissContext).warnings).toContain("Context storage timed out after 10 s: results were not saved");
    expect((await path(a.run.id)).at(-1)).toBe("CONTEXT_UPDATE>HUMAN_REVIEW: Save failed (timeout after 10 s): proceed with warning");
    await rt.close();

    rt = await swissRuntime({ actors: { storeResult: fail("disk full") } });
    const b = await rt.engine.start("swiss-army", { request: REQUEST });
    await rt.engine.waitFor(b.run.id, (x) => x.state[0] === "IDLE" && x.seq > 5);
    expect((await path(b.run.id)).at(-1)).toBe("CONTEXT_UPDATE>IDLE: Critical error");
  });

  it("HUMAN_REVIEW: reject → IDLE; modify → REQUEST_RECEIVED with the feedback as a new cycle", async () => {
    rt = await swissRuntime();
    const { run } = await rt.engine.start("swiss-army", { request: REQUEST });
    let r = await rt.engine.waitFor(run.id, inState("HUMAN_REVIEW"));
    const modified = await rt.engine.decide(r.reviewId!, { decision: "modify", feedback: "also cap the total wait at 30 seconds" });
    expect(modified.run.state).toEqual(["REQUEST_RECEIVED"]);
    const c = modified.run.context as SwissContext;
    expect(c.cycle).toBe(2);
    expect(c.request?.content).toContain("also cap the total wait at 30 seconds");
    expect(c.records.review_result?.decision).toBe("modify");
    r = await rt.engine.waitFor(run.id, (x) => inState("HUMAN_REVIEW")(x) && x.reviewId !== r.reviewId);
    const rejected = await rt.engine.decide(r.reviewId!, { decision: "reject", feedback: "wrong language" });
    expect(rejected.run.state).toEqual(["IDLE"]);
    expect((rejected.run.context as SwissContext).last?.outcome).toBe("rejected");
    const p = await path(run.id);
    expect(p).toContain("HUMAN_REVIEW>REQUEST_RECEIVED: Modify requested (new cycle)");
    expect(p.at(-1)).toBe("HUMAN_REVIEW>IDLE: User rejects");
  });

  it("takes a second request on the same run after returning to IDLE", async () => {
    rt = await swissRuntime();
    const { run } = await rt.engine.start("swiss-army", { request: REQUEST });
    let r = await rt.engine.waitFor(run.id, inState("HUMAN_REVIEW"));
    await rt.engine.decide(r.reviewId!, { decision: "approve" });
    await rt.engine.send(run.id, { type: "REQUEST", request: "Explain how keyset pagination works in PostgreSQL" });
    r = await rt.engine.waitFor(run.id, (x) => inState("HUMAN_REVIEW")(x) && (x.context as SwissContext).cycle === 2);
    expect((r.context as SwissContext).records.request?.metadata.request_type).toBe("docs");
    expect((r.context as SwissContext).history).toHaveLength(1);
  });

  for (const state of ["REQUEST_RECEIVED", "CONTEXT_SEARCH", "EXECUTING", "CONTEXT_UPDATE", "HUMAN_REVIEW"]) {
    it(`aborts from ${state} to IDLE, keeping partial results`, async () => {
      const stuck = { REQUEST_RECEIVED: "parseRequest", CONTEXT_SEARCH: "searchContext", EXECUTING: "execute", CONTEXT_UPDATE: "storeResult" }[state];
      rt = await swissRuntime({ actors: stuck ? { [stuck]: hang() } : {} });
      const { run } = await rt.engine.start("swiss-army", { request: REQUEST });
      await rt.engine.waitFor(run.id, inState(state));
      const out = await rt.engine.abort(run.id, "changed my mind");
      expect(out.run.state).toEqual(["IDLE"]);
      expect(out.run.status).toBe("waiting");
      const ctx = out.run.context as SwissContext;
      expect(ctx.last?.outcome).toBe("aborted");
      expect(ctx.error?.message).toBe("changed my mind");
      expect((await path(run.id)).at(-1)).toBe(`${state}>IDLE: User abort`);
      if (state === "HUMAN_REVIEW") {
        expect(ctx.error?.partial).toBeTruthy();
        const reviews = await rt.store.listReviews({ runId: run.id });
        expect(reviews[0].status).toBe("cancelled");
      }
    });
  }

  it("rejects events the current state does not accept with a conflict", async () => {
    rt = await swissRuntime({ actors: { execute: hang() } });
    const { run } = await rt.engine.start("swiss-army", { request: REQUEST });
    await rt.engine.waitFor(run.id, inState("EXECUTING"));
    await expect(rt.engine.send(run.id, { type: "REQUEST", request: "another one please now" })).rejects.toMatchObject({ status: 409 });
    await expect(rt.engine.send(run.id, { type: "NOPE" })).rejects.toMatchObject({ status: 422 });
    await expect(rt.engine.send(run.id, { type: "REQUEST", request: "" })).rejects.toMatchObject({ status: 422 });
  });

  it("runs pattern analysis after 5 idle minutes", async () => {
    rt = await swissRuntime();
    const { run } = await rt.engine.start("swiss-army", {});
    expect(run.state).toEqual(["IDLE"]);
    rt.clock.advance(5 * 60_000);
    const r = await rt.engine.waitFor(run.id, (x) => (x.context as SwissContext).patternAnalysisAt !== null);
    expect(r.state).toEqual(["IDLE"]);
    expect((await path(run.id)).at(-1)).toBe("IDLE>IDLE: Idle > 5 minutes: run pattern analysis");
  });
});
