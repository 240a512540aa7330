// The run page's Steps view reads a real run (lib/steps/run-steps.ts): the post pipeline runs
// through the engine on SQLite against a local receiver (the receiver fails the first publish,
// so PUBLISH takes two attempts); the rows give each stage's kind, status, attempts, duration,
// output, prompt, HTTP status and the review's decisions with who decided.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveUserWorkflow } from "../lib/flows/store";
import { findWorkflow } from "../lib/machines/registry";
import { reviewView, transitionView } from "../lib/engine/views";
import { runSteps } from "../lib/steps/run-steps";
import type { FlowConfig } from "../lib/flows/types";
import type { RunView } from "../lib/engine/views";
import { flush, testRuntime } from "./helpers";
import type { Runtime } from "../lib/runtime";
import type { ManualClock } from "../lib/engine/clock";

const PIPELINE = `id: post-pipeline-view
initial_stage: DRAFT
stages: [DRAFT, REVIEW, PUBLISH, DONE, FAILED]
transitions: { DRAFT: [REVIEW], REVIEW: [DRAFT, PUBLISH], PUBLISH: [DONE, FAILED], DONE: [], FAILED: [] }
steps:
  DRAFT:
    llm: { prompt: "Write a short post about {{input.topic}}. {{review.feedback}}" }
    next: REVIEW
  REVIEW:
    review: { prompt: "Publish this post?", show: "{{steps.DRAFT.output}}", decisions: [approve, reject, edit], approvers: 2 }
    on: { approve: PUBLISH, edit: PUBLISH, reject: DRAFT }
  PUBLISH:
    http: { url: "{{input.publish_url}}", method: POST, body: { text: "{{steps.DRAFT.output}}" } }
    retry: { max: 3, backoff_s: 1 }
    next: DONE
    on_error: FAILED
`;

let answers: number[] = [];
let server: http.Server;
let base = "";
let rt: Runtime & { clock: ManualClock };

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const status = answers.shift() ?? 201;
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(status < 300 ? { id: "post-1" } : { error: "busy" }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  rt = await testRuntime();
  await saveUserWorkflow(rt.db, "yaml", PIPELINE);
});
afterAll(async () => {
  await rt?.close();
  await new Promise((r) => server.close(r));
});

async function rows(run: RunView) {
  const flow = findWorkflow(run.workflow, run.input)!.flow as FlowConfig;
  const transitions = (await rt.store.transitions(run.id, 0, 1_000)).map((t) => transitionView(t));
  const reviews = (await rt.store.listReviews({ runId: run.id, limit: 100 })).map(reviewView);
  return runSteps({ flow, context: run.context, active: run.state, transitions, reviews });
}

async function pendingReview(runId: string) {
  await flush();
  const [r] = await rt.store.listReviews({ runId, status: "pending" });
  return r!;
}

describe("the Steps view of a run", () => {
  it("shows each step that ran: kind, status, attempts, duration, output, prompt, HTTP status, decisions with who decided", async () => {
    const out = await rt.engine.start("post-pipeline-view", { topic: "solar kettles", publish_url: `${base}/posts` });
    const waiting = await rt.engine.waitFor(out.run.id, (r) => r.state.includes("REVIEW"));
    let view = await rows(waiting);
    expect(view.map((r) => [r.stage, r.kind, r.status])).toEqual([
      ["DRAFT", "llm", "done"],
      ["REVIEW", "review", "waiting"],
    ]);
    expect(view[0]).toMatchObject({ attempts: 1, by: "offline engine", prompt: "Write a short post about solar kettles. ", hasOutput: true, durationMs: 0 });
    expect(String(view[0]!.output)).toContain("solar kettles");
    expect(view[1]).toMatchObject({ approvals: { needed: 2, by: [] }, durationMs: null, hasOutput: false });
    expect(view[1]!.decisions).toEqual([expect.objectContaining({ decision: "pending", status: "pending", reviewer: null })]);

    rt.clock.advance(5_000);
    await rt.engine.decide((await pendingReview(out.run.id)).id, { decision: "approve", reviewer: "ana" });
    view = await rows(await rt.engine.getRun(out.run.id));
    expect(view[1]!.approvals).toEqual({ needed: 2, by: ["ana"] });
    expect(view[1]!.decisions.map((d) => [d.decision, d.reviewer])).toEqual([["approve", "ana"], ["pending", null]]);

    answers = [503]; // the first publish fails, the retry gets through
    rt.clock.advance(2_000);
    await rt.engine.decide((await pendingReview(out.run.id)).id, { decision: "approve", reviewer: "ben" });
    await flush(20);
    rt.clock.advance(1_000); // the backoff
    const done = await rt.engine.waitFor(out.run.id, (r) => r.status === "completed");
    view = await rows(done);
    expect(view.map((r) => [r.stage, r.status])).toEqual([
      ["DRAFT", "done"],
      ["REVIEW", "done"],
      ["PUBLISH", "done"],
    ]);
    const [, review, publish] = view;
    expect(review!.decisions.map((d) => `${d.decision} by ${d.reviewer}`)).toEqual(["approve by ana", "approve by ben"]);
    expect(review!.durationMs).toBe(7_000); // entered, then decided 5 s + 2 s later
    expect(review!.by).toBe("approve by ben");
    expect(review!.sameAs).toBe("DRAFT"); // approved as shown: DRAFT's output, unchanged
    expect(view[0]!.sameAs).toBeNull();
    expect(publish).toMatchObject({ kind: "http", attempts: 2, httpStatus: 201, output: { id: "post-1" }, error: null });
  });

  it("a failed step: its error, the attempts it took, the status it got", async () => {
    const out = await rt.engine.start("post-pipeline-view", { topic: "refusals", publish_url: `${base}/posts` });
    await rt.engine.waitFor(out.run.id, (r) => r.state.includes("REVIEW"));
    for (const who of ["ana", "ben"]) await rt.engine.decide((await pendingReview(out.run.id)).id, { decision: "approve", reviewer: who });
    answers = [503, 400];
    await flush(20);
    rt.clock.advance(1_000);
    const failed = await rt.engine.waitFor(out.run.id, (r) => r.status === "failed");
    const publish = (await rows(failed)).find((r) => r.stage === "PUBLISH")!;
    expect(publish).toMatchObject({ status: "failed", attempts: 2, httpStatus: 400 });
    expect(publish.error?.message).toMatch(/answered 400.*\(after 2 attempts\)$/);
  });
});

describe("an edited review", () => {
  it("shows the edited value as the review's output (not 'unchanged'), and DRAFT as edited", async () => {
    const out = await rt.engine.start("post-pipeline-view", { topic: "edits", publish_url: `${base}/posts` });
    await rt.engine.waitFor(out.run.id, (r) => r.state.includes("REVIEW"));
    await rt.engine.decide((await pendingReview(out.run.id)).id, { decision: "edit", reviewer: "ana", data: { edited: "A better post." } });
    // two approvers: ana's edit is her approval of the new text; ben approves it
    await rt.engine.decide((await pendingReview(out.run.id)).id, { decision: "approve", reviewer: "ben" });
    const done = await rt.engine.waitFor(out.run.id, (r) => r.status === "completed");
    const [draft, review] = await rows(done);
    expect(draft).toMatchObject({ output: "A better post.", by: "edited by ana" });
    expect(review).toMatchObject({ output: "A better post.", sameAs: null, by: "edit by ana, approved by ben" });
    expect(review!.decisions.map((d) => `${d.decision} by ${d.reviewer}`)).toEqual(["edit by ana", "approve by ben"]);
  });
});
