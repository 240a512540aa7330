// Once per test run, after the web server is up: say which database the suite runs on and, on
// PostgreSQL, drop the schemas earlier runs left behind (sy_e2e_<stamp>[_…], the stamp being the
// run's start in epoch ms). Only those older than a day go: a run still going on the same
// server keeps its own, and the last runs' data stays around for a look after a failure.
import pg from "pg";
import { buildClient } from "../scripts/build-client.mjs";

const KEEP_MS = 24 * 3_600_000;

export default async function globalSetup(): Promise<void> {
  // the specs import @switchyard/client: its dist/, built when missing or stale
  buildClient();
  const url = process.env.E2E_DB_URL ?? "";
  const masked = url.replace(/\/\/([^:@/]+):[^@/]*@/, "//$1:***@");
  if (process.env.E2E_DB !== "postgres") {
    console.log(`e2e: SQLite, ${masked} (one server)`);
    return;
  }
  console.log(`e2e: PostgreSQL, ${masked} (a web server and two workers: npm run cluster)`);
  const u = new URL(url);
  u.searchParams.delete("schema");
  const c = new pg.Client({ connectionString: u.toString(), connectionTimeoutMillis: 5_000 });
  try {
    await c.connect();
    // never wait behind a schema that is in use
    await c.query("SET lock_timeout = '2s'");
    const { rows } = await c.query<{ name: string }>(String.raw`SELECT nspname AS name FROM pg_namespace WHERE nspname ~ '^sy_e2e_\d{13}(_[a-z0-9_]+)?$'`);
    const stale = rows.map((r) => r.name).filter((s) => Date.now() - Number(s.slice(7, 20)) > KEEP_MS);
    for (const s of stale) {
      try {
        await c.query(`DROP SCHEMA "${s}" CASCADE`);
      } catch (e) {
        console.log(`e2e: left schema ${s} (${(e as Error).message})`);
      }
    }
    if (stale.length) console.log(`e2e: dropped ${stale.length} schema(s) of runs more than a day old`);
  } catch (e) {
    console.log(`e2e: could not look for old sy_e2e_* schemas (${(e as Error).message})`);
  } finally {
    await c.end().catch(() => {});
  }
}
