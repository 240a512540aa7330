// The post pipeline (docs/guide/16-external-workers.md) end to end through the HTTP API, with accounts on: the YAML exactly as
// the guide writes it is defined by POST /api/workflows; a local OpenAI-compatible server drafts
// (the prompt it received is checked); two different signed-in reviewers approve from the queue
// (GET /api/reviews, POST /api/reviews/{id}/decision; the same person twice is refused); the post
// reaches a local receiver exactly once; a worker claims NOTIFY's task from /api/tasks and
// completes it; the run completes. A reject loops
// back with the feedback in the next prompt the model receives; a review timeout (manual clock, a
// day) takes its route back to DRAFT.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ManualClock } from "../lib/engine/clock";
import type { RunView } from "../lib/engine/views";
import { loadEndpoints } from "../lib/llm/endpoints";
import { OpenAiModel } from "../lib/llm/openai";
import type { Runtime } from "../lib/runtime";
import { flush, testRuntime } from "./helpers";
import { start as startModel, type FakeOpenAi } from "./support/fake-openai";
import { POST_PIPELINE, Receiver } from "./support/post-pipeline";

const savedAuth = process.env.SWITCHYARD_AUTH;
process.env.SWITCHYARD_AUTH = "on";

type Handler = (req: Request, ctx?: unknown) => Promise<Response>;
const params = (o: Record<string, string>) => ({ params: Promise.resolve(o) });
let api: { exporter: { GET: Handler }; workflows: { POST: Handler }; runs: { POST: Handler }; run: { GET: Handler }; reviews: { GET: Handler }; decision: { POST: Handler }; claim: { POST: Handler }; complete: { POST: Handler } };
let rt: Runtime & { clock: ManualClock };
let model: FakeOpenAi;
let rx: Receiver;
const tokens: Record<string, string> = {};

/** drafts: the model's answer names the prompt's topic and how many drafts it wrote */
let drafted = 0;
/** the model writes a draft that quotes its prompt */
const writes = () => model.setDefault({ reply: (body) => `Draft ${++drafted}: ${String((body.messages as { content: string }[]).at(-1)?.content).slice(0, 80)}` });
const prompts = () => model.requests.filter((r) => r.method === "POST").map((r) => (r.body.messages as { role: string; content: string }[]).filter((m) => m.role === "user").map((m) => m.content).join("\n"));

beforeAll(async () => {
  model = await startModel();
  writes();
  rx = await new Receiver().start();
  const endpoints = loadEndpoints({ OPENAI_BASE_URL: model.url, OPENAI_MODEL: "writer-1", SWITCHYARD_LLM_MAX_RETRIES: "0" });
  rt = await testRuntime({ model: new OpenAiModel(endpoints) });
  (globalThis as Record<symbol, unknown>)[Symbol.for("switchyard.runtime")] = Promise.resolve(rt);
  for (const [name, role] of [["olga", "admin"], ["ana", "reviewer"], ["ben", "reviewer"]] as const) {
    await rt.accounts.createUser({ name, password: `${name}-password-123`, role });
    tokens[name] = (await rt.accounts.createToken(name, "post-pipeline test", role)).token;
  }
  // an external worker's token (owned by an operator or admin): /api/tasks/* only
  tokens.mailer = (await rt.accounts.createToken("olga", "mailer-1", "worker")).token;
  api = {
    workflows: (await import("../app/api/workflows/route")) as never,
    exporter: (await import("../app/api/workflows/[id]/export/route")) as never,
    runs: (await import("../app/api/runs/route")) as never,
    run: (await import("../app/api/runs/[id]/route")) as never,
    claim: (await import("../app/api/tasks/claim/route")) as never,
    complete: (await import("../app/api/tasks/[id]/complete/route")) as never,
    reviews: (await import("../app/api/reviews/route")) as never,
    decision: (await import("../app/api/reviews/[id]/decision/route")) as never,
  };
});
afterAll(async () => {
  await rt?.close();
  await model?.close();
  await rx?.close();
  if (savedAuth === undefined) delete process.env.SWITCHYARD_AUTH;
  else process.env.SWITCHYARD_AUTH = savedAuth;
});

const as = (who: string, path: string, body?: unknown) =>
  new Request(`http://test${path}`, { method: body === undefined ? "GET" : "POST", headers: { authorization: `Bearer ${tokens[who]}`, ...(body === undefined ? {} : { "content-type": "application/json" }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
const read = async (res: Response) => ({ status: res.status, body: await res.json() });
const steps = (r: RunView) => (r.context as { steps: Record<string, { output?: unknown; prompt?: string; by?: string; error?: { message: string } }> }).steps;
const at = (stage: string) => (r: RunView) => r.state.includes(stage);

async function startRun(topic: string) {
  const res = await read(await api.runs.POST(as("olga", "/api/runs", { workflow: "post-pipeline", input: { topic, publish_url: rx.url } })));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return rt.engine.waitFor(res.body.id as string, at("REVIEW"));
}
async function queued(runId: string, who = "ana") {
  await flush();
  const res = await read(await api.reviews.GET(as(who, `/api/reviews?runId=${runId}&status=pending`)));
  expect(res.status).toBe(200);
  expect(res.body).toHaveLength(1);
  return res.body[0] as { id: string; prompt: string; payload: { show: unknown }; approvals: { so_far: number; needed: number; by: string[] } };
}
const decide = async (who: string, reviewId: string, body: unknown) => read(await api.decision.POST(as(who, `/api/reviews/${reviewId}/decision`, body), params({ id: reviewId })));

describe("the issue's post pipeline through the API", () => {
  it("is defined from the issue's YAML as written", async () => {
    const res = await read(await api.workflows.POST(as("olga", "/api/workflows", { yaml: POST_PIPELINE })));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ id: "post-pipeline", version: 1 });
    // exported as Mermaid, the steps ride in the front matter; imported back, they are the same
    const mmd = await api.exporter.GET(as("ana", "/api/workflows/post-pipeline/export?format=mermaid"), params({ id: "post-pipeline" }));
    const text = await mmd.text();
    expect(text).toMatch(/^---\ntitle: Draft, review and publish a post\nswitchyard:\n {2}id: post-pipeline\n {2}steps:\n/);
    const back = await read(await api.workflows.POST(as("olga", "/api/workflows", { id: "post-pipeline-mmd", mermaid: text })));
    expect(back.status, JSON.stringify(back.body)).toBe(201);
    const steps = async (id: string) => JSON.parse(await (await api.exporter.GET(as("ana", `/api/workflows/${id}/export?format=json`), params({ id }))).text()).steps;
    expect(await steps("post-pipeline-mmd")).toEqual(await steps("post-pipeline"));
    expect(Object.keys(await steps("post-pipeline"))).toEqual(["DRAFT", "REVIEW", "PUBLISH", "NOTIFY"]);
  });

  it("the model drafts, two reviewers approve from the queue, the post is published once, the run completes", async () => {
    const run = await startRun("solar kettles");
    expect(prompts()).toEqual(["Write a short post about solar kettles. "]);
    const draft = steps(run).DRAFT!;
    expect(draft).toMatchObject({ prompt: "Write a short post about solar kettles. ", output: "Draft 1: Write a short post about solar kettles. " });

    const first = await queued(run.id);
    expect(first.prompt).toBe("Publish this post? (0 of 2 approvals)");
    expect(first.payload.show).toBe(draft.output);
    expect((await decide("ana", first.id, { decision: "approve" })).status).toBe(200);
    const second = await queued(run.id, "ben");
    expect(second).toMatchObject({ prompt: "Publish this post? (1 of 2 approvals)", approvals: { so_far: 1, needed: 2, by: ["ana"] } });
    // the same person cannot approve twice; a name in the body does not change who is signed in
    const twice = await decide("ana", second.id, { decision: "approve", reviewer: "someone else" });
    expect(twice.status).toBe(409);
    expect(twice.body.error).toMatch(/ana has already approved REVIEW/);
    expect(rx.requests).toHaveLength(0);
    expect((await decide("ben", second.id, { decision: "approve" })).status).toBe(200);

    const notified = await rt.engine.waitFor(run.id, at("NOTIFY"));
    expect(rx.requests).toHaveLength(1);
    expect(rx.requests[0]!.body).toEqual({ text: draft.output });
    expect(rx.requests[0]!.key).toMatch(new RegExp(`^${run.id}:`));
    expect(steps(notified).PUBLISH).toMatchObject({ output: { id: "post-1", published: true }, by: "http 200" });
    expect((notified.context as { review: unknown }).review).toMatchObject({ decision: "approve", approvers: ["ana", "ben"] });
    // NOTIFY: a worker on queue "publisher" claims the task and completes it
    const claimed = await read(await api.claim.POST(as("mailer", "/api/tasks/claim", { queue: "publisher", worker: "mailer-1", waitMs: 5_000 })));
    expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
    expect(claimed.body).toMatchObject({ runId: run.id, stage: "NOTIFY" });
    const completed = await read(await api.complete.POST(as("mailer", `/api/tasks/${claimed.body.id}/complete`, { output: { notified: ["list@example.org"] }, leaseToken: claimed.body.leaseToken, worker: "mailer-1" }), params({ id: claimed.body.id })));
    expect(completed.status, JSON.stringify(completed.body)).toBe(200);
    await rt.engine.waitFor(run.id, (r) => r.status === "completed");
    const final = await read(await api.run.GET(as("ana", `/api/runs/${run.id}`), params({ id: run.id })));
    expect(final.body).toMatchObject({ status: "completed", state: ["DONE"], context: { steps: { NOTIFY: { output: { notified: ["list@example.org"] } } } } });
    expect(rx.requests).toHaveLength(1);
    expect(rx.posts.size).toBe(1);
  });

  it("a reject loops back to DRAFT with the feedback in the prompt the model receives", async () => {
    model.reset();
    writes();
    rx.requests = [];
    const run = await startRun("tide tables");
    const review = await queued(run.id);
    expect((await decide("ben", review.id, { decision: "reject", feedback: "Mention the moon." })).status).toBe(200);
    const again = await rt.engine.waitFor(run.id, (r) => at("REVIEW")(r) && (r.context as { visits: Record<string, number> }).visits.DRAFT === 2);
    expect(prompts()).toEqual(["Write a short post about tide tables. ", "Write a short post about tide tables. Mention the moon."]);
    expect(steps(again).DRAFT!.output).toMatch(/^Draft \d+: Write a short post about tide tables\. Mention the moon\.$/);
    // the new draft is what the reviewers see; nothing was published
    expect((await queued(run.id)).payload.show).toBe(steps(again).DRAFT!.output);
    expect(rx.requests).toHaveLength(0);
    await rt.engine.abort(run.id);
  });

  it("a review nobody decides for a day times out back to DRAFT, which drafts again", async () => {
    model.reset();
    writes();
    const run = await startRun("slow reviewers");
    const review = await queued(run.id);
    rt.clock.advance(86_399_000);
    await flush();
    expect((await rt.engine.getRun(run.id)).state).toEqual(["REVIEW"]);
    rt.clock.advance(1_000);
    const back = await rt.engine.waitFor(run.id, (r) => at("REVIEW")(r) && (r.context as { visits: Record<string, number> }).visits.DRAFT === 2);
    expect(steps(back).REVIEW!.error?.message).toBe("REVIEW timed out after 86400 s");
    expect(prompts()).toHaveLength(2);
    expect((await rt.store.getReview(review.id))!.status).toBe("cancelled");
    const late = await decide("ana", review.id, { decision: "approve" });
    expect(late.status).toBe(409);
    await rt.engine.abort(run.id);
  });
});
