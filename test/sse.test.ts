// Live updates: a watcher of a run's SSE stream is pushed each committed transition (it listens
// on the engine's bus), and the stream ends cleanly when the watcher goes away.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { ManualClock } from "../lib/engine/clock";
import type { Runtime } from "../lib/runtime";
import { loopRuntime } from "./helpers";

// the routes' runtime: one on a simulated clock, with the fixture workflows
const KEY = Symbol.for("switchyard.runtime");
let rt: Runtime & { clock: ManualClock };
const getRuntime = async () => rt;
type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;
let stream: { GET: Handler };
let events: { POST: Handler };
let runs: { POST: Handler };

beforeAll(async () => {
  rt = await loopRuntime();
  (globalThis as Record<symbol, unknown>)[KEY] = Promise.resolve(rt);
  stream = (await import("../app/api/runs/[id]/stream/route")) as never;
  events = (await import("../app/api/runs/[id]/events/route")) as never;
  runs = (await import("../app/api/runs/route")) as never;
});
afterAll(async () => {
  delete (globalThis as Record<symbol, unknown>)[KEY];
  await rt.close();
});

async function* sse(res: Response) {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += decoder.decode(value, { stream: true });
    let i;
    while ((i = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (event && data) yield { event, data: JSON.parse(data) };
    }
  }
}

describe("run stream (SSE)", () => {
  it("delivers each committed transition to a watcher (pushed from the engine's bus)", async () => {
    const created = await (await runs.POST(new Request("http://t/api/runs", { method: "POST", headers: { "content-type": "application/json" }, body: '{"workflow":"loop","input":{}}' }), { params: Promise.resolve({}) })).json();
    const listeners = (await getRuntime()).engine.bus.size; // the runtime's own (hooks, tasks)
    const abort = new AbortController();
    const res = await stream.GET(new Request(`http://t/api/runs/${created.id}/stream`, { signal: abort.signal }), { params: Promise.resolve({ id: created.id }) });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    expect(res.headers.get("cache-control")).toContain("no-transform");
    const it = sse(res);
    const hello = (await it.next()).value!;
    expect(hello.event).toBe("hello");
    expect(hello.data.run.state).toEqual(["IDLE"]);

    const post = await events.POST(
      new Request(`http://t/api/runs/${created.id}/events`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"type":"REQUEST","request":"Summarise the release notes"}' }),
      { params: Promise.resolve({ id: created.id }) },
    );
    expect(post.status).toBe(200);
    const seen: string[] = [];
    for await (const m of it) {
      if (m.event !== "run") continue;
      seen.push(...m.data.transitions.map((t: { to: string }) => t.to));
      if (m.data.run.state[0] === "REVIEW") break;
    }
    expect(seen).toEqual(expect.arrayContaining(["FETCH", "WORK", "REVIEW"]));
    expect((await getRuntime()).engine.bus.size).toBe(listeners + 1);
    abort.abort();
    // only the runtime's own listeners are left: the stream's subscription is gone
    await vi.waitFor(async () => expect((await getRuntime()).engine.bus.size).toBe(listeners));
  });

  it("answers 404 for an unknown run before opening a stream", async () => {
    const res = await stream.GET(new Request("http://t/api/runs/nope/stream"), { params: Promise.resolve({ id: "nope" }) });
    expect(res.status).toBe(404);
  });

  it("carries the state hooks of each move as hook events: on_exit, on_transition, on_enter", async () => {
    const created = await (await runs.POST(new Request("http://t/api/runs", { method: "POST", headers: { "content-type": "application/json" }, body: '{"workflow":"loop","input":{}}' }), { params: Promise.resolve({}) })).json();
    const abort = new AbortController();
    const res = await stream.GET(new Request(`http://t/api/runs/${created.id}/stream`, { signal: abort.signal }), { params: Promise.resolve({ id: created.id }) });
    const it = sse(res);
    expect((await it.next()).value!.event).toBe("hello");
    const post = await events.POST(
      new Request(`http://t/api/runs/${created.id}/events`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"type":"REQUEST","request":"Summarise the changelog"}' }),
      { params: Promise.resolve({ id: created.id }) },
    );
    expect(post.status).toBe(200);
    const hooks: { hook: string; stage: string | null; from: string[]; to: string[] }[] = [];
    for await (const m of it) {
      if (m.event === "hook") hooks.push(m.data);
      if (hooks.length === 3) break;
    }
    abort.abort();
    expect(hooks.map((h) => `${h.hook}:${h.stage ?? ""}`)).toEqual(["on_exit:IDLE", "on_transition:", "on_enter:FETCH"]);
    expect(hooks[1]).toMatchObject({ from: ["IDLE"], to: ["FETCH"], runId: created.id, workflow: "loop" });
  });
});
