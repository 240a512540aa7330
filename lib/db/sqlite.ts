// One better-sqlite3 connection per database file, shared by the run store and Prisma, so
// their writes never wait on each other's locks. A mutex orders whole transactions.
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { Mutex } from "async-mutex";

export interface SqliteHandle {
  db: Database.Database;
  /** held for the whole of any transaction on `db` (Prisma, retention, sql.ts); see SqliteLock */
  mutex: SqliteLock;
  file: string;
}

/**
 * Orders the process's writes to one database file. Transactions on the shared connection hold
 * it exclusively (acquire / runExclusive), after every background batch (the run store's writer
 * thread, sqlite-writer.ts) has committed. Background batches only `begin`: they wait for no
 * exclusive holder, then may overlap one another (they are applied in order by one thread).
 * So the two connections never wait on each other's file lock.
 */
export class SqliteLock {
  private mutex = new Mutex();
  private inflight = 0;
  private drained: (() => void)[] = [];

  async acquire(): Promise<() => void> {
    const release = await this.mutex.acquire();
    if (this.inflight > 0) await new Promise<void>((r) => this.drained.push(r));
    return release;
  }

  async runExclusive<T>(fn: () => T | Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await fn();
    } finally {
      release();
    }
  }

  /** Starts a background batch; call the returned function when it has committed or failed. */
  async begin(): Promise<() => void> {
    const release = await this.mutex.acquire();
    this.inflight++;
    release();
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      if (--this.inflight === 0) for (const r of this.drained.splice(0)) r();
    };
  }
}

export type Durability = "normal" | "full";

/**
 * WAL pages between automatic checkpoints (SQLite's default: 1,000 = 4 MB). A checkpoint
 * copies the WAL's pages into the database file and syncs both; the same hot pages (run rows,
 * index pages) are rewritten by commit after commit, so checkpointing every 32 MB instead of
 * every 4 MB copies each of them far fewer times. npm run bench: the writer thread's time per
 * step down about a quarter on this repository's development disk (raw replay +40–70%).
 */
export const WAL_CHECKPOINT_PAGES = 8_000;
/** The connections' own automatic checkpoint while a checkpoint thread runs (sqlite-checkpointer.ts): only a backstop. */
export const WAL_CHECKPOINT_CAP_PAGES = 4 * WAL_CHECKPOINT_PAGES;

export function openSqlite(file: string, durability: Durability = "normal"): SqliteHandle {
  if (file !== ":memory:") fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  // NORMAL in WAL mode survives a process crash (SIGKILL) with every committed transaction;
  // FULL also survives power loss, at about a third of the write rate.
  db.pragma(`synchronous = ${durability === "full" ? "FULL" : "NORMAL"}`);
  db.pragma("busy_timeout = 5000");
  db.pragma("foreign_keys = ON");
  db.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
  return { db, mutex: new SqliteLock(), file };
}

// a batch stamps many rows with the same instant, and each run row also carries its creation
// time: the last two instants are formatted once each
const recent: { ms: number; text: string }[] = [
  { ms: NaN, text: "" },
  { ms: NaN, text: "" },
];
let older = 0;

/** Prisma's DateTime text format in SQLite (adapter-better-sqlite3, iso8601). */
export function sqliteDate(ms: number): string {
  for (let i = 0; i < 2; i++) {
    if (recent[i].ms === ms) {
      older = 1 - i; // the other one is now the least recently used
      return recent[i].text;
    }
  }
  const slot = recent[older];
  older = 1 - older;
  slot.ms = ms;
  slot.text = new Date(ms).toISOString().replace("Z", "+00:00");
  return slot.text;
}

export function fromSqliteDate(v: unknown): number {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  return Date.parse(String(v));
}
