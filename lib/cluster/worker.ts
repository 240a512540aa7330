// A worker's job loops: fetch effect, timer and chore jobs from pg-boss while there is room,
// run each through the engine, and complete or fail it. A fetch happens when a job is announced
// (LISTEN), when a slot frees up, and otherwise every `pollMs`. A timer job taken before it is due
// by the engine's clock (the database's clock runs ahead, or the clock is a simulated one: queue.ts)
// is held until that clock reaches its due time; a worker that stops hands held jobs back.
import type PgBoss from "pg-boss";
import type { Engine } from "../engine/engine";
import { CHORE_QUEUE, EFFECT_QUEUE, TIMER_QUEUE, type ChoreJob, type QueuedEffect, type TimerJob } from "./queue";
import { DeadWorkerReaper, EXPIRED } from "./reaper";

export interface WorkerStats {
  effects: number;
  timers: number;
  chores: number;
  stale: number;
  failed: number;
  /** ms from the commit that queued an effect to its job starting here (the last 10,000) */
  startLatencyMs: number[];
}

export interface JobWorkerOptions {
  boss: PgBoss;
  engine: Engine;
  /** effects run at the same time, at most (model calls wait on the network: many fit) */
  concurrency: number;
  pollMs: number;
  chores: (chore: ChoreJob["chore"]) => Promise<unknown>;
  log: (message: string) => void;
  /** find effect jobs of workers that died at once (reaper.ts), every `intervalMs` (default 500) */
  reaper?: { connectionString: string; options?: string; schema: string; intervalMs?: number };
}

type Job = { id: string; name: string; data: unknown; output?: unknown };


export class JobWorker {
  readonly stats: WorkerStats = { effects: 0, timers: 0, chores: 0, stale: 0, failed: 0, startLatencyMs: [] };
  private running = false;
  private inflight = new Set<Promise<void>>();
  private wakers = new Map<() => void, string>();
  private loops: Promise<void>[] = [];
  /** timer jobs waiting for their due time: each one's hand-back */
  private holds = new Set<() => void>();

  private reaper: DeadWorkerReaper | null;

  constructor(private o: JobWorkerOptions) {
    const r = o.reaper;
    this.reaper = r
      ? new DeadWorkerReaper({ ...r, intervalMs: r.intervalMs ?? 500, boss: o.boss, queue: EFFECT_QUEUE, log: o.log, reaped: () => this.wake([EFFECT_QUEUE]) })
      : null;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.reaper?.start().catch((e) => this.o.log(`worker: the dead-worker reaper did not start: ${(e as Error).message}`));
    this.loops = [EFFECT_QUEUE, TIMER_QUEUE, CHORE_QUEUE].map((q) => this.loop(q));
  }

  /** Fetch now (a job was announced): on these queues, or on all. */
  wake(queues?: string[]): void {
    for (const [w, q] of [...this.wakers]) if (!queues || queues.includes(q)) w();
  }

  get busy(): number {
    return this.inflight.size;
  }

  /** timer jobs taken and waiting for the engine's clock to reach their due time */
  get held(): number {
    return this.holds.size;
  }

  /** Resolves once the engine's clock is at `dueAt`; rejects when the worker stops first. */
  private async due(dueAt: number): Promise<void> {
    const clock = this.o.engine.clock;
    for (let wait = dueAt - clock.now(); wait > 0; wait = dueAt - clock.now()) {
      await new Promise<void>((resolve, reject) => {
        const handBack = () => {
          clock.clearTimeout(h);
          this.holds.delete(handBack);
          reject(new Error("the worker stopped before the timer was due"));
        };
        const h = clock.setTimeout(() => {
          this.holds.delete(handBack);
          resolve();
        }, wait);
        this.holds.add(handBack);
      });
    }
  }

  private async loop(queue: string): Promise<void> {
    while (this.running) {
      const room = this.o.concurrency - this.inflight.size;
      let got = 0;
      if (room > 0) {
        try {
          // effect jobs with their last outcome: one that expired was in flight when its worker died (poison pills)
          const jobs = (await this.o.boss.fetch(queue, { batchSize: Math.min(room, 50), ...(queue === EFFECT_QUEUE ? { includeMetadata: true } : {}) })) as Job[];
          got = jobs.length;
          if (!this.running) {
            // taken while stopping: hand them straight back (another worker retries them)
            if (jobs.length) await this.o.boss.fail(queue, jobs.map((j) => j.id)).catch(() => {});
            break;
          }
          // an effect job is tagged as this worker's: if this process dies, another puts it back at once
          if (queue === EFFECT_QUEUE && this.reaper) await this.reaper.claim(jobs.map((j) => j.id)).catch((e) => this.o.log(`worker: could not claim jobs: ${(e as Error).message}`));
          for (const job of jobs) this.run(queue, job);
        } catch (e) {
          if (this.running) this.o.log(`worker: fetch from ${queue} failed: ${(e as Error).message}`);
        }
      }
      if (got === 0 || room <= got) await this.idle(queue);
    }
  }

  private idle(queue: string): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakers.delete(done);
        resolve();
      };
      // timers come due without an announcement: their queue is polled twice a second
      const timer = setTimeout(done, queue === TIMER_QUEUE ? Math.min(500, this.o.pollMs) : this.o.pollMs);
      this.wakers.set(done, queue);
    });
  }

  private run(queue: string, job: Job) {
    const p = this.handle(queue, job)
      .then(
        () => this.o.boss.complete(queue, job.id),
        (e) => {
          this.stats.failed++;
          this.o.log(`worker: ${queue} job ${job.id} failed: ${(e as Error).message}`);
          return this.o.boss.fail(queue, job.id, { message: (e as Error).message });
        },
      )
      .catch((e) => this.o.log(`worker: could not settle ${queue} job ${job.id}: ${(e as Error).message}`))
      .finally(() => {
        this.inflight.delete(p);
        this.wake(); // a slot is free
      });
    this.inflight.add(p);
  }

  private async handle(queue: string, job: Job): Promise<void> {
    if (queue === EFFECT_QUEUE) {
      const data = job.data as QueuedEffect;
      if (typeof data.queuedAt === "number") {
        const l = this.stats.startLatencyMs;
        l.push(Date.now() - data.queuedAt);
        if (l.length > 10_000) l.splice(0, l.length - 10_000);
      }
      const lost = JSON.stringify(job.output ?? null).includes(EXPIRED);
      const out = await this.o.engine.runEffect({ runId: data.runId, child: data.child, key: data.key }, { lost });
      // stopped mid-effect (shutdown aborted it): fail the job so that another worker runs it
      if (!this.running) throw new Error("the worker stopped before the effect finished");
      if (out === "stale") this.stats.stale++;
      else this.stats.effects++;
    } else if (queue === TIMER_QUEUE) {
      const data = job.data as TimerJob;
      await this.due(data.dueAt);
      const out = await this.o.engine.fireTimer(data.runId, data.timerId, data.dueAt);
      if (out === "stale") this.stats.stale++;
      else this.stats.timers++;
    } else {
      await this.o.chores((job.data as ChoreJob).chore);
      this.stats.chores++;
    }
  }

  /** Stop fetching; wait (up to `graceMs`) for running jobs. Stop the engine next, then `settled()`. */
  async stop(graceMs = 5_000): Promise<void> {
    this.running = false;
    this.wake();
    // timer jobs not due yet go back to the queue at once (failed: retried by another worker)
    for (const handBack of [...this.holds]) handBack();
    await Promise.all(this.loops);
    await Promise.race([Promise.allSettled([...this.inflight]), new Promise((r) => setTimeout(r, graceMs))]);
  }

  /** Every job taken is completed or failed (failed ones are retried by another worker). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.inflight]);
    await this.reaper?.stop();
  }
}
