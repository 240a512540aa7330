// The run store's whole-run operations (RunStore.archive), one implementation per database:
// export and import (bundle.ts: the same statements on both, in one transaction), and retention's
// statements (the passes, archive files and schedule are lib/retention/prune.ts; expired
// Idempotency-Keys are RunStore.idempotency's). For retention,
// SQLite deletes run by run in one synchronous transaction under the connection's mutex;
// PostgreSQL removes a batch in one statement of data-modifying CTEs.
import type pg from "pg";
import { dbDate, pgPlaceholders, pgTransaction, type Dialect } from "../../db/sql";
import type { SqliteHandle } from "../../db/sqlite";
import { readBundle, writeBundle } from "./bundle";
import { RUN_OWNED, type RemovedRows, type RunArchive } from "./types";

export function sqliteArchive(handle: SqliteHandle): RunArchive {
  // on the shared connection, under its mutex (lib/db/sql)
  const ports = { sqlite: handle };
  return { exportRun: (id) => readBundle(ports, "sqlite", id), importRun: (b) => writeBundle(ports, "sqlite", b), ...sqlitePruner(handle) };
}

export function postgresArchive(pool: pg.Pool): RunArchive {
  // export reads at REPEATABLE READ READ ONLY: one snapshot (lib/db/sql)
  const ports = { pg: pool };
  return { exportRun: (id) => readBundle(ports, "postgres", id), importRun: (b) => writeBundle(ports, "postgres", b), ...postgresPruner(pool) };
}

const OWNED = RUN_OWNED;

const FINISHED = `"status" IN ('completed','failed','aborted')`;
const PICK = `SELECT "id" FROM "Run" WHERE ${FINISHED} AND "finishedAt" < ? ORDER BY "finishedAt" LIMIT ?`;
/** the remaining runs' old snapshots: all but each run's latest */
const THIN = `DELETE FROM "Snapshot" WHERE "at" < ? AND "seq" < (SELECT r."seq" FROM "Run" r WHERE r."id" = "Snapshot"."runId")`;

/** What a store answers for retention. */
type Pruner = Omit<RunArchive, "exportRun" | "importRun">;

const zero = () => Object.fromEntries(["Run", ...OWNED].map((t) => [t, 0])) as RemovedRows;
const date = (d: Dialect) => (ms: number) => dbDate(d, ms);

function sqlitePruner({ db, mutex }: SqliteHandle): Pruner {
  const at = date("sqlite");
  return {
    finishedBefore: async (before, limit) => (db.prepare(PICK).all(at(before), limit) as { id: string }[]).map((r) => r.id),
    removeRuns: (ids) => {
      const del = Object.fromEntries(OWNED.map((t) => [t, db.prepare(`DELETE FROM "${t}" WHERE "runId" = ?`)]));
      // only if still finished: a run is never removed while it could move
      const delRun = db.prepare(`DELETE FROM "Run" WHERE "id" = ? AND ${FINISHED}`);
      const rows = zero();
      return mutex.runExclusive(() =>
        db.transaction(() => {
          for (const id of ids) {
            if (Number(delRun.run(id).changes) === 0) continue;
            rows.Run++;
            for (const t of OWNED) rows[t] += Number(del[t].run(id).changes);
          }
          return rows;
        }).immediate(),
      );
    },
    thinSnapshots: (before) => mutex.runExclusive(() => Number(db.prepare(THIN).run(at(before)).changes)),
  };
}

function postgresPruner(pool: pg.Pool): Pruner {
  const at = date("postgres");
  // one statement per batch: the runs still finished go, and through data-modifying CTEs what
  // they own with them, each CTE counting the rows its table lost
  const remove = `WITH "gone" AS (DELETE FROM "Run" WHERE "id" = ANY($1::text[]) AND ${FINISHED} RETURNING "id"),
    ${OWNED.map((t) => `"d_${t}" AS (DELETE FROM "${t}" WHERE "runId" IN (SELECT "id" FROM "gone") RETURNING 1)`).join(",\n    ")}
    SELECT (SELECT COUNT(*) FROM "gone") AS "Run", ${OWNED.map((t) => `(SELECT COUNT(*) FROM "d_${t}") AS "${t}"`).join(", ")}`;
  return {
    finishedBefore: async (before, limit) => (await pool.query(pgPlaceholders(PICK), [at(before), limit])).rows.map((r) => String(r.id)),
    removeRuns: async (ids) => {
      const rows = zero();
      if (!ids.length) return rows;
      const counted = await pgTransaction(pool, "BEGIN", async (c) => (await c.query(remove, [ids])).rows[0] as Record<string, unknown>);
      for (const t of ["Run", ...OWNED] as const) rows[t] = Number(counted[t]);
      return rows;
    },
    thinSnapshots: async (before) => (await pool.query(pgPlaceholders(THIN), [at(before)])).rowCount ?? 0,
  };
}
