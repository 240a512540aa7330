// Apply the committed migrations of the configured provider (what `npm start` does first).
import path from "node:path";
import { applyMigrations } from "./migrate";
import { providerOf } from "./url";

export function migrationPaths(url: string, root = process.cwd()) {
  const pg = providerOf(url) === "postgres";
  return {
    schemaPath: path.join(root, pg ? "prisma/postgres/schema.prisma" : "prisma/schema.prisma"),
    migrationsDir: path.join(root, pg ? "prisma/postgres/migrations" : "prisma/migrations"),
  };
}

export async function migrateDatabase(url: string, root = process.cwd()): Promise<string[]> {
  const { applied } = await applyMigrations({ url, ...migrationPaths(url, root) });
  return applied;
}
