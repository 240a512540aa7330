// Runs by id in one query (RunQuery.ids → lib/api/runs.ts runsByIds): the review queue names
// every waiting run with it instead of one getRun per review. On SQLite always, on PostgreSQL
// when it is reachable (POSTGRES_URL, default 127.0.0.1:5432), each in a fresh database/schema.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateDatabase } from "../lib/db/migrations";
import { pgReachable, scratchSchema } from "../lib/db/pg-scratch";
import { openSqlite } from "../lib/db/sqlite";
import { sqlitePath } from "../lib/db/url";
import { PostgresRunStore } from "../lib/engine/store/postgres";
import { SqliteRunStore } from "../lib/engine/store/sqlite";
import type { RunStore } from "../lib/engine/store/types";
import { commitItem, runRow } from "./support/databases";
import { tempDbUrl } from "./helpers";

const PG_URL = process.env.POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const T0 = Date.UTC(2026, 10, 1, 9, 0, 0);

async function sqlite() {
  const url = tempDbUrl("by-ids");
  await migrateDatabase(url);
  const handle = openSqlite(sqlitePath(url));
  const store = new SqliteRunStore(handle);
  return {
    store: store as RunStore,
    close: async () => {
      await store.close();
      handle.db.close();
    },
  };
}
async function postgres() {
  const scratch = await scratchSchema(PG_URL, "sy_ui_ids");
  const store = new PostgresRunStore(PG_URL, { options: scratch.options, max: 2 });
  return {
    store: store as RunStore,
    close: async () => {
      await store.close();
      await scratch.drop();
    },
  };
}

for (const [name, make, reachable] of [
  ["SQLite", sqlite, async () => null],
  ["PostgreSQL", postgres, () => pgReachable(PG_URL)],
] as const) {
  describe(`runs by id: ${name}`, () => {
    let h: { store: RunStore; close: () => Promise<void> } | null = null;
    let skip: string | null = null;
    beforeAll(async () => {
      skip = await reachable();
      if (skip) console.log(`[runs by id] ${name} skipped: not reachable at ${PG_URL} (${skip})`);
      else h = await make();
    }, 60_000);
    afterAll(async () => {
      await h?.close();
    });
    it("answers exactly the runs asked for, in one query, with their input; none for an empty list", async (ctx) => {
      if (skip || !h) return ctx.skip();
      const s = h.store;
      for (let i = 0; i < 6; i++) expect(await s.commit([commitItem(runRow(`by-${i}`, T0 + i, { input: { topic: `t${i}` } }), null)])).toEqual(["ok"]);
      const got = await s.listRuns({ ids: ["by-4", "by-1", "nope", "by-5"], limit: 10 });
      expect(got.map((r) => r.id)).toEqual(["by-5", "by-4", "by-1"]);
      expect(got.map((r) => r.input)).toEqual([{ topic: "t5" }, { topic: "t4" }, { topic: "t1" }]);
      expect(await s.listRuns({ ids: [], limit: 10 })).toEqual([]);
      expect(await s.countRuns({ ids: ["by-0", "by-2"] })).toBe(2);
      // with another filter: both apply
      expect((await s.listRuns({ ids: ["by-0", "by-2"], from: T0 + 1, limit: 10 })).map((r) => r.id)).toEqual(["by-2"]);
    });
  });
}
