// Retention: finished runs older than an age are removed with everything that belongs to them
// (transitions, snapshots, reviews, timers, artifacts, model calls, webhook deliveries),
// optionally archived first as export files; a long-lived run keeps its history but loses its
// snapshots older than the age (except its latest). Live runs are never removed. What the
// workflows learned (Context Manager results and patterns, the personal log, observations) stays.
import fs from "node:fs";
import path from "node:path";
import { dbDate, dialectOf, query, writeAll, type SqlPorts } from "../db/sql";
import type { SqliteHandle } from "../db/sqlite";
import type { Clock } from "../engine/clock";
import { exportRun, exportText } from "../api/run-export";
import { IDEMPOTENCY_TTL_MS } from "../engine/store/idempotency";

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
const OWNED = ["Transition", "Snapshot", "Timer", "Review", "Artifact", "ModelCall", "WebhookDelivery", "RunPrincipal"] as const;

/** What pruning needs of the runtime: its database (`sqlite` or `pg`, whichever is set) and clock. */
export type RetentionPorts = SqlPorts & { clock: Clock };

const FINISHED = `"status" IN ('completed','failed','aborted')`;
/** the remaining runs' old snapshots: all but each run's latest */
const THIN = `DELETE FROM "Snapshot" WHERE "at" < ? AND "seq" < (SELECT r."seq" FROM "Run" r WHERE r."id" = "Snapshot"."runId")`;

/** The three steps of a pass, on one database. */
interface Pruner {
  /** finished runs that ended before the cutoff, oldest first */
  pick(cutoff: string, limit: number): Promise<string[]>;
  /** removes those of `ids` still finished and what they own, in one transaction; counts rows per table into `rows` */
  remove(ids: string[], rows: Record<string, number>): Promise<void>;
  thin(cutoff: string): Promise<number>;
}

function sqlitePruner({ db, mutex }: SqliteHandle): Pruner {
  const pick = db.prepare(`SELECT "id" FROM "Run" WHERE ${FINISHED} AND "finishedAt" < ? ORDER BY "finishedAt" LIMIT ?`);
  const del = Object.fromEntries(OWNED.map((t) => [t, db.prepare(`DELETE FROM "${t}" WHERE "runId" = ?`)]));
  // only if still finished: a run is never removed while it could move
  const delRun = db.prepare(`DELETE FROM "Run" WHERE "id" = ? AND ${FINISHED}`);
  return {
    pick: async (cutoff, limit) => (pick.all(cutoff, limit) as { id: string }[]).map((r) => r.id),
    remove: (ids, rows) =>
      mutex.runExclusive(() =>
        db.transaction(() => {
          for (const id of ids) {
            if (Number(delRun.run(id).changes) === 0) continue;
            rows.Run++;
            for (const t of OWNED) rows[t] += Number(del[t].run(id).changes);
          }
        }).immediate(),
      ),
    thin: (cutoff) => mutex.runExclusive(() => Number(db.prepare(THIN).run(cutoff).changes)),
  };
}

function postgresPruner(rt: SqlPorts): Pruner {
  // one statement per batch: the runs still finished go, and through data-modifying CTEs what
  // they own with them, each CTE counting the rows its table lost
  const remove = `WITH "gone" AS (DELETE FROM "Run" WHERE "id" = ANY(?::text[]) AND ${FINISHED} RETURNING "id"),
    ${OWNED.map((t) => `"d_${t}" AS (DELETE FROM "${t}" WHERE "runId" IN (SELECT "id" FROM "gone") RETURNING 1)`).join(",\n    ")}
    SELECT (SELECT COUNT(*) FROM "gone") AS "Run", ${OWNED.map((t) => `(SELECT COUNT(*) FROM "d_${t}") AS "${t}"`).join(", ")}`;
  return {
    pick: async (cutoff, limit) => (await query(rt, `SELECT "id" FROM "Run" WHERE ${FINISHED} AND "finishedAt" < ? ORDER BY "finishedAt" LIMIT ?`, [cutoff, limit])).rows.map((r) => String(r.id)),
    remove: async (ids, rows) => {
      const [{ rows: [counted] }] = await writeAll(rt, [{ sql: remove, args: [ids] }]);
      for (const t of ["Run", ...OWNED]) rows[t] += Number(counted[t]);
    },
    thin: async (cutoff) => (await query(rt, THIN, [cutoff])).changes,
  };
}

export async function pruneRuns(rt: RetentionPorts, opts: PruneOptions): Promise<PruneResult> {
  if (!(opts.olderThanMs > 0)) throw new Error("olderThanMs must be a positive number of ms");
  const d = dialectOf(rt);
  const pruner = d === "sqlite" ? sqlitePruner(rt.sqlite!) : postgresPruner(rt);
  const cutoffMs = rt.clock.now() - opts.olderThanMs;
  const cutoff = dbDate(d, cutoffMs);
  const batch = opts.batch ?? 500;
  const rows: Record<string, number> = Object.fromEntries(["Run", ...OWNED].map((t) => [t, 0]));
  const result: PruneResult = { runs: 0, archived: 0, snapshots: 0, rows, cutoff: new Date(cutoffMs).toISOString() };
  if (opts.archiveDir) fs.mkdirSync(opts.archiveDir, { recursive: true });
  let skip = new Set<string>();
  for (;;) {
    const ids = (await pruner.pick(cutoff, batch + skip.size)).filter((id) => !skip.has(id)).slice(0, batch);
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
    const before = rows.Run;
    await pruner.remove(ids.filter((id) => !keep.has(id)), rows);
    result.runs += rows.Run - before;
    skip = new Set([...skip, ...keep]);
    if (ids.every((id) => keep.has(id))) break;
  }
  const thinned = await pruner.thin(cutoff);
  result.snapshots = thinned;
  rows.Snapshot += thinned;
  // Idempotency-Keys past their 24 hours (lib/api/idempotency.ts), whatever the runs' age
  rows.IdempotencyKey = (await query(rt, `DELETE FROM "IdempotencyKey" WHERE "createdAt" <= ?`, [dbDate(d, rt.clock.now() - IDEMPOTENCY_TTL_MS)])).changes;
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

  /** rt: the runtime's database (`sqlite` or `pg`, whichever is set) and clock */
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
