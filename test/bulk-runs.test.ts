// POST /api/runs/bulk: abort or retry runs by id or by a runs-list filter, one result per run,
// each taken as one by one would take it (a finished run refuses an abort, only a failed run with a
// failed step is retried: a fork at that step with the same input, as "Retry from <state>" does);
// more than 1,000 matching runs is a 422 with the total; the route needs the operator role.
import { beforeAll, describe, expect, it } from "vitest";
import { saveUserWorkflow } from "../lib/flows/store";
import { bulkRuns, BulkBody } from "../lib/api/bulk";
import { runFailure } from "../lib/api/failure";
import { requiredRole } from "../lib/auth/roles";
import { sqliteDate } from "../lib/db/sqlite";
import { findWorkflow } from "../lib/machines/registry";
import type { FlowConfig } from "../lib/flows/types";
import { nodeSuite, sqliteNode, WordModel } from "./support/change";

const FLOW = `id: bulk-post
initial_stage: DRAFT
stages: [DRAFT, REVIEW, PUBLISH, DONE, FAILED]
transitions: { DRAFT: [REVIEW], REVIEW: [DRAFT, PUBLISH], PUBLISH: [DONE, FAILED], DONE: [], FAILED: [] }
steps:
  DRAFT:
    llm: { prompt: "Write a post about {{input.topic}}." }
    next: REVIEW
  REVIEW:
    review: { prompt: "Publish this post?", show: "{{steps.DRAFT.output}}", decisions: [approve, reject] }
    on: { approve: PUBLISH, reject: DRAFT }
  PUBLISH:
    http: { url: "{{input.publish_url}}", method: POST, body: { text: "{{steps.DRAFT.output}}" } }
    next: DONE
    on_error: FAILED
`;

describe("bulk abort and retry", () => {
  const s = nodeSuite(() => sqliteNode(undefined, undefined, new WordModel()));
  const rt = () => s.rt();
  const ids: Record<string, string> = {};
  const pendingReview = s.pendingReview;

  beforeAll(async () => {
    await saveUserWorkflow(rt().db, "yaml", FLOW);
    const start = async (topic: string, url: string) => (await rt().engine.start("bulk-post", { topic, publish_url: url })).run.id;
    const publish = async (id: string) => {
      await rt().engine.decide((await pendingReview(id)).id, { decision: "approve", reviewer: "ana" });
      return rt().engine.waitFor(id, (r) => r.status === "completed" || r.status === "failed", 30_000);
    };
    ids.waitA = await start("a", `${s.receiver.url}/posts`);
    ids.waitB = await start("b", `${s.receiver.url}/posts`);
    await pendingReview(ids.waitA);
    await pendingReview(ids.waitB);
    ids.done = await start("c", `${s.receiver.url}/posts`);
    await publish(ids.done);
    ids.failX = await start("x", "http://127.0.0.1:1/down");
    ids.failY = await start("y", "http://127.0.0.1:1/down");
    expect((await publish(ids.failX)).status).toBe("failed");
    expect((await publish(ids.failY)).status).toBe("failed");
  }, 120_000);

  it("the body: an action and ids or a filter, never both", () => {
    expect(BulkBody.safeParse({ action: "abort", ids: ["a"] }).success).toBe(true);
    expect(BulkBody.safeParse({ action: "retry", filter: { status: "failed", workflow: "bulk-post" } }).success).toBe(true);
    expect(BulkBody.safeParse({ action: "abort" }).success).toBe(false);
    expect(BulkBody.safeParse({ action: "abort", ids: ["a"], filter: {} }).success).toBe(false);
    expect(BulkBody.safeParse({ action: "fork", ids: ["a"] }).success).toBe(false);
    expect(BulkBody.safeParse({ action: "abort", filter: { limit: "5" } }).success).toBe(false);
    expect(requiredRole("POST", "/api/runs/bulk")).toBe("operator");
  });

  it("abort by ids: one result per run, a finished or unknown run refused as one by one", async () => {
    const out = await bulkRuns(rt(), { action: "abort", ids: [ids.waitA!, ids.done!, "no-such-run", ids.waitA!], reason: "cleaning up" });
    expect(out.status).toBe(200);
    const results = (out.body as { results: { id: string; ok: boolean; error?: string }[] }).results;
    expect(results.map((r) => [r.id, r.ok])).toEqual([
      [ids.waitA, true],
      [ids.done, false],
      ["no-such-run", false],
    ]);
    expect(results[1]!.error).toMatch(/finished/);
    expect(results[2]!.error).toMatch(/not found/);
    const aborted = await rt().store.getRun(ids.waitA!);
    expect(aborted?.status).toBe("aborted");
    expect((await rt().store.getRun(ids.waitB!))?.status).toBe("waiting");
  });

  it("retry by filter: each failed run forked at its failed step with the same input; others refused", async () => {
    const out = await bulkRuns(rt(), { action: "retry", filter: { status: ["failed"], workflow: "bulk-post" } as never });
    expect(out.status).toBe(200);
    const results = (out.body as { results: { id: string; ok: boolean; runId?: string }[] }).results;
    expect(results.map((r) => r.id).sort()).toEqual([ids.failX, ids.failY].sort());
    const def = findWorkflow("bulk-post") as { flow: FlowConfig };
    for (const r of results) {
      expect(r.ok).toBe(true);
      const source = (await rt().store.getRun(r.id))!;
      const fork = (await rt().store.getRun(r.runId!))!;
      const transitions = await rt().store.transitions(r.id);
      const failure = runFailure(source, transitions, def.flow)!;
      expect(failure.state).toBe("PUBLISH");
      expect(fork.forkOf).toBe(r.id);
      expect(fork.forkSeq).toBe(failure.retry!.seq);
      expect(fork.input).toEqual(source.input);
    }
    const refused = await bulkRuns(rt(), { action: "retry", ids: [ids.waitB!] });
    expect((refused.body as { results: unknown[] }).results).toEqual([{ id: ids.waitB, ok: false, error: "only a failed run is retried; this one is waiting" }]);
  }, 60_000);

  it("more than 1,000 matching runs: 422 with the total, nothing done", async () => {
    const db = rt().sqlite!.db;
    const insert = db.prepare(`INSERT INTO "Run" ("id","workflow","status","state","input","entered","version","seq","createdAt","updatedAt") VALUES (?,?,?,?,?,?,?,?,?,?)`);
    const now = sqliteDate(rt().clock.now());
    db.transaction(() => {
      for (let i = 0; i < 1_001; i++) insert.run(`many-${i}`, "bulk-many", "waiting", '["IDLE"]', "{}", "{}", 1, 1, now, now);
    })();
    const out = await bulkRuns(rt(), { action: "abort", filter: { workflow: "bulk-many" } as never });
    expect(out).toEqual({ status: 422, body: { error: "1001 runs match this filter; at most 1000 at once: narrow it", code: "too_many", total: 1001 } });
    expect((await rt().store.countRuns({ workflow: "bulk-many", status: ["waiting"] }))).toBe(1_001);
  });
});
