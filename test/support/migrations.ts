// Data-migration tests: a database brought up to just before one migration, rows written in the
// layout of that time, then the rest applied — on SQLite, and on PostgreSQL in a scratch schema.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { applyMigrations } from "../../lib/db/migrate";
import { committedMigrations } from "../../lib/db/pending";
import { pgReachable } from "../../lib/db/pg-scratch";
import { openSqlite, sqliteDate, type SqliteHandle } from "../../lib/db/sqlite";
import { PostgresRunStore } from "../../lib/engine/store/postgres";
import { SqliteRunStore } from "../../lib/engine/store/sqlite";
import { tempDbUrl } from "../helpers";
import { PG_URL } from "./databases";

/** A copy of the migrations folder `dir` holding the migrations before the one whose name ends with `migration`. */
export function migrationsBefore(dir: string, migration: string): string {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "sy-migrations-"));
  fs.copyFileSync(path.join(dir, "migration_lock.toml"), path.join(out, "migration_lock.toml"));
  for (const name of committedMigrations(dir)) {
    if (name.endsWith(migration)) break;
    fs.cpSync(path.join(dir, name), path.join(out, name), { recursive: true });
  }
  return out;
}

/** Statements with `?` placeholders and their arguments, a DateTime column's value made by `date`. */
export type OldRows = (date: (ms: number) => unknown) => [string, unknown[]][];

/**
 * SQLite: `rows` written before `migration`, then the rest applied; `check` gets the migrations
 * that second pass applied, the database and a store on it (`before`: what `read` saw just
 * before the migration).
 */
export async function acrossSqlite<T>(o: { name: string; migration: string; rows: OldRows; read?: (db: Database.Database) => T; check: (x: { applied: string[]; handle: SqliteHandle; store: SqliteRunStore; before: T | undefined }) => Promise<void> }): Promise<void> {
  const url = tempDbUrl(o.name, { empty: true });
  const file = url.slice("file:".length);
  const all = path.join(process.cwd(), "prisma", "migrations");
  const schemaPath = path.join(process.cwd(), "prisma", "schema.prisma");
  await applyMigrations({ url, migrationsDir: migrationsBefore(all, o.migration), schemaPath });
  const db = new Database(file);
  db.transaction(() => {
    for (const [sql, args] of o.rows(sqliteDate)) db.prepare(sql).run(...args);
  })();
  const before = o.read?.(db);
  db.close();
  const { applied } = await applyMigrations({ url, migrationsDir: all, schemaPath });
  const handle = openSqlite(file);
  const store = new SqliteRunStore(handle, { writer: "inline" });
  try {
    await o.check({ applied, handle, store, before });
  } finally {
    await store.close();
    handle.db.close();
  }
}

/**
 * PostgreSQL, in a scratch schema: the same; `check` gets a client and a store in the schema.
 * False (after printing why) when PostgreSQL is not reachable: the caller skips.
 */
export async function acrossPostgres(o: { prefix: string; migration: string; rows: OldRows; check: (x: { client: pg.Client; store: PostgresRunStore; schema: string }) => Promise<void> }): Promise<boolean> {
  const skip = await pgReachable(PG_URL);
  if (skip) {
    console.log(`[${o.prefix}] PostgreSQL skipped: not reachable at ${PG_URL} (${skip})`);
    return false;
  }
  const schema = `${o.prefix}_${process.pid}_${Math.floor(Math.random() * 1e9)}`;
  const url = `${PG_URL}${PG_URL.includes("?") ? "&" : "?"}schema=${schema}`;
  const all = path.join(process.cwd(), "prisma", "postgres", "migrations");
  const schemaPath = path.join(process.cwd(), "prisma", "postgres", "schema.prisma");
  const client = new pg.Client({ connectionString: PG_URL, options: `-c search_path=${schema}` });
  await client.connect();
  let store: PostgresRunStore | null = null;
  try {
    await applyMigrations({ url, migrationsDir: migrationsBefore(all, o.migration), schemaPath });
    await client.query("BEGIN");
    for (const [sql, args] of o.rows((ms) => new Date(ms))) {
      let i = 0;
      await client.query(sql.replace(/\?/g, () => `$${++i}`), args);
    }
    await client.query("COMMIT");
    await applyMigrations({ url, migrationsDir: all, schemaPath });
    store = new PostgresRunStore(PG_URL, { options: `-c search_path=${schema}`, max: 2 });
    await o.check({ client, store, schema });
  } finally {
    await store?.close();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  }
  return true;
}
