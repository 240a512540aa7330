// npm run db:diff -- <name> — write a migration for each provider from the difference between
// the committed migrations and the schema (prisma/core.prisma and each workflow's
// workflows/<id>/schema.prisma, assembled into prisma/schema.prisma by scripts/prisma-generate.mjs
// first). SQLite diffs against an in-memory scratch database; PostgreSQL against a scratch schema
// (skipped, with a note, when it is unreachable).
import { execFileSync } from "node:child_process";
import pg from "pg";
import { createMigration } from "../lib/db/migrate";

const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error("usage: npm run db:diff -- <snake_case_name>");
  process.exit(2);
}
execFileSync(process.execPath, ["scripts/prisma-generate.mjs"], { stdio: "inherit" });

const sqlite = await createMigration({ url: "file::memory:", migrationsDir: "prisma/migrations", schemaPath: "prisma/schema.prisma", name });
console.log(sqlite.dir ? `sqlite: wrote ${sqlite.dir}` : "sqlite: no changes");

const base = process.env.POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const scratch = `sy_diff_${process.pid}`;
const client = new pg.Client({ connectionString: base, connectionTimeoutMillis: 2_000 });
try {
  await client.connect();
} catch (e) {
  console.warn(`postgres: not reachable at ${base} (${(e as Error).message}); write prisma/postgres/migrations by running this where PostgreSQL is up`);
  process.exit(sqlite.dir ? 1 : 0);
}
try {
  const sep = base.includes("?") ? "&" : "?";
  const p = await createMigration({ url: `${base}${sep}schema=${scratch}`, migrationsDir: "prisma/postgres/migrations", schemaPath: "prisma/postgres/schema.prisma", name });
  console.log(p.dir ? `postgres: wrote ${p.dir}` : "postgres: no changes");
} finally {
  await client.query(`DROP SCHEMA IF EXISTS "${scratch}" CASCADE`);
  await client.end();
}
