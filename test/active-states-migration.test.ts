// The migration that added ActiveState (where live runs are, for the runs list's ?state= filter):
// a database written before it gets a row per live run and state active in it — each leaf of
// Run.state and every group around it — and none for finished or imported runs. SQLite always,
// PostgreSQL when reachable.
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { applyMigrations } from "../lib/db/migrate";
import { pgReachable } from "../lib/db/pg-scratch";
import { openSqlite, sqliteDate } from "../lib/db/sqlite";
import { PostgresRunStore } from "../lib/engine/store/postgres";
import { SqliteRunStore } from "../lib/engine/store/sqlite";
import type { RunStore } from "../lib/engine/store/types";
import { PG_URL } from "./support/databases";
import { tempDbUrl } from "./helpers";
import { migrationsBefore } from "./support/migrations";

const MIGRATION = "active_states";
const T0 = Date.UTC(2026, 10, 27, 8, 0, 0, 250);

const RUN = `INSERT INTO "Run" ("id","workflow","status","state","input","entered","version","seq","createdAt","updatedAt") VALUES (?,?,?,?,?,?,?,?,?,?)`;
const SNAPSHOT = `INSERT INTO "Snapshot" ("runId","seq","first","snapshot","context","timers","at") VALUES (?,?,?,?,?,?,?)`;

function oldRows(date: (ms: number) => unknown): [string, unknown[]][] {
  const runs: [string, string, string][] = [
    ["nested", "waiting", '["P.left.x","P.right.y"]'],
    ["flat", "running", '["IDLE"]'],
    ["done", "completed", '["IDLE"]'],
    ["imported-old", "waiting", '["IDLE"]'],
    ["later", "waiting", '["IDLE"]'],
  ];
  return runs.flatMap(([id, status, state], i): [string, unknown[]][] => [
    [RUN, [id, "swiss-army", status, state, "{}", "{}", 1, 1, date(T0 + i), date(T0 + i)]],
    [SNAPSHOT, [id, 1, 1, "{}", "{}", "[]", date(T0 + i)]],
  ]);
}

const EXPECTED = ["flat IDLE", "later IDLE", "nested P", "nested P.left", "nested P.left.x", "nested P.right", "nested P.right.y"];

async function expectMigrated(rows: Record<string, unknown>[], store: RunStore) {
  expect(rows.map((r) => `${r.runId} ${r.state}`)).toEqual(EXPECTED);
  const ids = async (state: string) => (await store.listRuns({ state, limit: 10 })).map((r) => r.id);
  expect(await ids("P")).toEqual(["nested"]);
  expect(await ids("P.right.y")).toEqual(["nested"]);
  // newest first: each row carries its run's createdAt
  expect(await ids("IDLE")).toEqual(["later", "flat"]);
  expect(await store.countRuns({ state: "IDLE" })).toBe(2);
}

const SELECT = `SELECT "runId", "state", "createdAt" FROM "ActiveState" ORDER BY "runId", "state"`;

describe("migration: where live runs are (ActiveState)", () => {
  it("SQLite: a row per live run and active state, leaves and groups", async () => {
    const url = tempDbUrl("active-states-migration", { empty: true });
    const file = url.slice("file:".length);
    const all = path.join(process.cwd(), "prisma", "migrations");
    const schemaPath = path.join(process.cwd(), "prisma", "schema.prisma");
    await applyMigrations({ url, migrationsDir: migrationsBefore(all, MIGRATION), schemaPath });
    const db = new Database(file);
    db.transaction(() => {
      for (const [sql, args] of oldRows(sqliteDate)) db.prepare(sql).run(...args);
    })();
    db.close();
    expect((await applyMigrations({ url, migrationsDir: all, schemaPath })).applied.filter((m) => m.endsWith(MIGRATION))).toHaveLength(1);
    const handle = openSqlite(file);
    const store = new SqliteRunStore(handle, { writer: "inline" });
    try {
      await expectMigrated(handle.db.prepare(SELECT).all() as Record<string, unknown>[], store);
    } finally {
      await store.close();
      handle.db.close();
    }
  });

  it("PostgreSQL: a row per live run and active state, leaves and groups", async (ctx) => {
    const skip = await pgReachable(PG_URL);
    if (skip) {
      console.log(`[active-states migration] PostgreSQL skipped: not reachable at ${PG_URL} (${skip})`);
      return ctx.skip();
    }
    const schema = `sy_active_${process.pid}_${Math.floor(Math.random() * 1e9)}`;
    const url = `${PG_URL}${PG_URL.includes("?") ? "&" : "?"}schema=${schema}`;
    const all = path.join(process.cwd(), "prisma", "postgres", "migrations");
    const schemaPath = path.join(process.cwd(), "prisma", "postgres", "schema.prisma");
    const client = new pg.Client({ connectionString: PG_URL, options: `-c search_path=${schema}` });
    await client.connect();
    let store: PostgresRunStore | null = null;
    try {
      await applyMigrations({ url, migrationsDir: migrationsBefore(all, MIGRATION), schemaPath });
      await client.query("BEGIN");
      for (const [sql, args] of oldRows((ms) => new Date(ms))) {
        let i = 0;
        await client.query(sql.replace(/\?/g, () => `$${++i}`), args);
      }
      await client.query("COMMIT");
      await applyMigrations({ url, migrationsDir: all, schemaPath });
      store = new PostgresRunStore(PG_URL, { options: `-c search_path=${schema}`, max: 2 });
      await expectMigrated((await client.query(SELECT)).rows, store);
    } finally {
      await store?.close();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    }
  });
});
