// Data-migration tests: a database brought up to just before one migration, rows written in the
// layout of that time, then the rest applied.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { committedMigrations } from "../../lib/db/pending";

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
