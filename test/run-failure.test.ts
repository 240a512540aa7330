// Failures first: a failed run says why at the top of its page: the error message, the
// step that failed, its attempts, and "Retry from <step>": one click forks the run at the
// transition that entered that step, so the fork runs it again with the same input.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveUserWorkflow } from "../lib/flows/store";
import { runFailure } from "../lib/api/failure";
import { findWorkflow } from "../lib/machines/registry";
import { testRuntime } from "./helpers";
import type { Runtime } from "../lib/runtime";

const FLOW = `id: failing-call
stages: [PREP, CALL, DONE, BROKEN]
initial_stage: PREP
transitions: { PREP: [CALL], CALL: [DONE, BROKEN], DONE: [], BROKEN: [] }
steps:
  PREP:
    code: { source: "({ n: 1 })" }
    next: CALL
  CALL:
    http: { url: "{{input.url}}", body: { topic: "{{input.topic}}" } }
    retry: { max: 1, backoff_s: 0 }
    next: DONE
`;

let status = 500;
const bodies: unknown[] = [];
let server: http.Server;
let base = "";
let rt: Runtime;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let data = "";
    req.on("data", (c) => (data += c));
    req.on("end", () => {
      bodies.push(JSON.parse(data));
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(status === 200 ? { ok: true } : { error: "down" }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  rt = await testRuntime();
  await saveUserWorkflow(rt.db, "yaml", FLOW);
  await saveUserWorkflow(rt.db, "yaml", FLOW.replace("id: failing-call", "id: failing-to-stage").replace("    next: DONE\n", "    next: DONE\n    on_error: BROKEN\n"));
});
afterAll(async () => {
  await rt?.close();
  await new Promise((r) => server.close(r));
});

async function failed(workflow: string) {
  status = 500;
  const input = { url: `${base}/hook`, topic: "retries" };
  const { run } = await rt.engine.start(workflow, input);
  const done = await rt.engine.waitFor(run.id, (r) => r.status === "failed", 30_000);
  const transitions = await rt.store.transitions(run.id, 0, 1000);
  return { done, transitions, input };
}

describe("a failed run says why, where, after how many attempts, and retries that step", () => {
  it("a step with no on_error: the failure names it, its message and attempts; the retry point is where it was entered", async () => {
    const { done, transitions } = await failed("failing-call");
    const f = runFailure(done, transitions, findWorkflow("failing-call")!.flow)!;
    expect(f).toMatchObject({ state: "CALL", attempts: 2, category: "NETWORK" });
    expect(f.message).toMatch(/answered 500.*\(after 2 attempts\)/);
    const entered = transitions.filter((t) => t.to.includes("CALL")).at(-1)!;
    expect(f.retry).toEqual({ seq: entered.seq });
  }, 60_000);

  it("on_error to a final stage: the failure is still the step's; Retry from CALL runs it again with the same input", async () => {
    const { done, transitions, input } = await failed("failing-to-stage");
    expect(done.state).toEqual(["BROKEN"]);
    const f = runFailure(done, transitions, findWorkflow("failing-to-stage")!.flow)!;
    expect(f.state).toBe("CALL");
    // the receiver works again; the retry is a fork at the failed step
    status = 200;
    bodies.length = 0;
    const fork = await rt.engine.fork(done.id, { seq: f.retry!.seq });
    const ok = await rt.engine.waitFor(fork.run.id, (r) => r.status === "completed", 30_000);
    expect(ok.input).toEqual(done.input);
    expect((ok.input as { topic: string }).topic).toBe(input.topic);
    expect(bodies).toEqual([{ topic: "retries" }]);
    // PREP ran before the retry point: it is not run again
    expect((ok.context as { steps: Record<string, { output: unknown }> }).steps.CALL!.output).toEqual({ ok: true });
    expect(runFailure(ok, [], findWorkflow("failing-to-stage")!.flow)).toBeNull();
  }, 60_000);
});
