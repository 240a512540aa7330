// A built-in workflow replays on the code now running (guide 19 §3) and evaluates against its
// reviewers' decisions (§3): a run of the loop fixture approved by a person is replayed, its
// decision repeated and marked, its post-commit action (the decision log) not run; an evaluation
// scores it, modify counting as a request for changes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { replayRun } from "../lib/change/replay";
import { startEval } from "../lib/change/evals";
import { inState, loopRuntime } from "./helpers";
import { loopDecisions } from "./fixtures/workflows/loop/effects";
import type { Runtime } from "../lib/runtime";
import type { ManualClock } from "../lib/engine/clock";
import { runRows } from "./support/change";

const REQUEST = "Summarise the release notes";

describe("a built-in's run replayed and evaluated (SQLite)", () => {
  let rt: Runtime & { clock: ManualClock };
  let approved = "";
  let modified = "";
  beforeAll(async () => {
    rt = await loopRuntime();
    for (const decision of ["approve", "modify"] as const) {
      const { run } = await rt.engine.start("loop", { request: REQUEST });
      const waiting = await rt.engine.waitFor(run.id, inState("REVIEW"), 30_000);
      await rt.engine.decide(waiting.reviewId!, { decision, reviewer: "ana", ...(decision === "modify" ? { feedback: "Add tests." } : {}) });
      if (decision === "approve") approved = run.id;
      else modified = run.id;
    }
    await rt.engine.waitFor(approved, (r) => r.state.includes("IDLE"), 30_000);
  }, 90_000);
  afterAll(async () => {
    await rt?.close();
  });

  it("the replay repeats the approval (marked), runs no post-commit action, and leaves the source as it was", async () => {
    const before = await runRows(rt, approved);
    await expect(replayRun(rt, approved, { version: 1 })).rejects.toMatchObject({ status: 422 });
    const { run } = await replayRun(rt, approved, {});
    expect(run).toMatchObject({ replayOf: approved, workflowVersion: null });
    await rt.engine.waitFor(run.id, (r) => r.state.includes("IDLE"), 30_000);
    const [review] = await rt.store.listReviews({ runId: run.id });
    expect(review).toMatchObject({ status: "decided", decision: "approve", reviewer: "ana", replayedFrom: expect.any(String) });
    // the loop logs each decision after the commit: not for a replay
    await rt.engine.outbox.idle();
    expect(await rt.db.actionOutbox.count({ where: { runId: run.id } })).toBe(0);
    expect(loopDecisions.filter((d) => d.runId === run.id)).toEqual([]);
    expect(loopDecisions.filter((d) => d.runId === approved).map((d) => d.type)).toEqual(["APPROVE"]);
    expect(await runRows(rt, approved)).toBe(before);
  }, 60_000);

  it("an evaluation of the code now running: approve and modify are cases", async () => {
    const report = await (await startEval(rt, { workflow: "loop", candidate: {}, cases: { from: "decided-reviews", runIds: [approved, modified] } })).done;
    expect(report).toMatchObject({ status: "done", candidate: { version: null }, cases: 2, done: 2, skipped: [] });
    expect(Object.keys(report.byState)).toEqual(["REVIEW"]);
  }, 90_000);
});
