// The engine's outbox of post-commit actions (such as swiss-army's logDecision). A step that
// takes an action writes one ActionOutbox row for it in the step's own transaction; after the
// commit the engine runs the action and deletes the row (deletes are batched). A process that
// dies between the commit and the end of the action leaves the row, and the action runs again:
// at the next start (resume), or in cluster mode by a worker's sweep once the row's lease has
// passed. Actions therefore run at least once, and are called with the same idempotency key
// (runId:seq:name) every time, so that an action whose write is keyed applies it once.
// Steps without actions write nothing here.
import type { EventObject } from "xstate";
import type { Clock } from "./clock";
import type { Draft } from "./draft";
import { nextWait, type RetryPolicy } from "./retry";
import type { OutboxRow, RunStore } from "./store/types";

/** What an action is called with (see WorkflowEffects.actions). */
export interface OutboxActionArgs {
  runId: string;
  key: string;
  context: unknown;
  event: EventObject;
  clock: Clock;
}
export type OutboxActionFn = (args: OutboxActionArgs) => void | Promise<void>;

/** how long the committing process has a row to itself before another may run it (ms) */
export const OUTBOX_LEASE_MS = 60_000;
/**
 * Attempts per row (a row that failed this often stays in the table, with its last error, and is
 * not run again) and the wait before each retry of a failed action: 1 s, 5 s, 30 s, 2 min.
 */
export const OUTBOX_RETRY: RetryPolicy = { maxAttempts: 5, backoffMs: [1_000, 5_000, 30_000, 120_000] };
export const OUTBOX_MAX_ATTEMPTS = OUTBOX_RETRY.maxAttempts;

/**
 * The outbox rows of a draft's actions: one per action the workflow implements (XState's own
 * actions and unimplemented names are skipped). Key: runId:seq:name, ":2", ":3" … for repeats.
 */
export function outboxRows(d: Draft, implemented: (name: string) => boolean): OutboxRow[] {
  const rows: OutboxRow[] = [];
  const seen = new Map<string, number>();
  d.actions.forEach((a, i) => {
    if (a.type.startsWith("xstate.") || !implemented(a.type)) return;
    const seq = d.actionSeqs[i] ?? d.row.seq;
    const base = `${d.row.id}:${seq}:${a.type}`;
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    const info = (a.info ?? {}) as { context?: unknown; event?: EventObject };
    rows.push({
      key: n === 1 ? base : `${base}:${n}`,
      runId: d.row.id,
      seq,
      workflow: d.row.workflow,
      name: a.type,
      payload: { context: info.context ?? null, event: info.event ?? { type: "" } },
      attempts: 0,
      lastError: null,
      dueAt: d.now + OUTBOX_LEASE_MS,
      createdAt: d.now,
    });
  });
  return rows;
}

export interface ActionOutboxOptions {
  store: RunStore;
  clock: Clock;
  /** the action named `name` of `workflow`, if it has one */
  action: (workflow: string, name: string) => OutboxActionFn | undefined;
  log: (level: "info" | "warn" | "error", message: string, data?: unknown) => void;
}

export class ActionOutbox {
  private done: string[] = [];
  private flushing: Promise<void> | null = null;
  private flushScheduled = false;
  private running = new Set<Promise<void>>();
  private retries = new Set<unknown>();
  private stopped = false;

  constructor(private opts: ActionOutboxOptions) {}

  /** Run rows this process has just committed (it holds their lease). */
  run(rows: OutboxRow[]): void {
    for (const row of rows) this.track(this.attempt(row));
  }

  /**
   * Run the rows left behind by a process that stopped before their actions finished. `due`: only
   * rows whose lease has passed (cluster mode; a single process at start owns every row). Each
   * row is claimed first, so two processes replaying together run it once. Resolves with how
   * many actions were run.
   */
  async replay(opts: { due: boolean }): Promise<number> {
    let n = 0;
    const tried = new Set<string>();
    for (;;) {
      const now = this.opts.clock.now();
      const rows = (await this.opts.store.outbox({ limit: 200, maxAttempts: OUTBOX_MAX_ATTEMPTS, dueBy: opts.due ? now : undefined })).filter((r) => !tried.has(r.key));
      if (rows.length === 0 || this.stopped) return n;
      for (const row of rows) {
        tried.add(row.key);
        if (!(await this.opts.store.claimOutbox(row.key, row.attempts, now + OUTBOX_LEASE_MS, opts.due ? now : undefined))) continue;
        await this.attempt({ ...row, attempts: row.attempts + 1 }, true);
        n++;
      }
    }
  }

  /** Resolves once the actions running here have finished and their rows are deleted; no retries are started after it. */
  async stop(timeoutMs = 5_000): Promise<void> {
    this.stopped = true;
    for (const t of this.retries) this.opts.clock.clearTimeout(t);
    this.retries.clear();
    await Promise.race([Promise.allSettled([...this.running]), new Promise((r) => setTimeout(r, timeoutMs))]);
    await this.flush();
  }

  /** Resolves when the actions running now have finished and the rows of those done are deleted. */
  async idle(): Promise<void> {
    while (this.running.size) await Promise.allSettled([...this.running]);
    await this.flush();
  }

  private track(p: Promise<void>): void {
    this.running.add(p);
    void p.finally(() => this.running.delete(p));
  }

  /** One attempt of a row's action (`claimed`: its attempt is already counted). */
  private async attempt(row: OutboxRow, claimed = false): Promise<void> {
    const fn = this.opts.action(row.workflow, row.name);
    try {
      if (!fn) throw new Error(`action "${row.name}" is not implemented for ${row.workflow}`);
      const event = (row.payload?.event ?? { type: "" }) as EventObject;
      await fn({ runId: row.runId, key: row.key, context: row.payload?.context ?? null, event, clock: this.opts.clock });
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      const attempts = claimed ? row.attempts : row.attempts + 1;
      const wait = nextWait(OUTBOX_RETRY, attempts);
      this.opts.log("warn", `run ${row.runId}: action ${row.name} failed (attempt ${attempts}${wait === undefined ? ", giving up" : `, retry in ${wait} ms`})`, { key: row.key, message });
      const next = this.opts.clock.now() + (wait ?? OUTBOX_LEASE_MS);
      await this.opts.store.outboxFailed(row.key, attempts, message, next).catch((err) => this.opts.log("warn", `run ${row.runId}: could not record the failure of action ${row.name}`, String(err)));
      if (wait !== undefined && !this.stopped) this.retry({ ...row, attempts }, wait);
      return;
    }
    this.done.push(row.key);
    this.scheduleFlush();
  }

  /** Try a failed row again after `wait` (if nobody else has taken it meanwhile). */
  private retry(row: OutboxRow, wait: number): void {
    const t = this.opts.clock.setTimeout(() => {
      this.retries.delete(t);
      if (this.stopped) return;
      this.track(
        this.opts.store
          .claimOutbox(row.key, row.attempts, this.opts.clock.now() + OUTBOX_LEASE_MS)
          .then((won) => (won ? this.attempt({ ...row, attempts: row.attempts + 1 }, true) : undefined))
          .catch((e) => this.opts.log("warn", `run ${row.runId}: retry of action ${row.name} not started`, String(e))),
      );
    }, wait);
    this.retries.add(t);
  }

  /** Delete the rows of finished actions, many per write. */
  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.done.length === 0) return;
    const keys = this.done.splice(0);
    this.flushing = this.opts.store
      .outboxDone(keys)
      .catch((e) => this.opts.log("warn", `could not delete ${keys.length} finished outbox row(s); their actions will run again after a restart`, String(e)))
      .finally(() => (this.flushing = null));
    await this.flushing;
  }
}
