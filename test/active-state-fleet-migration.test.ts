// The migration that gave ActiveState what the fleet counts by: each row written before it gets its
// run's workflow, version pin (0 unless the input pins a whole number; none for a replay), status,
// and when the run entered the state (Run.entered: a group's own time, else its leaves' earliest) —
// and the fleet's read of the live runs gives what a direct look at the runs gives. SQLite always,
// PostgreSQL when reachable.
import { describe, expect, it } from "vitest";
import { msOf } from "../lib/db/sql";
import type { RunStore } from "../lib/engine/store/types";
import { acrossPostgres, acrossSqlite } from "./support/migrations";

const MIGRATION = "active_state_fleet";
const T0 = Date.UTC(2026, 10, 28, 8, 0, 0, 250);

const RUN = `INSERT INTO "Run" ("id","workflow","status","state","input","entered","version","seq","createdAt","updatedAt","replayOf") VALUES (?,?,?,?,?,?,?,?,?,?,?)`;
const ACTIVE = `INSERT INTO "ActiveState" ("state","runId","createdAt") VALUES (?,?,?)`;

function oldRows(date: (ms: number) => unknown): [string, unknown[]][] {
  // id, status, state, input, entered, replayOf, the run's ActiveState rows (as the earlier migration and the stores wrote them)
  const runs: [string, string, string, string, string, string | null, string[]][] = [
    ["nested", "waiting", '["P.left.x","P.right.y"]', '{"definitionVersion":3}', JSON.stringify({ P: T0 + 1, "P.left.x": T0 + 5, "P.right.y": T0 + 7, GONE: T0 }), null, ["P", "P.left", "P.left.x", "P.right", "P.right.y"]],
    ["flat", "running", '["IDLE"]', '{"request":"x"}', JSON.stringify({ IDLE: T0 + 2 }), null, ["IDLE"]],
    ["replay", "waiting", '["IDLE"]', "{}", JSON.stringify({ IDLE: T0 + 3 }), "flat", ["IDLE"]],
    ["odd", "waiting", '["IDLE"]', '{"definitionVersion":"2"}', '{"IDLE":"soon"}', null, ["IDLE"]],
  ];
  return runs.flatMap(([id, status, state, input, entered, replayOf, active], i): [string, unknown[]][] => [
    [RUN, [id, "wf", status, state, input, entered, 1, 1, date(T0 + i), date(T0 + i), replayOf]],
    ...active.map((s): [string, unknown[]] => [ACTIVE, [s, id, date(T0 + i)]]),
  ]);
}

const EXPECTED = [
  "flat IDLE wf 0 running 2",
  "nested P wf 3 waiting 1",
  "nested P.left wf 3 waiting 5",
  "nested P.left.x wf 3 waiting 5",
  "nested P.right wf 3 waiting 7",
  "nested P.right.y wf 3 waiting 7",
  "odd IDLE wf 0 waiting -",
  "replay IDLE wf - waiting 3",
];

const SELECT = `SELECT "runId", "state", "workflow", "version", "status", "since", "createdAt" FROM "ActiveState" ORDER BY "runId", "state"`;

async function expectMigrated(rows: Record<string, unknown>[], store: RunStore) {
  expect(rows.map((r) => `${r.runId} ${r.state} ${r.workflow} ${r.version === null ? "-" : Number(r.version)} ${r.status} ${r.since === null ? "-" : msOf(r.since) - T0}`)).toEqual(EXPECTED);
  // the rows the runs list reads are kept as they were
  expect(rows.filter((r) => r.runId === "flat").map((r) => msOf(r.createdAt))).toEqual([T0 + 1]);
  // the fleet's read: live runs per state of a version (the replay in none), stuck ones by their entry time
  const all = () => new Map([["IDLE", T0 + 3], ["P.left", T0 + 6], ["P.right.y", T0 + 7]]);
  const v0 = await store.aggregates.fleet({ workflow: "wf", version: null, hour: -1, allTime: true }, all);
  expect(v0.live).toEqual([{ state: "IDLE", n: 2, waiting: 1 }]);
  expect(v0.stuck).toEqual([{ state: "IDLE", n: 1 }]);
  const v3 = await store.aggregates.fleet({ workflow: "wf", version: 3, hour: -1, allTime: true }, all);
  expect([...v3.live].sort((a, b) => (a.state < b.state ? -1 : 1))).toEqual(["P", "P.left", "P.left.x", "P.right", "P.right.y"].map((state) => ({ state, n: 1, waiting: 1 })));
  expect(v3.stuck).toEqual([{ state: "P.left", n: 1 }]);
}

describe("migration: what the fleet counts by, on each ActiveState row", () => {
  it("SQLite: workflow, version, status and entry time from the run", async () => {
    await acrossSqlite({
      name: "active-state-fleet-migration",
      migration: MIGRATION,
      rows: oldRows,
      check: async ({ applied, handle, store }) => {
        expect(applied.filter((m) => m.endsWith(MIGRATION))).toHaveLength(1);
        await expectMigrated(handle.db.prepare(SELECT).all() as Record<string, unknown>[], store);
      },
    });
  });

  it("PostgreSQL: workflow, version, status and entry time from the run", async (ctx) => {
    const ran = await acrossPostgres({ prefix: "sy_asfleet", migration: MIGRATION, rows: oldRows, check: async ({ client, store }) => expectMigrated((await client.query(SELECT)).rows, store) });
    if (!ran) ctx.skip();
  });
});
