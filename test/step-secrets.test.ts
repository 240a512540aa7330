// Secrets reach an http step's headers only from the definition's own template
// text. `{{secrets.ADMIN}}` arriving in run input stays text; a header value fetch would refuse
// (CR, LF, NUL, non-Latin-1) is reported by the header's name, never quoted; a reply that echoes
// a secret is stored with it blanked. Then every surface a viewer or an integration can read is
// searched for the secret values: every table of the database (run row and context, transitions,
// snapshots, the full-text index, webhook deliveries, pg-boss jobs), GET /api/runs/{id}, the
// transitions with payloads (the timeline's data), the run export, full-text search, both SSE
// streams, the webhook bodies sent, and the logs. On SQLite and PostgreSQL.
import http from "node:http";
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { migrateDatabase } from "../lib/db/migrations";
import { pgReachable, scratchSchema, type ScratchSchema } from "../lib/db/pg-scratch";
import { query } from "../lib/db/sql";
import { ManualClock } from "../lib/engine/clock";
import { saveUserWorkflow } from "../lib/flows/store";
import { getRun, listRuns, runSnapshot, runTransitions } from "../lib/api/runs";
import { exportRun } from "../lib/api/run-export";
import { sseResponse } from "../lib/api/sse";
import { createRuntime, defaultEffects, type Runtime } from "../lib/runtime";
import { flush, tempDbUrl } from "./helpers";

const PG_URL = process.env.POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const ADMIN = "adm1n-S3CRET-value-0042";
const API = "api-S3CRET-value-7777";
const SECRETS = [ADMIN, API, "S3CRET-value-0042", "S3CRET-value-7777"];
const env = { SWITCHYARD_SECRET_ADMIN: ADMIN, SWITCHYARD_SECRET_API: API } as unknown as NodeJS.ProcessEnv;

/** forwards a header from the run's input and nothing else (the workflow); no on_error */
const FORWARDER = `id: forwarder
initial_stage: CALL
stages: [CALL, DONE]
transitions: { CALL: [DONE], DONE: [] }
steps:
  CALL:
    http: { url: "{{input.url}}", method: POST, headers: { x-trace: "{{input.trace}}" }, body: { ok: true } }
    next: DONE
`;
/** really uses a secret, next to run input */
const KEYED = `id: keyed
initial_stage: CALL
stages: [CALL, DONE, FAILED]
transitions: { CALL: [DONE, FAILED], DONE: [], FAILED: [] }
steps:
  CALL:
    http: { url: "{{input.url}}", method: POST, headers: { x-api-key: "key {{secrets.API}} {{input.note}}" }, body: { note: "{{input.note}}" } }
    next: DONE
    on_error: FAILED
`;

type Seen = { path: string; headers: http.IncomingHttpHeaders };
let seen: Seen[] = [];
let server: http.Server;
let base = "";
const logged: string[] = [];
/** the webhook bodies sent */
const sentHooks: string[] = [];
const hookFetch = (async (_url: string, init: RequestInit) => {
  sentHooks.push(String(init.body));
  return new Response("ok");
}) as unknown as typeof fetch;
type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;
let runRoute: { GET: Handler };
let runStreamRoute: { GET: Handler };
let allStreamRoute: { GET: (req: Request) => Promise<Response> };
const HOLDER = Symbol.for("switchyard.runtime");

beforeAll(async () => {
  // the runtime reads them from its env; set in the process too, where older code read them
  for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v!);
  server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      seen.push({ path: req.url ?? "", headers: req.headers });
      // /echo answers with the headers it got, /fail-echo too but as a 500
      if (req.url === "/echo" || req.url === "/fail-echo") {
        res.writeHead(req.url === "/echo" ? 200 : 500, { "content-type": "application/json" });
        res.end(JSON.stringify({ got: req.headers }));
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ ok: true }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  for (const level of ["log", "info", "warn", "error", "debug"] as const) {
    const real = console[level].bind(console);
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      logged.push(args.map((a) => (a instanceof Error ? `${a.message} ${a.stack}` : typeof a === "string" ? a : JSON.stringify(a))).join(" "));
      real(...args);
    });
  }
  runRoute = (await import("../app/api/runs/[id]/route")) as never;
  runStreamRoute = (await import("../app/api/runs/[id]/stream/route")) as never;
  allStreamRoute = (await import("../app/api/stream/route")) as never;
});
afterAll(async () => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  await new Promise((r) => server.close(r));
});

/** An SSE response read as it arrives. */
function tap(res: Response) {
  const chunks: string[] = [];
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  const done = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      chunks.push(dec.decode(value));
    }
  })();
  return { text: () => chunks.join(""), done };
}

async function everyTable(rt: Runtime, schema: string | null): Promise<Record<string, string>> {
  const names = schema
    ? (await query(rt, `SELECT table_name AS "name" FROM information_schema.tables WHERE table_schema = ? AND table_type = 'BASE TABLE'`, [schema])).rows.map((r) => String(r.name))
    : (rt.sqlite!.db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as { name: string }[]).map((t) => t.name);
  const out: Record<string, string> = {};
  for (const t of names) {
    const rows = schema ? (await rt.pg!.query(`SELECT * FROM "${schema}"."${t}"`)).rows : rt.sqlite!.db.prepare(`SELECT * FROM "${t}"`).safeIntegers(false).all();
    out[t] = JSON.stringify(rows, (_k, v) => (typeof v === "bigint" ? Number(v) : v && typeof v === "object" && v.type === "Buffer" && Array.isArray(v.data) ? Buffer.from(v.data).toString("latin1") : v));
  }
  return out;
}

function behaviour(name: string, make: () => Promise<{ rt: Runtime; schema: string | null } | null>, done: () => Promise<void>) {
  describe(`secrets through run input: ${name}`, () => {
    let made: { rt: Runtime; schema: string | null } | null = null;
    beforeAll(async () => {
      made = await make();
      if (!made) return;
      (globalThis as Record<symbol, unknown>)[HOLDER] = Promise.resolve(made.rt);
      await saveUserWorkflow(made.rt.db, "yaml", FORWARDER);
      await saveUserWorkflow(made.rt.db, "yaml", KEYED);
    }, 60_000);
    afterAll(done, 60_000);

    it("the attack fails without a request and without the secret; every surface is searched for it", async (ctx) => {
      if (!made) return ctx.skip();
      const { rt, schema } = made;
      (globalThis as Record<symbol, unknown>)[HOLDER] = Promise.resolve(rt);
      seen = [];
      await rt.webhooks.createWebhook({ workflow: "*", url: `${base}/hook`, secret: "whsec-0123456789abcdef", events: ["on_transition", "on_enter", "on_exit"] });
      const closeAll = new AbortController();
      const all = tap(await allStreamRoute.GET(new Request("http://test/api/stream", { signal: closeAll.signal })));
      const streams: { text: () => string; done: Promise<void> }[] = [all];
      const closers = [closeAll];
      const started: string[] = [];
      const run = async (workflow: string, input: Record<string, unknown>) => {
        const id = randomUUID();
        // this run's own stream, open before the run starts
        const close = new AbortController();
        streams.push(tap(sseResponse(rt, id, close.signal)));
        closers.push(close);
        await rt.engine.start(workflow, input, { id });
        started.push(id);
        const end = await rt.engine.waitFor(id, (r) => ["completed", "failed"].includes(r.status), 20_000);
        return { id, end, steps: (end.context as { steps: Record<string, { output?: unknown; error?: { message: string; category?: string } }> }).steps };
      };

      // 1. the attack: the input names a secret and breaks the header with a line break
      const attack = await run("forwarder", { url: `${base}/in`, trace: "{{secrets.ADMIN}}\nx" });
      expect(attack.end.status).toBe("failed");
      expect(attack.steps.CALL!.error!.message).toBe(`POST ${base}/in: header x-trace is not a valid HTTP header value (it holds a line break); nothing was sent`);
      expect(seen).toHaveLength(0);
      // 2. the same without the line break: the header carries the text as written, not the secret
      const literal = await run("forwarder", { url: `${base}/in`, trace: "{{secrets.ADMIN}}" });
      expect(literal.end.status).toBe("completed");
      expect(seen.map((s) => s.headers["x-trace"])).toEqual(["{{secrets.ADMIN}}"]);
      // 3–5. an ordinary input breaks a header that really holds a secret: the error names the header only
      for (const [note, why] of [
        ["line one\nline two", "it holds a line break"],
        ["ticked ✓", "it holds a character outside Latin-1"],
        ["nul\u0000", "it holds a NUL character"],
      ] as const) {
        const broken = await run("keyed", { url: `${base}/in`, note });
        expect(broken.end.state).toContain("FAILED");
        expect(broken.steps.CALL!.error).toMatchObject({ message: `POST ${base}/in: header x-api-key is not a valid HTTP header value (${why}); nothing was sent`, category: "BUSINESS" });
      }
      expect(seen).toHaveLength(1);
      // 6. the secret is really sent where the definition put it; a reply echoing it is stored blanked
      const echoed = await run("keyed", { url: `${base}/echo`, note: "fine" });
      expect(seen.at(-1)!.headers["x-api-key"]).toBe(`key ${API} fine`);
      expect(echoed.end.state).toContain("DONE");
      expect(echoed.steps.CALL!.output).toMatchObject({ got: { "x-api-key": "key [secret API] fine" } });
      // 7. and an error reply echoing it
      const failed = await run("keyed", { url: `${base}/fail-echo`, note: "fine" });
      expect(failed.end.state).toContain("FAILED");
      expect(failed.steps.CALL!.error!.message).toContain("key [secret API] fine");

      // every webhook delivery goes out (the hook server answers each at once) before their bodies are searched
      const undelivered = async () => Number((await query(rt, `SELECT COUNT(*) AS "n" FROM "WebhookDelivery" WHERE "status" <> 'delivered'`)).rows[0]!.n);
      await expect
        .poll(
          async () => {
            (rt.clock as ManualClock).advance?.(10);
            await flush(5);
            return undelivered();
          },
          { timeout: 30_000 },
        )
        .toBe(0);
      for (const c of closers) c.abort();
      await Promise.all(streams.map((s) => s.done));
      const afterwards: string[] = [];
      for (const id of started) {
        const close = new AbortController();
        const hello = tap(await runStreamRoute.GET(new Request(`http://test/api/runs/${id}/stream`, { signal: close.signal }), { params: Promise.resolve({ id }) }));
        // the stream's first event (the run as it is) has come before it is closed
        await expect.poll(() => hello.text(), { timeout: 30_000 }).toContain(id);
        close.abort();
        await hello.done;
        afterwards.push(hello.text());
        afterwards.push(await (await runRoute.GET(new Request(`http://test/api/runs/${id}`), { params: Promise.resolve({ id }) })).text());
        const run = await getRun(rt, id);
        afterwards.push(JSON.stringify(run));
        const transitions = await runTransitions(rt, id, 0, 10_000, true);
        afterwards.push(JSON.stringify(transitions));
        for (const t of transitions) afterwards.push(JSON.stringify(await runSnapshot(rt, id, t.seq)));
        afterwards.push(JSON.stringify(await exportRun(rt, id)));
      }
      expect(streams.map((s) => s.text()).join("")).toContain("header x-api-key is not a valid HTTP header value");
      expect(sentHooks.length).toBeGreaterThan(0);
      expect(afterwards.join("")).toContain("header x-trace is not a valid HTTP header value");
      const tables = await everyTable(rt, schema);
      expect(tables.Run).toContain("header x-trace is not a valid HTTP header value");
      const searched = [];
      for (const s of SECRETS) searched.push((await listRuns(rt, { q: s })).total);
      // full-text search works (the error text is found) but finds no secret
      expect((await listRuns(rt, { q: "not a valid HTTP header value" })).total).toBeGreaterThan(0);
      expect(searched).toEqual(SECRETS.map(() => 0));
      for (const s of SECRETS) {
        for (const [t, rows] of Object.entries(tables)) expect(rows, `table ${t}`).not.toContain(s);
        expect(streams.map((x) => x.text()).join("\n")).not.toContain(s);
        expect(afterwards.join("\n")).not.toContain(s);
        expect(sentHooks.join("\n")).not.toContain(s);
        expect(logged.join("\n")).not.toContain(s);
      }
    }, 90_000);
  });
}

// ---------------------------------------------------------------- SQLite

let sqlite: Runtime | null = null;
behaviour(
  "SQLite",
  async () => {
    sqlite = await createRuntime({ url: tempDbUrl("secrets"), clock: new ManualClock(), env, migrate: migrateDatabase, serviceChoresMs: 0, seedGuide: false, alerts: { start: false }, webhooks: { backoffMs: [1], pollMs: 5, fetch: hookFetch }, effects: (b) => defaultEffects(b, env) });
    return { rt: sqlite, schema: null };
  },
  async () => void (await sqlite?.close()),
);

// ---------------------------------------------------------------- PostgreSQL

let scratch: ScratchSchema | null = null;
let pgRt: Runtime | null = null;
behaviour(
  "PostgreSQL",
  async () => {
    const why = await pgReachable(PG_URL);
    if (why) {
      console.log(`[step-secrets] PostgreSQL skipped: not reachable at ${PG_URL} (${why})`);
      return null;
    }
    scratch = await scratchSchema(PG_URL, "sy_secrets");
    pgRt = await createRuntime({
      url: `${PG_URL}?schema=${scratch.schema}`,
      clock: new ManualClock(),
      env,
      role: "all",
      migrate: migrateDatabase,
      serviceChoresMs: 0,
      seedGuide: false,
      alerts: { start: false },
      webhooks: { backoffMs: [1], pollMs: 5, fetch: hookFetch },
      queue: { schema: scratch.schema, expireSeconds: 30, maintenanceSeconds: 5 },
      worker: { concurrency: 4, pollMs: 100 },
      effects: (b) => defaultEffects(b, env),
    });
    return { rt: pgRt, schema: scratch.schema };
  },
  async () => {
    await pgRt?.close();
    await scratch?.drop();
  },
);
