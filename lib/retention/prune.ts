// Retention: finished runs older than an age are removed with everything that belongs to them
// (transitions, snapshots, reviews, timers, artifacts, model calls, webhook deliveries),
// optionally archived first as export files; a long-lived run keeps its history but loses its
// snapshots older than the age (except its latest). Live runs are never removed. What the
// workflows learned (Context Manager results and patterns, the personal log, observations) stays.
import fs from "node:fs";
import path from "node:path";
import type { Clock } from "../engine/clock";
import { exportRun, exportText } from "../api/run-export";
import { IDEMPOTENCY_TTL_MS } from "../engine/store/idempotency";
import { RUN_OWNED, type RunStore } from "../engine/store/types";

export interface PruneOptions {
  /** finished runs whose finishedAt is older than this many ms are removed */
  olderThanMs: number;
  /** write each run as `run-<id>.json` (the export format) here before removing it */
  archiveDir?: string | null;
  /** runs per transaction (the engine commits between batches) */
  batch?: number;
}

export interface PruneResult {
  runs: number;
  archived: number;
  /** snapshots of remaining runs dropped for age */
  snapshots: number;
  /** rows removed per table */
  rows: Record<string, number>;
  cutoff: string;
}

/** What pruning needs of the runtime: its run store and clock. */
export type RetentionPorts = { store: Pick<RunStore, "archive" | "idempotency">; clock: Clock };

export async function pruneRuns(rt: RetentionPorts, opts: PruneOptions): Promise<PruneResult> {
  if (!(opts.olderThanMs > 0)) throw new Error("olderThanMs must be a positive number of ms");
  const store = rt.store.archive;
  const cutoff = rt.clock.now() - opts.olderThanMs;
  const batch = opts.batch ?? 500;
  const rows: Record<string, number> = Object.fromEntries(["Run", ...RUN_OWNED].map((t) => [t, 0]));
  const result: PruneResult = { runs: 0, archived: 0, snapshots: 0, rows, cutoff: new Date(cutoff).toISOString() };
  if (opts.archiveDir) fs.mkdirSync(opts.archiveDir, { recursive: true });
  let skip = new Set<string>();
  for (;;) {
    const ids = (await store.finishedBefore(cutoff, batch + skip.size)).filter((id) => !skip.has(id)).slice(0, batch);
    if (!ids.length) break;
    const keep = new Set<string>();
    if (opts.archiveDir) {
      for (const id of ids) {
        try {
          const file = path.join(opts.archiveDir, `run-${id}.json`);
          fs.writeFileSync(`${file}.tmp`, exportText(await exportRun(rt, id)));
          fs.renameSync(`${file}.tmp`, file);
          result.archived++;
        } catch {
          keep.add(id); // not archived: not removed either
        }
      }
    }
    const removed = await store.removeRuns(ids.filter((id) => !keep.has(id)));
    for (const [t, n] of Object.entries(removed)) rows[t] += n;
    result.runs += removed.Run;
    skip = new Set([...skip, ...keep]);
    if (ids.every((id) => keep.has(id))) break;
  }
  const thinned = await store.thinSnapshots(cutoff);
  result.snapshots = thinned;
  rows.Snapshot += thinned;
  // Idempotency-Keys past their 24 hours (lib/api/idempotency.ts), whatever the runs' age
  rows.IdempotencyKey = await rt.store.idempotency.expire(rt.clock.now() - IDEMPOTENCY_TTL_MS);
  return result;
}

/** SWITCHYARD_RETENTION_DAYS: finished runs older than this are pruned (unset or 0 = keep everything). */
export function retentionFromEnv(env: NodeJS.ProcessEnv): { olderThanMs: number; archiveDir: string | null; intervalMs: number } | null {
  const days = env.SWITCHYARD_RETENTION_DAYS?.trim();
  if (!days || days === "0") return null;
  const n = Number(days);
  if (!(n > 0) || !Number.isFinite(n)) throw new Error(`SWITCHYARD_RETENTION_DAYS must be a positive number of days; got "${days}"`);
  const every = env.SWITCHYARD_RETENTION_INTERVAL_MS?.trim();
  const intervalMs = every ? Number(every) : 3_600_000;
  if (!Number.isInteger(intervalMs) || intervalMs <= 0) throw new Error(`SWITCHYARD_RETENTION_INTERVAL_MS must be a positive whole number of ms; got "${every}"`);
  return { olderThanMs: n * 86_400_000, archiveDir: env.SWITCHYARD_ARCHIVE_DIR?.trim() || null, intervalMs };
}

/** Prune on the clock's interval (re-armed after each pass); stop() cancels it. */
export class RetentionJob {
  private timer: unknown = null;
  private running: Promise<unknown> | null = null;
  last: PruneResult | null = null;
  lastError: string | null = null;

  /** rt: the runtime's run store and clock */
  constructor(
    private rt: RetentionPorts,
    private opts: PruneOptions & { intervalMs: number },
  ) {}

  start(): void {
    this.arm();
  }

  private arm(): void {
    this.timer = this.rt.clock.setTimeout(() => {
      this.running = pruneRuns(this.rt, this.opts)
        .then((r) => ((this.last = r), (this.lastError = null)))
        .catch((e) => (this.lastError = (e as Error).message))
        .finally(() => {
          this.running = null;
          if (this.timer !== null) this.arm();
        });
    }, this.opts.intervalMs);
  }

  async stop(): Promise<void> {
    if (this.timer !== null) this.rt.clock.clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }
}
