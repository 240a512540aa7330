// Compare two runs (guide 19 §2), on SQLite and PostgreSQL: a source run (rejected with feedback,
// then edited, then published) against its replay on v2 (the prompt changed), its replay on v1,
// and a replay where a person approved at once. Steps line up on "<state id>#<visit>"; the first
// divergence names the step and why (input, decision, path); tokens are counted per step from the
// model's usage (a model that counts words: counted here by hand); the route answers the same.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveUserWorkflow } from "../lib/flows/store";
import { replayRun } from "../lib/change/replay";
import { compareRuns } from "../lib/change/compare";
import { flush } from "./helpers";
import { CountingReceiver, POST_V1, POST_V2, postgresNode, sqliteNode, WordModel, type Node } from "./support/change";

const HOLDER = Symbol.for("switchyard.runtime");

function behaviour(name: string, make: () => Promise<Node | null>) {
  const wf = `compare-post-${name.toLowerCase()}`;
  describe(`compare two runs (${name})`, () => {
    let node: Node | null = null;
    let receiver: CountingReceiver;
    let sourceId = "";
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

    beforeAll(async () => {
      receiver = await new CountingReceiver().start();
      node = await make();
      if (!node) return;
      await saveUserWorkflow(rt().db, "yaml", POST_V1.replace("id: change-post", `id: ${wf}`));
      const { run } = await rt().engine.start(wf, { topic: "owls", publish_url: `${receiver.url}/posts` });
      await rt().engine.decide((await pendingReview(run.id)).id, { decision: "reject", feedback: "Shorter, please.", reviewer: "ana" });
      await rt().engine.decide((await pendingReview(run.id)).id, { decision: "edit", reviewer: "bo", data: { edited: "Owls hunt at night." } });
      expect((await settled(run.id)).status).toBe("completed");
      sourceId = run.id;
    }, 120_000);
    afterAll(async () => {
      await node?.close();
      await receiver?.close();
    }, 60_000);

    it("a replay on the same version: every step the same, no divergence, no tokens spent", async (ctx) => {
      if (!node) return ctx.skip();
      const { run } = await replayRun(rt(), sourceId, {});
      await settled(run.id);
      const c = await compareRuns(rt(), sourceId, run.id);
      expect(c.steps.map((s) => s.key)).toEqual(["DRAFT#1", "REVIEW#1", "DRAFT#2", "REVIEW#2", "PUBLISH#1", "DONE#1"]);
      expect(c.steps.every((s) => s.same)).toBe(true);
      expect(c.firstDivergence).toBeNull();
      // tokens: "Write a short post about owls." is 6 words, the reply "Post: " + it 7; with the feedback 8 and 9
      expect(c.steps.map((s) => s.a?.tokens)).toEqual([13, 0, 17, 0, 0, 0]);
      expect(c.totals.a.tokens).toBe(30);
      expect(c.totals.b.tokens).toBe(0);
      expect(c.a).toEqual({ id: sourceId, workflow: wf, workflowVersion: 1 });
      const review = c.steps.find((s) => s.key === "REVIEW#2")!;
      expect(review.a!.decision).toMatchObject({ decision: "edit", edited: "Owls hunt at night.", reviewer: "bo", shown: "Post: Write a short post about owls. Shorter, please." });
      expect(review.b!.decision).toMatchObject({ decision: "edit", edited: "Owls hunt at night.", replayed: true });
      expect(c.steps.find((s) => s.key === "DRAFT#1")!.a).toMatchObject({ event: "xstate.done.actor.step-DRAFT", output: "Post: Write a short post about owls. " });
    }, 60_000);

    it("v2 changed the prompt: the first divergence is DRAFT#1's input; tokens per step differ", async (ctx) => {
      if (!node) return ctx.skip();
      await saveUserWorkflow(rt().db, "yaml", POST_V2.replace("id: change-post", `id: ${wf}`));
      const { run } = await replayRun(rt(), sourceId, {});
      await settled(run.id);
      const c = await compareRuns(rt(), sourceId, run.id);
      expect(c.b.workflowVersion).toBe(2);
      expect(c.firstDivergence).toEqual({ key: "DRAFT#1", state: "DRAFT", reason: "input", a: { seq: expect.any(Number) }, b: { seq: expect.any(Number) } });
      expect(c.steps.map((s) => [s.key, s.same])).toEqual([["DRAFT#1", false], ["REVIEW#1", true], ["DRAFT#2", false], ["REVIEW#2", true], ["PUBLISH#1", true], ["DONE#1", true]]);
      // "Write a friendly, short post about owls." is 7 words, its reply 8; with the feedback 9 and 10
      expect(c.steps.map((s) => s.b?.tokens)).toEqual([15, 0, 19, 0, 0, 0]);
      expect(c.totals.b.tokens).toBe(34);
    }, 60_000);

    it("a person approved the first draft: the first divergence is REVIEW#1's decision, then the paths part", async (ctx) => {
      if (!node) return ctx.skip();
      const { run } = await replayRun(rt(), sourceId, { version: 1, decisions: "ask" });
      await rt().engine.decide((await pendingReview(run.id)).id, { decision: "approve", reviewer: "cy" });
      await settled(run.id);
      const c = await compareRuns(rt(), sourceId, run.id);
      expect(c.firstDivergence).toMatchObject({ key: "REVIEW#1", reason: "decision" });
      const byKey = Object.fromEntries(c.steps.map((s) => [s.key, s]));
      expect(byKey["DRAFT#2"]).toMatchObject({ same: false, b: null });
      expect(byKey["REVIEW#1"]!.a!.event).toBe("REJECT");
      expect(byKey["REVIEW#1"]!.b!.event).toBe("APPROVE");
      expect(c.steps.map((s) => s.key)).toEqual(["DRAFT#1", "REVIEW#1", "DRAFT#2", "REVIEW#2", "PUBLISH#1", "DONE#1"]);
      // the other way round: the same divergence, sides swapped
      const back = await compareRuns(rt(), run.id, sourceId);
      expect(back.firstDivergence).toMatchObject({ key: "REVIEW#1", reason: "decision" });
    }, 60_000);

    it("a fork and its source: the copied history is the same (the source's outputs and tokens), then the fork's own path", async (ctx) => {
      if (!node) return ctx.skip();
      const t = await rt().store.transitions(sourceId);
      // fork where the source waited in REVIEW the first time, and approve there instead
      const at = t.find((x) => x.to.includes("REVIEW"))!.seq;
      const fork = await rt().engine.fork(sourceId, { seq: at });
      await rt().engine.decide((await pendingReview(fork.run.id)).id, { decision: "approve", reviewer: "cy" });
      await settled(fork.run.id);
      const c = await compareRuns(rt(), sourceId, fork.run.id);
      const byKey = Object.fromEntries(c.steps.map((s) => [s.key, s]));
      expect(byKey["DRAFT#1"]).toMatchObject({ same: true, a: { tokens: 13 }, b: { tokens: 13, output: "Post: Write a short post about owls. " } });
      expect(c.firstDivergence).toMatchObject({ key: "REVIEW#1", reason: "decision" });
      expect(byKey["DRAFT#2"]!.b).toBeNull();
    }, 60_000);

    it("GET /api/runs/{a}/compare/{b}: the same document; 404 unknown run, 422 two workflows", async (ctx) => {
      if (!node) return ctx.skip();
      (globalThis as Record<symbol, unknown>)[HOLDER] = Promise.resolve(rt());
      const route = (await import("../app/api/runs/[id]/compare/[other]/route")) as { GET: (req: Request, ctx: { params: Promise<{ id: string; other: string }> }) => Promise<Response> };
      const call = (a: string, b: string) => route.GET(new Request(`http://x/api/runs/${a}/compare/${b}`), { params: Promise.resolve({ id: a, other: b }) });
      const [other] = (await rt().store.listRuns({ replayOf: sourceId, limit: 1 }));
      const res = await call(sourceId, other!.id);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual(JSON.parse(JSON.stringify(await compareRuns(rt(), sourceId, other!.id))));
      expect((await call(sourceId, "no-such-run")).status).toBe(404);
      expect((await call(sourceId, "bad id!")).status).toBe(422);
      const { run } = await rt().engine.start("hello", { name: "Ada" });
      expect((await call(sourceId, run.id)).status).toBe(422);
    }, 60_000);
  });
}

behaviour("SQLite", () => sqliteNode(undefined, undefined, new WordModel()));
behaviour("PostgreSQL", () => postgresNode("sy_compare", undefined, new WordModel()));
