// The REST API answers bad input with a 4xx and a message, never a 500, and changes nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateDatabase } from "../lib/db/migrations";
import { tempDbUrl } from "./helpers";

const url = tempDbUrl("api");
process.env.DATABASE_URL = url;

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;
let runs: { POST: Handler; GET: Handler };
let run: { GET: Handler };
let events: { POST: Handler };
let abort: { POST: Handler };
let decision: { POST: Handler };
let reviews: { GET: Handler };
let workflow: { GET: Handler };
let transitions: { GET: Handler };

const ctx = (params: Record<string, string> = {}) => ({ params: Promise.resolve(params) });
const post = (path: string, body: string | undefined, type = "application/json") =>
  new Request(`http://test${path}`, { method: "POST", body, headers: type ? { "content-type": type } : {} });
const get = (path: string) => new Request(`http://test${path}`);

beforeAll(async () => {
  await migrateDatabase(url);
  runs = (await import("../app/api/runs/route")) as never;
  run = (await import("../app/api/runs/[id]/route")) as never;
  events = (await import("../app/api/runs/[id]/events/route")) as never;
  abort = (await import("../app/api/runs/[id]/abort/route")) as never;
  decision = (await import("../app/api/reviews/[id]/decision/route")) as never;
  reviews = (await import("../app/api/reviews/route")) as never;
  workflow = (await import("../app/api/workflows/[id]/route")) as never;
  transitions = (await import("../app/api/runs/[id]/transitions/route")) as never;
});

afterAll(async () => {
  const { getRuntime } = await import("../lib/runtime");
  await (await getRuntime()).close();
});

async function expectError(res: Response, status: number, text?: RegExp) {
  expect(res.status).toBe(status);
  const body = await res.json();
  expect(typeof body.error).toBe("string");
  if (text) expect(body.error).toMatch(text);
}

describe("REST API validation", () => {
  it("POST /api/runs: malformed JSON, wrong types, unknown fields, unknown workflow, bad input → 4xx", async () => {
    await expectError(await runs.POST(post("/api/runs", "{nope"), ctx()), 400, /malformed JSON/);
    await expectError(await runs.POST(post("/api/runs", ""), ctx()), 400, /empty/);
    await expectError(await runs.POST(post("/api/runs", "[]"), ctx()), 422);
    await expectError(await runs.POST(post("/api/runs", "null"), ctx()), 422);
    await expectError(await runs.POST(post("/api/runs", '{"workflow":42}'), ctx()), 422, /workflow/);
    await expectError(await runs.POST(post("/api/runs", '{"workflow":"loop","extra":1}'), ctx()), 422);
    await expectError(await runs.POST(post("/api/runs", '{"workflow":"no-such"}'), ctx()), 422, /unknown workflow/);
    await expectError(await runs.POST(post("/api/runs", '{"workflow":"loop","input":{"request":5}}'), ctx()), 422, /request/);
    await expectError(await runs.POST(post("/api/runs", '{"workflow":"loop","input":{"request":"x","config":{"fetchTimeoutMs":-1}}}'), ctx()), 422);
    await expectError(await runs.POST(post("/api/runs", "workflow=loop", "application/x-www-form-urlencoded"), ctx()), 415);
    await expectError(await runs.POST(post("/api/runs", JSON.stringify({ workflow: "loop", input: { request: "x".repeat(1_100_000) } })), ctx()), 413);
    const list = await (await runs.GET(get("/api/runs"), ctx())).json();
    expect(list.total).toBe(0);
  });

  it("GET /api/runs: bad query strings → 422", async () => {
    await expectError(await runs.GET(get("/api/runs?status=sleeping"), ctx()), 422);
    await expectError(await runs.GET(get("/api/runs?limit=-3"), ctx()), 422);
    await expectError(await runs.GET(get("/api/runs?limit=abc"), ctx()), 422);
    await expectError(await runs.GET(get("/api/runs?bogus=1"), ctx()), 422);
    expect((await runs.GET(get("/api/runs?status=waiting,running&limit=5"), ctx())).status).toBe(200);
  });

  it("a run's endpoints: 201 on create; unknown runs 404; bad events 422; not-accepted events 409", async () => {
    const created = await runs.POST(post("/api/runs", JSON.stringify({ workflow: "loop", input: {} })), ctx());
    expect(created.status).toBe(201);
    const { id, state } = await created.json();
    expect(state).toEqual(["IDLE"]);
    await expectError(await run.GET(get("/api/runs/missing"), ctx({ id: "missing" })), 404);
    await expectError(await run.GET(get("/api/runs/../../etc"), ctx({ id: "../../etc" })), 422);
    await expectError(await events.POST(post(`/api/runs/${id}/events`, "{}"), ctx({ id })), 422, /type/);
    await expectError(await events.POST(post(`/api/runs/${id}/events`, '{"type":"REQUEST"}'), ctx({ id })), 422, /request/);
    await expectError(await events.POST(post(`/api/runs/${id}/events`, '{"type":"REQUEST","request":""}'), ctx({ id })), 422);
    await expectError(await events.POST(post(`/api/runs/${id}/events`, '{"type":"xstate.done.actor.fetch","output":{}}'), ctx({ id })), 422, /not one/);
    await expectError(await events.POST(post(`/api/runs/${id}/events`, '{"type":"APPROVE"}'), ctx({ id })), 409, /not accepted/);
    await expectError(await events.POST(post(`/api/runs/missing/events`, '{"type":"REQUEST","request":"hello there world"}'), ctx({ id: "missing" })), 404);
    await expectError(await abort.POST(post(`/api/runs/${id}/abort`, '{"reason":5}'), ctx({ id })), 422);
    await expectError(await transitions.GET(get(`/api/runs/${id}/transitions?after=x`), ctx({ id })), 422);
    const ts = await (await transitions.GET(get(`/api/runs/${id}/transitions`), ctx({ id }))).json();
    expect(ts).toEqual([expect.objectContaining({ seq: 1, from: "", to: "IDLE", event: "xstate.init", reason: "run started" })]);
    expect(Object.keys(ts[0]).sort()).toEqual(["at", "durationMs", "event", "from", "reason", "seq", "to"]);
  });

  it("review decisions: 422 malformed, 404 unknown, 200 once, then 409", async () => {
    const created = await (await runs.POST(post("/api/runs", JSON.stringify({ workflow: "loop", input: { request: "Summarise the release notes" } })), ctx())).json();
    let pending: { id: string; runId: string; kind: string; prompt: string; payload: unknown; createdAt: string }[] = [];
    await expect
      .poll(async () => (pending = (await (await reviews.GET(get("/api/reviews?status=pending"), ctx())).json()).filter((r: { runId: string }) => r.runId === created.id)).length, { timeout: 30_000 })
      .toBe(1);
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({ runId: created.id, kind: "result_review" });
    const rid = pending[0].id;
    await expectError(await reviews.GET(get("/api/reviews?status=maybe"), ctx()), 422);
    await expectError(await decision.POST(post(`/api/reviews/${rid}/decision`, "{"), ctx({ id: rid })), 400);
    await expectError(await decision.POST(post(`/api/reviews/${rid}/decision`, "{}"), ctx({ id: rid })), 422);
    await expectError(await decision.POST(post(`/api/reviews/${rid}/decision`, '{"decision":"approve","feedback":7}'), ctx({ id: rid })), 422);
    await expectError(await decision.POST(post(`/api/reviews/${rid}/decision`, '{"decision":"maybe"}'), ctx({ id: rid })), 422, /one of/);
    await expectError(await decision.POST(post(`/api/reviews/nope/decision`, '{"decision":"approve"}'), ctx({ id: "nope" })), 404);
    const ok = await decision.POST(post(`/api/reviews/${rid}/decision`, '{"decision":"approve","reviewer":"kim","feedback":"good"}'), ctx({ id: rid }));
    expect(ok.status).toBe(200);
    expect((await ok.json()).run.state).toEqual(["IDLE"]);
    await expectError(await decision.POST(post(`/api/reviews/${rid}/decision`, '{"decision":"reject"}'), ctx({ id: rid })), 409, /already decided/);
  });

  it("GET /api/workflows/{id} describes the machine; unknown → 404", async () => {
    const res = await workflow.GET(get("/api/workflows/loop"), ctx({ id: "loop" }));
    const body = await res.json();
    expect(body.states.map((s: { name: string }) => s.name)).toEqual(["IDLE", "FETCH", "WORK", "ERROR", "REVIEW"]);
    expect(body.states.find((s: { name: string }) => s.name === "REVIEW").human).toBe(true);
    expect(body.transitions).toContainEqual(expect.objectContaining({ source: "FETCH", target: "WORK", delay: "fetchTimeout", delayMs: 5000 }));
    expect(body.transitions).toContainEqual(expect.objectContaining({ source: "WORK", target: "ERROR", guard: "modelFailure" }));
    await expectError(await workflow.GET(get("/api/workflows/nope"), ctx({ id: "nope" })), 404);
  });
});
