// Write both schema files (scripts/schemas.mjs: the core's and the workflows' models), then
// `prisma generate` for both, offline: Prisma's CLI only wants the path of a schema engine
// binary it never runs for `generate`, so point it at any existing file.
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { POSTGRES_SCHEMA, SQLITE_SCHEMA, writeSchemas } from "./schemas.mjs";

writeSchemas();
const require = createRequire(import.meta.url);
const cli = require.resolve("prisma/build/index.js");
const env = { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.execPath, PRISMA_HIDE_UPDATE_MESSAGE: "1", CHECKPOINT_DISABLE: "1" };
for (const schema of [SQLITE_SCHEMA, POSTGRES_SCHEMA]) {
  execFileSync(process.execPath, [cli, "generate", "--schema", schema], { stdio: ["ignore", "ignore", "inherit"], env });
}
console.log("prisma clients generated (sqlite, postgres)");
