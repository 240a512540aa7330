// Which database: DATABASE_URL, else a SQLite file under data/.
import path from "node:path";

export type Provider = "sqlite" | "postgres";

export const DEFAULT_DATABASE_URL = "file:./data/switchyard.db";

export function databaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  const url = env.DATABASE_URL?.trim();
  return url ? url : DEFAULT_DATABASE_URL;
}

export function providerOf(url: string): Provider {
  if (/^postgres(ql)?:\/\//i.test(url)) return "postgres";
  if (url.startsWith("file:") || url === ":memory:") return "sqlite";
  throw new Error(`DATABASE_URL must start with file: (SQLite) or postgresql:// (PostgreSQL); got "${url.split(":")[0]}:…"`);
}

/** Absolute path of a SQLite URL (relative paths resolve against the working directory). */
export function sqlitePath(url: string): string {
  if (url === ":memory:" || url === "file::memory:") return ":memory:";
  const p = url.replace(/^file:/, "").split("?")[0];
  return path.resolve(p);
}
