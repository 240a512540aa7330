// One fixture, two databases: a fresh SQLite file or a scratch PostgreSQL schema (committed
// migrations applied), its run store, and the handles the SQL modules take (`sqlite` / `pg`, as
// on a Runtime). Tests run the same assertions on both; PostgreSQL is skipped, with the reason
// printed, when it is not reachable (127.0.0.1:5432 here; POSTGRES_URL elsewhere).
import pg from "pg";
import { it } from "vitest";
import { migrateDatabase } from "../../lib/db/migrations";
import { pgReachable, requirePostgres, scratchSchema } from "../../lib/db/pg-scratch";
import { dbBool, dbDate, query, type Dialect, type SqlPorts, type SqlResult } from "../../lib/db/sql";
import { openSqlite } from "../../lib/db/sqlite";
import { sqlitePath } from "../../lib/db/url";
import { PostgresRunStore } from "../../lib/engine/store/postgres";
import { SqliteRunStore } from "../../lib/engine/store/sqlite";
import type { CommitItem, RunRow, RunStore } from "../../lib/engine/store/types";
import { tempDbUrl } from "../helpers";

export const PG_URL = process.env.POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/test";

export interface TestDb {
  dialect: Dialect;
  /** its DATABASE_URL (for clients that open it themselves, e.g. Prisma) */
  url: string;
  /** what a Runtime passes: exactly one handle set */
  ports: Required<SqlPorts>;
  store: RunStore;
  /** one statement with `?` placeholders */
  sql(text: string, args?: unknown[]): Promise<SqlResult>;
  count(table: string, runId?: string): Promise<number>;
  /** a DateTime / Boolean column value as this database takes it */
  date(ms: number): unknown;
  bool(v: boolean): unknown;
  close(): Promise<void>;
}

function testDb(dialect: Dialect, url: string, ports: Required<SqlPorts>, store: RunStore, close: () => Promise<void>): TestDb {
  const sql = (text: string, args: unknown[] = []) => query(ports, text, args);
  return {
    dialect,
    url,
    ports,
    store,
    sql,
    count: async (table, runId) => Number((await sql(`SELECT COUNT(*) AS "n" FROM "${table}"${runId ? ` WHERE "runId" = ?` : ""}`, runId ? [runId] : [])).rows[0].n),
    date: (ms) => dbDate(dialect, ms),
    bool: (v) => dbBool(dialect, v),
    close,
  };
}

const withSchema = (url: string, schema: string) => `${url}${url.includes("?") ? "&" : "?"}schema=${schema}`;

export async function sqliteDb(name = "t"): Promise<TestDb> {
  const url = tempDbUrl(name);
  await migrateDatabase(url);
  const handle = openSqlite(sqlitePath(url));
  const store = new SqliteRunStore(handle);
  return testDb("sqlite", url, { sqlite: handle, pg: null }, store, async () => {
    await store.close();
    handle.db.close();
  });
}

export async function postgresDb(prefix = "sy_test"): Promise<TestDb> {
  const scratch = await scratchSchema(PG_URL, prefix);
  const store = new PostgresRunStore(PG_URL, { options: scratch.options, max: 4 });
  return testDb("postgres", withSchema(PG_URL, scratch.schema), { sqlite: null, pg: store.pool }, store, async () => {
    await store.close();
    await scratch.drop();
  });
}

/**
 * PostgreSQL in a database of its own whose collation is linguistic (ICU en-US, as most servers'
 * en_US.UTF-8 default): text sorts "_x, A, a b, b, B" there, not by bytes. Created and dropped here.
 */
export async function postgresLinguisticDb(prefix = "sy_test"): Promise<TestDb> {
  const name = `sy_icu_${process.pid}_${Math.floor(Math.random() * 1e9)}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  const dropDb = async () => {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  };
  try {
    await admin.query(`CREATE DATABASE "${name}" TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'`);
    const url = new URL(PG_URL);
    url.pathname = `/${name}`;
    const scratch = await scratchSchema(url.toString(), prefix);
    const store = new PostgresRunStore(url.toString(), { options: scratch.options, max: 4 });
    return testDb("postgres", withSchema(url.toString(), scratch.schema), { sqlite: null, pg: store.pool }, store, async () => {
      await store.close();
      await scratch.drop();
      await dropDb();
    });
  } catch (e) {
    await dropDb().catch(() => {});
    throw e;
  }
}

/** null when PostgreSQL is reachable and can create ICU-collated databases (15+ built with ICU). */
async function linguisticReachable(): Promise<string | null> {
  const why = await pgReachable(PG_URL);
  if (why) return why;
  const c = new pg.Client({ connectionString: PG_URL });
  try {
    await c.connect();
    const { rows } = await c.query(`SELECT current_setting('server_version_num')::int >= 150000 AS "v15", EXISTS (SELECT 1 FROM pg_collation WHERE collprovider = 'i') AS "icu"`);
    if (rows[0].v15 && rows[0].icu) return null;
    requirePostgres("the en-US collation suite needs PostgreSQL 15+ with ICU");
    return "needs PostgreSQL 15+ with ICU";
  } finally {
    await c.end().catch(() => {});
  }
}

export interface Database {
  name: string;
  make(): Promise<TestDb>;
  /** null when usable, else why not */
  reachable(): Promise<string | null>;
}

export const DATABASES: Database[] = [
  { name: "SQLite", make: () => sqliteDb(), reachable: async () => null },
  { name: "PostgreSQL", make: () => postgresDb(), reachable: () => pgReachable(PG_URL) },
  { name: "PostgreSQL (en-US collation)", make: () => postgresLinguisticDb(), reachable: linguisticReachable },
];

/** `it`, skipped (with the reason printed once by `open`) when the database is not reachable. */
export function opened(db: Database, tag: string) {
  let h: TestDb | null = null;
  let skip: string | null = null;
  return {
    async open(): Promise<TestDb | null> {
      skip = await db.reachable();
      if (skip) console.log(`[${tag}] ${db.name} skipped: not usable at ${PG_URL} (${skip})`);
      else h = await db.make();
      return h;
    },
    async close() {
      await h?.close();
      h = null;
    },
    get db(): TestDb | null {
      return h;
    },
    it(title: string, fn: (db: TestDb) => Promise<void>, timeout?: number) {
      it(
        title,
        async (ctx) => {
          if (skip || !h) return ctx.skip();
          await fn(h);
        },
        timeout,
      );
    },
  };
}

// ---------------------------------------------------------------------------- rows

export function runRow(id: string, t0: number, over: Partial<RunRow> = {}): RunRow {
  return {
    name: null,
    id,
    workflow: "loop",
    status: "running",
    state: ["WORK"],
    snapshot: { value: "WORK", status: "active" },
    context: { n: 1, text: "ünïcødé ✓" },
    input: { request: `input of ${id}` },
    output: null,
    error: null,
    entered: { WORK: t0 },
    version: 1,
    seq: 0,
    parentId: null,
    forkOf: null,
    forkSeq: null,
    scheduleId: null,
    retries: 0,
    waitingSince: null,
    failedStates: null,
    createdAt: t0,
    updatedAt: t0,
    finishedAt: null,
    ...over,
  };
}

export function commitItem(r: RunRow, expectVersion: number | null, over: Partial<CommitItem> = {}): CommitItem {
  return { run: r, expectVersion, transitions: [], timersSet: [], timersClear: [], reviewsOpen: [], reviewsClose: [], artifacts: [], timers: [], ...over };
}

/** A ModelCall row (plain SQL: the run store does not write them). */
export async function modelCall(
  db: TestDb,
  c: { id: string; runId: string | null; at: number; prompt?: number; completion?: number; ok?: boolean; errorCategory?: string | null; state?: string | null; latencyMs?: number; key?: string | null; adapter?: string },
): Promise<void> {
  // a model's call by default (tokens are counted for model calls only; the offline engine's rows have none)
  await db.sql(
    `INSERT INTO "ModelCall" ("id","key","runId","state","purpose","adapter","endpoint","model","promptTokens","completionTokens","estimated","latencyMs","attempts","ok","errorCategory","error","output","createdAt") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
    [
      c.id,
      c.key ?? null,
      c.runId,
      c.state ?? null,
      "p",
      c.adapter ?? "gpt-test @ primary",
      c.adapter === "offline engine" ? null : "primary",
      c.adapter === "offline engine" ? null : "gpt-test",
      c.prompt ?? 0,
      c.completion ?? 0,
      db.bool(false),
      c.latencyMs ?? 5,
      1,
      db.bool(c.ok ?? true),
      c.errorCategory ?? null,
      c.ok === false ? "it failed" : null,
      c.ok === false ? null : "the reply",
      db.date(c.at),
    ],
  );
}
