// Move waiting runs to a new version (guide 19 §5), on SQLite and PostgreSQL. v1 drafts, asks two
// approvers (a timeout sends the draft back after an hour), publishes over http and hands the post
// to an external worker; a "hold" decision parks a run in HOLD. v2 adds a POLISH step after the
// review, gives the review two hours and has no HOLD. A dry run says where each run would land and
// which cannot move (unmapped state, effect in flight) without writing anything; the move gives each
// run one transition "migrated v1 → v2 by <who>", keeps the approval so far and the timer's deadline,
// withdraws and re-creates the external task, sets the pin; after a restart the moved runs finish on
// v2's path (through POLISH). GET /api/workflows/{id}/versions/{a}/diff/{b} names what changed.
import { beforeAll, describe, expect } from "vitest";
import { saveUserWorkflow } from "../lib/flows/store";
import { diffVersions, migrateRuns } from "../lib/change/migrate";
import type { GenerateRequest, GenerateResult } from "../lib/llm/types";
import type { Runtime } from "../lib/runtime";
import { ManualClock } from "../lib/engine/clock";
import { nodeSuite, postgresNode, runRows, sqliteNode, WordModel } from "./support/change";

export const MOVE_V1 = `id: move-post
initial_stage: DRAFT
stages: [DRAFT, REVIEW, HOLD, PUBLISH, NOTIFY, DONE, FAILED]
transitions: { DRAFT: [REVIEW], REVIEW: [DRAFT, PUBLISH, HOLD], HOLD: [REVIEW], PUBLISH: [NOTIFY, FAILED], NOTIFY: [DONE], DONE: [], FAILED: [] }
steps:
  DRAFT:
    llm: { prompt: "Write a post about {{input.topic}}." }
    next: REVIEW
  REVIEW:
    review: { prompt: "Publish this post?", show: "{{steps.DRAFT.output}}", decisions: [approve, reject, hold], approvers: 2 }
    on: { approve: PUBLISH, reject: DRAFT, hold: HOLD }
    timeout: { after_s: 3600, to: DRAFT }
  PUBLISH:
    http: { url: "{{input.publish_url}}", method: POST, body: { text: "{{steps.DRAFT.output}}" } }
    next: NOTIFY
    on_error: FAILED
  NOTIFY:
    external: { queue: notify }
    next: DONE
`;

export const MOVE_V2 = `id: move-post
initial_stage: DRAFT
stages: [DRAFT, REVIEW, POLISH, PUBLISH, NOTIFY, DONE, FAILED]
transitions: { DRAFT: [REVIEW], REVIEW: [DRAFT, POLISH], POLISH: [PUBLISH], PUBLISH: [NOTIFY, FAILED], NOTIFY: [DONE], DONE: [], FAILED: [] }
steps:
  DRAFT:
    llm: { prompt: "Write a post about {{input.topic}}." }
    next: REVIEW
  REVIEW:
    review: { prompt: "Publish this polished post?", show: "{{steps.DRAFT.output}}", decisions: [approve, reject, hold], approvers: 2 }
    on: { approve: POLISH, reject: DRAFT, hold: DRAFT }
    timeout: { after_s: 7200, to: DRAFT }
  POLISH:
    code: { source: "({ text: String(steps.DRAFT.output).toUpperCase() })" }
    next: PUBLISH
  PUBLISH:
    http: { url: "{{input.publish_url}}", method: POST, body: { text: "{{steps.POLISH.output.text}}" } }
    next: NOTIFY
    on_error: FAILED
  NOTIFY:
    external: { queue: notify }
    next: DONE
`;

/** writes like WordModel, but a "slow" topic waits until released (an effect in flight) */
class GatedModel extends WordModel {
  release!: () => void;
  private gate = new Promise<void>((r) => (this.release = r));
  override async generate(req: GenerateRequest): Promise<GenerateResult> {
    if (req.prompt.includes("slow")) await this.gate;
    return super.generate(req);
  }
}

interface Opened {
  rt: Runtime & { clock: ManualClock };
  close(): Promise<void>;
  /** stop this process and start another on the same database */
  restart(): Promise<void>;
}

function behaviour(name: string, open: (model: GatedModel) => Promise<Opened | null>) {
  const wf = `move-post-${name.toLowerCase()}`;
  const v1 = MOVE_V1.replace("id: move-post", `id: ${wf}`);
  const v2 = MOVE_V2.replace("id: move-post", `id: ${wf}`);
  describe(`move waiting runs to a new version (${name})`, () => {
    const model = new GatedModel();
    const s = nodeSuite(() => open(model), { beforeClose: () => model.release?.() });
    const ids: Record<string, string> = {};
    let reviewDue = 0;
    const queuedTask = (runId: string) => s.until(`a queued task of ${runId}`, () => s.rt().db.task.findFirst({ where: { runId, status: "queued" } }));
    const at = (runId: string, state: string) => s.rt().engine.waitFor(runId, (r) => r.state.includes(state), 30_000);

    beforeAll(async () => {
      if (!s.node) return;
      await saveUserWorkflow(s.rt().db, "yaml", v1);
      const start = async (topic: string) => (await s.rt().engine.start(wf, { topic, publish_url: `${s.receiver.url}/posts` })).run.id;
      // one approval of two, its review's timeout pending
      ids.review = await start("owls");
      await s.rt().engine.decide((await s.pendingReview(ids.review)).id, { decision: "approve", reviewer: "ana" });
      await s.pendingReview(ids.review);
      reviewDue = (await s.rt().store.timers(ids.review))[0]!.dueAt;
      // held in HOLD (no such stage in v2)
      ids.hold = await start("bats");
      await s.rt().engine.decide((await s.pendingReview(ids.hold)).id, { decision: "hold", reviewer: "ana" });
      await at(ids.hold, "HOLD");
      // approved twice, published, waiting for the external worker
      ids.task = await start("cats");
      await s.rt().engine.decide((await s.pendingReview(ids.task)).id, { decision: "approve", reviewer: "ana" });
      await s.rt().engine.decide((await s.pendingReview(ids.task)).id, { decision: "approve", reviewer: "bo" });
      await at(ids.task, "NOTIFY");
      await queuedTask(ids.task);
      // drafting right now (the model has not answered)
      ids.busy = await start("slow");
      await saveUserWorkflow(s.rt().db, "yaml", v2);
    }, 120_000);

    s.it("the version diff names what changed", async () => {
      const d = diffVersions(wf, 1, 2);
      expect(d.states).toEqual({ added: ["POLISH"], removed: ["HOLD"], changed: [{ name: "REVIEW", changes: ["transitions"] }] });
      expect(d.steps).toEqual({ added: ["POLISH"], removed: [], changed: [{ stage: "REVIEW", changes: ["on.approve", "on.hold", "review.prompt", "timeout.after_s"] }, { stage: "PUBLISH", changes: ["http.body"] }] });
    });

    s.it("a dry run says where each run lands and which cannot move, and writes nothing", async () => {
      const before = await Promise.all(Object.values(ids).map((id) => runRows(s.rt(), id)));
      const out = await migrateRuns(s.rt(), wf, { from: 1, to: 2, dryRun: true }, "ana");
      expect(out.dryRun).toBe(true);
      const by = Object.fromEntries(out.results.map((r) => [r.runId, r]));
      expect(by[ids.review!]).toEqual({ runId: ids.review, from: ["REVIEW"], to: ["REVIEW"], ok: true });
      expect(by[ids.task!]).toEqual({ runId: ids.task, from: ["NOTIFY"], to: ["NOTIFY"], ok: true });
      expect(by[ids.hold!]).toMatchObject({ ok: false, reason: expect.stringMatching(/^unmapped state: HOLD/) });
      expect(by[ids.busy!]).toMatchObject({ ok: false, reason: expect.stringMatching(/^effect in flight: step\.llm/) });
      expect(await Promise.all(Object.values(ids).map((id) => runRows(s.rt(), id)))).toEqual(before);
      // a mapping to a state v2 does not have: gone
      const gone = await migrateRuns(s.rt(), wf, { from: 1, to: 2, dryRun: true, map: { HOLD: "NOPE" }, runs: [ids.hold!] }, "ana");
      expect(gone.results[0]).toMatchObject({ ok: false, reason: expect.stringMatching(/^state gone: NOPE/) });
      const mapped = await migrateRuns(s.rt(), wf, { from: 1, to: 2, dryRun: true, map: { HOLD: "REVIEW" }, runs: [ids.hold!] }, "ana");
      expect(mapped.results[0]).toMatchObject({ ok: true, to: ["REVIEW"] });
    });

    s.it("the move: one transition each, the approval so far and the timer's deadline kept, the task re-created, the pin set", async () => {
      const oldReview = await s.pendingReview(ids.review!);
      const oldTask = await queuedTask(ids.task!);
      const out = await migrateRuns(s.rt(), wf, { from: 1, to: 2, runs: [ids.review!, ids.task!] }, "ana");
      expect(out.results.map((r) => r.ok)).toEqual([true, true]);
      for (const id of [ids.review!, ids.task!]) {
        const t = (await s.rt().store.transitions(id)).at(-1)!;
        expect(t).toMatchObject({ event: "xstate.migrate", reason: "migrated v1 → v2 by ana" });
        expect((await s.rt().engine.getRun(id)).workflowVersion).toBe(2);
      }
      // the review is asked again, with v2's prompt, counting the approval already given
      const review = await s.pendingReview(ids.review!);
      expect(review.id).not.toBe(oldReview.id);
      expect((await s.rt().store.getReview(oldReview.id))!.status).toBe("cancelled");
      expect(review.prompt).toBe("Publish this polished post? (1 of 2 approvals)");
      const timers = await s.rt().store.timers(ids.review!);
      expect(timers.map((t) => t.dueAt)).toEqual([reviewDue]);
      // the external task: the old one withdrawn, a new one queued for the new invocation
      const task = await queuedTask(ids.task!);
      expect(task.id).not.toBe(oldTask.id);
      expect((await s.rt().db.task.findUnique({ where: { id: oldTask.id } }))!.status).toBe("cancelled");
    }, 60_000);

    s.it("after a restart the moved runs finish on v2's path", async () => {
      await s.node!.restart();
      const review = await s.pendingReview(ids.review!);
      await s.rt().engine.decide(review.id, { decision: "approve", reviewer: "bo" });
      await at(ids.review!, "NOTIFY");
      await queuedTask(ids.review!);
      await queuedTask(ids.task!);
      for (let i = 0; i < 2; i++) {
        const claimed = await s.rt().tasks.claim("notify", "w1", 5_000);
        expect(claimed).not.toBeNull();
        await s.rt().tasks.complete(claimed!.id, { sent: true }, { leaseToken: claimed!.leaseToken });
      }
      for (const id of [ids.review!, ids.task!]) {
        const done = await s.rt().engine.waitFor(id, (r) => r.status === "completed", 30_000);
        expect(done.workflowVersion).toBe(2);
      }
      const path = (await s.rt().store.transitions(ids.review!)).flatMap((t) => t.to);
      expect(path).toContain("POLISH");
      // v2's publish sent the polished text
      expect(s.receiver.requests.filter((q) => q.path === "/posts").map((q) => q.body)).toContainEqual({ text: "POST: WRITE A POST ABOUT OWLS." });
      expect((await s.rt().engine.getRun(ids.hold!)).workflowVersion).toBe(1);
    }, 90_000);

    s.it("bad requests: from = to, an unknown version, a map naming no v1 stage, a built-in", async () => {
      await expect(migrateRuns(s.rt(), wf, { from: 1, to: 1 }, "ana")).rejects.toMatchObject({ status: 422 });
      await expect(migrateRuns(s.rt(), wf, { from: 1, to: 9 }, "ana")).rejects.toMatchObject({ status: 404 });
      await expect(migrateRuns(s.rt(), wf, { from: 1, to: 2, map: { NOPE: "REVIEW" } }, "ana")).rejects.toMatchObject({ status: 422 });
      await expect(migrateRuns(s.rt(), "loop", { from: 1, to: 2 }, "ana")).rejects.toMatchObject({ status: 422 });
    });
  });
}

behaviour("SQLite", async (model) => {
  let n = await sqliteNode(undefined, undefined, model);
  const url = n.url;
  const clock = n.rt.clock;
  const o: Opened = {
    get rt() {
      return n.rt;
    },
    close: () => n.close(),
    restart: async () => {
      await n.close();
      n = await sqliteNode(url, clock, model);
    },
  };
  return o;
});
behaviour("PostgreSQL", async (model) => {
  // (the queue's delayed jobs run on the wall clock: the simulated one starts at it, so the review's hour is still ahead)
  const first = await postgresNode("sy_migrate", new ManualClock(Date.now()), model);
  if (!first) return null;
  let current: { rt: Runtime & { clock: ManualClock }; close(): Promise<void> } = first;
  return {
    get rt() {
      return current.rt;
    },
    close: async () => {
      if (current !== first) await current.close().catch(() => {});
      await first.close();
    },
    restart: async () => {
      await current.rt.close();
      current = await first.reopen();
    },
  };
});
