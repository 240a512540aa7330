// The migration that moved a run's snapshot and context from its Run row to its Snapshot row at
// the run's seq: a database written before it keeps every run's newest state (the Run columns win
// over an older Snapshot row at the same seq; a run without one gets one, with its pending timers)
// and its run rowids (the free-text index is keyed by them). SQLite always, PostgreSQL when reachable.
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import type { RunStore } from "../lib/engine/store/types";
import { acrossPostgres, acrossSqlite } from "./support/migrations";

const MIGRATION = "run_state_in_snapshot";
const T0 = Date.UTC(2026, 10, 20, 8, 0, 0, 250);

const RUN = `INSERT INTO "Run" ("id","workflow","status","state","snapshot","context","input","entered","version","seq","createdAt","updatedAt") VALUES (?,?,?,?,?,?,?,?,?,?,?,?)`;
const SNAPSHOT = `INSERT INTO "Snapshot" ("runId","seq","first","snapshot","context","timers","at") VALUES (?,?,?,?,?,?,?)`;
const TIMER = `INSERT INTO "Timer" ("runId","id","dueAt","event","seq") VALUES (?,?,?,?,?)`;

/** The old layout's rows: "newer" has Snapshot rows but its Run columns are newer still; "bare" has none, and a timer; "gone" leaves a rowid gap. */
function oldRows(date: (ms: number) => unknown): [string, unknown[]][] {
  const run = (id: string, seq: number, snapshot: object, context: object) => [id, "loop", "waiting", '["IDLE"]', JSON.stringify(snapshot), JSON.stringify(context), '{"request":"x"}', "{}", seq, seq, date(T0), date(T0 + seq)];
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
    const rowidsOf = (db: Database.Database) => db.prepare(`SELECT "id", rowid AS "r" FROM "Run" ORDER BY "id"`).all();
    await acrossSqlite({
      name: "run-state-migration",
      migration: MIGRATION,
      rows: oldRows,
      read: rowidsOf,
      check: async ({ applied, handle, store, before }) => {
        expect(applied.filter((m) => m.endsWith(MIGRATION))).toHaveLength(1);
        expect(rowidsOf(handle.db)).toEqual(before);
        expect(handle.db.prepare(`SELECT name FROM pragma_table_info('Run') WHERE name IN ('snapshot','context')`).all()).toEqual([]);
        await expectMigrated(store);
        // the free-text index still finds each run by its own rowid
        expect((await store.listRuns({ text: "newer" })).map((r) => r.id)).toEqual(["newer"]);
      },
    });
  });

  it("PostgreSQL: keeps each run's newest state and its timers", async (ctx) => {
    const ran = await acrossPostgres({
      prefix: "sy_runstate",
      migration: MIGRATION,
      rows: oldRows,
      check: async ({ client, store, schema }) => {
        const cols = await client.query(`SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'Run' AND column_name IN ('snapshot','context')`, [schema]);
        expect(cols.rows).toEqual([]);
        await expectMigrated(store);
      },
    });
    if (!ran) ctx.skip();
  });
});
