// The migration that added ActiveState (where live runs are, for the runs list's ?state= filter):
// a database written before it gets a row per live run and state active in it — each leaf of
// Run.state and every group around it — and none for finished or imported runs. SQLite always,
// PostgreSQL when reachable.
import { describe, expect, it } from "vitest";
import type { RunStore } from "../lib/engine/store/types";
import { acrossPostgres, acrossSqlite } from "./support/migrations";

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
    await acrossSqlite({
      name: "active-states-migration",
      migration: MIGRATION,
      rows: oldRows,
      check: async ({ applied, handle, store }) => {
        expect(applied.filter((m) => m.endsWith(MIGRATION))).toHaveLength(1);
        await expectMigrated(handle.db.prepare(SELECT).all() as Record<string, unknown>[], store);
      },
    });
  });

  it("PostgreSQL: a row per live run and active state, leaves and groups", async (ctx) => {
    const ran = await acrossPostgres({ prefix: "sy_active", migration: MIGRATION, rows: oldRows, check: async ({ client, store }) => expectMigrated((await client.query(SELECT)).rows, store) });
    if (!ran) ctx.skip();
  });
});
