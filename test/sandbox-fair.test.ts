// Sandbox fairness: one principal filling the sandbox's queue made everyone
// else wait. Each principal (a user, a token; with accounts off a client address) may have at most
// 8 executions waiting (SWITCHYARD_SANDBOX_QUEUE_PER_PRINCIPAL); beyond that its executions fail
// at once as `unavailable` (a code step's retryable error), and the waiting ones are served one
// principal after another. Through the API: runs started by one client address fill only their
// share; another client's run still gets a place and completes.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { saveUserWorkflow } from "../lib/flows/store";
import { configureSandbox, queuePerPrincipalFromEnv, runInSandbox, sandboxStats, shutdownSandbox, type SandboxResult } from "../lib/sandbox";
import type { Runtime } from "../lib/runtime";
import type { ManualClock } from "../lib/engine/clock";
import type { RunView } from "../lib/engine/views";
import { clientAddress } from "../lib/api/who";
import { forkRun, startRun } from "../lib/api/runs";
import { migrateDatabase } from "../lib/db/migrations";
import { pgReachable, scratchSchema } from "../lib/db/pg-scratch";
import { createRuntime, defaultEffects } from "../lib/runtime";
import { principalScoped, principalsIn, sandboxPrincipal } from "../lib/sandbox/principal";
import type { EffectContext } from "../lib/engine/effects";
import { read, sourceFiles } from "./support/source-files";
import { testRuntime } from "./helpers";

beforeAll(() => configureSandbox({ prewarmPython: false, prewarmJavascript: false, maxConcurrent: 1 }));
afterEach(() => configureSandbox({ maxQueuedPerPrincipal: 8 }));
afterAll(async () => {
  configureSandbox({ maxConcurrent: 2 });
  await shutdownSandbox();
});

/** a program that holds its slot until its time limit */
const hog = (ms: number) => ({ language: "javascript" as const, code: "while (true) {}", timeoutMs: ms });
const quick = (v: string) => ({ language: "javascript" as const, code: JSON.stringify(v) });

describe("the sandbox queue, per principal", () => {
  it("at most N waiting per principal; others still get a place; waiting ones are served in turn", async () => {
    configureSandbox({ maxQueuedPerPrincipal: 2 });
    const order: string[] = [];
    const tracked = (name: string, p: Promise<SandboxResult>) => p.then((r) => (order.push(name), r));
    const holding = tracked("hog", runInSandbox(hog(3_000), { principal: "addr:10.0.0.1" }));
    await vi.waitFor(() => expect(sandboxStats().running).toBe(1));
    const a1 = tracked("a1", runInSandbox(quick("a1"), { principal: "addr:10.0.0.1" }));
    const a2 = tracked("a2", runInSandbox(quick("a2"), { principal: "addr:10.0.0.1" }));
    await vi.waitFor(() => expect(sandboxStats().queued).toBe(2));
    // a third of the same principal: refused at once, nothing queued for it
    const a3 = await runInSandbox(quick("a3"), { principal: "addr:10.0.0.1" });
    expect(a3).toMatchObject({ ok: false, error: { kind: "unavailable", message: expect.stringMatching(/has 2 executions waiting already/) } });
    expect(sandboxStats().queued).toBe(2);
    // another principal still gets a place, and is served before the first one's second
    const b1 = tracked("b1", runInSandbox(quick("b1"), { principal: "addr:10.0.0.2" }));
    expect(sandboxStats().queued).toBe(3);
    const results = await Promise.all([holding, a1, a2, b1]);
    expect(results.slice(1).map((r) => r.returnValue)).toEqual(["a1", "a2", "b1"]);
    expect(order).toEqual(["hog", "a1", "b1", "a2"]);
    // outside any run (no principal) only the overall limit applies
    expect(sandboxStats().queued).toBe(0);
  }, 60_000);

  it("an effect's context says whose run it is: the run's principal, else the run itself; no context (or one no runtime scoped) is outside any run", async () => {
    const principalOf = async (runId: string) => {
      if (runId === "down") throw new Error("the database did not answer");
      return runId === "r1" ? "token:t-1" : null;
    };
    const seen: (string | null)[] = [];
    const fx = principalScoped(principalOf)({ actors: { code: async (_input: never, ctx: EffectContext) => void seen.push(await sandboxPrincipal(ctx)) } });
    for (const runId of ["r1", "r2", "down"]) await fx.actors.code!(undefined as never, { runId } as EffectContext);
    expect(seen).toEqual(["token:t-1", "run:r2", "run:down"]);
    expect(await sandboxPrincipal({ runId: "r1" } as EffectContext)).toBeNull();
    expect(await sandboxPrincipal(undefined)).toBeNull();
  });

  it("no AsyncLocalStorage in the code the engine runs: on Node 20 one in use turns on promise hooks for the whole process, for good", () => {
    const hits = sourceFiles(["lib", "workflows"]).filter((f) => /\bAsyncLocalStorage\b|\bcreateHook\b/.test(read(f).replace(/\/\/.*$/gm, "")));
    expect(hits).toEqual([]);
  });

  it("SWITCHYARD_SANDBOX_QUEUE_PER_PRINCIPAL: 8 by default, 1 to 64", () => {
    expect(queuePerPrincipalFromEnv({})).toBe(8);
    expect(queuePerPrincipalFromEnv({ SWITCHYARD_SANDBOX_QUEUE_PER_PRINCIPAL: "3" })).toBe(3);
    for (const bad of ["0", "65", "2.5", "many"]) expect(() => queuePerPrincipalFromEnv({ SWITCHYARD_SANDBOX_QUEUE_PER_PRINCIPAL: bad })).toThrow(/SWITCHYARD_SANDBOX_QUEUE_PER_PRINCIPAL must be a whole number from 1 to 64/);
  });
});

const FLOW = `id: fair-code
initial_stage: RUN
stages: [RUN, DONE, FAILED]
transitions: { RUN: [DONE, FAILED], DONE: [], FAILED: [] }
steps:
  RUN:
    code: { source: "const end = Date.now() + input.ms; while (Date.now() < end) {} ; input.who", timeout_ms: 10000 }
    next: DONE
    on_error: FAILED
`;

describe("runs started through the API count against their client (accounts off)", () => {
  let rt: Runtime & { clock: ManualClock };
  type Handler = (req: Request) => Promise<Response>;
  let startRoute: Handler;
  beforeAll(async () => {
    rt = await testRuntime();
    await saveUserWorkflow(rt.db, "yaml", FLOW);
    (globalThis as Record<symbol, unknown>)[Symbol.for("switchyard.runtime")] = Promise.resolve(rt);
    startRoute = ((await import("../app/api/runs/route")) as { POST: Handler }).POST;
  });
  afterAll(async () => {
    await rt?.close();
    delete (globalThis as Record<symbol, unknown>)[Symbol.for("switchyard.runtime")];
  });

  /** POST /api/runs as the client at `addr` (as `npm start` stamps it; a client's own value is replaced there) */
  const start = async (addr: string, input: Record<string, unknown>) => {
    const res = await startRoute(new Request("http://localhost:3000/api/runs", { method: "POST", headers: { host: "localhost:3000", "content-type": "application/json", "x-switchyard-client-address": addr }, body: JSON.stringify({ workflow: "fair-code", input }) }));
    expect(res.status).toBe(201);
    return ((await res.json()) as { id: string }).id;
  };
  const finished = (id: string) => rt.engine.waitFor(id, (r) => r.status === "completed" || r.status === "failed", 60_000);
  const outcome = (r: RunView) => (r.context as { steps: Record<string, { output?: unknown; error?: { message: string } }> }).steps.RUN!;

  it("one client's 12 runs: 1 running and 8 waiting, the other 3 fail at once as busy; another client's run still gets a place and completes", async () => {
    // the first holds the only slot while the rest arrive
    const flooding = [await start("10.0.0.1", { ms: 3_000, who: "a0" })];
    await vi.waitFor(() => expect(sandboxStats().running).toBe(1), { timeout: 20_000 });
    for (let i = 1; i < 12; i++) flooding.push(await start("10.0.0.1", { ms: 0, who: `a${i}` }));
    await vi.waitFor(() => expect(sandboxStats().queued).toBe(8), { timeout: 20_000 });
    const other = await start("10.0.0.2", { ms: 0, who: "b" });
    await vi.waitFor(() => expect(sandboxStats().queued).toBe(9), { timeout: 20_000 });
    const runs = await Promise.all(flooding.map(finished));
    const done = await finished(other);
    expect(done.status).toBe("completed");
    expect(outcome(done).output).toBe("b");
    const busy = runs.filter((r) => r.status === "failed");
    expect(busy).toHaveLength(3);
    for (const r of busy) expect(outcome(r).error!.message).toMatch(/the sandbox is busy: whoever started this run has 8 executions waiting already/);
    expect(runs.filter((r) => r.status === "completed")).toHaveLength(9);
    // who started each run is on record
    const rows = await rt.db.runPrincipal.findMany({ where: { runId: { in: [...flooding, other] } } });
    expect(new Set(rows.map((r) => r.principal))).toEqual(new Set(["addr:10.0.0.1", "addr:10.0.0.2"]));
    expect(rows).toHaveLength(13);
  }, 90_000);
});

describe("the client address a request counts as", () => {
  it("npm start stamps the connection's address over whatever the client sent; behind a declared proxy, its X-Forwarded-For", async () => {
    await import("../scripts/path-guard.mjs");
    const http = await import("node:http");
    const server = http.createServer((req, res) => res.end(JSON.stringify({ stamped: req.headers["x-switchyard-client-address"] })));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const { port } = server.address() as import("node:net").AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/api/runs`, { headers: { "x-switchyard-client-address": "10.9.9.9", "x-forwarded-for": "10.8.8.8" } });
      const { stamped } = (await res.json()) as { stamped: string };
      expect(stamped).toBe("127.0.0.1");
      expect(clientAddress(new Headers({ "x-switchyard-client-address": stamped, "x-forwarded-for": "10.8.8.8" }), {})).toBe("127.0.0.1");
    } finally {
      server.close();
    }
    const h = new Headers({ "x-switchyard-client-address": "::ffff:192.0.2.7", "x-forwarded-for": "203.0.113.9, 198.51.100.4" });
    expect(clientAddress(h, {})).toBe("192.0.2.7");
    // the proxy appends the address it saw: the last entry (a client's own entries come before it)
    expect(clientAddress(h, { SWITCHYARD_TRUST_PROXY: "1" })).toBe("198.51.100.4");
    expect(clientAddress(new Headers(), {})).toBe("unknown");
  });
});

const PG_URL = process.env.POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const REVIEW = `id: fair-review
initial_stage: ASK
stages: [ASK, DONE]
transitions: { ASK: [DONE], DONE: [] }
steps:
  ASK:
    review: { prompt: "ok?", decisions: [approve] }
    on: { approve: DONE }
`;

for (const kind of ["sqlite", "postgres"] as const) {
  describe(`who started a run is on record (${kind})`, () => {
    it("a start and a fork record their principal; a fork not yet recorded counts as its source", async (ctx) => {
      let url: string | undefined;
      let drop = async () => {};
      let queue: { schema: string } | undefined;
      if (kind === "postgres") {
        const why = await pgReachable(PG_URL);
        if (why) return ctx.skip();
        const scratch = await scratchSchema(PG_URL, "sy_fair");
        url = `${PG_URL}?schema=${scratch.schema}`;
        queue = { schema: scratch.schema };
        drop = () => scratch.drop();
      }
      const env = {} as NodeJS.ProcessEnv;
      const rt = url
        ? await createRuntime({ url, env, migrate: migrateDatabase, serviceChoresMs: 0, seedGuide: false, alerts: { start: false }, webhooks: { start: false }, retention: null, queue, effects: (base) => defaultEffects(base, env) })
        : await testRuntime();
      try {
        await saveUserWorkflow(rt.db, "yaml", REVIEW);
        const run = await startRun(rt, "fair-review", {}, { principal: "token:t-1" });
        await rt.engine.waitFor(run.id, (r) => r.status === "waiting");
        const principalOf = principalsIn(rt.db);
        expect(await principalOf(run.id)).toBe("token:t-1");
        // a fork counts as the run it was forked from until its own principal is written, then as that
        const bare = await forkRun(rt, run.id, { seq: 1 });
        expect(await principalOf(bare.run.id)).toBe("token:t-1");
        const forked = await forkRun(rt, run.id, { seq: 1 }, "addr:10.0.0.3");
        expect(await principalOf(forked.run.id)).toBe("addr:10.0.0.3");
        expect(await principalOf("no-such-run")).toBeNull();
        for (const id of [run.id, bare.run.id, forked.run.id]) await rt.engine.abort(id, "test done");
      } finally {
        await rt.close();
        await drop();
      }
    }, 60_000);
  });
}
