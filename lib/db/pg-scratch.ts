// A throwaway PostgreSQL schema with the committed migrations applied (tests and benchmarks):
// created on the server at `url` by the migration runner, dropped by `drop()`. Callers connect
// with `options`.
import pg from "pg";
import { migrateDatabase } from "./migrations";

export interface ScratchSchema {
  schema: string;
  /** pass as the pg `options` connection parameter to work inside the schema */
  options: string;
  drop(): Promise<void>;
}

/** null when PostgreSQL at `url` answers, else the reason it cannot be reached. */
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

export async function scratchSchema(url: string, prefix = "sy_scratch"): Promise<ScratchSchema> {
  const schema = `${prefix}_${process.pid}_${Math.floor(Math.random() * 1e9)}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const drop = async () => {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  };
  try {
    // the committed migrations, applied the way `npm start` applies them
    await migrateDatabase(`${url}${url.includes("?") ? "&" : "?"}schema=${schema}`);
  } catch (e) {
    await drop().catch(() => {});
    throw e;
  }
  return { schema, options: `-c search_path=${schema}`, drop };
}
