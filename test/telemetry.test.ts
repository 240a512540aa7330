// OpenTelemetry traces (lib/telemetry) against a local OTLP/HTTP receiver: a run of a user workflow
// with an llm step (an OpenAI-compatible endpoint), an http step (a local service that reads the
// traceparent it is sent) and an external step (done by @switchyard/client's worker over the API)
// is one trace: the run's span, its steps' spans under it, the model call's GenAI span and the http
// call's client span under their steps, the claim's traceparent naming the external step's span and
// the complete request's span continuing it. With the variables unset nothing of the SDK is loaded.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Switchyard } from "@switchyard/client";
import { saveUserWorkflow } from "../lib/flows/store";
import { ManualClock } from "../lib/engine/clock";
import type { Runtime } from "../lib/runtime";
import { claimTraceparent, flushTelemetry, routeTemplate, startTelemetry, stopTelemetry, telemetryEnabled, telemetryOn } from "../lib/telemetry";
import { runSpanIdOf, stepSpanIdOf, traceIdOf } from "../lib/telemetry/ids";
import { testRuntime } from "./helpers";
import { serveApp, type AppServer } from "./support/app-server";
import { fakeModel, useFakeOpenAi } from "./support/fake-openai";

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: OtlpValue }[];
  links?: { traceId: string; spanId: string }[];
  status?: { code?: number; message?: string };
}
interface Span extends Omit<OtlpSpan, "attributes"> {
  attrs: Record<string, string | number | boolean>;
  service: string;
}

const SPAN_KIND = { INTERNAL: 1, SERVER: 2, CLIENT: 3 };

/** An OTLP/HTTP receiver (JSON encoding, what @opentelemetry/exporter-trace-otlp-http sends) that keeps every span. */
async function otlpReceiver() {
  const spans: Span[] = [];
  const contentTypes: string[] = [];
  const waiters: (() => void)[] = [];
  const value = (v: OtlpValue) => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.boolValue ?? v.doubleValue ?? "";
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/traces") return void res.writeHead(404).end();
      contentTypes.push(String(req.headers["content-type"]));
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { resourceSpans: { resource: { attributes: { key: string; value: OtlpValue }[] }; scopeSpans: { spans: OtlpSpan[] }[] }[] };
      for (const rs of body.resourceSpans) {
        const service = String(value(rs.resource.attributes.find((a) => a.key === "service.name")!.value));
        for (const ss of rs.scopeSpans) for (const s of ss.spans) spans.push({ ...s, attrs: Object.fromEntries((s.attributes ?? []).map((a) => [a.key, value(a.value)])), service });
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
      for (const w of waiters.splice(0)) w();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    spans,
    contentTypes,
    /** flush the exporter until `test` holds for the spans received */
    async until(test: (spans: Span[]) => boolean, what: string) {
      for (let i = 0; i < 100; i++) {
        await flushTelemetry();
        if (test(spans)) return;
        await new Promise<void>((r) => (waiters.push(r), setTimeout(r, 100)));
      }
      throw new Error(`the receiver never got ${what}; it has ${spans.map((s) => s.name).join(", ")}`);
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The service an http step calls: it answers with what it was sent, and keeps the traceparent headers. */
async function service() {
  const seen: { traceparent?: string; idempotencyKey?: string }[] = [];
  const server = http.createServer((req, res) => {
    seen.push({ traceparent: req.headers.traceparent as string | undefined, idempotencyKey: req.headers["idempotency-key"] as string | undefined });
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ticket: "T-1", priority: "high" })));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const flow = (serviceUrl: string) => `id: traced-triage
initial_stage: SUMMARISE
stages: [SUMMARISE, LOOKUP, ROUTE, DONE]
transitions: { SUMMARISE: [LOOKUP], LOOKUP: [ROUTE], ROUTE: [DONE], DONE: [] }
steps:
  SUMMARISE:
    llm: { prompt: "Summarise the ticket: {{input.subject}}" }
    next: LOOKUP
  LOOKUP:
    http: { url: "${serviceUrl}/tickets/{{input.id}}", method: POST, body: { subject: "{{input.subject}}" } }
    next: ROUTE
  ROUTE:
    external: { queue: traced-q }
    next: DONE
`;

const fake = useFakeOpenAi();
let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
let svc: Awaited<ReturnType<typeof service>>;
let rt: Runtime;
let app: AppServer;
const saved = { ...process.env };

beforeAll(async () => {
  receiver = await otlpReceiver();
  svc = await service();
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
  process.env.OTEL_SERVICE_NAME = "switchyard-test";
  expect(await startTelemetry()).toBe(true);
  rt = await testRuntime({ model: fakeModel(fake), clock: new ManualClock(Date.now()) });
  await saveUserWorkflow(rt.db, "yaml", flow(svc.url));
  app = await serveApp(rt);
});

afterAll(async () => {
  await app?.close();
  await rt?.close();
  await stopTelemetry();
  await receiver?.close();
  await svc?.close();
  for (const k of ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_SERVICE_NAME"]) if (saved[k] === undefined) delete process.env[k];
});

describe("traces over OTLP/HTTP", () => {
  it("a run is one trace: its span, its steps' spans, the GenAI and http client spans, the claim's traceparent and the worker's complete", async () => {
    fake.setDefault({ reply: "A customer cannot log in since the update." });
    const client = new Switchyard({ baseUrl: app.url });
    const incoming = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const started = await client.request<{ id: string }>("POST", "/api/runs", { workflow: "traced-triage", input: { id: "T-1", subject: "login fails" } }, { traceparent: incoming });
    const runId = started.body.id;

    // the worker gets the external step's traceparent and sends it back on complete
    const handed: (string | null)[] = [];
    await client.work("traced-q", (_input, ctx) => (handed.push(ctx.traceparent), { queue: "billing" }), { worker: "w1", maxTasks: 1, waitMs: 20_000 });
    const done = await client.waitForRun(runId, { timeoutMs: 30_000 });
    expect(done.status).toBe("completed");

    const traceId = traceIdOf(runId);
    const runSpanId = runSpanIdOf(runId);
    await receiver.until((s) => s.some((x) => x.spanId === runSpanId) && s.some((x) => x.name === "POST /api/tasks/{id}/complete"), "the run's span and the complete request's");
    expect(receiver.contentTypes.every((t) => t.startsWith("application/json"))).toBe(true);
    const spans = receiver.spans;
    expect(new Set(spans.map((s) => s.service))).toEqual(new Set(["switchyard-test"]));

    // the API request that started the run: a server span in the caller's trace, naming the run
    const post = spans.find((s) => s.name === "POST /api/runs")!;
    expect(post).toMatchObject({ kind: SPAN_KIND.SERVER, traceId: "0af7651916cd43dd8448eb211c80319c", parentSpanId: "b7ad6b7169203331" });
    expect(post.attrs).toMatchObject({ "http.request.method": "POST", "http.route": "/api/runs", "http.response.status_code": 201, "switchyard.run_id": runId });
    // a GET of the run is named by its route, not its id
    expect(spans.find((s) => s.name === "GET /api/runs/{id}")?.attrs).toMatchObject({ "http.route": "/api/runs/{id}", "switchyard.run_id": runId });

    // the run's trace: its own span at the root, the start linked to the request
    const inRun = spans.filter((s) => s.traceId === traceId);
    const root = inRun.find((s) => s.spanId === runSpanId)!;
    expect(root.name).toBe("run traced-triage");
    expect(root.parentSpanId || undefined).toBeUndefined();
    expect(root.attrs).toMatchObject({ "switchyard.run_id": runId, "switchyard.workflow": "traced-triage", "switchyard.outcome": "completed" });
    const start = inRun.find((s) => s.name === "start traced-triage")!;
    expect(start.parentSpanId).toBe(runSpanId);
    expect(start.links).toEqual([expect.objectContaining({ traceId: post.traceId, spanId: post.spanId })]);

    // one span per step, each a child of the run's span
    const steps = inRun.filter((s) => s.name.startsWith("step "));
    expect(steps.map((s) => s.name).sort()).toEqual(["step LOOKUP", "step ROUTE", "step SUMMARISE"]);
    for (const s of steps) {
      expect(s.parentSpanId).toBe(runSpanId);
      expect(s.attrs).toMatchObject({ "switchyard.run_id": runId, "switchyard.outcome": "done", "switchyard.attempt": 1 });
      expect(s.spanId).toBe(stepSpanIdOf(String(s.attrs["switchyard.invocation_key"])));
      expect(String(s.attrs["switchyard.invocation_key"])).toMatch(new RegExp(`^${runId}:`));
    }
    const step = (state: string) => steps.find((s) => s.attrs["switchyard.state"] === state)!;
    expect(step("SUMMARISE").attrs["switchyard.effect"]).toBe("step.llm");
    expect(step("ROUTE").attrs["switchyard.effect"]).toBe("step.external");

    // the model call: a GenAI client span under its step, with the model and the tokens
    const chat = inRun.find((s) => s.name === "chat fake-1")!;
    expect(chat).toMatchObject({ kind: SPAN_KIND.CLIENT, parentSpanId: step("SUMMARISE").spanId });
    expect(chat.attrs).toMatchObject({ "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "fake-1", "gen_ai.response.model": "fake-1", "switchyard.state": "SUMMARISE" });
    expect(chat.attrs["gen_ai.usage.input_tokens"]).toBeGreaterThan(0);
    expect(chat.attrs["gen_ai.usage.output_tokens"]).toBeGreaterThan(0);

    // the http step: a client span under its step, whose traceparent the service received
    const call = inRun.find((s) => s.kind === SPAN_KIND.CLIENT && s.attrs["http.request.method"] === "POST")!;
    expect(call.parentSpanId).toBe(step("LOOKUP").spanId);
    expect(call.attrs).toMatchObject({ "url.full": `${svc.url}/tickets/T-1`, "http.response.status_code": 200, "server.address": "127.0.0.1" });
    expect(svc.seen).toEqual([{ traceparent: `00-${traceId}-${call.spanId}-01`, idempotencyKey: step("LOOKUP").attrs["switchyard.invocation_key"] }]);

    // the external step: the claim handed its span's traceparent to the handler; the complete request continued it
    expect(handed).toEqual([`00-${traceId}-${step("ROUTE").spanId}-01`]);
    const complete = spans.find((s) => s.name === "POST /api/tasks/{id}/complete")!;
    expect(complete).toMatchObject({ traceId, parentSpanId: step("ROUTE").spanId });
    const claim = spans.find((s) => s.name === "POST /api/tasks/claim")!;
    expect(claim.attrs["http.response.status_code"]).toBe(200);
  });

  it("the Python module hands the claim's traceparent to its handler and sends it back with complete", async () => {
    await saveUserWorkflow(rt.db, "yaml", `id: traced-py\ninitial_stage: WORK\nstages: [WORK, DONE]\ntransitions: { WORK: [DONE], DONE: [] }\nsteps:\n  WORK:\n    external: { queue: traced-py }\n    next: DONE\n`);
    const { run } = await rt.engine.start("traced-py", {});
    const script = `import json, sys, switchyard
seen = []
def handle(task):
    seen.append(task.traceparent)
    return {"ok": True}
switchyard.Switchyard(sys.argv[1]).work("traced-py", handle, concurrency=1, worker="py-1", wait_ms=20000, max_tasks=1, handle_signals=False)
print(json.dumps(seen))`;
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn("python3", ["-c", script, app.url], { env: { ...process.env, PYTHONPATH: path.resolve(import.meta.dirname, "../clients/python") } });
      let text = "";
      child.stdout.on("data", (c: Buffer) => (text += c.toString()));
      child.stderr.on("data", (c: Buffer) => (text += c.toString()));
      child.on("error", reject);
      child.on("close", (code) => (code === 0 ? resolve(text) : reject(new Error(`python exited ${code}: ${text}`))));
    });
    expect((await rt.engine.waitFor(run.id, (r) => r.status === "completed")).status).toBe("completed");
    const traceId = traceIdOf(run.id);
    await receiver.until((s) => s.some((x) => x.traceId === traceId && x.name === "POST /api/tasks/{id}/complete"), "the Python worker's complete");
    const step = receiver.spans.find((s) => s.traceId === traceId && s.name === "step WORK")!;
    expect(JSON.parse(out.trim().split("\n").at(-1)!)).toEqual([`00-${traceId}-${step.spanId}-01`]);
    const complete = receiver.spans.find((s) => s.traceId === traceId && s.name === "POST /api/tasks/{id}/complete")!;
    expect(complete.parentSpanId).toBe(step.spanId);
  });

  it("a failed step's span is an error with its outcome, and the run's span says the run failed", async () => {
    const failing = `id: traced-fail
initial_stage: CALL
stages: [CALL, DONE]
transitions: { CALL: [DONE], DONE: [] }
steps:
  CALL:
    http: { url: "${svc.url.replace(/:\d+$/, ":1")}/nowhere", method: GET }
    next: DONE
`;
    await saveUserWorkflow(rt.db, "yaml", failing);
    const { run } = await rt.engine.start("traced-fail", {});
    const failed = await rt.engine.waitFor(run.id, (r) => r.status === "failed");
    expect(failed.status).toBe("failed");
    const traceId = traceIdOf(run.id);
    await receiver.until((s) => s.some((x) => x.spanId === runSpanIdOf(run.id)), "the failed run's span");
    const inRun = receiver.spans.filter((s) => s.traceId === traceId);
    const step = inRun.find((s) => s.name === "step CALL")!;
    expect(step.attrs).toMatchObject({ "switchyard.outcome": "error", "error.type": "NETWORK" });
    expect(step.status?.code).toBe(2);
    const client = inRun.find((s) => s.kind === SPAN_KIND.CLIENT)!;
    expect(client.parentSpanId).toBe(step.spanId);
    expect(client.status?.code).toBe(2);
    const root = inRun.find((s) => s.spanId === runSpanIdOf(run.id))!;
    expect(root.attrs["switchyard.outcome"]).toBe("failed");
    expect(root.status?.code).toBe(2);
  });
});

describe("with the variables unset", () => {
  it("is off: a process without them loads no SDK, and its claims carry traceparent null", () => {
    expect(telemetryEnabled({})).toBe(false);
    expect(telemetryEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_SDK_DISABLED: "true" })).toBe(false);
    expect(telemetryEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_TRACES_EXPORTER: "none" })).toBe(false);
    expect(telemetryEnabled({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/v1/traces" })).toBe(true);
    const facade = path.resolve(import.meta.dirname, "../lib/telemetry/index.ts");
    const script = `const t = await import(${JSON.stringify(facade)});
const on = await t.startTelemetry();
const slot = globalThis[Symbol.for("switchyard.telemetry")];
console.log(JSON.stringify({ on, loading: slot?.starting !== undefined, registered: globalThis[Symbol.for("opentelemetry.js.api.1")] !== undefined, claim: t.claimTraceparent("r", "r:c:1") }));`;
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("OTEL_"))) as NodeJS.ProcessEnv;
    const out = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { env, encoding: "utf8" });
    expect(JSON.parse(out.trim())).toEqual({ on: false, loading: false, registered: false, claim: null });
    // this process has them set: its claims name the step's span
    expect(telemetryOn()).toBe(true);
    expect(claimTraceparent("r", "r:c:1")).toBe(`00-${traceIdOf("r")}-${stepSpanIdOf("r:c:1")}-01`);
  });

  it("no module outside lib/telemetry/sdk.ts imports OpenTelemetry, and lib/telemetry/index.ts loads it only in startTelemetry", () => {
    const root = path.resolve(import.meta.dirname, "..");
    const files = ["lib", "app", "components", "workflows", "scripts"].flatMap((d) =>
      (fs.readdirSync(path.join(root, d), { recursive: true, encoding: "utf8" }) as string[]).filter((f) => /\.(ts|tsx|mjs)$/.test(f)).map((f) => path.join(d, f)),
    );
    files.push("instrumentation.ts");
    const importers = files.filter((f) => /from\s+["']@opentelemetry\/|import\(\s*["']@opentelemetry\//.test(fs.readFileSync(path.join(root, f), "utf8")));
    expect(importers).toEqual([path.join("lib", "telemetry", "sdk.ts")]);
    const facade = fs.readFileSync(path.join(root, "lib/telemetry/index.ts"), "utf8");
    expect(facade.match(/import\(["']\.\/sdk["']\)/g)).toHaveLength(1);
    expect(facade).not.toMatch(/^import .*["']\.\/sdk["']/m);
  });

  it("names a request by its route", () => {
    expect(routeTemplate("/api/runs/abc", { id: "abc" })).toBe("/api/runs/{id}");
    expect(routeTemplate("/api/runs/abc/artifacts/logs/x.log", { id: "abc", path: ["logs", "x.log"] })).toBe("/api/runs/{id}/artifacts/{path}");
    expect(routeTemplate("/api/runs/abc/artifacts/logs%2Fx.log", { id: "abc", path: ["logs/x.log"] })).toBe("/api/runs/{id}/artifacts/{path}");
    expect(routeTemplate("/api/reviews/r%201/decision", { id: "r 1" })).toBe("/api/reviews/{id}/decision");
  });
});
