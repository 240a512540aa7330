// Model usage per workflow and per run (lib/metrics/model-usage) through each database's Prisma
// client: the same rows give the same numbers and the same order on SQLite and PostgreSQL
// (whose client answers COUNT and SUM as BigInt, AVG as a Decimal, and sorts NULL last).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../lib/db/client";
import { prismaOnSqlite } from "../lib/db/client";
import { pgTarget, prismaOnPostgres } from "../lib/db/postgres";
import { runUsage, workflowUsage } from "../lib/metrics/model-usage";
import { DATABASES, PG_URL, commitItem, modelCall, opened, runRow, type TestDb } from "./support/databases";

const T0 = Date.UTC(2026, 3, 1, 10, 0, 0);
const results = new Map<string, unknown>();

async function seed(db: TestDb) {
  expect(await db.store.commit([commitItem(runRow("u1", T0), null), commitItem(runRow("u2", T0, { workflow: "other" }), null), commitItem(runRow("u3", T0, { workflow: "mixed" }), null)])).toEqual(["ok", "ok", "ok"]);
  const calls: Parameters<typeof modelCall>[1][] = [
    { id: "c1", runId: "u1", state: "WORK", prompt: 100, completion: 40, latencyMs: 10, at: T0 + 1 },
    { id: "c2", runId: "u1", state: "WORK", prompt: 50, completion: 10, latencyMs: 21, at: T0 + 2 },
    { id: "c3", runId: "u1", state: "WORK", ok: false, errorCategory: "TIMEOUT", latencyMs: 30, at: T0 + 3 },
    { id: "c4", runId: "u1", state: null, prompt: 7, latencyMs: 4, at: T0 + 4 },
    { id: "c5", runId: "u1", state: "B_STATE", prompt: 1, completion: 1, latencyMs: 3, at: T0 + 5 },
    { id: "c6", runId: "u1", state: "a_state", prompt: 2, completion: 2, latencyMs: 8, at: T0 + 6 },
    { id: "c7", runId: "u1", state: "_state", prompt: 3, completion: 3, latencyMs: 1, at: T0 + 7 },
    { id: "c8", runId: "u2", state: "WORK", prompt: 999, latencyMs: 999, at: T0 + 8 },
    { id: "c9", runId: null, state: null, prompt: 5, latencyMs: 2, at: T0 + 9 },
    // a run with a model call and an offline answer (the offline engine's row: no tokens)
    { id: "c10", runId: "u3", state: "WORK", prompt: 8, completion: 2, latencyMs: 4, at: T0 + 10 },
    { id: "c11", runId: "u3", state: "WORK", adapter: "offline engine", latencyMs: 1, at: T0 + 11 },
  ];
  for (const c of calls) await modelCall(db, c);
}

for (const database of DATABASES) {
  describe(`model usage on ${database.name}`, () => {
    const h = opened(database, "model usage");
    let prisma: Db | null = null;
    beforeAll(async () => {
      const db = await h.open();
      if (!db) return;
      await seed(db);
      if (db.ports.sqlite) prisma = await prismaOnSqlite(db.ports.sqlite);
      else {
        const schema = String((await db.sql("SELECT current_schema() AS s")).rows[0].s);
        const url = new URL(String((db.ports.pg!.options as { connectionString: string }).connectionString ?? PG_URL));
        url.searchParams.set("schema", schema);
        prisma = prismaOnPostgres(pgTarget(url.toString()));
      }
    }, 60_000);
    afterAll(async () => {
      if (prisma && !h.db?.ports.sqlite) await prisma.$disconnect();
      await h.close();
    });

    h.it("per workflow: numbers, not BigInt or Decimal; states in SQLite's order (no state first, then by bytes)", async (db) => {
      const rows = await workflowUsage(db.store, "loop");
      expect(rows).toEqual([
        { state: "—", calls: 1, promptTokens: 7, completionTokens: 0, avgLatencyMs: 4, errors: 0 },
        { state: "B_STATE", calls: 1, promptTokens: 1, completionTokens: 1, avgLatencyMs: 3, errors: 0 },
        { state: "WORK", calls: 3, promptTokens: 150, completionTokens: 50, avgLatencyMs: 20, errors: 1 },
        { state: "_state", calls: 1, promptTokens: 3, completionTokens: 3, avgLatencyMs: 1, errors: 0 },
        { state: "a_state", calls: 1, promptTokens: 2, completionTokens: 2, avgLatencyMs: 8, errors: 0 },
      ]);
      expect(await workflowUsage(db.store, "nope")).toEqual([]);
      const run = await runUsage(prisma!, "u1");
      expect(run.total).toEqual({ calls: 7, offline: 0, promptTokens: 163, completionTokens: 56, latencyMs: 77, estimated: false });
      expect(run.calls.map((c) => c.id)).toEqual(["c1", "c2", "c3", "c4", "c5", "c6", "c7"]);
      expect(run.calls[2]).toMatchObject({ ok: false, errorCategory: "TIMEOUT", at: new Date(T0 + 3).toISOString() });
      // an offline answer is counted as offline, never as a model call or a token
      const mixed = await runUsage(prisma!, "u3");
      expect(mixed.total).toEqual({ calls: 1, offline: 1, promptTokens: 8, completionTokens: 2, latencyMs: 5, estimated: false });
      expect(mixed.calls.map((c) => [c.id, c.offline])).toEqual([["c10", false], ["c11", true]]);
      results.set(database.name, { rows, run });
    });
  });
}

describe("model usage: SQLite and PostgreSQL agree", () => {
  for (const { name } of DATABASES.slice(1)) {
    it(`the same answers on SQLite and ${name}`, (ctx) => {
      if (!results.has(name)) return ctx.skip();
      expect(results.get(name)).toEqual(results.get("SQLite"));
    });
  }
});
