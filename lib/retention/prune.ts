// Retention: finished runs older than an age are removed with everything that belongs to them
// (transitions, snapshots, reviews, timers, artifacts, model calls, webhook deliveries),
// optionally archived first as export files; a long-lived run keeps its history but loses its
// snapshots older than the age (except its latest). Live runs are never removed. What the
// workflows learned (Context Manager results and patterns, the personal log, observations) stays.
import fs from "node:fs";
import path from "node:path";
import type { SqliteHandle } from "../db/sqlite";
import { sqliteDate } from "../db/sqlite";
import type { Clock } from "../engine/clock";
import { exportRun, exportText } from "../api/run-export";

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

/** Tables whose rows belong to one run (column runId). */
const OWNED = ["Transition", "Snapshot", "Timer", "Review", "Artifact", "ModelCall", "WebhookDelivery"] as const;

export async function pruneRuns(rt: { sqlite: SqliteHandle; clock: Clock }, opts: PruneOptions): Promise<PruneResult> {
  if (!(opts.olderThanMs > 0)) throw new Error("olderThanMs must be a positive number of ms");
  const { db, mutex } = rt.sqlite;
  const cutoffMs = rt.clock.now() - opts.olderThanMs;
  const cutoff = sqliteDate(cutoffMs);
  const batch = opts.batch ?? 500;
  const rows: Record<string, number> = Object.fromEntries(["Run", ...OWNED].map((t) => [t, 0]));
  const result: PruneResult = { runs: 0, archived: 0, snapshots: 0, rows, cutoff: new Date(cutoffMs).toISOString() };
  if (opts.archiveDir) fs.mkdirSync(opts.archiveDir, { recursive: true });
  const pick = db.prepare(`SELECT "id" FROM "Run" WHERE "status" IN ('completed','failed','aborted') AND "finishedAt" < ? ORDER BY "finishedAt" LIMIT ?`);
  const del = Object.fromEntries(OWNED.map((t) => [t, db.prepare(`DELETE FROM "${t}" WHERE "runId" = ?`)]));
  // only if still finished: a run is never removed while it could move
  const delRun = db.prepare(`DELETE FROM "Run" WHERE "id" = ? AND "status" IN ('completed','failed','aborted')`);
  let skip = new Set<string>();
  for (;;) {
    const ids = (pick.all(cutoff, batch + skip.size) as { id: string }[]).map((r) => r.id).filter((id) => !skip.has(id)).slice(0, batch);
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
    await mutex.runExclusive(() =>
      db.transaction(() => {
        for (const id of ids) {
          if (keep.has(id)) continue;
          if (Number(delRun.run(id).changes) === 0) continue;
          rows.Run++;
          result.runs++;
          for (const t of OWNED) rows[t] += Number(del[t].run(id).changes);
        }
      }).immediate(),
    );
    skip = new Set([...skip, ...keep]);
    if (ids.every((id) => keep.has(id))) break;
  }
  // the remaining runs' old snapshots: all but each run's latest
  const thinned = await mutex.runExclusive(
    () => db.prepare(`DELETE FROM "Snapshot" WHERE "at" < ? AND "seq" < (SELECT r."seq" FROM "Run" r WHERE r."id" = "Snapshot"."runId")`).run(cutoff).changes,
  );
  result.snapshots = Number(thinned);
  rows.Snapshot += Number(thinned);
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

  constructor(
    private rt: { sqlite: SqliteHandle; clock: Clock },
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
