// External workers in cluster mode (PostgreSQL, a web process and a worker process; skipped with
// a reason when PostgreSQL is unreachable): a run waiting for an external worker holds none of the
// worker process's effect slots (the effect parks), so more runs can wait than there are slots;
// a completion sent to the web process wakes the parked effect and the run goes on; a result the
// completing process never handed over (it died) is handed over by the 5 s sweep, once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateDatabase } from "../lib/db/migrations";
import { pgReachable, scratchSchema, type ScratchSchema } from "../lib/db/pg-scratch";
import { saveUserWorkflow } from "../lib/flows/store";
import { createRuntime, type Role, type Runtime } from "../lib/runtime";
import { leaseHashOf } from "../lib/tasks/store";

const PG_URL = process.env.POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/test";

const FLOW = `id: ext-cluster
initial_stage: DRAFT
stages: [DRAFT, NOTIFY, DONE, FAILED]
transitions: { DRAFT: [NOTIFY], NOTIFY: [DONE, FAILED], DONE: [], FAILED: [] }
steps:
  DRAFT:
    llm: { prompt: "A line about {{input.topic}}." }
    next: NOTIFY
  NOTIFY:
    external: { queue: cluster-publisher }
    next: DONE
    on_error: FAILED
`;

let skip: string | null = null;
let scratch: ScratchSchema | null = null;
let url = "";
const runtimes: Runtime[] = [];

async function node(role: Role, concurrency: number): Promise<Runtime> {
  const rt = await createRuntime({
    url,
    env: {} as NodeJS.ProcessEnv,
    role,
    migrate: migrateDatabase,
    serviceChoresMs: 0,
    seedGuide: false,
    alerts: { start: false },
    webhooks: { start: false },
    queue: { schema: scratch!.schema, expireSeconds: 30, maintenanceSeconds: 5 },
    worker: { concurrency, pollMs: 200 },
    log: (m) => process.env.CLUSTER_DEBUG && console.log(role, m),
  });
  runtimes.push(rt);
  return rt;
}

async function until<T>(test: () => Promise<T | null | false | undefined>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await test();
    if (v) return v;
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  skip = await pgReachable(PG_URL);
  if (skip) return console.log(`[tasks-cluster] skipped: PostgreSQL not reachable at ${PG_URL} (${skip})`);
  scratch = await scratchSchema(PG_URL, "sy_tasks_cl");
  url = `${PG_URL}?schema=${scratch.schema}`;
}, 60_000);

afterAll(async () => {
  for (const rt of runtimes.reverse()) await rt.close().catch(() => {});
  await scratch?.drop();
}, 60_000);

describe("external workers in cluster mode", () => {
  it("6 runs wait for workers on a worker process with 2 effect slots; completions sent to the web process finish them", async (ctx) => {
    if (skip) return ctx.skip();
    const web = await node("web", 1);
    const worker = await node("worker", 2);
    await saveUserWorkflow(web.db, "yaml", FLOW);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await web.engine.start("ext-cluster", { topic: `t${i}` })).run.id);
    // every run reaches its external step and queues its task, though only 2 effects run at a time
    await until(async () => (await web.tasks.store.list({ queue: "cluster-publisher" })).length === 6);
    await until(async () => worker.cluster!.worker!.busy === 0, 10_000);
    for (let i = 0; i < 6; i++) {
      const t = (await web.tasks.claim("cluster-publisher", "ext-1"))!;
      expect(t).not.toBeNull();
      await web.tasks.complete(t.id, { n: i, run: t.runId }, { leaseToken: t.leaseToken });
    }
    for (const id of ids) {
      const done = await until(async () => {
        const r = await web.store.getRun(id);
        return r && r.status !== "running" ? r : null;
      });
      expect(done.status).toBe("completed");
      expect((done.context as { steps: Record<string, { output?: { run?: string } }> }).steps.NOTIFY!.output!.run).toBe(id);
    }
    const rows = await web.tasks.store.list({ queue: "cluster-publisher" });
    expect(rows.every((r) => r.status === "done")).toBe(true);
  }, 60_000);

  it("a result completed where nobody hands it over (the completing process died) is handed over by another process's sweep, once", async (ctx) => {
    if (skip) return ctx.skip();
    const web = runtimes[0] ?? (await node("web", 1));
    const worker = runtimes[1] ?? (await node("worker", 2));
    await saveUserWorkflow(web.db, "yaml", FLOW);
    const id = (await web.engine.start("ext-cluster", { topic: "orphan" })).run.id;
    const task = await until(async () => (await web.tasks.store.list({ runId: id }))[0]);
    await until(async () => worker.cluster!.worker!.busy === 0, 10_000);
    // the row is claimed and completed straight in the store, as a process would before it is
    // killed: no process learns of it, so only the sweep (unconsumed results, every 5 s) hands it over
    const now = Date.now();
    const claimed = await web.tasks.store.claim("cluster-publisher", "dying", leaseHashOf("lease_dying"), now, 30_000);
    expect(claimed?.id).toBe(task.id);
    await web.tasks.store.complete(task.id, { n: 7, run: id }, { hash: leaseHashOf("lease_dying"), by: "dying" }, now);
    expect((await web.tasks.store.get(task.id))!.consumedAt).toBeNull();
    // nobody learnt of it (a sweep takes only results older than 2 s)
    expect((await web.store.getRun(id))!.status).toBe("running");
    const done = await until(async () => {
      const r = await web.store.getRun(id);
      return r && r.status !== "running" ? r : null;
    }, 20_000);
    expect(done.status).toBe("completed");
    expect((done.context as { steps: Record<string, { output?: { n?: number; run?: string } }> }).steps.NOTIFY!.output).toEqual({ n: 7, run: id });
    // marked consumed right after the run has taken it (a crash in between: the next sweep finds the run moved on)
    expect(await until(async () => (await web.tasks.store.get(task.id))!.consumedAt, 10_000)).toBeGreaterThan(0);
    // taken exactly once: one NOTIFY -> DONE transition, however many processes sweep (both again, at once)
    await Promise.all([web.tasks.sweep(), worker.tasks.sweep(), web.tasks.sweep()]);
    const into = (await web.store.transitions(id)).filter((t) => t.to.includes("DONE"));
    expect(into.length).toBe(1);
    expect((await web.store.getRun(id))!.status).toBe("completed");
  }, 60_000);
});
