// Which committed migrations a database still lacks, read without the schema engine (so the
// web server can check at boot without bundling it; `npm start` applies them before).
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { providerOf, sqlitePath } from "./url";

/** Schema and migrations of the URL's provider, relative to the working directory (the project root). */
export function migrationPaths(url: string) {
  return providerOf(url) === "postgres"
    ? { schemaPath: path.join(process.cwd(), "prisma", "postgres", "schema.prisma"), migrationsDir: path.join(process.cwd(), "prisma", "postgres", "migrations") }
    : { schemaPath: path.join(process.cwd(), "prisma", "schema.prisma"), migrationsDir: path.join(process.cwd(), "prisma", "migrations") };
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
export function pendingOnSqlite(url: string): string[] {
  const all = committedMigrations(migrationPaths(url).migrationsDir);
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
