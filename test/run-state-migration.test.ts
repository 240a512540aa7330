// The migration that moved a run's snapshot and context from its Run row to its Snapshot row at
// the run's seq: a database written before it keeps every run's newest state (the Run columns win
// over an older Snapshot row at the same seq; a run without one gets one, with its pending timers)
// and its run rowids (the free-text index is keyed by them). SQLite always, PostgreSQL when reachable.
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

const MIGRATION = "run_state_in_snapshot";
const T0 = Date.UTC(2026, 10, 20, 8, 0, 0, 250);

const RUN = `INSERT INTO "Run" ("id","workflow","status","state","snapshot","context","input","entered","version","seq","createdAt","updatedAt") VALUES (?,?,?,?,?,?,?,?,?,?,?,?)`;
const SNAPSHOT = `INSERT INTO "Snapshot" ("runId","seq","first","snapshot","context","timers","at") VALUES (?,?,?,?,?,?,?)`;
const TIMER = `INSERT INTO "Timer" ("runId","id","dueAt","event","seq") VALUES (?,?,?,?,?)`;

/** The old layout's rows: "newer" has Snapshot rows but its Run columns are newer still; "bare" has none, and a timer; "gone" leaves a rowid gap. */
function oldRows(date: (ms: number) => unknown): [string, unknown[]][] {
  const run = (id: string, seq: number, snapshot: object, context: object) => [id, "swiss-army", "waiting", '["IDLE"]', JSON.stringify(snapshot), JSON.stringify(context), '{"request":"x"}', "{}", seq, seq, date(T0), date(T0 + seq)];
  return [
    [RUN, run("gone", 1, { value: "IDLE" }, {})],
    [RUN, run("newer", 3, { value: "IDLE", effects: { k: 1 } }, { n: 3, note: "after the last transition" })],
    [SNAPSHOT, ["newer", 1, 1, '{"value":"A"}', '{"n":1}', "[]", date(T0 + 1)]],
    [SNAPSHOT, ["newer", 3, 2, '{"value":"IDLE"}', '{"n":2}', '[{"id":"old","dueAt":1,"event":{"type":"X"},"seq":3}]', date(T0 + 3)]],
    [RUN, run("bare", 2, { value: "IDLE" }, { n: 7 })],
    [TIMER, ["bare", "xstate.after.5000.A", date(T0 + 5_000), '{"type":"xstate.after.5000.A"}', 2]],
    ["DELETE FROM \"Run\" WHERE \"id\" = 'gone'", []],
  ];
}

async function expectMigrated(store: RunStore) {
  const newer = await store.getRun("newer");
  expect(newer).toMatchObject({ seq: 3, snapshot: { value: "IDLE", effects: { k: 1 } }, context: { n: 3, note: "after the last transition" } });
  // the newest state, at the seq it answers for since the older row's first transition
  expect(await store.snapshotAt("newer", 2)).toMatchObject({ seq: 3, first: 2, context: { n: 3, note: "after the last transition" }, timers: [{ id: "old" }] });
  expect(await store.snapshotAt("newer", 1)).toMatchObject({ seq: 1, context: { n: 1 } });
  const bare = await store.getRun("bare");
  expect(bare).toMatchObject({ seq: 2, snapshot: { value: "IDLE" }, context: { n: 7 } });
  const at = await store.snapshotAt("bare", 2);
  expect(at).toMatchObject({ seq: 2, first: 2, at: T0 + 2 });
  expect(at!.timers).toEqual([{ runId: "bare", id: "xstate.after.5000.A", dueAt: T0 + 5_000, event: { type: "xstate.after.5000.A" }, seq: 2 }]);
}

describe("migration: a run's state moves to its Snapshot row", () => {
  it("SQLite: keeps each run's newest state, its timers and its rowid", async () => {
    const url = tempDbUrl("run-state-migration", { empty: true });
    const file = url.slice("file:".length);
    const all = path.join(process.cwd(), "prisma", "migrations");
    const schemaPath = path.join(process.cwd(), "prisma", "schema.prisma");
    await applyMigrations({ url, migrationsDir: migrationsBefore(all, MIGRATION), schemaPath });
    const db = new Database(file);
    db.transaction(() => {
      for (const [sql, args] of oldRows(sqliteDate)) db.prepare(sql).run(...args);
    })();
    const rowids = db.prepare(`SELECT "id", rowid AS "r" FROM "Run" ORDER BY "id"`).all();
    db.close();

    expect((await applyMigrations({ url, migrationsDir: all, schemaPath })).applied.filter((m) => m.endsWith(MIGRATION))).toHaveLength(1);
    const handle = openSqlite(file);
    const store = new SqliteRunStore(handle, { writer: "inline" });
    try {
      expect(handle.db.prepare(`SELECT "id", rowid AS "r" FROM "Run" ORDER BY "id"`).all()).toEqual(rowids);
      expect(handle.db.prepare(`SELECT name FROM pragma_table_info('Run') WHERE name IN ('snapshot','context')`).all()).toEqual([]);
      await expectMigrated(store);
      // the free-text index still finds each run by its own rowid
      expect((await store.listRuns({ text: "newer" })).map((r) => r.id)).toEqual(["newer"]);
    } finally {
      await store.close();
      handle.db.close();
    }
  });

  it("PostgreSQL: keeps each run's newest state and its timers", async (ctx) => {
    const skip = await pgReachable(PG_URL);
    if (skip) {
      console.log(`[run-state migration] PostgreSQL skipped: not reachable at ${PG_URL} (${skip})`);
      return ctx.skip();
    }
    const schema = `sy_runstate_${process.pid}_${Math.floor(Math.random() * 1e9)}`;
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
      const cols = await client.query(`SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'Run' AND column_name IN ('snapshot','context')`, [schema]);
      expect(cols.rows).toEqual([]);
      store = new PostgresRunStore(PG_URL, { options: `-c search_path=${schema}`, max: 2 });
      await expectMigrated(store);
    } finally {
      await store?.close();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    }
  });
});
