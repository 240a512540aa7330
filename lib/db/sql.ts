// Plain SQL on either database, for the run store's statements shared by both dialects (whole-run
// export, import and retention, aggregates, Idempotency-Keys: lib/engine/store) and the external
// workers' task table (lib/tasks/store.ts): a list of statements run in ONE transaction,
// reads in a consistent snapshot, writes all or nothing. Statements are written once with `?`
// placeholders (rewritten to $1, $2, … on PostgreSQL); the caller picks dialect-specific SQL
// where the two differ (dialectOf).
//
// SQLite: a synchronous better-sqlite3 transaction under the connection's mutex, as the run store
// does it (nothing else can slip in between the statements). PostgreSQL: one pooled client,
// BEGIN … COMMIT; reads at REPEATABLE READ READ ONLY, so they all see the same snapshot.
import type pg from "pg";
import type { SqliteHandle } from "./sqlite";
import { sqliteDate } from "./sqlite";

export type Row = Record<string, unknown>;
export type Dialect = "sqlite" | "postgres";

/** The runtime's database handles (Runtime's `sqlite` and `pg`): one of them is set. */
export interface SqlPorts {
  sqlite?: SqliteHandle | null;
  /** the run store's pool (TIMESTAMP columns parsed to epoch ms) */
  pg?: pg.Pool | null;
}

export interface Stmt {
  /** SQL with `?` placeholders */
  sql: string;
  args?: unknown[];
  /** run the statement once per entry (args of one row each) instead of once with `args`; on
   *  PostgreSQL an `INSERT … VALUES (?,…,?)` goes as multi-row inserts */
  each?: unknown[][];
  /** sees the result inside the transaction, right after the statement: throwing rolls it all back */
  check?: (r: SqlResult) => void;
}

export interface SqlResult {
  rows: Row[];
  /** rows inserted, updated or deleted (summed over `each`) */
  changes: number;
}

export function dialectOf(ports: SqlPorts): Dialect {
  if (ports.sqlite) return "sqlite";
  if (ports.pg) return "postgres";
  throw new Error("no database: neither a SQLite handle (rt.sqlite) nor a PostgreSQL pool (rt.pg) is set");
}

/** `?` placeholders as $1, $2, … (those inside '…' literals and "…" identifiers are left alone). */
export function pgPlaceholders(sql: string, start = 1): string {
  let n = start;
  let out = "";
  let quote: string | null = null;
  for (const ch of sql) {
    if (quote) {
      if (ch === quote) quote = null;
      out += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      out += ch;
    } else if (ch === "?") out += `$${n++}`;
    else out += ch;
  }
  return out;
}

/** ` COLLATE "C"` on PostgreSQL: text sorts by bytes there, as SQLite's BINARY does (append to ORDER BY keys). */
export const byteOrder = (d: Dialect) => (d === "postgres" ? ' COLLATE "C"' : "");

/** A DateTime column's value: Prisma's ISO text on SQLite, an ISO instant (UTC) for TIMESTAMP(3) on PostgreSQL. */
export const dbDate = (d: Dialect, ms: number) => (d === "sqlite" ? sqliteDate(ms) : new Date(ms).toISOString());

/** A Boolean column's value: 1 / 0 on SQLite (better-sqlite3 binds no booleans), a boolean on PostgreSQL. */
export const dbBool = (d: Dialect, v: boolean) => (d === "sqlite" ? (v ? 1 : 0) : v);

/** A DateTime column as read back, as epoch ms: Prisma's text or a number on SQLite; epoch ms from the
 *  run store's pool (or a Date, or TIMESTAMP text in UTC from a pool without its type parser). */
export function msOf(v: unknown): number {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  if (v instanceof Date) return v.getTime();
  const s = String(v);
  return /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?$/.test(s) ? Date.parse(`${s.replace(" ", "T")}Z`) : Date.parse(s);
}

/** A unique / not-null / foreign-key / check violation (SQLite SQLITE_CONSTRAINT_*, PostgreSQL class 23). */
export function isConstraintError(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  return typeof code === "string" && (code.startsWith("SQLITE_CONSTRAINT") || /^23[0-9A-Z]{3}$/.test(code));
}

/** Reads in one transaction (one consistent snapshot): the rows of each statement, in order. */
export function readAll(ports: SqlPorts, stmts: Stmt[]): Promise<Row[][]> {
  return transaction(ports, "read", stmts).then((rs) => rs.map((r) => r.rows));
}

/**
 * Reads in one transaction, in two rounds: `then` makes the second round's statements from the
 * first round's rows (both see the same snapshot). The rows of the first round's statements, then the second's.
 */
export function readThen(ports: SqlPorts, stmts: Stmt[], then: (rows: Row[][]) => Stmt[]): Promise<Row[][]> {
  return transaction(ports, "read", stmts, (rs) => then(rs.map((r) => r.rows))).then((rs) => rs.map((r) => r.rows));
}

/** Writes in one transaction: all of them or (on any error, or a `check` that throws) none. */
export function writeAll(ports: SqlPorts, stmts: Stmt[]): Promise<SqlResult[]> {
  return transaction(ports, "write", stmts);
}

/** One statement on its own (no transaction of its own beyond the statement's). */
export async function query(ports: SqlPorts, sql: string, args: unknown[] = []): Promise<SqlResult> {
  if (ports.sqlite) {
    const { db, mutex } = ports.sqlite;
    return mutex.runExclusive(() => runSqlite(db, { sql, args }));
  }
  if (!ports.pg) dialectOf(ports);
  const r = await ports.pg!.query(pgPlaceholders(sql), args);
  return { rows: r.rows as Row[], changes: r.rowCount ?? 0 };
}

async function transaction(ports: SqlPorts, mode: "read" | "write", stmts: Stmt[], then?: (rs: SqlResult[]) => Stmt[]): Promise<SqlResult[]> {
  if (ports.sqlite) {
    const { db, mutex } = ports.sqlite;
    const run = (list: Stmt[]) =>
      list.map((s) => {
        const r = runSqlite(db, s);
        s.check?.(r);
        return r;
      });
    const tx = db.transaction(() => {
      const out = run(stmts);
      return then ? [...out, ...run(then(out))] : out;
    });
    return mutex.runExclusive(() => (mode === "write" ? tx.immediate() : tx.deferred()));
  }
  if (!ports.pg) dialectOf(ports);
  return pgTransaction(ports.pg!, mode === "read" ? "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" : "BEGIN", async (c) => {
    const out: SqlResult[] = [];
    const run = async (list: Stmt[]) => {
      for (const s of list) {
        const r = await runPg(c, s);
        s.check?.(r);
        out.push(r);
      }
    };
    await run(stmts);
    if (then) await run(then([...out]));
    return out;
  });
}

/** `fn` on one pooled client inside BEGIN … COMMIT (ROLLBACK when it throws). */
export async function pgTransaction<T>(pool: pg.Pool, begin: string, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const c = await pool.connect();
  try {
    await c.query(begin);
    const out = await fn(c);
    await c.query("COMMIT");
    return out;
  } catch (e) {
    await c.query("ROLLBACK").catch(() => {});
    throw e;
  } finally {
    c.release();
  }
}

function runSqlite(db: SqliteHandle["db"], s: Stmt): SqlResult {
  const st = db.prepare(s.sql);
  if (st.reader) {
    st.safeIntegers(false);
    if (!s.each) return { rows: st.all(...(s.args ?? [])) as Row[], changes: 0 };
    return { rows: s.each.flatMap((a) => st.all(...a) as Row[]), changes: 0 };
  }
  if (!s.each) return { rows: [], changes: Number(st.run(...(s.args ?? [])).changes) };
  let changes = 0;
  for (const a of s.each) changes += Number(st.run(...a).changes);
  return { rows: [], changes };
}

/** PostgreSQL takes at most 65,535 parameters per statement. */
const MAX_PARAMS = 65_535;
const MULTI_ROW = /^([\s\S]*\bVALUES\s*)\(\s*\?(?:\s*,\s*\?)*\s*\)\s*$/i;

async function runPg(c: pg.PoolClient, s: Stmt): Promise<SqlResult> {
  if (!s.each) {
    const r = await c.query(pgPlaceholders(s.sql), s.args ?? []);
    return { rows: r.rows as Row[], changes: r.rowCount ?? 0 };
  }
  const out: SqlResult = { rows: [], changes: 0 };
  const m = MULTI_ROW.exec(s.sql);
  if (!m || s.each.length < 2 || m[1].includes("?")) {
    const text = pgPlaceholders(s.sql);
    for (const a of s.each) {
      const r = await c.query(text, a);
      out.rows.push(...(r.rows as Row[]));
      out.changes += r.rowCount ?? 0;
    }
    return out;
  }
  // INSERT … VALUES (?,…,?) for many rows: VALUES ($1,…),($k+1,…),… in chunks
  const cols = (s.sql.slice(m[1].length).match(/\?/g) ?? []).length;
  const per = Math.max(1, Math.min(1_000, Math.floor(MAX_PARAMS / cols)));
  for (let i = 0; i < s.each.length; i += per) {
    const chunk = s.each.slice(i, i + per);
    const values = chunk.map((_, j) => `(${Array.from({ length: cols }, (_, k) => `$${j * cols + k + 1}`).join(",")})`).join(",");
    const r = await c.query(pgPlaceholders(m[1]) + values, chunk.flat());
    out.changes += r.rowCount ?? 0;
  }
  return out;
}
