// Apply the committed migrations of the configured provider (what `npm start` does first).
// The schema engine takes an exclusive lock on SQLite, so it only runs when something is
// actually pending: a second process on an up-to-date database starts without it.
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { applyMigrations } from "./migrate";
import { providerOf, sqlitePath } from "./url";

export function migrationPaths(url: string, root = process.cwd()) {
  const pg = providerOf(url) === "postgres";
  return {
    schemaPath: path.join(root, pg ? "prisma/postgres/schema.prisma" : "prisma/schema.prisma"),
    migrationsDir: path.join(root, pg ? "prisma/postgres/migrations" : "prisma/migrations"),
  };
}

export function committedMigrations(migrationsDir: string): string[] {
  if (!fs.existsSync(migrationsDir)) return [];
  return fs
    .readdirSync(migrationsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(migrationsDir, d.name, "migration.sql")))
    .map((d) => d.name)
    .sort();
}

/** Names of committed migrations not yet applied to a SQLite database (all of them for a new file). */
function pendingOnSqlite(url: string, migrationsDir: string): string[] {
  const all = committedMigrations(migrationsDir);
  const file = sqlitePath(url);
  if (file === ":memory:" || !fs.existsSync(file)) return all;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const table = db.prepare(`SELECT 1 FROM sqlite_master WHERE type='table' AND name='_prisma_migrations'`).get();
    if (!table) return all;
    const done = new Set(
      (db.prepare(`SELECT migration_name AS n FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`).all() as { n: string }[]).map((r) => r.n),
    );
    return all.filter((m) => !done.has(m));
  } finally {
    db.close();
  }
}

export async function migrateDatabase(url: string, root = process.cwd()): Promise<string[]> {
  const paths = migrationPaths(url, root);
  if (providerOf(url) === "sqlite" && pendingOnSqlite(url, paths.migrationsDir).length === 0) return [];
  try {
    const { applied } = await applyMigrations({ url, ...paths });
    return applied;
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    if (/SocketTimeout|locked|busy/i.test(msg)) {
      throw new Error(`could not migrate ${url}: the database is in use by another process; stop it and start again (${msg.split("\n")[0]})`);
    }
    throw e;
  }
}
