// Durable timers in one process (single mode): one wake-up for the whole process, set at the
// earliest deadline the database holds (an indexed read of the Timer table), re-armed when a
// commit sets an earlier one. On waking it reads the timers due by then and fires each through
// its run (Engine.fireTimer loads an evicted run from its snapshot first), so a run that waits for
// a timer needs nothing in memory. Overdue timers (the server was down) fire at once at boot.
// Cluster mode does not use it: there a timer is a delayed job in the queue (lib/cluster).
import type { Clock } from "./clock";
import { backoffMs, STORAGE_RETRY } from "./retry";
import type { RunStore, TimerRow } from "./store/types";

/** timers read per batch while waking */
const BATCH = 200;

/** What firing one timer came to: "broken": its run cannot be loaded here (not retried by this process). */
export type FireOutcome = "fired" | "stale" | "broken";

export interface TimerWheelOptions {
  store: Pick<RunStore, "nextTimer" | "dueTimers">;
  clock: Clock;
  fire(t: TimerRow): Promise<FireOutcome>;
  log(level: "info" | "warn" | "error", message: string, data?: unknown): void;
}

/** Wait before trying again timers that failed to fire (the database refused): 0.5 s, 1 s … up to 30 s. */
const backoff = (failures: number) => backoffMs(STORAGE_RETRY, failures);

export class TimerWheel {
  private handle: unknown = null;
  /** the deadline the wake-up is set for (null: none) */
  private armedAt: number | null = null;
  private running: Promise<void> | null = null;
  /** the earliest deadline set while waking (the wake re-arms for it when it ends) */
  private during: number | null = null;
  private failures = 0;
  private stopped = false;
  /** runs whose timers could not be delivered (their workflow is not registered, their snapshot does not restore) */
  private broken = new Set<string>();
  /** wake-ups so far (tests, metrics) */
  wakes = 0;

  constructor(private o: TimerWheelOptions) {}

  /** Boot: arm for the earliest pending timer (an overdue one fires at once). */
  async start(): Promise<void> {
    const next = await this.o.store.nextTimer(null);
    if (next !== null) this.schedule(next);
  }

  /** A commit set a timer due at `dueAt`: wake up by then. */
  schedule(dueAt: number): void {
    if (this.stopped) return;
    if (this.running) {
      this.during = this.during === null ? dueAt : Math.min(this.during, dueAt);
      return;
    }
    if (this.armedAt !== null && this.armedAt <= dueAt) return;
    this.arm(dueAt);
  }

  /** The deadline the process wakes up at next (null: no timer pending). */
  get nextWake(): number | null {
    return this.armedAt;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.handle !== null) this.o.clock.clearTimeout(this.handle);
    this.handle = null;
    this.armedAt = null;
    await this.running;
  }

  private arm(at: number): void {
    if (this.handle !== null) this.o.clock.clearTimeout(this.handle);
    this.armedAt = at;
    this.handle = this.o.clock.setTimeout(() => this.wake(), at - this.o.clock.now());
  }

  private wake(): void {
    this.handle = null;
    this.armedAt = null;
    if (this.stopped) return;
    if (this.running) {
      this.during = this.o.clock.now();
      return;
    }
    this.wakes++;
    this.running = this.fireDue()
      .catch((e) => {
        this.o.log("warn", `timers: ${(e as Error).message}; trying again`);
        return this.o.clock.now() + backoff(this.failures++);
      })
      .then((at) => {
        this.running = null;
        const during = this.during;
        this.during = null;
        const next = at === null ? during : during === null ? at : Math.min(at, during);
        if (next !== null && !this.stopped) this.schedule(next);
      });
  }

  /** Fire every timer due now; the deadline to wake at next (null: none pending). */
  private async fireDue(): Promise<number | null> {
    // a simulated clock moves on synchronously after firing this wake-up: read `now` once it has
    await Promise.resolve();
    const now = this.o.clock.now();
    let failed = false;
    for (;;) {
      const limit = BATCH + this.broken.size;
      const rows = await this.o.store.dueTimers(now, limit);
      const due = rows.filter((t) => !this.broken.has(t.runId));
      if (!due.length) break;
      const outcomes = await Promise.allSettled(due.map((t) => this.o.fire(t)));
      let fired = 0;
      outcomes.forEach((o, i) => {
        if (o.status === "rejected") {
          failed = true;
          this.o.log("warn", `run ${due[i].runId}: timer ${due[i].id} not fired (${(o.reason as Error)?.message ?? o.reason}); trying again`);
        } else if (o.value === "broken") {
          this.broken.add(due[i].runId);
          this.o.log("warn", `run ${due[i].runId}: timer ${due[i].id} not fired: the run cannot be loaded here`);
        } else fired++;
      });
      // a full batch that moved: there may be more due
      if (rows.length < limit || fired === 0) break;
    }
    const next = await this.o.store.nextTimer(now);
    if (!failed) {
      this.failures = 0;
      return next;
    }
    const retry = now + backoff(this.failures++);
    return next === null ? retry : Math.min(next, retry);
  }
}
