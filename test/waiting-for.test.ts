// What a run waits on (GET /api/runs/{id}'s waitingFor) and the runs list's filters on it, on
// SQLite and PostgreSQL: a review with a quorum (one of two approvals) and its timeout's timer, an
// external worker's task before and after its claim, a run at rest waiting for an event, a model
// call in flight, and a finished run (nothing).
import { beforeAll, describe, expect } from "vitest";
import { saveUserWorkflow } from "../lib/flows/store";
import { getRun, listRuns } from "../lib/api/runs";
import type { GenerateRequest, GenerateResult } from "../lib/llm/types";
import { ManualClock } from "../lib/engine/clock";
import { nodeSuite, postgresNode, sqliteNode, WordModel, type Node } from "./support/change";

const FLOW = `id: wait-post
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

/** writes like WordModel, but a "slow" topic waits until released (a model call in flight) */
class GatedModel extends WordModel {
  release!: () => void;
  private gate = new Promise<void>((r) => (this.release = r));
  override async generate(req: GenerateRequest): Promise<GenerateResult> {
    if (req.prompt.includes("slow")) await this.gate;
    return super.generate(req);
  }
}

function behaviour(name: string, open: (model: GatedModel) => Promise<Node | null>) {
  const wf = `wait-post-${name.toLowerCase()}`;
  describe(`waitingFor and its filters (${name})`, () => {
    const model = new GatedModel();
    const s = nodeSuite(() => open(model), { beforeClose: () => model.release?.() });
    const ids: Record<string, string> = {};
    const at = (runId: string, state: string) => s.rt().engine.waitFor(runId, (r) => r.state.includes(state), 30_000);
    const waits = async (id: string) => (await getRun(s.rt(), id)).waitingFor;
    const listed = async (q: Parameters<typeof listRuns>[1]) => (await listRuns(s.rt(), { workflow: wf, ...q })).runs.map((r) => r.id).sort();

    beforeAll(async () => {
      if (!s.node) return;
      await saveUserWorkflow(s.rt().db, "yaml", FLOW.replace("id: wait-post", `id: ${wf}`));
      const decide = async (runId: string, decision: string, reviewer: string) => s.rt().engine.decide((await s.pendingReview(runId)).id, { decision, reviewer });
      const start = async (topic: string) => (await s.rt().engine.start(wf, { topic, publish_url: `${s.receiver.url}/posts` })).run.id;
      ids.review = await start("owls");
      await decide(ids.review, "approve", "ana");
      await s.until("the review asked again with one approval", async () => {
        const [r] = await s.rt().store.listReviews({ runId: ids.review!, status: "pending" });
        return (r?.payload as { approvals?: { so_far?: number } } | undefined)?.approvals?.so_far === 1 ? r : null;
      });
      ids.hold = await start("bats");
      await decide(ids.hold, "hold", "ana");
      await at(ids.hold, "HOLD");
      ids.task = await start("cats");
      await decide(ids.task, "approve", "ana");
      await decide(ids.task, "approve", "bo");
      await at(ids.task, "NOTIFY");
      await s.until("the task", () => s.rt().db.task.findFirst({ where: { runId: ids.task, status: "queued" } }));
      ids.busy = await start("slow");
      ids.done = await start("ends");
      await s.rt().engine.abort(ids.done, "not needed");
    }, 120_000);

    s.it("a review: its approvals so far, the decisions, due when its timeout fires; the timer beside it", async () => {
      const review = await s.pendingReview(ids.review!);
      const [timer] = await s.rt().store.timers(ids.review!);
      const w = await waits(ids.review!);
      expect(w).toEqual([
        { kind: "review", state: "REVIEW", stateName: "REVIEW", reviewId: review.id, decisions: ["approve", "reject", "hold"], approvals: { so_far: 1, needed: 2, by: ["ana"] }, dueAt: new Date(timer!.dueAt).toISOString() },
        { kind: "timer", state: "REVIEW", stateName: "REVIEW", at: new Date(timer!.dueAt).toISOString(), to: "DRAFT" },
      ]);
    });

    s.it("a task: the queue before a claim; who claimed it, the attempt and the heartbeat after", async () => {
      expect(await waits(ids.task!)).toEqual([{ kind: "task", state: "NOTIFY", stateName: "NOTIFY", queue: "notify", claimedBy: null, attempt: 0, heartbeatAt: null, leaseUntil: null }]);
      expect(await listed({ unclaimedLongerThan: 0 })).toEqual([ids.task]);
      const claimed = await s.rt().tasks.claim("notify", "py-w1", 5_000);
      expect(claimed?.runId).toBe(ids.task);
      const row = await s.rt().db.task.findFirstOrThrow({ where: { runId: ids.task } });
      const [w] = await waits(ids.task!);
      expect(w).toEqual({ kind: "task", state: "NOTIFY", stateName: "NOTIFY", queue: "notify", claimedBy: "py-w1", attempt: 1, heartbeatAt: new Date(Number(row.updatedAt)).toISOString(), leaseUntil: new Date(Number(row.leaseUntil)).toISOString() });
      expect(JSON.stringify(w)).not.toContain(row.id); // viewers read this: no task id
      expect(await listed({ unclaimedLongerThan: 0 })).toEqual([]);
    });

    s.it("at rest: the events it accepts (no decisions, no ABORT)", async () => {
      const w = await waits(ids.hold!);
      expect(w).toHaveLength(1);
      expect(w[0]).toMatchObject({ kind: "event", state: "HOLD", stateName: "HOLD" });
      const accepts = (w[0] as { accepts: string[] }).accepts;
      expect(accepts).toContain("TRANSITION");
      for (const no of ["ABORT", "APPROVE", "REJECT", "HOLD"]) expect(accepts).not.toContain(no);
    });

    s.it("a model call in flight: the effect and since when", async () => {
      const run = await s.rt().store.getRun(ids.busy!);
      expect(await waits(ids.busy!)).toEqual([{ kind: "effect", state: "DRAFT", stateName: "DRAFT", name: "step.llm", since: new Date(run!.entered.DRAFT!).toISOString() }]);
    });

    s.it("a finished run waits on nothing", async () => {
      expect(await waits(ids.done!)).toEqual([]);
    });

    s.it("the runs list filters on it and on the state", async () => {
      expect(await listed({ waitingFor: ["review"] })).toEqual([ids.review]);
      expect(await listed({ waitingFor: ["timer"] })).toEqual([ids.review]);
      expect(await listed({ waitingFor: ["task"] })).toEqual([ids.task]);
      expect(await listed({ waitingFor: ["effect"] })).toEqual([ids.busy]);
      expect(await listed({ waitingFor: ["event"] })).toEqual([ids.hold]);
      expect(await listed({ waitingFor: ["review", "event"] })).toEqual([ids.review, ids.hold].sort());
      expect(await listed({ state: "HOLD" })).toEqual([ids.hold]);
      expect(await listed({ state: "HOL" })).toEqual([]);
      expect(await listed({ state: "DONE" })).toEqual([]); // finished runs are in no state now
      expect((await listRuns(s.rt(), { workflow: wf, waitingFor: ["review", "event"] })).total).toBe(2);
    });
  });
}

behaviour("SQLite", (model) => sqliteNode(undefined, undefined, model));
// (the queue's delayed jobs run on the wall clock: the simulated one starts at it, so the review's hour is still ahead)
behaviour("PostgreSQL", (model) => postgresNode("sy_waitfor", new ManualClock(Date.now()), model));
