// Each step's resolved request is kept as context.steps.<STAGE>.request: the http
// request (method, URL, headers with "[secret]" for a header that names a secret, body,
// Idempotency-Key), the code a code step ran, the input an external worker got, an llm step's
// prompt. A step that ran again after a restart says so, with the same Idempotency-Key; an
// external task offered again after its lease ran out says so too. No secret value is stored.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { saveUserWorkflow } from "../lib/flows/store";
import type { RunView } from "../lib/engine/views";
import type { StepRecord } from "../lib/steps/compile";
import { runSteps } from "../lib/steps/run-steps";
import { findWorkflow } from "../lib/machines/registry";
import { flush, testRuntime } from "./helpers";
import type { Runtime } from "../lib/runtime";
import type { ManualClock } from "../lib/engine/clock";

const SECRET = "s3cr3t-value-never-stored";

const FLOW = `id: request-records
stages: [CALL, CODE, THINK, ASK, DONE, FAILED]
initial_stage: CALL
transitions: { CALL: [CODE, FAILED], CODE: [THINK], THINK: [ASK], ASK: [DONE], DONE: [], FAILED: [] }
steps:
  CALL:
    http:
      url: "{{input.url}}"
      method: POST
      headers: { Authorization: "Bearer {{secrets.REQ_TOKEN}}", X-Topic: "{{input.topic}}" }
      body: { topic: "{{input.topic}}", n: 2 }
    next: CODE
    on_error: FAILED
  CODE:
    code: { source: "({ doubled: steps.CALL.output.n * 2 })" }
    next: THINK
  THINK:
    llm: { prompt: "Summarise {{input.topic}} in one line" }
    next: ASK
  ASK:
    external: { queue: req-workers }
    next: DONE
`;

type Received = { key: string | undefined; auth: string | undefined; topic: string | undefined; body: unknown };
let received: Received[] = [];
let status = 200;
let hold = false;
const held: http.ServerResponse[] = [];
let server: http.Server;
let base = "";
const open: Runtime[] = [];

beforeAll(async () => {
  process.env.SWITCHYARD_SECRET_REQ_TOKEN = SECRET;
  server = http.createServer((req, res) => {
    let data = "";
    req.on("data", (c) => (data += c));
    req.on("end", () => {
      received.push({ key: req.headers["idempotency-key"] as string | undefined, auth: req.headers.authorization, topic: req.headers["x-topic"] as string | undefined, body: data ? JSON.parse(data) : null });
      if (hold) return void held.push(res);
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(status === 200 ? { n: 2, ok: true } : { error: "not found" }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  for (const rt of open.splice(0)) await rt.close().catch(() => {});
  received = [];
  status = 200;
  hold = false;
});
afterAll(async () => {
  delete process.env.SWITCHYARD_SECRET_REQ_TOKEN;
  for (const res of held) res.destroy();
  await new Promise((r) => server.close(r));
});

async function runtime(url?: string): Promise<Runtime & { clock: ManualClock }> {
  // the runtime reads secrets from its own environment (lib/steps/effects.ts)
  const rt = await testRuntime({ env: { SWITCHYARD_SECRET_REQ_TOKEN: SECRET } as unknown as NodeJS.ProcessEnv, ...(url ? { url } : {}) });
  open.push(rt);
  if (!url) await saveUserWorkflow(rt.db, "yaml", FLOW);
  return rt;
}

const steps = (r: RunView) => (r.context as { steps: Record<string, StepRecord> }).steps;
const at = (stage: string) => (r: RunView) => r.state.includes(stage);

describe("step requests", () => {
  it("http, code, llm and external steps keep what they sent; the secret is [secret], never stored", async () => {
    const rt = await runtime();
    const { run } = await rt.engine.start("request-records", { url: `${base}/hook`, topic: "durable timers" });
    await rt.engine.waitFor(run.id, at("ASK"));
    const task = (await rt.tasks.claim("req-workers", "w1"))!;
    await rt.tasks.complete(task.id, { answer: 42 }, { leaseToken: task.leaseToken });
    const done = await rt.engine.waitFor(run.id, (r) => r.status === "completed");
    const s = steps(done);
    // what the receiver got: the secret filled in, the key the record names
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ auth: `Bearer ${SECRET}`, topic: "durable timers", body: { topic: "durable timers", n: 2 } });
    expect(s.CALL!.request).toEqual({
      kind: "http",
      method: "POST",
      url: `${base}/hook`,
      headers: { Authorization: "[secret]", "X-Topic": "durable timers" },
      body: { topic: "durable timers", n: 2 },
      idempotencyKey: received[0]!.key,
    });
    expect(s.CALL!.again).toBeUndefined();
    expect(s.CODE!.request).toEqual({ kind: "code", language: "javascript", source: "({ doubled: steps.CALL.output.n * 2 })" });
    expect(s.CODE!.output).toEqual({ doubled: 4 });
    expect(s.THINK!.request).toEqual({ kind: "llm", prompt: "Summarise durable timers in one line" });
    expect(s.THINK!.prompt).toBe("Summarise durable timers in one line");
    // the external step's request is the input the worker claimed (earlier steps without their requests)
    expect(s.ASK!.request).toEqual({ kind: "external", queue: "req-workers", input: task.input });
    expect(JSON.stringify(task.input)).not.toContain('"request"');
    expect(s.ASK!).toMatchObject({ output: { answer: 42 }, attempts: 1 });
    // nothing the run keeps holds the secret
    const row = await rt.store.getRun(run.id);
    expect(JSON.stringify(row)).not.toContain(SECRET);
    const transitions = await rt.store.transitions(run.id, 0, 1000);
    expect(JSON.stringify(transitions)).not.toContain(SECRET);
    // the run page's view carries it
    const def = findWorkflow("request-records")!;
    const rows = runSteps({ flow: def.flow!, context: done.context, active: done.state, transitions: transitions.map((t) => ({ seq: t.seq, to: t.to[0] ?? "" })), reviews: [] });
    expect(rows.find((r) => r.stage === "CALL")!.request).toMatchObject({ kind: "http", headers: { Authorization: "[secret]" } });
  }, 60_000);

  it("a failed http step keeps its request with the error", async () => {
    const rt = await runtime();
    status = 404;
    const { run } = await rt.engine.start("request-records", { url: `${base}/missing`, topic: "x" });
    const failed = await rt.engine.waitFor(run.id, at("FAILED"));
    const rec = steps(failed).CALL!;
    expect(rec.error!.message).toContain("answered 404");
    expect(rec.request).toMatchObject({ kind: "http", method: "POST", url: `${base}/missing`, headers: { Authorization: "[secret]", "X-Topic": "x" }, idempotencyKey: received[0]!.key });
  });

  it("a step in flight when the process stopped runs again with the same Idempotency-Key, and says so", async () => {
    const first = await runtime();
    hold = true;
    const { run } = await first.engine.start("request-records", { url: `${base}/hook`, topic: "restarts" });
    await vi.waitFor(() => expect(received).toHaveLength(1));
    await first.close(); // the process goes away while the receiver has not answered
    hold = false;
    const second = await runtime(first.url);
    const moved = await second.engine.waitFor(run.id, (r) => !r.state.includes("CALL"));
    expect(received).toHaveLength(2);
    expect(received[1]!.key).toBe(received[0]!.key);
    expect(steps(moved).CALL).toMatchObject({ again: "restart", request: { idempotencyKey: received[0]!.key } });
  });

  it("an external task offered again after its lease ran out says so", async () => {
    const rt = await runtime();
    const { run } = await rt.engine.start("request-records", { url: `${base}/hook`, topic: "leases" });
    await rt.engine.waitFor(run.id, at("ASK"));
    const t1 = (await rt.tasks.claim("req-workers", "w1"))!;
    rt.clock.advance(t1.leaseMs + 1_000); // w1 died: its lease runs out
    const t2 = (await rt.tasks.claim("req-workers", "w2"))!;
    expect(t2).toMatchObject({ id: t1.id, attempt: 2 });
    await rt.tasks.complete(t2.id, { answer: "from w2" }, { leaseToken: t2.leaseToken });
    const done = await rt.engine.waitFor(run.id, (r) => r.status === "completed");
    await flush();
    expect(steps(done).ASK).toMatchObject({ again: "lease", attempts: 2, worker: "w2" });
  }, 60_000);
});
