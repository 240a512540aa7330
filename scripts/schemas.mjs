// The PostgreSQL schema is derived from the SQLite one: same models, other provider and client.
import fs from "node:fs";
import path from "node:path";

export const SQLITE_SCHEMA = "prisma/schema.prisma";
export const POSTGRES_SCHEMA = "prisma/postgres/schema.prisma";
export const SQLITE_MIGRATIONS = "prisma/migrations";
export const POSTGRES_MIGRATIONS = "prisma/postgres/migrations";

export function writePostgresSchema(root = process.cwd()) {
  const src = fs.readFileSync(path.join(root, SQLITE_SCHEMA), "utf8");
  const out = src
    .replace(/provider\s*=\s*"sqlite"/, 'provider = "postgresql"')
    .replace('output              = "../lib/db/generated/sqlite"', 'output              = "../../lib/db/generated/postgres"')
    .replace(/^\/\/ Switchyard's data model\.[\s\S]*?\n\n/m, "// GENERATED from prisma/schema.prisma by scripts/schemas.mjs: edit that file instead.\n\n");
  if (out === src || !out.includes('"postgresql"') || !out.includes("generated/postgres")) throw new Error("could not derive the PostgreSQL schema");
  fs.mkdirSync(path.join(root, path.dirname(POSTGRES_SCHEMA)), { recursive: true });
  const target = path.join(root, POSTGRES_SCHEMA);
  if (!fs.existsSync(target) || fs.readFileSync(target, "utf8") !== out) fs.writeFileSync(target, out);
}
