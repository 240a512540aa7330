// A fleet's history that a spec cannot wait for: visits of a state that lasted long (runs that
// waited for a person 24 minutes) written into the fleet's counters (table FleetCount, see
// lib/fleet/counters.ts) in the server's current hour and all time, as the engine would have when
// those visits ended. The suite's database: SQLite (better-sqlite3, the server's WAL file shared)
// or its PostgreSQL schema. So the fleet overlay's long labels ("2 now · p95 24 min 11 s") are
// drawn on any machine, not only on one slow enough for the runs of earlier specs to wait that long.
import type { APIRequestContext } from "@playwright/test";
import Database from "better-sqlite3";
import pg from "pg";
import { dwellBucket } from "../lib/fleet/buckets";

const HOUR_MS = 3_600_000;
/** the hour of the all-time rows (lib/fleet/counters.ts) */
const ALL_TIME = -1;
const COLS = `("workflow", "version", "hour", "kind", "key", "bucket", "n")`;
const CONFLICT = `ON CONFLICT ("workflow", "version", "hour", "kind", "key", "bucket") DO UPDATE SET "n" = "FleetCount"."n" + excluded."n"`;

/** `n` visits of `ms` each ended in each of `states` of built-in `workflow` (version 0), in the server's current hour. */
export async function addLongVisits(request: APIRequestContext, workflow: string, states: string[], ms: number, n: number): Promise<void> {
  const hour = Math.floor(Date.parse((await request.get("/api/health")).headers()["date"]!) / HOUR_MS);
  const rows = states.flatMap((key) => [hour, ALL_TIME].map((h) => [workflow, 0, h, "dwell", key, dwellBucket(ms), n] as const));
  const url = process.env.E2E_DB_URL!;
  if (process.env.E2E_DB === "postgres") {
    const u = new URL(url);
    const schema = u.searchParams.get("schema") ?? "public";
    u.searchParams.delete("schema");
    const c = new pg.Client({ connectionString: u.toString() });
    await c.connect();
    try {
      for (const r of rows) await c.query(`INSERT INTO "${schema}"."FleetCount" AS "FleetCount" ${COLS} VALUES ($1, $2, $3, $4, $5, $6, $7) ${CONFLICT}`, [...r]);
    } finally {
      await c.end();
    }
    return;
  }
  const db = new Database(url.replace(/^file:/, "").replace(/\?.*$/, ""), { fileMustExist: true });
  try {
    db.pragma("busy_timeout = 5000");
    const insert = db.prepare(`INSERT INTO "FleetCount" ${COLS} VALUES (?, ?, ?, ?, ?, ?, ?) ${CONFLICT}`);
    db.transaction(() => rows.forEach((r) => insert.run(...r)))();
  } finally {
    db.close();
  }
}
