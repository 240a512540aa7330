// Steps in a user-defined workflow: the post pipeline runs through the engine on
// SQLite against a local HTTP receiver: the offline model drafts, two different people approve,
// the post reaches the receiver exactly once (with a stable Idempotency-Key), a reject loops back
// with the feedback in the next prompt, a review timeout takes its route, a failing publish goes
// to on_error. Validation of steps carries line numbers.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { saveUserWorkflow } from "../lib/flows/store";
import { checkFlowSource } from "../lib/flows/validate";
import type { RunView } from "../lib/engine/views";
import { runUsage } from "../lib/metrics/model-usage";
import { flush, testRuntime } from "./helpers";
import { POST_PIPELINE } from "./support/post-pipeline";
import type { Runtime } from "../lib/runtime";
import type { ManualClock } from "../lib/engine/clock";

/** the issue's YAML without NOTIFY's step (NOTIFY is then moved on by an event), and that step */
const PIPELINE = POST_PIPELINE.slice(0, POST_PIPELINE.indexOf("  NOTIFY:\n"));
const NOTIFY_EXTERNAL = POST_PIPELINE.slice(POST_PIPELINE.indexOf("  NOTIFY:\n"));

type Received = { body: unknown; key: string | undefined };
let received: Received[] = [];
/** what the receiver answers next (then 200) */
let answers: number[] = [];
/** while true, the receiver records a request and never answers it (a process dies mid-call) */
let hold = false;
const held: http.ServerResponse[] = [];
let server: http.Server;
let base = "";
let rt: Runtime & { clock: ManualClock };
type Handler = (req: Request, ctx?: unknown) => Promise<Response>;
let reviewRoute: { GET: Handler };
let reviewsRoute: { GET: Handler };

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let data = "";
    req.on("data", (c) => (data += c));
    req.on("end", () => {
      if (hold) {
        received.push({ body: data ? JSON.parse(data) : null, key: req.headers["idempotency-key"] as string | undefined });
        held.push(res);
        return;
      }
      const status = answers.shift() ?? 200;
      received.push({ body: data ? JSON.parse(data) : null, key: req.headers["idempotency-key"] as string | undefined });
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(status === 200 ? { id: `post-${received.length}`, ok: true } : { error: "no" }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // effects of the built-ins stay; "post-pipeline" gets the step effects from the runtime
  rt = await testRuntime();
  const saved = await saveUserWorkflow(rt.db, "yaml", PIPELINE);
  expect(saved.version).toBe(1);
  // the API routes use the process-wide runtime: this one
  (globalThis as Record<symbol, unknown>)[Symbol.for("switchyard.runtime")] = Promise.resolve(rt);
  reviewRoute = (await import("../app/api/reviews/[id]/route")) as never;
  reviewsRoute = (await import("../app/api/reviews/route")) as never;
});
afterAll(async () => {
  for (const res of held) res.destroy();
  await rt?.close();
  await new Promise((r) => server.close(r));
});

const steps = (r: RunView) => (r.context as { steps: Record<string, { output?: unknown; prompt?: string; error?: { message: string }; by?: string }> }).steps;
const at = (stage: string) => (r: RunView) => r.state.includes(stage);

async function start(topic: string) {
  received = [];
  const out = await rt.engine.start("post-pipeline", { topic, publish_url: `${base}/posts` });
  return rt.engine.waitFor(out.run.id, at("REVIEW"));
}
async function pending(runId: string) {
  await flush();
  const [r] = await rt.store.listReviews({ runId, status: "pending" });
  expect(r).toBeDefined();
  return r!;
}

describe("the post pipeline", () => {
  it("drafts offline, needs two different approvers, publishes exactly once, then NOTIFY moves on", async () => {
    const run = await start("solar kettles");
    const draft = steps(run).DRAFT!;
    expect(draft.prompt).toBe("Write a short post about solar kettles. ");
    expect(String(draft.output)).toContain("Write a short post about solar kettles");
    expect(draft.by).toBe("offline engine");
    // a user's llm step answered offline records one offline row: no tokens, no model call
    const rows = await rt.db.modelCall.findMany({ where: { runId: run.id } });
    expect(rows.map((r) => [r.state, r.adapter, r.promptTokens, r.completionTokens, r.ok])).toEqual([["DRAFT", "offline engine", 0, 0, true]]);
    expect((await runUsage(rt.db, run.id)).total).toMatchObject({ calls: 0, offline: 1, promptTokens: 0, completionTokens: 0 });

    const first = await pending(run.id);
    expect(first.prompt).toBe("Publish this post? (0 of 2 approvals)");
    expect(first.payload).toMatchObject({ question: "Publish this post?", show: draft.output, decisions: ["approve", "reject", "edit"], approvals: { so_far: 0, needed: 2 } });
    // an approval needs a name (422: the decision is incomplete), then counts once per person
    await expect(rt.engine.decide(first.id, { decision: "approve" })).rejects.toMatchObject({ status: 422, message: expect.stringMatching(/^reviewer: REVIEW needs 2 distinct approvers/) });
    const one = await rt.engine.decide(first.id, { decision: "approve", reviewer: "ana" });
    expect(one.run.state).toEqual(["REVIEW"]);
    const second = await pending(run.id);
    expect(second.id).not.toBe(first.id);
    expect(second.prompt).toBe("Publish this post? (1 of 2 approvals)");
    await expect(rt.engine.decide(second.id, { decision: "approve", reviewer: "ana" })).rejects.toThrow(/ana has already approved REVIEW/);
    expect(received).toHaveLength(0);
    // the typed review API: decisions, the body each is sent with, approvals so far and needed
    const typed = await reviewRoute.GET(new Request(`http://test/api/reviews/${second.id}`), { params: Promise.resolve({ id: second.id }) });
    expect(typed.status).toBe(200);
    const t = await typed.json();
    expect(t).toMatchObject({ id: second.id, state: "REVIEW", decisions: ["approve", "reject", "edit"], approvals: { so_far: 1, needed: 2, by: ["ana"] } });
    expect(t.decisionSchemas.edit).toMatchObject({ type: "object", required: expect.arrayContaining(["decision", "data"]), properties: { decision: { const: "edit" }, data: { required: ["edited"] } } });
    expect(t.decisionSchemas.approve.properties.decision).toEqual({ type: "string", const: "approve" });
    const list = await (await reviewsRoute.GET(new Request(`http://test/api/reviews?runId=${run.id}&status=pending`))).json();
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ id: second.id, decisions: ["approve", "reject", "edit"], approvals: { so_far: 1, needed: 2 } });
    const missing = await reviewRoute.GET(new Request("http://test/api/reviews/nope"), { params: Promise.resolve({ id: "nope" }) });
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-type")).toMatch(/json/);
    expect((await missing.json()).error).toMatch(/review nope not found/);
    await rt.engine.decide(second.id, { decision: "approve", reviewer: "ben" });

    const notified = await rt.engine.waitFor(run.id, at("NOTIFY"));
    expect(received).toHaveLength(1);
    expect(received[0]!.body).toEqual({ text: draft.output });
    expect(received[0]!.key).toMatch(new RegExp(`^${run.id}:`));
    expect(steps(notified).PUBLISH).toMatchObject({ output: { id: "post-1", ok: true }, by: "http 200" });
    expect(steps(notified).REVIEW).toMatchObject({ output: draft.output, by: "approve by ben" });
    expect((notified.context as { review: unknown }).review).toMatchObject({ decision: "approve", approvers: ["ana", "ben"] });
    const done = await rt.engine.send(run.id, { type: "TRANSITION", to: "DONE" });
    expect(done.run.status).toBe("completed");
    await flush();
    expect(received).toHaveLength(1);
  });

  it("a reject loops back to DRAFT with the feedback in the next prompt", async () => {
    const run = await start("tide tables");
    const review = await pending(run.id);
    await rt.engine.decide(review.id, { decision: "reject", feedback: "Mention the moon.", reviewer: "ana" });
    await flush();
    const again = await rt.engine.waitFor(run.id, (r) => at("REVIEW")(r) && steps(r).DRAFT?.prompt !== steps(run).DRAFT?.prompt);
    expect(steps(again).DRAFT!.prompt).toBe("Write a short post about tide tables. Mention the moon.");
    expect(received).toHaveLength(0);
    await rt.engine.abort(run.id);
  });

  it("an edit counts as its editor's approval: the next approver approves the edited text, which is published", async () => {
    const run = await start("edits");
    const draft = steps(run).DRAFT!.output;
    let review = await pending(run.id);
    await rt.engine.decide(review.id, { decision: "edit", reviewer: "ana", data: { edited: "Edited post." } });
    // one person's edit does not publish alone: the second approver sees the edited text
    review = await pending(run.id);
    expect(review.prompt).toBe("Publish this post? (1 of 2 approvals, edited by ana)");
    expect(review.payload).toMatchObject({ show: "Edited post.", approvals: { so_far: 1, needed: 2, by: ["ana"] }, editedBy: "ana" });
    expect(received).toHaveLength(0);
    expect(steps(await rt.engine.getRun(run.id)).DRAFT!.output).toBe(draft);
    await expect(rt.engine.decide(review.id, { decision: "approve", reviewer: "ana" })).rejects.toMatchObject({ status: 409 });
    await rt.engine.decide(review.id, { decision: "approve", reviewer: "ben" });
    const notified = await rt.engine.waitFor(run.id, at("NOTIFY"));
    expect(received.map((r) => r.body)).toEqual([{ text: "Edited post." }]);
    expect(steps(notified).DRAFT!.output).toBe("Edited post.");
    expect((notified.context as { review: unknown }).review).toMatchObject({ decision: "edit", edited: "Edited post.", approvers: ["ana", "ben"] });
    await rt.engine.abort(run.id);
  });

  it("a review that times out takes its route (the manual clock moves a day)", async () => {
    const run = await start("timeouts");
    const review = await pending(run.id);
    rt.clock.advance(86_399_000);
    await flush();
    expect((await rt.engine.getRun(run.id)).state).toEqual(["REVIEW"]);
    rt.clock.advance(1_000);
    await flush(10);
    const back = await rt.engine.waitFor(run.id, (r) => at("REVIEW")(r) && (r.context as { visits: Record<string, number> }).visits.DRAFT === 2);
    expect(steps(back).REVIEW!.error?.message).toBe("REVIEW timed out after 86400 s");
    expect((await rt.store.getReview(review.id))!.status).toBe("cancelled");
    await rt.engine.abort(run.id);
  });

  it("a failing publish is retried under the same Idempotency-Key, then goes to on_error", async () => {
    const run = await start("retries");
    answers = [503];
    let r = await pending(run.id);
    await rt.engine.decide(r.id, { decision: "approve", reviewer: "ana" });
    r = await pending(run.id);
    await rt.engine.decide(r.id, { decision: "approve", reviewer: "ben" });
    await vi.waitFor(() => expect(received).toHaveLength(1));
    // the backoff: the engine arms its timer only once the 503 is read, so move the clock on until
    // the retry arrives (moving it once could come before the timer exists and wake nothing)
    await vi.waitFor(
      () => {
        if (received.length < 2) rt.clock.advance(1_000);
        expect(received).toHaveLength(2);
      },
      { timeout: 20_000, interval: 20 },
    );
    const notified = await rt.engine.waitFor(run.id, at("NOTIFY"));
    expect(received).toHaveLength(2);
    expect(received[1]!.key).toBe(received[0]!.key);
    expect(steps(notified).PUBLISH!.output).toMatchObject({ ok: true });
    await rt.engine.abort(run.id);

    const bad = await start("refused");
    answers = [400];
    r = await pending(bad.id);
    await rt.engine.decide(r.id, { decision: "approve", reviewer: "ana" });
    r = await pending(bad.id);
    await rt.engine.decide(r.id, { decision: "approve", reviewer: "ben" });
    const failed = await rt.engine.waitFor(bad.id, (x) => x.status !== "running" && x.status !== "waiting");
    expect(failed.status).toBe("failed");
    expect(failed.state).toEqual(["FAILED"]);
    expect(received).toHaveLength(1); // a 400 is not retried
    expect(steps(failed).PUBLISH!.error?.message).toMatch(/answered 400/);
  });
});

const KIT = `id: steps-kit
initial_stage: PLAN
stages: [PLAN, CALC, PAUSE, DONE]
transitions: { PLAN: [CALC], CALC: [PAUSE, DONE], PAUSE: [DONE], DONE: [] }
steps:
  PLAN:
    llm: { prompt: "Plan {{input.topic}}", schema: { type: object, properties: { title: { type: string }, count: { type: integer, minimum: 2 } }, required: [title, count] } }
    next: CALC
  CALC:
    code: { source: "({ outcome: steps.PLAN.output.count > 1 ? 'big' : 'small', n: steps.PLAN.output.count * 21, topic: input.topic })" }
    on: { big: PAUSE }
    next: DONE
  PAUSE:
    wait: { after_s: 60 }
    next: DONE
`;

describe("structured llm, code and wait steps", () => {
  it("the offline engine answers the schema, the sandbox computes, the outcome picks the route, the wait is a durable timer", async () => {
    await saveUserWorkflow(rt.db, "yaml", KIT);
    const out = await rt.engine.start("steps-kit", { topic: "gears" });
    const paused = await rt.engine.waitFor(out.run.id, at("PAUSE"), 30_000);
    expect(steps(paused).PLAN!.output).toEqual({ title: "Plan gears", count: 2 });
    expect(steps(paused).CALC!.output).toEqual({ outcome: "big", n: 42, topic: "gears" });
    const timers = await rt.store.timers(out.run.id);
    expect(timers.map((t) => t.dueAt - rt.clock.now())).toEqual([60_000]);
    rt.clock.advance(60_000);
    const done = await rt.engine.waitFor(out.run.id, (r) => r.status === "completed");
    expect(done.state).toEqual(["DONE"]);
    expect(steps(done).PAUSE!.output).toEqual({ waited_until: new Date(rt.clock.now()).toISOString() });
  }, 40_000);
});

describe("restart in the middle of the publish", () => {
  it("the call is made again after a restart with the same Idempotency-Key", async () => {
    const first = await testRuntime();
    await saveUserWorkflow(first.db, "yaml", PIPELINE);
    received = [];
    const out = await first.engine.start("post-pipeline", { topic: "restarts", publish_url: `${base}/posts` });
    await first.engine.waitFor(out.run.id, at("REVIEW"));
    for (const who of ["ana", "ben"]) {
      await flush();
      const [r] = await first.store.listReviews({ runId: out.run.id, status: "pending" });
      await first.engine.decide(r!.id, { decision: "approve", reviewer: who });
    }
    hold = true;
    await vi.waitFor(() => expect(received).toHaveLength(1));
    await first.close(); // the process goes away while the receiver has not answered
    hold = false;
    const second = await testRuntime({ url: first.url });
    try {
      const notified = await second.engine.waitFor(out.run.id, at("NOTIFY"));
      expect(received).toHaveLength(2);
      expect(received[1]!.key).toBe(received[0]!.key);
      expect(new Set(received.map((r) => r.key)).size).toBe(1); // a receiver that keys on it publishes once
      expect(steps(notified).PUBLISH!.output).toMatchObject({ ok: true });
    } finally {
      await second.close();
    }
  });
});

describe("validation of steps, with line numbers", () => {
  const issues = (src: string) => {
    const r = checkFlowSource("yaml", src);
    return r.ok ? [] : r.issues.map((i) => `${i.line}: ${i.message}`);
  };
  it("accepts the pipeline, and NOTIFY as an external worker's step (test/tasks.test.ts runs it)", () => {
    expect(issues(PIPELINE)).toEqual([]);
    expect(issues(PIPELINE + NOTIFY_EXTERNAL)).toEqual([]);
    expect(issues(PIPELINE + NOTIFY_EXTERNAL.replace("publisher", "Publisher!"))).toEqual(["21: steps.NOTIFY.external.queue: a queue name: lower-case letters, digits, . _ -"]);
  });
  it("routes, decisions, templates, schemas and URLs", () => {
    const bad = PIPELINE.replace("reject: DRAFT }", "reject: DRAFT, maybe: NOWHERE }")
      .replace("{{review.feedback}}", "{{review.feedback}} {{steps.PUBLISH.output}} {{env.HOME}}")
      .replace("decisions: [approve, reject, edit]", "decisions: [approve, reject, edit, respond]")
      .replace('url: "{{input.publish_url}}"', 'url: "http://169.254.169.254/latest"')
      .replace("on_error: FAILED", "on_error: DONE");
    expect(issues(bad)).toEqual([
      "8: steps.DRAFT.llm.prompt: {{steps.PUBLISH.output}}: step PUBLISH cannot have run before DRAFT",
      "8: steps.DRAFT.llm.prompt: {{env.HOME}}: a template names input.…, steps.<STAGE>.output or review.decision / feedback / edited",
      '11: steps.REVIEW.review.decisions: decision "respond" has no route: add on.respond or next',
      '12: steps.REVIEW.on.maybe: unknown stage "NOWHERE"',
      '12: steps.REVIEW.on.maybe: "maybe" is not one of the review\'s decisions (approve, reject, edit, respond)',
      "15: steps.PUBLISH.http.url: the egress guard refuses 169.254.169.254: a link-local address (cloud metadata services live there)",
      "19: steps.PUBLISH.on_error: PUBLISH -> DONE is not in transitions.PUBLISH (NOTIFY, FAILED)",
    ]);
    const schema = PIPELINE.replace('llm: { prompt: "Write', 'llm: { schema: { type: strin }, prompt: "Write');
    expect(issues(schema)).toEqual(["8: steps.DRAFT.llm.schema: not a valid JSON Schema: Unsupported type: strin"]);
    const twoKinds = PIPELINE.replace("    next: REVIEW\n", "    wait: { after_s: 5 }\n    next: REVIEW\n");
    expect(issues(twoKinds)).toEqual(["8: steps.DRAFT: a step is exactly one of llm, http, code, review, wait, external"]);
  });
});
