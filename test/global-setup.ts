// vitest's global setup: migrate ONE template database per dialect before the test files run, so
// that a test's database is a copy of it instead of a fresh migration (19 migrations through the
// schema engine: 0.2–1 s each time, against about a millisecond to copy a file).
//   SQLite: a migrated file; test/helpers.ts' tempDbUrl() copies it (SWITCHYARD_TEST_SQLITE_TEMPLATE).
//   PostgreSQL: a migrated schema; lib/db/pg-scratch.ts' scratchSchema() builds each scratch schema
//   from it (SWITCHYARD_TEST_PG_TEMPLATE). Skipped, with the reason, when PostgreSQL is not
//   reachable (and failed under SWITCHYARD_REQUIRE_POSTGRES=1).
// The environment variables reach the test workers and the processes they spawn. Each vitest
// project (vitest.config.ts) runs its global setup; the first one makes the templates, the others
// in the same process wait for them, and the last teardown removes them.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { migrateDatabase } from "../lib/db/migrations";
import { pgReachable } from "../lib/db/pg-scratch";

const PG_URL = process.env.POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/test";

/** templates left by runs that were killed before their teardown (older than a day: never a running one's) */
async function dropStaleTemplates(): Promise<void> {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  try {
    const { rows } = await c.query<{ name: string }>(`SELECT nspname AS "name" FROM pg_namespace WHERE nspname LIKE 'sy\\_template\\_%'`);
    for (const { name } of rows) {
      const made = Number(name.split("_")[2]);
      if (Number.isFinite(made) && Date.now() - made > 86_400_000) await c.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
    }
  } finally {
    await c.end();
  }
}

/** the templates' teardown, shared by the projects of one vitest process */
const SHARED = Symbol.for("switchyard.test-templates");
type Shared = { ready: Promise<() => Promise<void>>; users: number };

export default async function setup(): Promise<() => Promise<void>> {
  const g = globalThis as { [SHARED]?: Shared };
  const shared = (g[SHARED] ??= { ready: makeTemplates(), users: 0 });
  shared.users++;
  const teardown = await shared.ready;
  return async () => {
    if (--shared.users > 0) return;
    delete g[SHARED];
    await teardown();
  };
}

async function makeTemplates(): Promise<() => Promise<void>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-template-"));
  const file = path.join(dir, "template.db");
  await migrateDatabase(`file:${file}`);
  // everything in the main file (no -wal beside it), so that a plain copy is the whole database
  const db = new Database(file);
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  process.env.SWITCHYARD_TEST_SQLITE_TEMPLATE = file;

  let schema: string | null = null;
  const why = await pgReachable(PG_URL);
  if (why) console.log(`[global setup] no PostgreSQL template: not reachable at ${PG_URL} (${why}); PostgreSQL suites skip`);
  else {
    await dropStaleTemplates();
    schema = `sy_template_${Date.now()}_${process.pid}`;
    await migrateDatabase(`${PG_URL}${PG_URL.includes("?") ? "&" : "?"}schema=${schema}`);
    process.env.SWITCHYARD_TEST_PG_TEMPLATE = schema;
  }

  return async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    if (!schema) return;
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    try {
      await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    } finally {
      await c.end();
    }
  };
}
