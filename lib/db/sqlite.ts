// One better-sqlite3 connection per database file, shared by the run store and Prisma, so
// their writes never wait on each other's locks. A mutex orders whole transactions.
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { Mutex } from "async-mutex";

export interface SqliteHandle {
  db: Database.Database;
  /** held for the whole of any transaction on `db` (engine batch or Prisma transaction) */
  mutex: Mutex;
  file: string;
}

export type Durability = "normal" | "full";

export function openSqlite(file: string, durability: Durability = "normal"): SqliteHandle {
  if (file !== ":memory:") fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  // NORMAL in WAL mode survives a process crash (SIGKILL) with every committed transaction;
  // FULL also survives power loss, at about a third of the write rate.
  db.pragma(`synchronous = ${durability === "full" ? "FULL" : "NORMAL"}`);
  db.pragma("busy_timeout = 5000");
  db.pragma("foreign_keys = ON");
  return { db, mutex: new Mutex(), file };
}

let lastMs = NaN;
let lastText = "";

/** Prisma's DateTime text format in SQLite (adapter-better-sqlite3, iso8601). */
export function sqliteDate(ms: number): string {
  // a batch stamps many rows with the same instant: format it once
  if (ms !== lastMs) {
    lastMs = ms;
    lastText = new Date(ms).toISOString().replace("Z", "+00:00");
  }
  return lastText;
}

export function fromSqliteDate(v: unknown): number {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  return Date.parse(String(v));
}
