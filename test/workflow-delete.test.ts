// A workflow's switches and limits (all but the diagram layout): at most 1,000 transitions per definition, in YAML,
// JSON and Mermaid; PATCH /api/workflows/{id} { disabled } refuses new runs (and forks) and is
// shown in the catalog; DELETE /api/workflows/{id} is a 409 while runs are open, ?force=true
// aborts them first, and the id stays as a tombstone: its versions serve its old runs and
// exports, saving it again is a 409, and it survives a restart. On SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateDatabase } from "../lib/db/migrations";
import { pgReachable, scratchSchema, type ScratchSchema } from "../lib/db/pg-scratch";
import { ManualClock } from "../lib/engine/clock";
import { checkFlowSource, MAX_TRANSITIONS } from "../lib/flows/validate";
import { requiredRole } from "../lib/auth/roles";
import { exportRun } from "../lib/api/run-export";
import { createRuntime, defaultEffects, type Runtime, type RuntimeOptions } from "../lib/runtime";
import { tempDbUrl } from "./helpers";

const PG_URL = process.env.POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const HOLDER = Symbol.for("switchyard.runtime");
type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;
const params = (p: Record<string, string>) => ({ params: Promise.resolve(p) });
const req = (method: string, path: string, body?: unknown) => new Request(`http://test${path}`, { method, ...(body !== undefined ? { body: JSON.stringify(body), headers: { "content-type": "application/json" } } : {}) });

/** `n` transitions among 40 stages: a chain through all of them first, then other pairs */
function edges(n: number): [string, string][] {
  const s = (i: number) => `S${i}`;
  const out: [string, string][] = Array.from({ length: 39 }, (_, i) => [s(i), s(i + 1)]);
  for (let i = 0; i < 40 && out.length < n; i++) for (let j = 0; j < 40 && out.length < n; j++) if (i !== j && j !== i + 1) out.push([s(i), s(j)]);
  return out.slice(0, n);
}
const yamlOf = (n: number) => {
  const by = new Map<string, string[]>(Array.from({ length: 40 }, (_, i) => [`S${i}`, []]));
  for (const [a, b] of edges(n)) by.get(a)!.push(b);
  return `id: wide\ninitial_stage: S0\nstages: [${[...by.keys()].join(", ")}]\ntransitions:\n${[...by].map(([a, t]) => `  ${a}: [${t.join(", ")}]`).join("\n")}\n`;
};
const mermaidOf = (n: number) => `stateDiagram-v2\n[*] --> S0\n${edges(n).map(([a, b]) => `${a} --> ${b}`).join("\n")}\n`;

describe("at most 1,000 transitions", () => {
  it("accepts 1,000 and refuses 1,001 in YAML, JSON and Mermaid", () => {
    const message = `too many transitions: 1,001 (at most 1,000 per workflow; split it into smaller workflows)`;
    expect(MAX_TRANSITIONS).toBe(1_000);
    expect(checkFlowSource("yaml", yamlOf(1_000)).ok).toBe(true);
    expect(checkFlowSource("mermaid", mermaidOf(1_000), { id: "wide" }).ok).toBe(true);
    const yaml = checkFlowSource("yaml", yamlOf(1_001));
    expect(!yaml.ok && yaml.issues).toEqual([{ message, line: 1 }]);
    const parsed = checkFlowSource("yaml", yamlOf(1_000));
    const json = JSON.stringify({ ...(parsed.ok ? parsed.config : {}), transitions: { ...(parsed.ok ? parsed.config.transitions : {}), S39: ["S0", "S1"] } });
    const j = checkFlowSource("json", json);
    expect(!j.ok && j.issues[0]!.message).toBe(`too many transitions: 1,002 (at most 1,000 per workflow; split it into smaller workflows)`);
    const m = checkFlowSource("mermaid", mermaidOf(1_001), { id: "wide" });
    expect(!m.ok && m.issues).toEqual([{ message, line: 1 }]);
  });
});

const WAITING = `id: doomed
initial_stage: ASK
stages: [ASK, DONE]
transitions: { ASK: [DONE], DONE: [] }
steps:
  ASK:
    review: { prompt: "Go on?" }
    next: DONE
`;

function behaviour(name: string, make: () => Promise<Runtime | null>, reopen: (() => Promise<Runtime>) | null, done: () => Promise<void>) {
  describe(`disable and delete a workflow: ${name}`, () => {
    let rt: Runtime | null = null;
    let list: { GET: (r: Request) => Promise<Response>; POST: (r: Request) => Promise<Response> };
    let one: { GET: Handler; PATCH: Handler; DELETE: Handler };
    let runs: { POST: (r: Request) => Promise<Response> };
    let run: { GET: Handler };
    let fork: { POST: Handler };
    beforeAll(async () => {
      rt = await make();
      if (rt) (globalThis as Record<symbol, unknown>)[HOLDER] = Promise.resolve(rt);
      list = (await import("../app/api/workflows/route")) as never;
      one = (await import("../app/api/workflows/[id]/route")) as never;
      runs = (await import("../app/api/runs/route")) as never;
      run = (await import("../app/api/runs/[id]/route")) as never;
      fork = (await import("../app/api/runs/[id]/fork/route")) as never;
    }, 60_000);
    afterAll(done, 60_000);
    const serve = (r: Runtime) => ((globalThis as Record<symbol, unknown>)[HOLDER] = Promise.resolve(r));
    const start = (workflow: string) => runs.POST(req("POST", "/api/runs", { workflow, input: {} }));
    const catalog = async () => ((await (await list.GET(req("GET", "/api/workflows"))).json()).workflows as { id: string; disabled: boolean }[]).filter((w) => w.id === "doomed");

    it("PATCH disabled refuses new runs and forks until enabled again", async (ctx) => {
      if (!rt) return ctx.skip();
      serve(rt);
      expect((await list.POST(req("POST", "/api/workflows", { yaml: WAITING }))).status).toBe(201);
      const first = await start("doomed");
      expect(first.status).toBe(201);
      const firstRun = await first.json();
      const off = await one.PATCH(req("PATCH", "/api/workflows/doomed", { disabled: true }), params({ id: "doomed" }));
      expect(off.status).toBe(200);
      expect(await off.json()).toEqual({ id: "doomed", disabled: true });
      expect(await catalog()).toEqual([expect.objectContaining({ id: "doomed", disabled: true })]);
      expect(await (await one.GET(req("GET", "/api/workflows/doomed"), params({ id: "doomed" }))).json()).toMatchObject({ id: "doomed", disabled: true });
      const refused = await start("doomed");
      expect(refused.status).toBe(409);
      expect(await refused.json()).toEqual({ code: "workflow_disabled", error: `workflow "doomed" is disabled: it starts no new runs until an admin enables it (PATCH /api/workflows/doomed {"disabled": false})` });
      const forked = await fork.POST(req("POST", `/api/runs/${firstRun.id}/fork`, { seq: 1 }), params({ id: firstRun.id }));
      expect(forked.status).toBe(409);
      // the open run goes on
      expect((await run.GET(req("GET", `/api/runs/${firstRun.id}`), params({ id: firstRun.id }))).status).toBe(200);
      // bad requests
      expect((await one.PATCH(req("PATCH", "/api/workflows/doomed", { disabled: "yes" }), params({ id: "doomed" }))).status).toBe(422);
      expect((await one.PATCH(req("PATCH", "/api/workflows/doomed", { disabled: false, title: "x" }), params({ id: "doomed" }))).status).toBe(422);
      expect((await one.PATCH(req("PATCH", "/api/workflows/nope", { disabled: true }), params({ id: "nope" }))).status).toBe(404);
      expect((await one.PATCH(req("PATCH", "/api/workflows/doomed", { disabled: false }), params({ id: "doomed" }))).status).toBe(200);
      expect(await catalog()).toEqual([expect.objectContaining({ id: "doomed", disabled: false })]);
      expect((await start("doomed")).status).toBe(201);
    });

    it("DELETE: 409 while runs are open; ?force=true aborts them; the id stays a tombstone", async (ctx) => {
      if (!rt) return ctx.skip();
      serve(rt);
      const open = (await rt.db.run.findMany({ where: { workflow: "doomed", status: { in: ["running", "waiting"] } }, select: { id: true } })).map((r) => r.id);
      expect(open.length).toBe(2);
      const busy = await one.DELETE(req("DELETE", "/api/workflows/doomed"), params({ id: "doomed" }));
      expect(busy.status).toBe(409);
      expect(await busy.json()).toMatchObject({ error: `workflow "doomed" has 2 open run(s): let them finish or abort them, or delete with ?force=true to abort them first`, details: { open: 2 } });
      expect((await one.DELETE(req("DELETE", "/api/workflows/doomed?force=yes"), params({ id: "doomed" }))).status).toBe(422);
      const gone = await one.DELETE(req("DELETE", "/api/workflows/doomed?force=true"), params({ id: "doomed" }));
      expect(gone.status).toBe(200);
      const body = await gone.json();
      expect(body).toMatchObject({ id: "doomed", deleted: true });
      expect([...body.aborted].sort()).toEqual([...open].sort());
      for (const id of open) expect((await rt.engine.getRun(id)).status).toBe("aborted");

      const check = async (r: Runtime) => {
        serve(r);
        // out of the catalog; its description is gone; no new runs; the id cannot be saved again
        expect(await catalog()).toEqual([]);
        const described = await one.GET(req("GET", "/api/workflows/doomed"), params({ id: "doomed" }));
        expect(described.status).toBe(404);
        expect((await described.json()).code).toBe("workflow_deleted");
        const refused = await start("doomed");
        expect(refused.status).toBe(409);
        expect((await refused.json()).code).toBe("workflow_deleted");
        const again = await list.POST(req("POST", "/api/workflows", { yaml: WAITING }));
        expect(again.status).toBe(409);
        expect((await again.json()).error).toBe(`workflow "doomed" was deleted and its id stays reserved for its old runs; choose another id`);
        expect((await one.DELETE(req("DELETE", "/api/workflows/doomed"), params({ id: "doomed" }))).status).toBe(404);
        expect((await one.PATCH(req("PATCH", "/api/workflows/doomed", { disabled: false }), params({ id: "doomed" }))).status).toBe(404);
        // its old runs stay readable, with their states named, and export
        const old = await run.GET(req("GET", `/api/runs/${open[0]}`), params({ id: open[0]! }));
        expect(old.status).toBe(200);
        expect((await old.json()).state).toEqual(["ASK"]);
        expect((await exportRun(r, open[0]!)).run.workflow).toBe("doomed");
      };
      await check(rt);
      // a built-in cannot be deleted (it can be disabled)
      const builtIn = await one.DELETE(req("DELETE", "/api/workflows/conversation"), params({ id: "conversation" }));
      expect(builtIn.status).toBe(409);
      expect((await builtIn.json()).error).toMatch(/built-in workflow: it cannot be deleted/);
      expect((await one.DELETE(req("DELETE", "/api/workflows/never-was"), params({ id: "never-was" }))).status).toBe(404);
      // the tombstone is in the database: another process (or a restart) sees it
      if (reopen) {
        const other = await reopen();
        try {
          await check(other);
        } finally {
          await other.close();
          serve(rt);
        }
      }
    });

    it("DELETE without open runs needs no force", async (ctx) => {
      if (!rt) return ctx.skip();
      serve(rt);
      expect((await list.POST(req("POST", "/api/workflows", { yaml: WAITING.replace("id: doomed", "id: idle-one") }))).status).toBe(201);
      const res = await one.DELETE(req("DELETE", "/api/workflows/idle-one"), params({ id: "idle-one" }));
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ id: "idle-one", deleted: true, aborted: [] });
      // with accounts on, both changes need the admin role
      expect(requiredRole("DELETE", "/api/workflows/idle-one")).toBe("admin");
      expect(requiredRole("PATCH", "/api/workflows/idle-one")).toBe("admin");
    });
  });
}

const options = (url: string, extra: Partial<RuntimeOptions> = {}): RuntimeOptions => {
  const env = {} as NodeJS.ProcessEnv;
  return { url, clock: new ManualClock(), env, migrate: migrateDatabase, serviceChoresMs: 0, seedGuide: false, alerts: { start: false }, webhooks: { start: false }, effects: (b) => defaultEffects(b, env), ...extra };
};

let sqliteUrl = "";
let sqlite: Runtime | null = null;
behaviour(
  "SQLite",
  async () => (sqlite = await createRuntime(options((sqliteUrl = tempDbUrl("wf-delete"))))),
  null,
  async () => void (await sqlite?.close()),
);

let scratch: ScratchSchema | null = null;
const pgRuntimes: Runtime[] = [];
const pgNode = async () => {
  const r = await createRuntime(options(`${PG_URL}?schema=${scratch!.schema}`, { role: "all", queue: { schema: scratch!.schema, expireSeconds: 30, maintenanceSeconds: 5 }, worker: { concurrency: 4, pollMs: 100 } }));
  pgRuntimes.push(r);
  return r;
};
behaviour(
  "PostgreSQL (a second process sees the tombstone)",
  async () => {
    const why = await pgReachable(PG_URL);
    if (why) {
      console.log(`[workflow-delete] PostgreSQL skipped: not reachable at ${PG_URL} (${why})`);
      return null;
    }
    scratch = await scratchSchema(PG_URL, "sy_wfdel");
    return pgNode();
  },
  () => pgNode(),
  async () => {
    for (const r of pgRuntimes.reverse()) await r.close().catch(() => {});
    await scratch?.drop();
  },
);

describe("the tombstone after a restart (SQLite)", () => {
  it("a runtime opened again on the same file keeps the workflow deleted", async (ctx) => {
    if (!sqliteUrl) return ctx.skip();
    // the SQLite runtime above is closed after its describe; open the file again
    const again = await createRuntime(options(sqliteUrl));
    try {
      (globalThis as Record<symbol, unknown>)[HOLDER] = Promise.resolve(again);
      const list = (await import("../app/api/workflows/route")) as { GET: (r: Request) => Promise<Response> };
      const ids = ((await (await list.GET(req("GET", "/api/workflows"))).json()).workflows as { id: string }[]).map((w) => w.id);
      expect(ids).not.toContain("doomed");
      const runs = (await import("../app/api/runs/route")) as { POST: (r: Request) => Promise<Response> };
      expect((await runs.POST(req("POST", "/api/runs", { workflow: "doomed", input: {} }))).status).toBe(409);
    } finally {
      await again.close();
    }
  });
});
