// Dead workers' effect jobs, found in well under a second instead of after the step's expiry
// (SWITCHYARD_STEP_EXPIRE_S, minutes in production). Each worker holds a session advisory lock
// for as long as its process lives and tags the effect jobs it takes with that lock's key; a job
// still active whose owner's lock is gone (PostgreSQL drops it the moment the process dies) is put
// back to be retried now, marked the way pg-boss marks an expired job, so the worker that takes it
// counts a crash for it (poison pills, lib/engine/poison.ts). Without this a step's own timeout
// (a 5 s parse limit, say) moves the run on before the dead worker's job ever comes back, and an
// effect that kills every worker it runs on is never recognised as a poison pill.
import { randomInt } from "node:crypto";
import pg from "pg";
import type PgBoss from "pg-boss";

/** the advisory locks' first key: "SY" (their second is each worker's own) */
const LOCK_CLASS = 0x5359;
/** what pg-boss writes on a job whose attempt expired; the worker reads it as "lost" */
export const EXPIRED = "job failed by timeout in active state";

export interface ReaperOptions {
  connectionString: string;
  options?: string;
  /** pg-boss's schema */
  schema: string;
  queue: string;
  boss: PgBoss;
  intervalMs: number;
  /** jobs were put back: fetch now */
  reaped: (n: number) => void;
  log: (m: string) => void;
}

export class DeadWorkerReaper {
  /** this worker's lock key (an int4 ≥ 1) */
  readonly lock = randomInt(1, 2 ** 31 - 1);
  private client: pg.Client | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;
  private busy = false;

  constructor(private o: ReaperOptions) {}

  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.o.connectionString, options: this.o.options });
    client.on("error", (e) => this.o.log(`reaper: ${e.message}`));
    await client.connect();
    await client.query(`SELECT pg_advisory_lock($1::int, $2::int)`, [LOCK_CLASS, this.lock]);
    this.client = client;
    this.timer = setInterval(() => void this.sweep(), this.o.intervalMs);
    this.timer.unref?.();
  }

  /** Mark jobs just taken as this worker's. */
  async claim(ids: string[]): Promise<void> {
    if (!ids.length || !this.client) return;
    await this.o.boss
      .getDb()
      .executeSql(`UPDATE ${this.o.schema}.job SET output = jsonb_build_object('worker', $3::int) WHERE name = $1 AND id = ANY($2::uuid[]) AND state = 'active'`, [this.o.queue, ids, this.lock]);
  }

  /** Put back the active jobs of workers that died. */
  async sweep(): Promise<number> {
    if (this.busy || !this.client) return 0;
    this.busy = true;
    try {
      const r = (await this.o.boss.getDb().executeSql(
        `UPDATE ${this.o.schema}.job j SET
           state = CASE WHEN retry_count < retry_limit THEN 'retry' ELSE 'failed' END::${this.o.schema}.job_state,
           start_after = now(),
           completed_on = CASE WHEN retry_count < retry_limit THEN NULL ELSE now() END,
           output = jsonb_build_object('value', jsonb_build_object('message', $3::text, 'worker', j.output->'worker'))
         WHERE name = $1 AND state = 'active' AND jsonb_typeof(output->'worker') = 'number'
           AND NOT EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
             AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
             AND l.classid = $2::int::oid AND l.objid = (j.output->>'worker')::int::oid)
         RETURNING id`,
        [this.o.queue, LOCK_CLASS, `${EXPIRED} (its worker died)`],
      )) as { rows?: unknown[] };
      const n = r.rows?.length ?? 0;
      if (n) {
        this.o.log(`worker: ${n} job(s) of a worker that died put back`);
        this.o.reaped(n);
      }
      return n;
    } catch (e) {
      this.o.log(`reaper: ${(e as Error).message}`);
      return 0;
    } finally {
      this.busy = false;
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const c = this.client;
    this.client = null;
    await c?.end().catch(() => {});
  }
}
