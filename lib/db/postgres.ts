// PostgreSQL connection details from a DATABASE_URL (`?schema=` picks the schema, as with
// Prisma), the Prisma client on the pg driver adapter, and which migrations are still pending.
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import type { Db } from "./client";
import { PrismaClient } from "./generated/postgres/client";
import { committedMigrations, migrationPaths } from "./pending";

export interface PgTarget {
  /** the URL without Prisma's `schema` parameter (node-postgres does not know it) */
  connectionString: string;
  /** null: the server's default (public) */
  schema: string | null;
  /** pg `options` that put the schema first on the search path */
  options: string | undefined;
}

export function pgTarget(url: string): PgTarget {
  const u = new URL(url);
  const schema = u.searchParams.get("schema");
  u.searchParams.delete("schema");
  if (schema !== null && !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) throw new Error(`DATABASE_URL: schema must be a plain PostgreSQL identifier; got "${schema}"`);
  return { connectionString: u.toString(), schema, options: schema ? `-c search_path=${schema}` : undefined };
}

/** SWITCHYARD_PG_POOL_MAX: connections per pool (the run store's and Prisma's; default 10). */
export function poolMaxFromEnv(env: NodeJS.ProcessEnv): number {
  const v = env.SWITCHYARD_PG_POOL_MAX?.trim();
  if (!v) return 10;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 1_000) throw new Error(`SWITCHYARD_PG_POOL_MAX must be a whole number from 1 to 1000; got "${v}"`);
  return n;
}

export function prismaOnPostgres(t: PgTarget, max = 10): Db {
  const adapter = new PrismaPg({ connectionString: t.connectionString, options: t.options, max }, t.schema ? { schema: t.schema } : undefined);
  return new PrismaClient({ adapter }) as unknown as Db;
}

/** Committed migrations the database has not applied (all of them for an empty schema). */
export async function pendingOnPostgres(url: string): Promise<string[]> {
  const all = committedMigrations(migrationPaths(url).migrationsDir);
  const t = pgTarget(url);
  const c = new pg.Client({ connectionString: t.connectionString, options: t.options });
  await c.connect();
  try {
    const exists = await c.query(`SELECT to_regclass('_prisma_migrations') AS t`);
    if (!exists.rows[0]?.t) return all;
    const done = new Set((await c.query(`SELECT migration_name AS n FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`)).rows.map((r) => r.n as string));
    return all.filter((m) => !done.has(m));
  } finally {
    await c.end().catch(() => {});
  }
}
