// A throwaway PostgreSQL schema with the committed migrations applied (tests and benchmarks):
// created on the server at `url` by the migration runner, dropped by `drop()`. Callers connect
// with `options`.
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { migrateDatabase } from "./migrations";
import { committedMigrations, migrationPaths } from "./pending";

export interface ScratchSchema {
  schema: string;
  /** pass as the pg `options` connection parameter to work inside the schema */
  options: string;
  drop(): Promise<void>;
}

/**
 * null when PostgreSQL at `url` answers, else the reason it cannot be reached (callers skip their
 * PostgreSQL part and print it). With SWITCHYARD_REQUIRE_POSTGRES=1 (CI, where PostgreSQL is
 * there) an unreachable server throws instead, so that those suites fail rather than skip.
 */
export async function pgReachable(url: string, timeoutMs = 1_500): Promise<string | null> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  let why: string | null = null;
  try {
    await c.connect();
    await c.query("SELECT 1");
  } catch (e) {
    why = (e as Error).message;
  } finally {
    await c.end().catch(() => {});
  }
  if (why) requirePostgres(`PostgreSQL is not reachable at ${url.replace(/\/\/[^@]*@/, "//***@")} (${why})`);
  return why;
}

/** Throws `why` when SWITCHYARD_REQUIRE_POSTGRES=1: a PostgreSQL suite may not skip there. */
export function requirePostgres(why: string): void {
  if (process.env.SWITCHYARD_REQUIRE_POSTGRES === "1") throw new Error(`${why}; SWITCHYARD_REQUIRE_POSTGRES=1 requires it`);
}

export async function scratchSchema(url: string, prefix = "sy_scratch"): Promise<ScratchSchema> {
  const schema = `${prefix}_${process.pid}_${Math.floor(Math.random() * 1e9)}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const drop = async () => {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  };
  try {
    const template = process.env.SWITCHYARD_TEST_PG_TEMPLATE;
    if (template && (await fromTemplate(admin, template, schema))) {
      // built from vitest's migrated template (test/global-setup.ts)
    } else {
      // the committed migrations, applied the way `npm start` applies them
      await migrateDatabase(`${url}${url.includes("?") ? "&" : "?"}schema=${schema}`);
    }
  } catch (e) {
    await drop().catch(() => {});
    throw e;
  }
  return { schema, options: `-c search_path=${schema}`, drop };
}

/**
 * `schema` as a copy of the migrated `template` schema, in one transaction: the committed
 * migrations' SQL (what the schema engine ran on the template; PostgreSQL cannot copy a schema
 * by itself) and the template's own migration bookkeeping, copied row for row, so that the copy
 * counts as migrated. false (nothing done) when the template does not hold exactly the committed
 * migrations: the caller migrates instead.
 */
async function fromTemplate(admin: pg.Client, template: string, schema: string): Promise<boolean> {
  const { migrationsDir } = migrationPaths("postgresql://");
  const names = committedMigrations(migrationsDir);
  const done = await admin
    .query<{ n: string }>(`SELECT migration_name AS "n" FROM "${template}"."_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`)
    .catch(() => null);
  if (!done || done.rows.map((r) => r.n).sort().join("\n") !== names.join("\n")) return false;
  const sql = names.map((n) => fs.readFileSync(path.join(migrationsDir, n, "migration.sql"), "utf8")).join(";\n");
  const copy =
    `BEGIN; SET LOCAL synchronous_commit = off; CREATE SCHEMA "${schema}"; SET LOCAL search_path TO "${schema}";\n${sql};\n` +
    `CREATE TABLE "${schema}"."_prisma_migrations" (LIKE "${template}"."_prisma_migrations" INCLUDING ALL); ` +
    `INSERT INTO "${schema}"."_prisma_migrations" SELECT * FROM "${template}"."_prisma_migrations"; COMMIT`;
  await admin.query(copy).catch(async (e) => {
    await admin.query("ROLLBACK").catch(() => {});
    throw e;
  });
  return true;
}
