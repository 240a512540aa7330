// Apply the committed migrations of the configured provider. The schema engine takes an
// exclusive lock on SQLite (and takes a while to start), so it only runs when something is
// actually pending.
import { applyMigrations } from "./migrate";
import { migrationPaths, pendingOnSqlite } from "./pending";
import { pendingOnPostgres } from "./postgres";
import { providerOf } from "./url";

export { migrationPaths } from "./pending";

export async function migrateDatabase(url: string): Promise<string[]> {
  const paths = migrationPaths(url);
  if (providerOf(url) === "sqlite" && pendingOnSqlite(url).length === 0) return [];
  // PostgreSQL too: one query instead of the schema engine's start when nothing is pending
  if (providerOf(url) === "postgres" && (await pendingOnPostgres(url)).length === 0) return [];
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
