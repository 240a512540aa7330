// Aggregate reads over the run tables (RunStore.aggregates): the metrics scrape's families
// (lib/metrics/prometheus.ts formats them), the fleet's counters and live runs (lib/fleet/fleet.ts),
// model usage per state (lib/metrics/model-usage.ts). One GROUP BY per family, never rows per
// transition or review; the metrics' queries run in one read transaction (SQLite: under the
// connection's mutex; PostgreSQL: one REPEATABLE READ snapshot), so the families agree.
//
// SQLite and PostgreSQL give the same rows for the same data. Two pieces differ by dialect:
// the states in Transition."from"/"to" (json_each → jsonb_array_elements_text) and the date
// arithmetic on Review's timestamps (julianday → EXTRACT(EPOCH FROM …)); PostgreSQL also sorts
// text COLLATE "C" (bytes, as SQLite's BINARY), since row order is series order.
import { dbDate, readAll, readThen, type Dialect, type Row, type SqlPorts } from "../../db/sql";
import { imported, notImported } from "../imported";
import type { FleetRows, MetricRows, RunAggregates, UsageByState } from "./types";

/** a run's status for the gauge: imported runs recorded as running or waiting never move here, so they are "imported" */
/**
 * Replay and evaluation runs (lib/change) are left out of every metric: they are not the
 * workflow's work. (SQLite writes the test `+"replayOf" IS NULL`: without statistics its planner
 * would read the runs through the replayOf index, where nearly every run is a null.)
 */
const NOT_REPLAY = `"replayOf" IS NULL`;
const GAUGE_STATUS = `CASE WHEN "status" IN ('running','waiting') AND ${imported(`"id"`)} THEN 'imported' ELSE "status" END`;

/** The histograms' bucket bounds in whole milliseconds (SQL compares integers). */
interface Bounds {
  dwellMs: readonly number[];
  reviewWaitMs: readonly number[];
}

type MetricSql = Record<keyof MetricRows, string>;

/** The index of the first bucket whose bound holds `expr` (bounds.length for +Inf only); portable SQL. */
function bucketIndex(expr: string, boundsMs: readonly number[]): string {
  return `CASE ${boundsMs.map((le, i) => `WHEN ${expr} <= ${le} THEN ${i}`).join(" ")} ELSE ${boundsMs.length} END`;
}

/**
 * A timestamp column as epoch milliseconds (REAL). The run store writes ISO text
 * ("2026-11-23T09:00:00.000+00:00"); numbers are taken as epoch ms already.
 * SQLite only (julianday); PostgreSQL subtracts its TIMESTAMPs (see POSTGRES.reviewWait).
 */
const epochMs = (col: string) => `(CASE WHEN typeof(${col}) = 'text' THEN (julianday(${col}) - 2440587.5) * 86400000.0 ELSE ${col} END)`;

const SQLITE = (b: Bounds): MetricSql => ({
  runs: `SELECT "workflow", ${GAUGE_STATUS} AS "status", COUNT(*) AS "n" FROM "Run" WHERE +"replayOf" IS NULL GROUP BY 1, 2 ORDER BY 1, 2`,

  // count per run on the primary key (runId, seq) first, then one lookup per run
  transitions: `
    SELECT r."workflow" AS "workflow", SUM(c."n") AS "n"
    FROM (SELECT "runId", COUNT(*) AS "n" FROM "Transition" GROUP BY "runId") c
    JOIN "Run" r ON r."id" = c."runId"
    WHERE +r."replayOf" IS NULL
    GROUP BY r."workflow" ORDER BY r."workflow"`,

  // One sample per (transition, state left): each id in "from" that is not in "to". Rows whose
  // from and to are the same array (targetless transitions, aborts) leave nothing and are
  // skipped before json_each runs (PostgreSQL: jsonb_array_elements_text).
  dwell: `
    SELECT r."workflow" AS "workflow", f.value AS "state", ${bucketIndex(`t."durationMs"`, b.dwellMs)} AS "b",
           COUNT(*) AS "n", SUM(t."durationMs") AS "sum_ms"
    FROM "Transition" t
    JOIN "Run" r ON r."id" = t."runId"
    JOIN json_each(t."from") f
    WHERE t."from" <> t."to" AND t."from" <> '[]' AND +r."replayOf" IS NULL
      AND NOT EXISTS (SELECT 1 FROM json_each(t."to") g WHERE g.value = f.value)
    GROUP BY 1, 2, 3
    ORDER BY 1, 2, 3`,

  // decided reviews only (cancelled ones never got an answer); the two-argument MAX and julianday
  // (epochMs) are SQLite's (PostgreSQL: GREATEST and EXTRACT(EPOCH FROM decidedAt - createdAt))
  reviewWait: `
    SELECT "workflow", ${bucketIndex(`"w"`, b.reviewWaitMs)} AS "b", COUNT(*) AS "n", SUM("w") AS "sum_ms"
    FROM (SELECT v."workflow" AS "workflow",
                 MAX(0, ROUND(${epochMs(`v."decidedAt"`)} - ${epochMs(`v."createdAt"`)})) AS "w"
          FROM "Review" v JOIN "Run" r ON r."id" = v."runId"
          WHERE v."status" = 'decided' AND v."decidedAt" IS NOT NULL AND +r."replayOf" IS NULL) d
    GROUP BY 1, 2 ORDER BY 1, 2`,

  reviewsPending: `SELECT "workflow", COUNT(*) AS "n" FROM "Review" WHERE "status" = 'pending' AND ${notImported(`"runId"`)} AND "runId" NOT IN (SELECT "id" FROM "Run" WHERE "replayOf" IS NOT NULL) GROUP BY "workflow" ORDER BY "workflow"`,

  // calls outside any run (embeddings for the knowledge store, connection tests) have workflow ""
  modelCalls: `
    SELECT COALESCE(r."workflow", '') AS "workflow",
           CASE WHEN m."ok" THEN 'ok' ELSE LOWER(COALESCE(m."errorCategory", 'unknown')) END AS "outcome",
           COUNT(*) AS "n", SUM(m."promptTokens") AS "prompt", SUM(m."completionTokens") AS "completion"
    FROM "ModelCall" m
    LEFT JOIN "Run" r ON r."id" = m."runId"
    WHERE +r."replayOf" IS NULL
    GROUP BY 1, 2 ORDER BY 1, 2`,

  // external workers' open tasks (lib/tasks), per queue
  tasks: `SELECT "queue", "status", COUNT(*) AS "n", MIN("createdAt") AS "oldest" FROM "Task" WHERE "status" IN ('queued','claimed') GROUP BY 1, 2 ORDER BY 1, 2`,
});

/** The same queries on PostgreSQL (TIMESTAMP(3) columns, TEXT holding JSON, real booleans). */
const POSTGRES = (b: Bounds): MetricSql => ({
  runs: `SELECT "workflow", ${GAUGE_STATUS} AS "status", COUNT(*) AS "n" FROM "Run" WHERE ${NOT_REPLAY} GROUP BY 1, 2 ORDER BY "workflow" COLLATE "C", 2`,

  transitions: `
    SELECT r."workflow" AS "workflow", SUM(c."n") AS "n"
    FROM (SELECT "runId", COUNT(*) AS "n" FROM "Transition" GROUP BY "runId") c
    JOIN "Run" r ON r."id" = c."runId"
    WHERE r."replayOf" IS NULL
    GROUP BY r."workflow" ORDER BY r."workflow" COLLATE "C"`,

  dwell: `
    SELECT r."workflow" AS "workflow", f.value AS "state", ${bucketIndex(`t."durationMs"`, b.dwellMs)} AS "b",
           COUNT(*) AS "n", SUM(t."durationMs") AS "sum_ms"
    FROM "Transition" t
    JOIN "Run" r ON r."id" = t."runId"
    CROSS JOIN LATERAL jsonb_array_elements_text(t."from"::jsonb) AS f(value)
    WHERE t."from" <> t."to" AND t."from" <> '[]' AND r."replayOf" IS NULL
      AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements_text(t."to"::jsonb) AS g(value) WHERE g.value = f.value)
    GROUP BY 1, 2, 3
    ORDER BY r."workflow" COLLATE "C", f.value COLLATE "C", 3`,

  reviewWait: `
    SELECT "workflow", ${bucketIndex(`"w"`, b.reviewWaitMs)} AS "b", COUNT(*) AS "n", SUM("w") AS "sum_ms"
    FROM (SELECT v."workflow" AS "workflow",
                 GREATEST(0, ROUND(EXTRACT(EPOCH FROM (v."decidedAt" - v."createdAt")) * 1000)) AS "w"
          FROM "Review" v JOIN "Run" r ON r."id" = v."runId"
          WHERE v."status" = 'decided' AND v."decidedAt" IS NOT NULL AND r."replayOf" IS NULL) d
    GROUP BY 1, 2 ORDER BY d."workflow" COLLATE "C", 2`,

  reviewsPending: `SELECT "workflow", COUNT(*) AS "n" FROM "Review" WHERE "status" = 'pending' AND ${notImported(`"runId"`)} AND "runId" NOT IN (SELECT "id" FROM "Run" WHERE "replayOf" IS NOT NULL) GROUP BY "workflow" ORDER BY "workflow" COLLATE "C"`,

  modelCalls: `
    SELECT * FROM (
      SELECT COALESCE(r."workflow", '') AS "workflow",
             CASE WHEN m."ok" THEN 'ok' ELSE LOWER(COALESCE(m."errorCategory", 'unknown')) END AS "outcome",
             COUNT(*) AS "n", SUM(m."promptTokens") AS "prompt", SUM(m."completionTokens") AS "completion"
      FROM "ModelCall" m
      LEFT JOIN "Run" r ON r."id" = m."runId"
      WHERE r."replayOf" IS NULL
      GROUP BY 1, 2) x
    ORDER BY x."workflow" COLLATE "C", x."outcome" COLLATE "C"`,

  tasks: `SELECT "queue", "status", COUNT(*) AS "n", MIN("createdAt") AS "oldest" FROM "Task" WHERE "status" IN ('queued','claimed') GROUP BY 1, 2 ORDER BY "queue" COLLATE "C", 2`,
});

const METRIC_SQL: Record<Dialect, (b: Bounds) => MetricSql> = { sqlite: SQLITE, postgres: POSTGRES };

const n = (v: unknown) => Number(v ?? 0);

export function runAggregates(ports: SqlPorts, d: Dialect): RunAggregates {
  return {
    async metrics(bounds) {
      const sql = METRIC_SQL[d](bounds);
      const keys = Object.keys(sql) as (keyof MetricRows)[];
      const rows = await readAll(ports, keys.map((k) => ({ sql: sql[k] })));
      return Object.fromEntries(keys.map((k, i) => [k, rows[i]])) as unknown as MetricRows;
    },

    async fleet(q, stuckBefore) {
      // all through ActiveState's (workflow, version, state, since, status) index: one entry per
      // live run and active state read for `now`, a range per state for `stuck`
      const scope = `"workflow" = ? AND "version" = ?`;
      const key = [q.workflow, q.version ?? 0];
      const readCounts = (rows: Row[]) => rows.map((r) => ({ kind: String(r.kind), key: String(r.key), bucket: n(r.bucket), n: n(r.n) }));
      const rows = await readThen(
        ports,
        [
          {
            sql: `SELECT "kind", "key", "bucket", SUM("n") AS "n" FROM "FleetCount" WHERE ${scope} AND ${q.allTime ? `"hour" = ?` : `"hour" >= ?`} GROUP BY "kind", "key", "bucket"`,
            args: [...key, q.hour],
          },
          { sql: `SELECT "state", COUNT(*) AS "n", SUM(CASE WHEN "status" = 'waiting' THEN 1 ELSE 0 END) AS "waiting" FROM "ActiveState" WHERE ${scope} GROUP BY "state"`, args: key },
        ],
        ([counts, now]) => {
          const live = new Set(now!.map((r) => String(r.state)));
          const cuts = [...stuckBefore(readCounts(counts!))].filter(([state]) => live.has(state));
          if (cuts.length === 0) return [];
          return [
            {
              sql: cuts.map(() => `SELECT "state", COUNT(*) AS "n" FROM "ActiveState" WHERE ${scope} AND "state" = ? AND "since" < ? GROUP BY "state"`).join(" UNION ALL "),
              args: cuts.flatMap(([state, before]) => [...key, state, dbDate(d, before)]),
            },
          ];
        },
      );
      const [counts, now, stuck] = rows;
      return {
        counts: readCounts(counts!),
        live: now!.map((r) => ({ state: String(r.state), n: n(r.n), waiting: n(r.waiting) })),
        stuck: (stuck ?? []).map((r) => ({ state: String(r.state), n: n(r.n) })),
      };
    },

    async usageByState(workflow) {
      const [rows] = await readAll(ports, [
        {
          sql: `SELECT m."state" AS "state", COUNT(*) AS "calls", SUM(m."promptTokens") AS "p", SUM(m."completionTokens") AS "c",
                       AVG(m."latencyMs") AS "lat", SUM(CASE WHEN m."ok" THEN 0 ELSE 1 END) AS "errors"
                FROM "ModelCall" m JOIN "Run" r ON r."id" = m."runId"
                WHERE r."workflow" = ? AND COALESCE(r."replayOf", '') = ''
                GROUP BY m."state"`,
          args: [workflow],
        },
      ]);
      return rows.map((r): UsageByState => ({ state: r.state === null || r.state === undefined ? null : String(r.state), calls: n(r.calls), promptTokens: n(r.p), completionTokens: n(r.c), avgLatencyMs: n(r.lat), errors: n(r.errors) }));
    },
  };
}
