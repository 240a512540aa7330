// A dead worker's effect jobs are put back at once (lib/cluster/reaper.ts), marked as expired so
// the next worker counts a crash for them; a live worker's jobs are left alone. Skipped when
// PostgreSQL is not reachable.
import { afterAll, beforeAll, expect, it } from "vitest";
import type PgBoss from "pg-boss";
import { pgReachable, scratchSchema, type ScratchSchema } from "../lib/db/pg-scratch";
import { EFFECT_QUEUE, startQueue } from "../lib/cluster/queue";
import { DeadWorkerReaper, EXPIRED } from "../lib/cluster/reaper";

const PG_URL = process.env.POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
let skip: string | null = null;
let scratch: ScratchSchema | null = null;
let boss: PgBoss | null = null;
const reapers: DeadWorkerReaper[] = [];

beforeAll(async () => {
  skip = await pgReachable(PG_URL);
  if (skip) return;
  scratch = await scratchSchema(PG_URL, "sy_reaper");
  boss = await startQueue(PG_URL, { schema: scratch.schema, expireSeconds: 900, maintenanceSeconds: 300 }, { supervise: false, log: () => {} });
}, 60_000);

afterAll(async () => {
  for (const r of reapers) await r.stop();
  await boss?.stop({ graceful: false, wait: true }).catch(() => {});
  await scratch?.drop();
}, 60_000);

const reaper = async () => {
  const r = new DeadWorkerReaper({ connectionString: PG_URL, schema: scratch!.schema, queue: EFFECT_QUEUE, boss: boss!, intervalMs: 60_000, reaped: () => {}, log: () => {} });
  await r.start();
  reapers.push(r);
  return r;
};

it("puts back the effect jobs of a worker that died, marked expired, and leaves a live worker's alone", async (ctx) => {
  if (skip) return ctx.skip();
  const [dead, live] = [await reaper(), await reaper()];
  await boss!.send(EFFECT_QUEUE, { n: 1 }, { retryLimit: 20 });
  await boss!.send(EFFECT_QUEUE, { n: 2 }, { retryLimit: 20 });
  const [a] = (await boss!.fetch(EFFECT_QUEUE, { batchSize: 1 })) as { id: string }[];
  const [b] = (await boss!.fetch(EFFECT_QUEUE, { batchSize: 1 })) as { id: string }[];
  await dead.claim([a.id]);
  await live.claim([b.id]);
  expect(await live.sweep()).toBe(0); // both owners alive
  await dead.stop(); // its session ends: the lock goes, as when the process is killed
  expect(await live.sweep()).toBe(1);
  const again = (await boss!.fetch(EFFECT_QUEUE, { batchSize: 5, includeMetadata: true })) as { id: string; output: unknown }[];
  expect(again.map((j) => j.id)).toEqual([a.id]); // retried now, not after a backoff
  expect(JSON.stringify(again[0].output)).toContain(EXPIRED);
  expect((await boss!.getJobById(EFFECT_QUEUE, b.id))?.state).toBe("active");
}, 30_000);
