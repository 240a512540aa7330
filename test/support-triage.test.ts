// The team's scenario, on examples/workflows/support-triage.yaml: four tickets, each read
// in parallel (SENTIMENT by the model, LOOKUP from the helpdesk API), drafted by an external worker
// (here an in-test worker pool, concurrency 4, one retryable failure), approved by two different
// people (or rejected: escalated), and replied to once. The server is SIGKILLed while the helpdesk
// holds every LOOKUP call unanswered; a new runtime on the same database finishes every ticket.
// What holds: every ticket ends where expected, the calls in flight at the kill are made again
// with the same Idempotency-Key (and say so), nothing completed is repeated, each reply is sent
// once, runs are named by run_name, the result is the draft, no secret is stored.
import { spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunView } from "../lib/engine/views";
import type { StepRecord } from "../lib/steps/compile";
import { findWorkflow } from "../lib/machines/registry";
import { runFailure } from "../lib/api/failure";
import { tempDbUrl, testRuntime } from "./helpers";
import type { Runtime } from "../lib/runtime";
import type { ManualClock } from "../lib/engine/clock";

const TOKEN = "helpdesk-token-never-stored";
const TICKETS = [
  { ticket_id: "T-1", subject: "Invoice twice", body: "I was charged twice this month.", customer: "ana" },
  { ticket_id: "T-2", subject: "Cannot log in", body: "Password reset mail never arrives!", customer: "ben", urgent: true },
  { ticket_id: "T-3", subject: "Export is slow", body: "The CSV export takes ten minutes.", customer: "cleo" },
  { ticket_id: "T-4", subject: "Refund now", body: "I want all my money back today.", customer: "dan" },
];

type Call = { method: string; path: string; key: string | undefined; auth: string | undefined; body: unknown };
const calls: Call[] = [];
let holdLookups = true;
const held: http.ServerResponse[] = [];
const replies = new Map<string, unknown>();
let server: http.Server;
let apiBase = "";
let rt: (Runtime & { clock: ManualClock }) | null = null;

beforeAll(async () => {
  process.env.SWITCHYARD_SECRET_HELPDESK_TOKEN = TOKEN;
  server = http.createServer((req, res) => {
    let data = "";
    req.on("data", (c) => (data += c));
    req.on("end", () => {
      const call: Call = { method: req.method!, path: req.url!, key: req.headers["idempotency-key"] as string | undefined, auth: req.headers.authorization, body: data ? JSON.parse(data) : null };
      calls.push(call);
      if (req.method === "GET" && holdLookups) return void held.push(res);
      res.writeHead(200, { "content-type": "application/json" });
      if (req.method === "GET") return res.end(JSON.stringify({ customer: req.url!.split("/").pop(), plan: "pro", open_tickets: 1 }));
      // a helpdesk that honours the key: one reply per Idempotency-Key
      if (!replies.has(call.key!)) replies.set(call.key!, call.body);
      res.end(JSON.stringify({ reply_id: `r-${[...replies.keys()].indexOf(call.key!) + 1}`, sent: true }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  apiBase = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await rt?.close();
  for (const res of held) res.destroy();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  delete process.env.SWITCHYARD_SECRET_HELPDESK_TOKEN;
});

const steps = (r: RunView) => (r.context as { steps: Record<string, StepRecord> }).steps;

/** The first process: saves the workflow, starts the tickets, and is SIGKILLed with every LOOKUP call in flight. */
async function firstProcessKilled(url: string): Promise<Map<string, string>> {
  const proc = spawn(process.execPath, ["--import", "tsx", path.resolve("test/support/triage-child.ts"), url, JSON.stringify(TICKETS), apiBase], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env } });
  let out = "";
  proc.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  proc.stderr!.on("data", (c: Buffer) => (out += c.toString()));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => proc.on("exit", (_c, signal) => resolve(signal)));
  // every LOOKUP has reached the helpdesk (and waits for its answer): kill -9
  for (let i = 0; i < 600 && calls.filter((c) => c.method === "GET").length < TICKETS.length; i++) await new Promise((r) => setTimeout(r, 50));
  expect(calls.filter((c) => c.method === "GET"), out).toHaveLength(TICKETS.length);
  proc.kill("SIGKILL");
  expect(await exited, out).toBe("SIGKILL");
  const ids = new Map<string, string>();
  for (const line of out.split("\n")) if (line.startsWith('{"runId"')) {
    const o = JSON.parse(line) as { runId: string; ticket: string };
    ids.set(o.ticket, o.runId);
  }
  expect(ids.size).toBe(TICKETS.length);
  return ids;
}

/** An external worker pool on the runtime's task queue: claims drafts, heartbeats, fails T-3's first attempt (retryable). */
function workerPool(r: Runtime & { clock: ManualClock }, concurrency: number) {
  let stopped = false;
  const seen: { ticket: string; attempt: number; worker: string }[] = [];
  const loop = async (name: string) => {
    while (!stopped) {
      const t = await r.tasks.claim("triage-drafts", name, 200);
      if (!t) continue;
      const input = t.input as { input: { ticket_id: string; customer: string; subject: string }; steps: Record<string, { output?: { mood?: string; plan?: string } }> };
      seen.push({ ticket: input.input.ticket_id, attempt: t.attempt, worker: name });
      await r.tasks.heartbeat(t.id, { leaseToken: t.leaseToken });
      if (input.input.ticket_id === "T-3" && t.attempt === 1) {
        await r.tasks.fail(t.id, { message: "draft model overloaded", category: "NETWORK" }, true, { leaseToken: t.leaseToken });
        r.clock.advance(1_000); // its backoff
      } else {
        const draft = `Hello ${input.input.customer}, about "${input.input.subject}": we are on it (mood ${input.steps.SENTIMENT?.output?.mood}, plan ${input.steps.LOOKUP?.output?.plan}).`;
        await r.tasks.complete(t.id, draft, { leaseToken: t.leaseToken });
      }
    }
  };
  const loops = Array.from({ length: concurrency }, (_, i) => loop(`pool-${i + 1}`));
  return {
    seen,
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

describe("support triage: parallel steps, an external worker, two approvers, kill -9 mid-run", () => {
  it("every ticket ends where expected; only the calls in flight at the kill are made again, with the same key", async () => {
    const url = tempDbUrl("support-triage");
    const ids = await firstProcessKilled(url);
    const lookupKeys = calls.filter((c) => c.method === "GET").map((c) => c.key);
    for (const res of held.splice(0)) res.destroy();
    holdLookups = false;

    rt = await testRuntime({ url, env: { SWITCHYARD_SECRET_HELPDESK_TOKEN: TOKEN } as unknown as NodeJS.ProcessEnv });
    const pool = workerPool(rt, 4);
    try {
      // the LOOKUPs in flight at the kill run again; the drafts go to the pool; then two approvals (T-4 is rejected)
      for (const t of TICKETS) {
        const id = ids.get(t.ticket_id)!;
        const waiting = await rt.engine.waitFor(id, (r) => r.state.includes("APPROVE") && !!r.reviewId, 60_000);
        expect(waiting.name).toBe(`${t.ticket_id}: ${t.subject}`);
        const review = async () => (await rt!.store.listReviews({ runId: id, status: "pending" }))[0]!;
        if (t.ticket_id === "T-4") {
          await rt.engine.decide((await review()).id, { decision: "reject", reviewer: "ana", feedback: "needs a person" });
          continue;
        }
        await rt.engine.decide((await review()).id, { decision: "approve", reviewer: "ana" });
        // the same person approving twice is refused
        await expect(rt.engine.decide((await review()).id, { decision: "approve", reviewer: "ana" })).rejects.toThrow(/already approved/);
        await rt.engine.decide((await review()).id, { decision: "approve", reviewer: "ben" });
      }
      const ends = new Map<string, RunView>();
      for (const t of TICKETS) ends.set(t.ticket_id, await rt.engine.waitFor(ids.get(t.ticket_id)!, (r) => r.status === "completed", 60_000));
      expect(Object.fromEntries([...ends].map(([k, r]) => [k, r.state]))).toEqual({ "T-1": ["DONE"], "T-2": ["DONE"], "T-3": ["DONE"], "T-4": ["ESCALATED"] });

      // the LOOKUP calls in flight were made again with the same Idempotency-Key, and say so
      const gets = calls.filter((c) => c.method === "GET");
      expect(gets).toHaveLength(TICKETS.length * 2);
      expect(new Set(gets.map((c) => c.key))).toEqual(new Set(lookupKeys));
      for (const r of ends.values()) expect(steps(r).LOOKUP).toMatchObject({ again: "restart", request: { kind: "http", method: "GET", headers: { Authorization: "[secret]" } } });
      // SENTIMENT had completed before the kill (or ran after it): it is never repeated with the same answer twice recorded
      for (const r of ends.values()) expect(steps(r).SENTIMENT!.output).toMatchObject({ mood: expect.any(String) });
      // each approved ticket's reply sent once: one POST per ticket, none for the escalated one
      const posts = calls.filter((c) => c.method === "POST");
      expect(posts.map((c) => c.path).sort()).toEqual(["/tickets/T-1/replies", "/tickets/T-2/replies", "/tickets/T-3/replies"]);
      expect(replies.size).toBe(3);
      for (const p of posts) expect(p.auth).toBe(`Bearer ${TOKEN}`);
      // the worker pool: T-3 drafted twice (its first attempt failed, retryable), every other once; several at once
      expect(pool.seen.filter((s) => s.ticket === "T-3").map((s) => s.attempt)).toEqual([1, 2]);
      expect(pool.seen.filter((s) => s.ticket !== "T-3")).toHaveLength(3);
      expect(steps(ends.get("T-3")!).DRAFT).toMatchObject({ attempts: 2, request: { kind: "external", queue: "triage-drafts" } });
      // the result card is the draft; the run's name its run_name
      const def = findWorkflow("support-triage")!;
      expect(def.result!(ends.get("T-1")!.context)!.text).toMatch(/^Hello ana, about "Invoice twice"/);
      expect(runFailure(ends.get("T-1")!, [], def.flow)).toBeNull();
      // nothing the runs keep holds the helpdesk token
      for (const id of ids.values()) {
        expect(JSON.stringify(await rt.store.getRun(id))).not.toContain(TOKEN);
        expect(JSON.stringify(await rt.store.transitions(id, 0, 1_000))).not.toContain(TOKEN);
      }
    } finally {
      await pool.stop();
    }
  }, 180_000);
});
