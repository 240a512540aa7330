// An http step reads its reply as a stream and gives up past `http.max_bytes`
// (default 1 MB, never more than SWITCHYARD_HTTP_MAX_BYTES, default 10 MB): the step fails with
// category RESOURCE_LIMIT and is not retried. An attempt with no answer within 30 s is a NETWORK
// error that is retried, then takes on_error. Against a local HTTP server; the 30 s pass on the
// runtime's simulated clock, each step taken once the server has seen the request.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveUserWorkflow } from "../lib/flows/store";
import { checkFlowSource } from "../lib/flows/validate";
import { HTTP_DEFAULT_MAX_BYTES, HTTP_MAX_BYTES_CAP, httpMaxBytes } from "../lib/steps/http-limits";
import type { Runtime } from "../lib/runtime";
import type { ManualClock } from "../lib/engine/clock";
import type { RunView } from "../lib/engine/views";
import { flush, testRuntime } from "./helpers";

const flow = (id: string, http: string) => `id: ${id}
initial_stage: CALL
stages: [CALL, DONE, FAILED]
transitions: { CALL: [DONE, FAILED], DONE: [], FAILED: [] }
steps:
  CALL:
    http: { url: "{{input.url}}", method: GET${http} }
    retry: { max: 1, backoff_s: 1 }
    next: DONE
    on_error: FAILED
`;

let server: http.Server;
let base = "";
const requests: string[] = [];
const hanging: http.ServerResponse[] = [];
/** resolves when the server has seen `n` requests */
let waiters: { n: number; resolve: () => void }[] = [];
const seenRequests = (n: number) => new Promise<void>((resolve) => (requests.length >= n ? resolve() : waiters.push({ n, resolve })));

beforeAll(async () => {
  server = http.createServer((req, res) => {
    requests.push(req.url ?? "");
    for (const w of waiters.filter((w) => requests.length >= w.n)) w.resolve();
    waiters = waiters.filter((w) => requests.length < w.n);
    const url = new URL(req.url ?? "/", "http://x");
    res.on("error", () => {});
    if (url.pathname === "/hang") return void hanging.push(res);
    const n = Number(url.searchParams.get("n") ?? 0);
    // /declared says its length up front; /big streams chunks without one
    res.writeHead(200, { "content-type": "text/plain", ...(url.pathname === "/declared" ? { "content-length": String(n) } : {}) });
    const chunk = Buffer.alloc(64 * 1024, "a");
    let left = n;
    const more = () => {
      while (left > 0) {
        const part = chunk.subarray(0, Math.min(left, chunk.length));
        left -= part.length;
        if (!res.write(part)) return void res.once("drain", more);
      }
      res.end();
    };
    more();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const r of hanging) r.destroy();
  await new Promise((r) => server.close(r));
});

type Steps = Record<string, { output?: unknown; error?: { message: string; category?: string }; attempts?: number }>;
const stepsOf = (r: RunView) => (r.context as { steps: Steps }).steps;
const settled = (r: RunView) => r.state.includes("DONE") || r.state.includes("FAILED");

describe("http replies: capped", () => {
  let rt: Runtime & { clock: ManualClock };
  beforeAll(async () => {
    rt = await testRuntime();
    await saveUserWorkflow(rt.db, "yaml", flow("reply-default", ""));
    await saveUserWorkflow(rt.db, "yaml", flow("reply-small", ", max_bytes: 100"));
  });
  afterAll(async () => rt?.close());

  const run = async (workflow: string, path: string) => {
    const before = requests.length;
    const { run } = await rt.engine.start(workflow, { url: `${base}${path}` });
    const end = await rt.engine.waitFor(run.id, settled, 20_000);
    return { end, call: stepsOf(end).CALL!, requests: requests.length - before };
  };

  it("reads a reply of exactly 1 MB by default, and fails one byte more with RESOURCE_LIMIT, not retried", async () => {
    const ok = await run("reply-default", `/big?n=${HTTP_DEFAULT_MAX_BYTES}`);
    expect(ok.end.state).toEqual(["DONE"]);
    expect(String(ok.call.output).length).toBe(HTTP_DEFAULT_MAX_BYTES);
    const big = await run("reply-default", `/big?n=${HTTP_DEFAULT_MAX_BYTES + 1}`);
    expect(big.end.state).toEqual(["FAILED"]);
    expect(big.call.error).toMatchObject({ category: "RESOURCE_LIMIT", message: `GET ${base}/big?n=${HTTP_DEFAULT_MAX_BYTES + 1}: the reply is larger than ${HTTP_DEFAULT_MAX_BYTES} bytes (http.max_bytes; no step reads more than SWITCHYARD_HTTP_MAX_BYTES)` });
    // retry: { max: 1 } is not used on a reply too large
    expect(big.requests).toBe(1);
    expect(big.call.output).toBeUndefined();
  });

  it("http.max_bytes sets the limit, streamed or declared up front", async () => {
    expect((await run("reply-small", "/big?n=100")).end.state).toEqual(["DONE"]);
    for (const path of ["/big?n=101", "/declared?n=5000000"]) {
      const r = await run("reply-small", path);
      expect(r.end.state).toEqual(["FAILED"]);
      expect(r.call.error).toMatchObject({ category: "RESOURCE_LIMIT" });
      expect(r.call.error!.message).toContain("the reply is larger than 100 bytes");
    }
  });

  it("SWITCHYARD_HTTP_MAX_BYTES caps every step, and bounds max_bytes when a definition is saved", async () => {
    const capped = await testRuntime({ env: { SWITCHYARD_HTTP_MAX_BYTES: "50" } as unknown as NodeJS.ProcessEnv });
    try {
      const { run } = await capped.engine.start("reply-small", { url: `${base}/big?n=60` });
      const end = await capped.engine.waitFor(run.id, settled, 20_000);
      expect(stepsOf(end).CALL!.error!.message).toContain("the reply is larger than 50 bytes");
    } finally {
      await capped.close();
    }
    expect(httpMaxBytes({})).toBe(HTTP_MAX_BYTES_CAP);
    expect(() => httpMaxBytes({ SWITCHYARD_HTTP_MAX_BYTES: "10MB" })).toThrow(/SWITCHYARD_HTTP_MAX_BYTES must be a whole number of bytes/);
    const over = checkFlowSource("yaml", flow("reply-huge", `, max_bytes: ${HTTP_MAX_BYTES_CAP + 1}`));
    expect(!over.ok && over.issues.map((i) => i.message)).toEqual([`steps.CALL.http.max_bytes: ${HTTP_MAX_BYTES_CAP + 1} is more than this server reads from a reply: at most ${HTTP_MAX_BYTES_CAP} bytes (SWITCHYARD_HTTP_MAX_BYTES)`]);
  });
});

describe("http replies: 30 s timeout", () => {
  let rt: Runtime & { clock: ManualClock };
  beforeAll(async () => {
    rt = await testRuntime();
    await saveUserWorkflow(rt.db, "yaml", flow("reply-slow", ""));
  });
  afterAll(async () => rt?.close());

  it("an attempt with no answer is a NETWORK error after 30 s: retried, then on_error", async () => {
    const before = requests.length;
    const progress: string[] = [];
    let retrying: () => void = () => {};
    const retried = new Promise<void>((r) => (retrying = r));
    const { run } = await rt.engine.start("reply-slow", { url: `${base}/hang` });
    rt.engine.bus.subscribe(run.id, (m) => {
      if (m.type !== "progress") return;
      progress.push(m.message);
      if (m.message.startsWith("attempt 1 failed")) retrying();
    });
    await seenRequests(before + 1);
    rt.clock.advance(29_999);
    await flush(10);
    expect((await rt.engine.getRun(run.id)).state).toEqual(["CALL"]);
    rt.clock.advance(1);
    await retried;
    expect(progress[0]).toBe(`attempt 1 failed (GET ${base}/hang: no answer within 30 s); retrying`);
    // backoff_s: 1, then the second attempt
    rt.clock.advance(1_000);
    await seenRequests(before + 2);
    rt.clock.advance(30_000);
    const end = await rt.engine.waitFor(run.id, settled, 20_000);
    expect(end.state).toEqual(["FAILED"]);
    expect(stepsOf(end).CALL!.error).toEqual({ name: "StepError", category: "NETWORK", message: `GET ${base}/hang: no answer within 30 s (after 2 attempts)` });
    expect(requests.length - before).toBe(2);
  });
});
