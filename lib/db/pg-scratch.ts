// A throwaway PostgreSQL schema with the committed migrations applied (tests and benchmarks):
// created on the server at `url`, dropped by `drop()`. Callers connect with `options`.
import fs from "node:fs";
import path from "node:path";
import pg from "pg";

export interface ScratchSchema {
  schema: string;
  /** pass as the pg `options` connection parameter to work inside the schema */
  options: string;
  drop(): Promise<void>;
}

/** null when PostgreSQL at `url` cannot be reached (with the reason), else the schema. */
export async function pgReachable(url: string, timeoutMs = 1_500): Promise<string | null> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  try {
    await c.connect();
    await c.query("SELECT 1");
    return null;
  } catch (e) {
    return (e as Error).message;
  } finally {
    await c.end().catch(() => {});
  }
}

export async function scratchSchema(url: string, prefix = "sy_scratch", migrationsDir = "prisma/postgres/migrations"): Promise<ScratchSchema> {
  const schema = `${prefix}_${process.pid}_${Math.floor(Math.random() * 1e9)}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`CREATE SCHEMA "${schema}"`);
    await admin.query(`SET search_path TO "${schema}"`);
    for (const m of fs.readdirSync(migrationsDir).filter((d) => fs.statSync(path.join(migrationsDir, d)).isDirectory()).sort()) {
      await admin.query(fs.readFileSync(path.join(migrationsDir, m, "migration.sql"), "utf8"));
    }
  } catch (e) {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
    await admin.end();
    throw e;
  }
  return {
    schema,
    options: `-c search_path=${schema}`,
    drop: async () => {
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
    },
  };
}
