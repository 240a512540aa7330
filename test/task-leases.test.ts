// Task leases anyone could use, each attack of the review reproduced and refused,
// with accounts on, on SQLite and on PostgreSQL (there with two runtimes over one database, as two
// server processes): a claim's answer carries a lease token; heartbeat, complete and fail need it
// (422 without) and check, in this order, unknown task 404, run_moved_on, not_claimed, lease_lost.
// Worker tokens bound to queues claim from those only. Outcomes are credited to the principal
// that completed the task. Task ids stay out of what viewers read (SSE progress, run documents).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateDatabase } from "../lib/db/migrations";
import { pgReachable, scratchSchema, type ScratchSchema } from "../lib/db/pg-scratch";
import { ManualClock } from "../lib/engine/clock";
import type { RunView } from "../lib/engine/views";
import { saveUserWorkflow } from "../lib/flows/store";
import { createRuntime, defaultEffects, type Runtime } from "../lib/runtime";
import { tempDbUrl } from "./helpers";

const PG_URL = process.env.POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const KEY = Symbol.for("switchyard.runtime");
const LEASE_MS = 10_000;

const flow = (id: string, queue: string) => `id: ${id}
initial_stage: WORK
stages: [WORK, DONE, FAILED]
transitions: { WORK: [DONE, FAILED], DONE: [], FAILED: [] }
steps:
  WORK:
    external: { queue: ${queue} }
    retry: { max: 2, backoff_s: 0 }
    next: DONE
    on_error: FAILED
`;

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;
const ROUTES: [RegExp, string][] = [
  [/^\/api\/tasks\/claim$/, "../app/api/tasks/claim/route"],
  [/^\/api\/tasks\/(?<id>[^/]+)\/heartbeat$/, "../app/api/tasks/[id]/heartbeat/route"],
  [/^\/api\/tasks\/(?<id>[^/]+)\/complete$/, "../app/api/tasks/[id]/complete/route"],
  [/^\/api\/tasks\/(?<id>[^/]+)\/fail$/, "../app/api/tasks/[id]/fail/route"],
  [/^\/api\/runs\/(?<id>[^/]+)$/, "../app/api/runs/[id]/route"],
  [/^\/api\/runs\/(?<id>[^/]+)\/transitions$/, "../app/api/runs/[id]/transitions/route"],
  [/^\/api\/runs\/(?<id>[^/]+)\/export$/, "../app/api/runs/[id]/export/route"],
  [/^\/api\/runs\/(?<id>[^/]+)\/stream$/, "../app/api/runs/[id]/stream/route"],
  [/^\/api\/stream$/, "../app/api/stream/route"],
];

/** One request to the app's route handler for `path`, served by runtime `rt` (as if by that process). */
async function call(rt: Runtime, method: string, path: string, token: string, body?: unknown, signal?: AbortSignal): Promise<Response> {
  (globalThis as Record<symbol, unknown>)[KEY] = Promise.resolve(rt);
  for (const [re, mod] of ROUTES) {
    const m = re.exec(path);
    if (!m) continue;
    const fn = ((await import(/* @vite-ignore */ mod)) as Record<string, Handler>)[method]!;
    const headers: Record<string, string> = { host: "localhost:3000", authorization: `Bearer ${token}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    return fn(new Request(`http://localhost:3000${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal }), { params: Promise.resolve({ ...m.groups }) });
  }
  throw new Error(`no route for ${path}`);
}

interface Claimed {
  id: string;
  runId: string;
  attempt: number;
  leaseToken: string;
  input: { input: Record<string, unknown> };
}

interface Setup {
  /** the runtimes serving requests (two over one database on PostgreSQL) */
  a: Runtime;
  b: Runtime;
  clock: ManualClock;
  tokens: { admin: string; pub: string; any: string; ben: string };
  close(): Promise<void>;
}

async function open(kind: "sqlite" | "postgres"): Promise<Setup | string> {
  const clock = new ManualClock(Date.UTC(2026, 10, 27, 9));
  const env = { SWITCHYARD_TASK_LEASE_MS: String(LEASE_MS) } as unknown as NodeJS.ProcessEnv;
  let url = tempDbUrl("leases");
  let scratch: ScratchSchema | null = null;
  let queue: { schema: string; expireSeconds: number; maintenanceSeconds: number } | undefined;
  if (kind === "postgres") {
    const why = await pgReachable(PG_URL);
    if (why) return why;
    scratch = await scratchSchema(PG_URL, "sy_leases");
    url = `${PG_URL}?schema=${scratch.schema}`;
    queue = { schema: scratch.schema, expireSeconds: 30, maintenanceSeconds: 5 };
  }
  const node = () =>
    createRuntime({ url, env, clock, migrate: migrateDatabase, serviceChoresMs: 0, seedGuide: false, alerts: { start: false }, webhooks: { start: false }, retention: null, effects: (base) => defaultEffects(base, env), ...(queue ? { queue, worker: { concurrency: 8, pollMs: 200 } } : {}) });
  const a = await node();
  const b = kind === "postgres" ? await node() : a;
  await saveUserWorkflow(a.db, "yaml", flow("lease-publish", "publisher"));
  await saveUserWorkflow(a.db, "yaml", flow("lease-payroll", "payroll"));
  await a.accounts.createUser({ name: "ana", password: "ana-password-123", role: "admin" });
  await a.accounts.createUser({ name: "ben", password: "ben-password-123", role: "operator" });
  const tokens = {
    admin: (await a.accounts.createToken("ana", "ops", "admin")).token,
    // the review's token "for the publisher queue"
    pub: (await a.accounts.createToken("ana", "publisher-bot", "worker", ["publisher"])).token,
    any: (await a.accounts.createToken("ana", "any-queue", "worker")).token,
    // another owner's worker token
    ben: (await b.accounts.createToken("ben", "ben-bot", "worker")).token,
  };
  return {
    a,
    b,
    clock,
    tokens,
    close: async () => {
      if (b !== a) await b.close();
      await a.close();
      await scratch?.drop();
    },
  };
}

const waitFor = async <T,>(rt: Runtime, runId: string, until: (r: RunView) => boolean) => rt.engine.waitFor(runId, until);
const stepOf = (r: RunView) => (r.context as { steps: Record<string, { output?: unknown; by?: string; worker?: string; error?: { message: string } }> }).steps.WORK!;

const saved = process.env.SWITCHYARD_AUTH;
beforeAll(() => void (process.env.SWITCHYARD_AUTH = "on"));
afterAll(() => {
  if (saved === undefined) delete process.env.SWITCHYARD_AUTH;
  else process.env.SWITCHYARD_AUTH = saved;
  delete (globalThis as Record<symbol, unknown>)[KEY];
});

for (const kind of ["sqlite", "postgres"] as const) {
  describe(`task leases on ${kind}${kind === "postgres" ? " (two runtimes over one database)" : ""}`, () => {
    let s: Setup | null = null;
    beforeAll(async () => {
      const opened = await open(kind);
      if (typeof opened === "string") return console.log(`[task-leases] PostgreSQL skipped: not reachable at ${PG_URL} (${opened})`);
      s = opened;
    }, 60_000);
    afterAll(async () => s?.close(), 60_000);

    /** a run of `workflow` waiting at WORK with its task queued */
    async function waiting(workflow: string, input: Record<string, unknown>) {
      const { run } = await s!.a.engine.start(workflow, input);
      await waitFor(s!.a, run.id, (r) => r.state.includes("WORK"));
      await expect.poll(async () => (await s!.a.tasks.store.list({ runId: run.id })).length, { timeout: 30_000 }).toBeGreaterThan(0);
      const [task] = await s!.a.tasks.store.list({ runId: run.id });
      expect(task).toBeDefined();
      return { run, task: task! };
    }
    const claim = async (rt: Runtime, token: string, queue: string, worker = "w") => {
      const res = await call(rt, "POST", "/api/tasks/claim", token, { queue, worker });
      return { status: res.status, body: res.status === 200 ? ((await res.json()) as Claimed) : res.status === 204 ? null : ((await res.json()) as { error: string; code: string }) };
    };
    const claimed = async (rt: Runtime, token: string, queue: string, worker = "w") => {
      const c = await claim(rt, token, queue, worker);
      expect(c.status).toBe(200);
      return c.body as Claimed;
    };
    const taskCall = async (rt: Runtime, token: string, id: string, what: "heartbeat" | "complete" | "fail", body: Record<string, unknown>) => {
      const res = await call(rt, "POST", `/api/tasks/${id}/${what}`, token, body);
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };

    it("a token bound to the publisher queue cannot claim from payroll (403, no input read); a token without queues claims from any", async (ctx) => {
      if (!s) return ctx.skip();
      const { run } = await waiting("lease-payroll", { salary: "9,900 for rita" });
      const refused = await claim(s.a, s.tokens.pub, "payroll", "publisher-bot");
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ code: "queue_not_allowed", error: expect.stringMatching(/may claim from publisher only, not from payroll/) });
      expect(JSON.stringify(refused.body)).not.toContain("rita");
      expect((await s.a.tasks.store.list({ runId: run.id }))[0]).toMatchObject({ status: "queued", attempt: 0 });
      // the same token claims from its own queue
      const pub = await waiting("lease-publish", { post: "hello" });
      const mine = await claimed(s.b, s.tokens.pub, "publisher", "publisher-bot");
      expect(mine.runId).toBe(pub.run.id);
      // a worker token without queues may claim from any
      const any = await claimed(s.b, s.tokens.any, "payroll", "payroll-bot");
      expect(any.input.input).toEqual({ salary: "9,900 for rita" });
      for (const [c, token] of [[mine, s.tokens.pub], [any, s.tokens.any]] as const) expect((await taskCall(s.a, token, c.id, "complete", { output: { ok: true }, leaseToken: c.leaseToken })).status).toBe(200);
      await waitFor(s.a, run.id, (r) => r.status === "completed");
    });

    it("another owner's token cannot complete a task it did not claim; the result is credited to the principal that completed it", async (ctx) => {
      if (!s) return ctx.skip();
      const { run } = await waiting("lease-publish", { post: "ana's" });
      const c = await claimed(s.a, s.tokens.pub, "publisher", "publisher-bot");
      // ben knows the task id (no lease token): refused, nothing changes
      const bare = await taskCall(s.b, s.tokens.ben, c.id, "complete", { output: { forged: true }, worker: "publisher-bot", attempt: 1 });
      expect(bare.status).toBe(422);
      expect(bare.body.error).toMatch(/leaseToken/);
      const guessed = await taskCall(s.b, s.tokens.ben, c.id, "complete", { output: { forged: true }, leaseToken: "lease_guessed", worker: "publisher-bot", attempt: 1 });
      expect(guessed).toMatchObject({ status: 409, body: { code: "lease_lost" } });
      // ben's own claim's token does not fit another task either
      const other = await waiting("lease-publish", { post: "ben's" });
      const benClaim = await claimed(s.b, s.tokens.ben, "publisher", "ben-bot");
      expect(benClaim.runId).toBe(other.run.id);
      expect(await taskCall(s.b, s.tokens.ben, c.id, "complete", { output: { forged: true }, leaseToken: benClaim.leaseToken })).toMatchObject({ status: 409, body: { code: "lease_lost" } });
      expect((await s.a.tasks.store.get(c.id))).toMatchObject({ status: "claimed", output: null });

      const done = await taskCall(s.a, s.tokens.pub, c.id, "complete", { output: { sent: "ana's" }, leaseToken: c.leaseToken });
      expect(done).toMatchObject({ status: 200, body: { status: "done", output: { sent: "ana's" } } });
      // the same lease again (a retry after a lost answer): the first answer, nothing changes
      expect(await taskCall(s.b, s.tokens.pub, c.id, "complete", { output: { sent: "twice" }, leaseToken: c.leaseToken })).toEqual(done);
      const finished = await waitFor(s.a, run.id, (r) => r.status === "completed");
      expect(stepOf(finished)).toMatchObject({ output: { sent: "ana's" }, by: "worker ana (token publisher-bot)", worker: "ana (token publisher-bot)" });
      // ben's claim completes with ben's token: credited to ben, whatever worker name it gives
      expect((await taskCall(s.a, s.tokens.ben, benClaim.id, "complete", { output: { sent: "ben's" }, leaseToken: benClaim.leaseToken, worker: "publisher-bot" })).status).toBe(200);
      expect(stepOf(await waitFor(s.a, other.run.id, (r) => r.status === "completed"))).toMatchObject({ by: "worker ben (token ben-bot)", worker: "ben (token ben-bot)" });
    });

    it("a stale worker's complete does not overwrite the current holder's result; its heartbeat does not keep the lease", async (ctx) => {
      if (!s) return ctx.skip();
      const { run } = await waiting("lease-publish", { post: "stale" });
      const first = await claimed(s.a, s.tokens.any, "publisher", "slow");
      // heartbeats without a token, or with another's, keep nothing alive
      expect((await taskCall(s.b, s.tokens.ben, first.id, "heartbeat", {})).status).toBe(422);
      s.clock.advance(LEASE_MS * 0.8);
      const other = await waiting("lease-payroll", { n: 1 });
      const decoy = await claimed(s.b, s.tokens.ben, "payroll", "decoy");
      expect(await taskCall(s.b, s.tokens.ben, first.id, "heartbeat", { leaseToken: decoy.leaseToken })).toMatchObject({ status: 409, body: { code: "lease_lost" } });
      s.clock.advance(LEASE_MS * 0.3);
      // the lease ran out: offered again (on the other process), with a new token
      const second = await claimed(s.b, s.tokens.any, "publisher", "rescuer");
      expect(second).toMatchObject({ id: first.id, attempt: 2 });
      expect(second.leaseToken).not.toBe(first.leaseToken);
      expect(await taskCall(s.a, s.tokens.any, first.id, "heartbeat", { leaseToken: first.leaseToken })).toMatchObject({ status: 409, body: { code: "lease_lost" } });
      expect(await taskCall(s.a, s.tokens.any, first.id, "complete", { output: { from: "slow" }, leaseToken: first.leaseToken, worker: "rescuer", attempt: 2 })).toMatchObject({ status: 409, body: { code: "lease_lost" } });
      expect((await taskCall(s.b, s.tokens.any, first.id, "heartbeat", { leaseToken: second.leaseToken })).status).toBe(200);
      expect((await taskCall(s.b, s.tokens.any, first.id, "complete", { output: { from: "rescuer" }, leaseToken: second.leaseToken })).status).toBe(200);
      // and after it, the stale one is still refused
      expect(await taskCall(s.a, s.tokens.any, first.id, "complete", { output: { from: "slow" }, leaseToken: first.leaseToken })).toMatchObject({ status: 409, body: { code: "lease_lost" } });
      expect(stepOf(await waitFor(s.a, run.id, (r) => r.status === "completed")).output).toEqual({ from: "rescuer" });
      expect((await taskCall(s.b, s.tokens.ben, decoy.id, "complete", { output: 1, leaseToken: decoy.leaseToken })).status).toBe(200);
      await waitFor(s.a, other.run.id, (r) => r.status === "completed");
    });

    it("a fail without the holder's token fails nothing", async (ctx) => {
      if (!s) return ctx.skip();
      const { run } = await waiting("lease-publish", { post: "keep" });
      const c = await claimed(s.a, s.tokens.any, "publisher", "holder");
      expect((await taskCall(s.b, s.tokens.ben, c.id, "fail", { error: "sabotage", retryable: false })).status).toBe(422);
      expect(await taskCall(s.b, s.tokens.ben, c.id, "fail", { error: "sabotage", retryable: false, leaseToken: "lease_nope", worker: "holder", attempt: 1 })).toMatchObject({ status: 409, body: { code: "lease_lost" } });
      expect(await s.a.tasks.store.get(c.id)).toMatchObject({ status: "claimed", error: null });
      // the holder's own fail, then again (same lease): the first answer
      const failed = await taskCall(s.a, s.tokens.any, c.id, "fail", { error: "smtp down", retryable: true, leaseToken: c.leaseToken });
      expect(failed).toMatchObject({ status: 200, body: { status: "queued", attempt: 1 } });
      expect(await taskCall(s.b, s.tokens.any, c.id, "fail", { error: "smtp down", retryable: true, leaseToken: c.leaseToken })).toEqual(failed);
      const again = await claimed(s.b, s.tokens.any, "publisher", "holder-2");
      expect((await taskCall(s.b, s.tokens.any, again.id, "complete", { output: "ok", leaseToken: again.leaseToken })).status).toBe(200);
      expect(stepOf(await waitFor(s.a, run.id, (r) => r.status === "completed")).output).toBe("ok");
    });

    it("checks run in order: unknown task 404, run_moved_on, not_claimed, lease_lost; a missing token is 422 first", async (ctx) => {
      if (!s) return ctx.skip();
      const wrong = { leaseToken: "lease_wrong" };
      const bodies = { heartbeat: wrong, complete: { output: 1, ...wrong }, fail: { error: "x", retryable: false, ...wrong } };
      expect((await taskCall(s.a, s.tokens.any, "00000000-0000-4000-8000-000000000000", "complete", { output: 1 })).status).toBe(422);
      expect((await taskCall(s.a, s.tokens.any, "00000000-0000-4000-8000-000000000000", "complete", { output: 1, ...wrong })).status).toBe(404);
      // queued, never claimed: not_claimed, whatever the token
      const q = await waiting("lease-publish", { post: "queued" });
      for (const what of ["heartbeat", "complete", "fail"] as const) {
        expect(await taskCall(s.b, s.tokens.any, q.task.id, what, bodies[what])).toMatchObject({ status: 409, body: { code: "not_claimed" } });
      }
      // claimed by someone else: lease_lost
      const c = await claimed(s.a, s.tokens.any, "publisher", "holder");
      expect(c.id).toBe(q.task.id);
      for (const what of ["heartbeat", "complete", "fail"] as const) {
        expect(await taskCall(s.b, s.tokens.any, c.id, what, bodies[what])).toMatchObject({ status: 409, body: { code: "lease_lost" } });
      }
      // the run moved on (aborted): run_moved_on comes before the token is looked at
      await s.a.engine.abort(q.run.id, "test");
      for (const what of ["heartbeat", "complete", "fail"] as const) {
        expect(await taskCall(s.b, s.tokens.any, c.id, what, bodies[what])).toMatchObject({ status: 409, body: { code: "run_moved_on" } });
      }
      expect(await taskCall(s.b, s.tokens.any, c.id, "complete", { output: 1, leaseToken: c.leaseToken })).toMatchObject({ status: 409, body: { code: "run_moved_on" } });
    });

    it("task ids stay out of what viewers read: SSE progress lines, the run document, its transitions and export", async (ctx) => {
      if (!s) return ctx.skip();
      const stop = new AbortController();
      // both processes' streams: the effect (and so its progress line) runs in either
      const servers = [...new Set([s.a, s.b])];
      const alls = await Promise.all(servers.map((rt) => call(rt, "GET", "/api/stream", s!.tokens.admin, undefined, stop.signal)));
      const { run } = await s.a.engine.start("lease-publish", { post: "watched" });
      const ones = await Promise.all(servers.map((rt) => call(rt, "GET", `/api/runs/${run.id}/stream`, s!.tokens.admin, undefined, stop.signal)));
      const read = async (res: Response) => {
        const reader = res.body!.getReader();
        let text = "";
        const decoder = new TextDecoder();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          text += decoder.decode(value);
          if (text.includes(`"id":"${run.id}"`) && /"status":"completed"/.test(text)) break;
        }
        return text;
      };
      const streams = Promise.all([...alls, ...ones].map(read));
      await waitFor(s.a, run.id, (r) => r.state.includes("WORK"));
      const c = await claimed(s.b, s.tokens.any, "publisher", "watched-bot");
      expect(c.runId).toBe(run.id);
      expect((await taskCall(s.b, s.tokens.any, c.id, "complete", { output: { done: true }, leaseToken: c.leaseToken })).status).toBe(200);
      await waitFor(s.a, run.id, (r) => r.status === "completed");
      const texts = await streams;
      stop.abort();
      // the progress line was streamed, without the id
      expect(texts.join("\n")).toMatch(/event: progress\ndata: .*publisher/);
      for (const text of texts) {
        expect(text).not.toContain(c.id);
        expect(text).not.toContain(c.leaseToken);
      }
      for (const path of [`/api/runs/${run.id}`, `/api/runs/${run.id}/transitions`, `/api/runs/${run.id}/export`]) {
        const res = await call(s.a, "GET", path, s.tokens.admin);
        expect(res.status, path).toBe(200);
        const text = await res.text();
        expect(text, path).not.toContain(c.id);
        expect(text, path).not.toContain(c.leaseToken);
      }
    });
  });
}
