// The job queue of cluster mode (PostgreSQL): pg-boss. Every effect a run invokes and every timer
// it sets becomes a job; a job's id is derived from the effect's invocation key or the timer's id,
// so queueing the same work twice (a sweep, a retry) adds nothing.
import { createHash } from "node:crypto";
import PgBoss from "pg-boss";
import { systemClock, type Clock } from "../engine/clock";
import type { Dispatcher, EffectJob } from "../engine/engine";
import type { TimerRow } from "../engine/store/types";
import type { ServiceChoreName } from "../machines/services";

export const EFFECT_QUEUE = "switchyard-effect";
export const TIMER_QUEUE = "switchyard-timer";
/** periodic cluster-wide tasks (alerts, retention, workflow services' chores): one job per interval window, whichever worker takes it */
export const CHORE_QUEUE = "switchyard-chore";

/** An effect job as queued: `queuedAt` (epoch ms, right after the commit that invoked it) measures the queue's latency. */
export interface QueuedEffect extends EffectJob {
  queuedAt?: number;
}

export interface TimerJob {
  runId: string;
  timerId: string;
  /** the due time it was queued for (a timer set again later is a job of its own) */
  dueAt: number;
}

export interface ChoreJob {
  /** the core's own, or a workflow service's `<workflow>.<chore>` (lib/machines/services.ts) */
  chore: "alerts" | "retention" | "sweep" | ServiceChoreName;
}

export interface QueueSettings {
  /** a step not finished within this many seconds is taken to be lost (its worker died) and retried elsewhere */
  expireSeconds: number;
  /** how often pg-boss looks for expired jobs (seconds) */
  maintenanceSeconds: number;
  /** the queue's PostgreSQL schema */
  schema: string;
}

function positive(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const v = env[name]?.trim();
  if (!v) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a whole number of seconds ≥ 1; got "${v}"`);
  return n;
}

/** SWITCHYARD_STEP_EXPIRE_S (default 900: above the longest built-in timeout, the 10 min execution limit), SWITCHYARD_QUEUE_MAINTENANCE_S (30), SWITCHYARD_QUEUE_SCHEMA (pgboss). */
export function queueSettingsFromEnv(env: NodeJS.ProcessEnv): QueueSettings {
  const schema = env.SWITCHYARD_QUEUE_SCHEMA?.trim() || "pgboss";
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`SWITCHYARD_QUEUE_SCHEMA must be a lower-case PostgreSQL identifier; got "${schema}"`);
  return { expireSeconds: positive(env, "SWITCHYARD_STEP_EXPIRE_S", 900), maintenanceSeconds: positive(env, "SWITCHYARD_QUEUE_MAINTENANCE_S", 30), schema };
}

/** A UUID that is a pure function of `name` (pg-boss job ids are UUIDs). */
export function jobId(name: string): string {
  const h = createHash("sha256").update(name).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const timerJobId = (t: TimerRow) => jobId(`timer:${t.runId}:${t.id}:${t.dueAt}`);

export async function startQueue(connectionString: string, s: QueueSettings, opts: { supervise: boolean; log: (m: string) => void }): Promise<PgBoss> {
  // The queue's own writes skip the WAL flush (synchronous_commit=off): the run tables are the
  // durable truth. A job insert lost in a crash is queued again by the sweep; a completion lost
  // is a job run again, which finds its effect already committed ("stale") and does nothing.
  const u = new URL(connectionString);
  u.searchParams.set("options", `${u.searchParams.get("options") ?? ""} -c synchronous_commit=off`.trim());
  const boss = new PgBoss({
    connectionString: u.toString(),
    schema: s.schema,
    supervise: opts.supervise,
    schedule: false,
    maintenanceIntervalSeconds: s.maintenanceSeconds,
    application_name: "switchyard-queue",
    max: 4,
  });
  boss.on("error", (e) => opts.log(`queue: ${e.message}`));
  await boss.start();
  for (const name of [EFFECT_QUEUE, TIMER_QUEUE, CHORE_QUEUE]) {
    for (let attempt = 1; ; attempt++) {
      try {
        if (!(await boss.getQueue(name))) await boss.createQueue(name, { name, policy: "standard" });
        break;
      } catch (e) {
        if (/already exists|duplicate/i.test(String((e as Error)?.message))) break;
        // pg-boss's create_queue takes no lock: processes starting together on a fresh schema can deadlock
        if ((e as { code?: string })?.code !== "40P01" || attempt >= 10) throw e;
        await new Promise((r) => setTimeout(r, 20 * attempt + Math.random() * 100));
      }
    }
  }
  return boss;
}

/** The engine's Dispatcher on pg-boss; `queued` is told after each job lands (workers wake on it). */
export class QueueDispatcher implements Dispatcher {
  constructor(
    private boss: PgBoss,
    private s: QueueSettings,
    private queued: (queue: string) => void = () => {},
    private clock: Clock = systemClock,
  ) {}

  async effect(job: EffectJob): Promise<void> {
    await this.boss.send(EFFECT_QUEUE, { ...job, queuedAt: Date.now() } satisfies QueuedEffect, { id: jobId(`effect:${job.key}`), expireInSeconds: this.s.expireSeconds, retryLimit: 20, retryDelay: 1, retryBackoff: true });
    this.queued(EFFECT_QUEUE);
  }

  async timer(t: TimerRow): Promise<void> {
    const data: TimerJob = { runId: t.runId, timerId: t.id, dueAt: t.dueAt };
    await this.boss.send(TIMER_QUEUE, data, {
      id: timerJobId(t),
      // pg-boss holds the job until the database's clock reaches the due time; a simulated clock
      // (tests) is not the database's: the job is there at once, and the worker that takes it
      // waits for the engine's clock (worker.ts), as it does when the database's clock runs ahead
      ...(this.clock === systemClock ? { startAfter: new Date(t.dueAt) } : {}),
      expireInSeconds: 60,
      retryLimit: 20,
      retryDelay: 1,
      retryBackoff: true,
    });
    // no wake-up: it is not due yet (workers poll for due timers)
  }

  async cancelTimer(t: TimerRow): Promise<void> {
    await this.boss.cancel(TIMER_QUEUE, timerJobId(t));
  }

  /** Queue a chore at most once per `seconds` window across the cluster. */
  async chore(chore: ChoreJob["chore"], seconds: number): Promise<void> {
    await this.boss.send(CHORE_QUEUE, { chore } satisfies ChoreJob, { singletonKey: chore, singletonSeconds: Math.max(1, Math.round(seconds)), expireInSeconds: 600, retryLimit: 0 });
    this.queued(CHORE_QUEUE);
  }
}
