// Free-text search over runs on SQLite: an FTS5 table with the trigram tokenizer over each run's
// id, input and output. A substring of three or more characters is answered from the index
// (case-insensitive), not by scanning every run.
//
// A new run is indexed by a trigger as it is inserted. A run whose output changes is only marked
// stale (one row in "RunTextStale", written in the same transaction): re-tokenising its text on
// every commit would cost the commit path a third of its time, and a run's output often changes
// several times a minute. Stale runs are re-indexed together, in a transaction of their own,
// by the writer a moment after the commits (STALE_REINDEX_MS) and by any search before it reads
// the index (freshen), so a search never sees an old output. A crash leaves the marks, which the
// next start re-indexes.
//
// The table and its triggers are an index the store owns, created when the store opens (Prisma's
// schema language has no virtual tables, and the migrations diff would try to drop them). Its
// rows are keyed by the run's rowid; if the counts or the first and last rowids disagree when the
// store opens (a database written before the index existed, copied in, or whose run table was
// rebuilt), it is rebuilt.
import type Database from "better-sqlite3";

const text = (r: string) => `coalesce(${r}."id", '') || ' ' || coalesce(${r}."input", '') || ' ' || coalesce(${r}."output", '')`;

/** how long after a commit marks runs stale the writer re-indexes them (a search does it at once) */
export const STALE_REINDEX_MS = 1_000;

const DDL = [
  `CREATE VIRTUAL TABLE IF NOT EXISTS "RunText" USING fts5("text", tokenize = 'trigram')`,
  `CREATE TABLE IF NOT EXISTS "RunTextStale" ("runRowid" INTEGER PRIMARY KEY)`,
  `CREATE TRIGGER IF NOT EXISTS "RunText_insert" AFTER INSERT ON "Run" BEGIN INSERT INTO "RunText" (rowid, "text") VALUES (NEW.rowid, ${text("NEW")}); END`,
  // (databases written before the stale marks had a trigger that re-indexed on every change)
  `DROP TRIGGER IF EXISTS "RunText_output"`,
  `CREATE TRIGGER IF NOT EXISTS "RunText_stale" AFTER UPDATE OF "output" ON "Run" WHEN NEW."output" IS NOT OLD."output" BEGIN
     INSERT OR IGNORE INTO "RunTextStale" ("runRowid") VALUES (NEW.rowid);
   END`,
  `CREATE TRIGGER IF NOT EXISTS "RunText_delete" AFTER DELETE ON "Run" BEGIN DELETE FROM "RunText" WHERE rowid = OLD.rowid; END`,
];

/** Re-index the runs marked stale, and clear the marks (run these in one transaction). */
export const REINDEX_STALE = [
  `DELETE FROM "RunText" WHERE rowid IN (SELECT "runRowid" FROM "RunTextStale")`,
  `INSERT INTO "RunText" (rowid, "text") SELECT r.rowid, ${text("r")} FROM "Run" r WHERE r.rowid IN (SELECT "runRowid" FROM "RunTextStale")`,
  `DELETE FROM "RunTextStale"`,
];

/** Runs marked stale since the last re-index? */
export function hasStaleText(db: Database.Database): boolean {
  return !!db.prepare(`SELECT EXISTS (SELECT 1 FROM "RunTextStale") AS x`).pluck().safeIntegers(false).get();
}

/** Re-index the stale runs now, on `db` (the caller holds the write lock). */
export function reindexStale(db: Database.Database): void {
  db.transaction(() => {
    for (const sql of REINDEX_STALE) db.prepare(sql).run();
  }).immediate();
}

/** Create the index when missing; rebuild it when it does not cover every run. */
export function ensureRunText(db: Database.Database): void {
  db.transaction(() => {
    for (const sql of DDL) db.exec(sql);
    for (const sql of REINDEX_STALE) db.exec(sql); // marks a crash left behind
    // the same count and the same first and last rowid: a table rebuilt with its rowids renumbered
    // (a copy, a migration that redefines "Run") shows at one end or the other unless none were missing
    const span = (t: string) => {
      const n = Number(db.prepare(`SELECT COUNT(*) FROM "${t}"`).pluck().get());
      const lo = Number(db.prepare(`SELECT rowid FROM "${t}" ORDER BY rowid LIMIT 1`).pluck().get() ?? 0);
      const hi = Number(db.prepare(`SELECT rowid FROM "${t}" ORDER BY rowid DESC LIMIT 1`).pluck().get() ?? 0);
      return `${n}:${lo}:${hi}`;
    };
    // the index side from its docsize shadow table (a row per indexed run): counting the FTS table
    // itself reads every indexed text, seconds on a restart with 100,000 runs
    if (span("Run") !== span("RunText_docsize")) {
      db.exec(`DELETE FROM "RunText"`);
      db.exec(`INSERT INTO "RunText" (rowid, "text") SELECT rowid, coalesce("id", '') || ' ' || coalesce("input", '') || ' ' || coalesce("output", '') FROM "Run"`);
    }
  }).immediate();
}

/**
 * The WHERE part for runs containing `text`: from the index when the text has at least three
 * characters (a phrase of its trigrams, so an exact substring, case-insensitive), else a LIKE scan.
 */
export function textFilter(text: string, dense = false): { sql: string; args: unknown[] } {
  if ([...text].length >= 3) {
    // one FTS5 string: double quotes are doubled; everything else (%, _, -, :) is literal.
    // Dense (many matches): "+" keeps the planner from driving the query from the match set,
    // so another filter's index leads and the matches are only looked up.
    return { sql: `${dense ? "+" : ""}"Run".rowid IN (SELECT rowid FROM "RunText" WHERE "RunText" MATCH ?)`, args: [phrase(text)] };
  }
  const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return { sql: `("input" LIKE ? ESCAPE '\\' OR "output" LIKE ? ESCAPE '\\' OR "id" LIKE ? ESCAPE '\\')`, args: [pattern, pattern, pattern] };
}

/** How many runs contain `text` (from the index; -1 when the text is too short for it). */
export function textMatches(db: Database.Database, text: string): number {
  if ([...text].length < 3) return -1;
  const r = db.prepare(`SELECT COUNT(*) AS n FROM "RunText" WHERE "RunText" MATCH ?`).safeIntegers(false).get(phrase(text)) as { n: number };
  return r.n;
}

/** One FTS5 string: double quotes doubled, NUL (which ends an FTS5 query string) dropped. */
function phrase(text: string): string {
  return `"${text.replace(/\u0000/g, "").replace(/"/g, '""')}"`;
}
