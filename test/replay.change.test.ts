// Replay without side effects (guide 19 §3), on SQLite and PostgreSQL. A source run drafts with a
// model, is rejected with feedback, drafts again, is edited, and publishes over http (a webhook on
// every transition posts to the same local receiver). Its replay on the same version takes every
// recorded output ("replayed"), repeats each decision (marked with the review it repeats), and
// posts nothing: no http step, no webhook; its publish step says { skipped: "replay" }. The source
// run's rows are byte-for-byte the same afterwards. Replays are listed only with ?replays=1 and
// counted under `replay`. On v2 (the prompt changed) the draft runs for real, so the approved
// post's body differs and its publish is skipped ({ skipped: "replay" }); `live: [PUBLISH]` posts;
// decisions: "ask" opens a real review in the queue. A fork with reuse: true reuses outputs.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveUserWorkflow } from "../lib/flows/store";
import { listRuns } from "../lib/api/runs";
import { replayRun } from "../lib/change/replay";
import { prometheusText } from "../lib/metrics/prometheus";
import { workflowUsage } from "../lib/metrics/model-usage";
import type { RunView } from "../lib/engine/views";
import { flush } from "./helpers";
import { CountingReceiver, POST_V1, POST_V2, postgresNode, runRows, sqliteNode, type Node } from "./support/change";

type Steps = Record<string, { output?: unknown; by?: string; replayed?: string; prompt?: string }>;
const steps = (r: RunView) => (r.context as { steps: Steps }).steps;

function behaviour(name: string, make: () => Promise<Node | null>) {
  // (the registry of user workflows is one per process: each database gets a workflow id of its own)
  const wf = `change-post-${name.toLowerCase()}`;
  const v1 = POST_V1.replace("id: change-post", `id: ${wf}`);
  const v2 = POST_V2.replace("id: change-post", `id: ${wf}`);
  describe(`replay without side effects (${name})`, () => {
    let node: Node | null = null;
    let receiver: CountingReceiver;
    /** rejected with feedback, then edited; and approved at once */
    let sourceId = "";
    let approvedId = "";
    let before = "";
    let beforeApproved = "";
    const rt = () => node!.rt;

    async function pendingReview(runId: string) {
      for (let i = 0; i < 200; i++) {
        await flush();
        const [r] = await rt().store.listReviews({ runId, status: "pending" });
        if (r) return r;
        await new Promise((res) => setTimeout(res, 20));
      }
      throw new Error(`no pending review for ${runId}`);
    }
    const settled = (id: string) => rt().engine.waitFor(id, (r) => r.status !== "running" && r.status !== "waiting", 30_000);
    /** webhook deliveries of a run, and the receiver's requests that name it */
    async function posted(runId: string) {
      await rt().webhooks.idle();
      const rows = await rt().db.webhookDelivery.count({ where: { runId } });
      return { deliveries: rows, received: receiver.requests.filter((q) => q.runId === runId).length };
    }

    beforeAll(async () => {
      receiver = await new CountingReceiver().start();
      node = await make();
      if (!node) return;
      await saveUserWorkflow(rt().db, "yaml", v1);
      await rt().webhooks.createWebhook({ workflow: wf, url: `${receiver.url}/hooks`, secret: "a-secret-of-sixteen-chars", events: ["on_transition"] });
      const { run } = await rt().engine.start(wf, { topic: "owls", publish_url: `${receiver.url}/posts` });
      await rt().engine.decide((await pendingReview(run.id)).id, { decision: "reject", feedback: "Shorter, please.", reviewer: "ana" });
      await rt().engine.decide((await pendingReview(run.id)).id, { decision: "edit", reviewer: "bo", data: { edited: "Owls hunt at night." } });
      const done = await settled(run.id);
      expect(done.status).toBe("completed");
      sourceId = run.id;
      const approved = await rt().engine.start(wf, { topic: "bats", publish_url: `${receiver.url}/posts` });
      await rt().engine.decide((await pendingReview(approved.run.id)).id, { decision: "approve", reviewer: "ana" });
      expect((await settled(approved.run.id)).status).toBe("completed");
      approvedId = approved.run.id;
      await flush();
      await rt().webhooks.idle();
      before = await runRows(rt(), sourceId);
      beforeApproved = await runRows(rt(), approvedId);
    }, 120_000);
    afterAll(async () => {
      await node?.close();
      await receiver?.close();
    }, 60_000);

    it("the source posted once and sent its webhooks (the receiver counts them)", async (ctx) => {
      if (!node) return ctx.skip();
      expect(receiver.requests.filter((q) => q.path === "/posts")).toHaveLength(2);
      expect(receiver.requests.find((q) => q.path === "/posts")!.body).toEqual({ text: "Owls hunt at night." });
      expect((await posted(sourceId)).deliveries).toBeGreaterThan(3);
    });

    it("a replay on the same version takes every recorded output, repeats each decision and posts nothing", async (ctx) => {
      if (!node) return ctx.skip();
      const postsBefore = receiver.requests.length;
      const { run } = await replayRun(rt(), sourceId, {});
      expect(run).toMatchObject({ replayOf: sourceId, workflowVersion: 1 });
      const done = await settled(run.id);
      expect(done.status).toBe("completed");
      const s = steps(done);
      expect(s.DRAFT).toMatchObject({ replayed: "replayed" });
      // the publish had the same input: it takes the receiver's recorded answer, and sends nothing
      expect(s.PUBLISH).toMatchObject({ output: steps(await rt().engine.getRun(sourceId)).PUBLISH!.output, replayed: "replayed" });
      expect(s.REVIEW).toMatchObject({ output: "Owls hunt at night.", by: "edit by bo", replayed: "replayed" });
      // the decisions are the source's, marked with the review each repeats
      const mine = await rt().store.listReviews({ runId: run.id });
      const theirs = await rt().store.listReviews({ runId: sourceId });
      expect(mine.map((r) => [r.decision, r.feedback, r.reviewer, r.status])).toEqual(theirs.map((r) => [r.decision, r.feedback, r.reviewer, r.status]));
      expect(mine.map((r) => r.replayedFrom)).toEqual(theirs.map((r) => r.id));
      // nothing went out: no http step, no webhook delivery even queued, no request at the receiver
      await flush();
      expect(await posted(run.id)).toEqual({ deliveries: 0, received: 0 });
      expect(receiver.requests.length).toBe(postsBefore);
      // no model call was made: every draft was the recorded one
      expect(await rt().db.modelCall.count({ where: { runId: run.id } })).toBe(0);
      expect(await runRows(rt(), sourceId)).toBe(before);
    }, 60_000);

    it("replays are listed only with ?replays=1 and counted under replay", async (ctx) => {
      if (!node) return ctx.skip();
      const plain = await listRuns(rt(), { workflow: wf });
      expect(plain.runs.map((r) => r.id).sort()).toEqual([sourceId, approvedId].sort());
      expect(plain.total).toBe(2);
      expect(plain.counts).toMatchObject({ completed: 2, replay: 1 });
      const all = await listRuns(rt(), { workflow: wf, replays: true });
      expect(all.runs).toHaveLength(3);
      expect(all.runs.filter((r) => r.replayOf).map((r) => r.replayOf)).toEqual([sourceId]);
      expect((await listRuns(rt(), { replayOf: sourceId })).runs).toHaveLength(1);
    });

    it("on v2 (the prompt changed) the drafts run for real; the decisions still follow the source's; a changed post is not sent", async (ctx) => {
      if (!node) return ctx.skip();
      expect((await saveUserWorkflow(rt().db, "yaml", v2)).version).toBe(2);
      const { run } = await replayRun(rt(), sourceId, {});
      expect(run.workflowVersion).toBe(2);
      const done = await settled(run.id);
      expect(done.status).toBe("completed");
      expect(steps(done).DRAFT!.replayed).toBeUndefined();
      expect(steps(done).DRAFT!.prompt).toBe("Write a friendly, short post about owls. Shorter, please.");
      expect(await rt().db.modelCall.count({ where: { runId: run.id } })).toBe(2);
      // the edit replaced the draft with the same text: the publish input is the source's, its answer recorded
      expect(steps(done).PUBLISH!.replayed).toBe("replayed");
      // approved as it was drafted: the body is v2's draft, which the source never sent
      const other = await replayRun(rt(), approvedId, {});
      const approved = await settled(other.run.id);
      expect(approved.status).toBe("completed");
      expect(steps(approved).REVIEW).toMatchObject({ by: "approve by ana", replayed: "replayed" });
      expect(steps(approved).PUBLISH).toMatchObject({ output: { skipped: "replay" }, by: "skipped (replay)", replayed: "skipped" });
      expect(await posted(run.id)).toEqual({ deliveries: 0, received: 0 });
      expect(await posted(other.run.id)).toEqual({ deliveries: 0, received: 0 });
      expect(receiver.requests.filter((q) => q.path === "/posts")).toHaveLength(2);
      expect(await runRows(rt(), sourceId)).toBe(before);
      expect(await runRows(rt(), approvedId)).toBe(beforeApproved);
    }, 60_000);

    it("live: [PUBLISH] sends that step for real (and its webhooks); decisions: ask opens a real review", async (ctx) => {
      if (!node) return ctx.skip();
      const { run } = await replayRun(rt(), sourceId, { version: 1, live: ["PUBLISH"] });
      const done = await settled(run.id);
      expect(steps(done).PUBLISH!.replayed).toBeUndefined();
      const sent = await posted(run.id);
      expect(receiver.requests.filter((q) => q.path === "/posts")).toHaveLength(3);
      expect(sent.deliveries).toBeGreaterThan(0);
      const ask = await replayRun(rt(), sourceId, { version: 1, decisions: "ask" });
      const review = await pendingReview(ask.run.id);
      expect(review.replayedFrom).toBeUndefined();
      expect((await rt().store.listReviews({ status: "pending" })).map((r) => r.id)).toContain(review.id);
      await rt().engine.abort(ask.run.id);
      expect(await runRows(rt(), sourceId)).toBe(before);
    }, 60_000);

    it("a replay is left out of metrics, alerts and the health counts; its review asked of people is in the queue", async (ctx) => {
      if (!node) return ctx.skip();
      const ask = await replayRun(rt(), sourceId, { version: 1, decisions: "ask" });
      const review = await pendingReview(ask.run.id);
      expect((await rt().store.listReviews({ status: "pending" })).map((r) => r.id)).toEqual([review.id]);
      // the only review waiting is the replay's: a waiting-time alert on it stays closed
      const rule = await rt().alerts.createRule({ workflow: wf, state: "REVIEW", metric: "waiting", threshold: 1_000 });
      rt().clock.advance(60_000);
      await rt().alerts.evaluateOnce();
      expect((await rt().alerts.listAlerts({ status: "open" })).filter((a) => a.ruleId === rule.id)).toEqual([]);
      await rt().alerts.deleteRule(rule.id);
      const text = await prometheusText(rt());
      expect(text).toContain(`switchyard_runs{workflow="${wf}",status="completed"} 2\n`);
      expect(text).toContain(`switchyard_runs{workflow="${wf}",status="waiting"} 0\n`);
      expect(text).toContain(`switchyard_reviews_pending{workflow="${wf}"} 0\n`);
      const own = (await rt().store.transitions(sourceId)).length + (await rt().store.transitions(approvedId)).length;
      expect(text).toContain(`switchyard_transitions_total{workflow="${wf}"} ${own}\n`);
      // the workflow page's model usage counts the workflow's own runs' calls, not the replays' (v2's drafted for real)
      const usage = await workflowUsage(rt().store, wf);
      expect(usage.reduce((n, u) => n + u.calls, 0)).toBe(await rt().db.modelCall.count({ where: { runId: { in: [sourceId, approvedId] } } }));
      const counts = await rt().store.countByStatus(wf);
      expect(counts).toMatchObject({ completed: 2, waiting: 0, replay: (await listRuns(rt(), { replayOf: sourceId })).total + 1 });
      await rt().engine.abort(ask.run.id);
    }, 60_000);

    it("bad requests: 404 unknown run or version, 422 an unknown live state or a version of a built-in", async (ctx) => {
      if (!node) return ctx.skip();
      await expect(replayRun(rt(), "no-such-run", {})).rejects.toMatchObject({ status: 404 });
      await expect(replayRun(rt(), sourceId, { version: 9 })).rejects.toMatchObject({ status: 404 });
      await expect(replayRun(rt(), sourceId, { live: ["NOPE"] })).rejects.toMatchObject({ status: 422 });
    });

    it("a fork with reuse: true takes the recorded outputs after the fork point", async (ctx) => {
      if (!node) return ctx.skip();
      const t = await rt().store.transitions(sourceId);
      // the first transition: the run entered DRAFT and invoked its model call
      const fork = await rt().engine.fork(sourceId, { seq: t[0]!.seq, reuse: true });
      const review = await pendingReview(fork.run.id);
      const forked = await rt().engine.getRun(fork.run.id);
      expect(steps(forked).DRAFT!.replayed).toBe("replayed");
      expect(forked.replayOf).toBeNull();
      expect(review.replayedFrom).toBeUndefined(); // a fork asks people
      await rt().engine.abort(fork.run.id);
    }, 60_000);
  });
}

behaviour("SQLite", () => sqliteNode());
behaviour("PostgreSQL", () => postgresNode("sy_replay"));
