// What a fork may change. A user-defined workflow's fork may edit only what came from the run's
// input (context.task, context.input); every key the engine and the step runner keep (approvals,
// review, steps, visits, tool calls, decisions, entry times …) is refused with 422 naming it.
// Built-ins declare the keys a fork may edit. A fork starting in a review counts approvals afresh,
// and a fork of an imported run (whose export may have been edited) carries none of its decisions.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createActor } from "xstate";
import { exportRun, importRun } from "../lib/api/run-export";
import type { RunView } from "../lib/engine/views";
import { saveUserWorkflow } from "../lib/flows/store";
import { builtInWorkflows } from "../lib/machines/registry";
import type { Runtime } from "../lib/runtime";
import type { ManualClock } from "../lib/engine/clock";
import { flush, inState, testRuntime } from "./helpers";

const FLOW = `id: fork-quorum
initial_stage: DRAFT
stages: [DRAFT, REVIEW, DONE]
transitions: { DRAFT: [REVIEW], REVIEW: [DRAFT, DONE], DONE: [] }
steps:
  DRAFT:
    llm: { prompt: "Write a short post about {{input.topic}}." }
    next: REVIEW
  REVIEW:
    review: { prompt: "Ship it?", show: "{{steps.DRAFT.output}}", decisions: [approve, reject, edit], approvers: 2 }
    on: { approve: DONE, edit: DONE, reject: DRAFT }
`;

let rt: Runtime & { clock: ManualClock };
type Handler = (req: Request, ctx: { params: Promise<{ id: string }> }) => Promise<Response>;
let forkRoute: { POST: Handler };

beforeAll(async () => {
  rt = await testRuntime();
  await saveUserWorkflow(rt.db, "yaml", FLOW);
  (globalThis as Record<symbol, unknown>)[Symbol.for("switchyard.runtime")] = Promise.resolve(rt);
  forkRoute = (await import("../app/api/runs/[id]/fork/route")) as never;
});
afterAll(async () => {
  await rt?.close();
});

const ctxOf = (r: RunView) => r.context as Record<string, unknown> & { approvals: Record<string, string[]>; review: unknown };

async function pending(runId: string) {
  await flush();
  const [r] = await rt.store.listReviews({ runId, status: "pending" });
  expect(r).toBeDefined();
  return r!;
}

/** a run waiting in REVIEW with ana's approval in (1 of 2), and the seq of that commit */
async function approvedOnce() {
  const { run } = await rt.engine.start("fork-quorum", { topic: "tide tables" });
  await rt.engine.waitFor(run.id, inState("REVIEW"));
  const first = await pending(run.id);
  const one = await rt.engine.decide(first.id, { decision: "approve", reviewer: "ana" });
  expect(ctxOf(one.run).approvals).toEqual({ REVIEW: ["ana"] });
  return { run: one.run, seq: one.run.seq };
}

describe("fork context edits (user-defined workflows)", () => {
  it("refuses every key the engine or the steps keep, by name, with 422; the run's input may be edited", async () => {
    const { run, seq } = await approvedOnce();
    const ctx = ctxOf(run);
    const before = await rt.store.countRuns({});
    const refused: string[] = [];
    for (const key of Object.keys(ctx)) {
      if (key === "task" || key === "input") continue;
      // the value it already holds: only the key can be the reason
      const err = await rt.engine.fork(run.id, { seq, context: { [key]: ctx[key] } }).catch((e) => e);
      expect(err, key).toMatchObject({ status: 422 });
      expect(err.message).toContain(`context.${key} is kept by the workflow`);
      expect(err.message).toContain("may edit only context.task, context.input");
      refused.push(key);
    }
    expect(refused).toEqual(expect.arrayContaining(["approvals", "review", "steps", "edits", "visits", "toolCalls", "tools", "decisions", "enteredAt", "startedAt", "lastTransitionAt", "active"]));
    expect(await rt.store.countRuns({})).toBe(before);

    // the review's forged example, through the API: 422 naming the key
    const res = await forkRoute.POST(
      new Request(`http://test/api/runs/${run.id}/fork`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ seq, context: { approvals: { REVIEW: ["rita", "ghost"] } } }) }),
      { params: Promise.resolve({ id: run.id }) },
    );
    expect(res.status).toBe(422);
    expect((await res.json()).error).toMatch(/context\.approvals is kept by the workflow/);

    // what came from the input may change; the input stays an input (an object)
    const ok = await rt.engine.fork(run.id, { seq, context: { input: { topic: "moon phases" } } });
    expect(ctxOf(ok.run).input).toEqual({ topic: "moon phases" });
    await expect(rt.engine.fork(run.id, { seq, context: { input: "moon" } })).rejects.toMatchObject({ status: 422 });
    await rt.engine.abort(ok.run.id);
    await rt.engine.abort(run.id);
  });

  it("a fork that starts in a review counts its approvals afresh", async () => {
    const { run, seq } = await approvedOnce();
    const fork = await rt.engine.fork(run.id, { seq });
    expect(ctxOf(fork.run).approvals).toEqual({});
    const review = await pending(fork.run.id);
    expect(review.prompt).toBe("Ship it? (0 of 2 approvals)");
    // ana's approval in the parent does not count here: ben's alone does not ship it
    const ben = await rt.engine.decide(review.id, { decision: "approve", reviewer: "ben" });
    expect(ben.run.state).toEqual(["REVIEW"]);
    const ana = await rt.engine.decide((await pending(fork.run.id)).id, { decision: "approve", reviewer: "ana" });
    expect(ana.run.status).toBe("completed");
    expect(ctxOf(ana.run).review).toMatchObject({ decision: "approve", approvers: ["ben", "ana"] });
    await rt.engine.abort(run.id);
  });

  it("a fork of an imported run carries none of its approvals or decisions, even from an edited export", async () => {
    const { run, seq } = await approvedOnce();
    const doc = await exportRun(rt, run.id);
    const forged = { stage: "REVIEW", decision: "approve", reviewer: "ghost", approvers: ["rita", "ghost"] };
    const forge = (c: Record<string, unknown>) => ({ ...c, approvals: { REVIEW: ["rita", "ghost"] }, review: forged, decisions: [{ at: 0, by: "transition", from: ["REVIEW"], to: "DONE", confidence: 1, accepted: true, reason: "forged" }], steps: { ...(c.steps as object), REVIEW: { output: "x", at: 0, by: "approve by ghost" } } });
    for (const s of doc.snapshots ?? []) if (s.seq === seq) s.context = forge(s.context as Record<string, unknown>);
    doc.run.context = forge(doc.run.context as Record<string, unknown>);
    const imported = await importRun(rt, doc, { asNew: true });
    const fork = await rt.engine.fork(imported.id, { seq });
    const ctx = fork.run.context as Record<string, unknown> & { approvals: unknown; review: unknown; steps: Record<string, unknown> };
    expect(ctx.approvals).toEqual({});
    expect(ctx.review).toBeNull();
    expect(ctx.decisions).toEqual([]);
    expect(ctx.steps.REVIEW).toBeUndefined();
    expect(ctx.steps.DRAFT).toBeDefined();
    const review = await pending(fork.run.id);
    expect(review.prompt).toBe("Ship it? (0 of 2 approvals)");
    // a fork of that fork, at a seq of its copied history, reads the imported snapshot: cleaned the same way
    const again = await rt.engine.fork(fork.run.id, { seq });
    const twice = again.run.context as typeof ctx;
    expect([twice.approvals, twice.review, twice.decisions, twice.steps.REVIEW]).toEqual([{}, null, [], undefined]);
    const ben = await rt.engine.decide(review.id, { decision: "approve", reviewer: "ben" });
    expect(ben.run.state).toEqual(["REVIEW"]);
    await rt.engine.abort(again.run.id);
    await rt.engine.abort(fork.run.id);
    await rt.engine.abort(run.id);
  });
});

describe("fork context edits (built-in workflows)", () => {
  it("each built-in declares the keys a fork may edit, all of them members of its context", () => {
    for (const def of builtInWorkflows()) {
      expect(def.forkEditable, def.id).toBeDefined();
      const input = z.parse(def.input, def.example);
      const context = createActor(def.machine, { input }).getSnapshot().context as Record<string, unknown>;
      for (const key of def.forkEditable!) expect(Object.keys(context), `${def.id}: ${key}`).toContain(key);
      expect(def.forkEditable, def.id).not.toContain("approvals");
    }
  });

  it("a key the workflow does not declare is 422 by name", async () => {
    const { run } = await rt.engine.start("loop", { request: "Summarise the release notes" });
    const parent = await rt.engine.waitFor(run.id, inState("REVIEW"));
    const ctx = parent.context as Record<string, unknown>;
    for (const key of ["last", "history", "cycle", "warnings", "output"]) {
      await expect(rt.engine.fork(run.id, { seq: parent.seq, context: { [key]: ctx[key] } }), key).rejects.toMatchObject({ status: 422, message: expect.stringMatching(new RegExp(`context\\.${key} is kept by the workflow.*: a fork of loop may edit only context\\.config$`)) });
    }
    await rt.engine.abort(run.id);
  });
});
