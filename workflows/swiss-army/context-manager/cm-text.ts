// The Context Manager's full-text search, kept in the database rather than in memory (with
// each waiting swiss-army run has stored a result, and an in-memory index grew by ~7 KB per run).
// Every process searches the same index, so what one cluster worker stores is found by the
// others at once.
//
// SQLite: one FTS5 table "CmText" (Porter stemming, BM25 with title and keywords weighted 2×) over
// results and patterns, kept by triggers; a result's row is its rowid, a pattern's the negative of
// its rowid. Prisma's schema language has no virtual tables (and a migration diff would drop
// them), so the table and triggers are created when the Context Manager first opens the database,
// and rebuilt when they do not cover every row (a database written before them, or copied in).
//
// PostgreSQL: a GIN expression index per table over the same text (english configuration), ranked
// with ts_rank, created the same way (under an advisory lock: cluster processes start together).
import type { Db } from "../../../lib/db/client";

export type CmDialect = "sqlite" | "postgres";

/** one candidate of a search: `result:<id>` or `pattern:<id>`, and its text score (higher is better) */
export interface TextHit {
  id: string;
  score: number;
}

/** the characters of a result's output that are indexed (the snippet and coverage still see up to 4,000) */
export const INDEXED_OUTPUT = 1_000;
/** the characters of a result's request in its title */
export const TITLE_CHARS = 120;

// ------------------------------------------------------------------ SQLite

const sqliteResult = (r: string) => ({
  title: `substr(${r}."content", 1, ${TITLE_CHARS})`,
  text: `${r}."content" || char(10) || substr(${r}."output", 1, ${INDEXED_OUTPUT})`,
});
const sqlitePattern = (p: string) => ({ title: `${p}."name"`, text: `${p}."description"`, keywords: `${p}."keywords"` });

const insertResult = (r: string, rowid: string) => {
  const c = sqliteResult(r);
  return `INSERT INTO "CmText" (rowid, "title", "text", "keywords") SELECT ${rowid}, ${c.title}, ${c.text}, ''`;
};
const insertPattern = (p: string, rowid: string) => {
  const c = sqlitePattern(p);
  return `INSERT INTO "CmText" (rowid, "title", "text", "keywords") SELECT ${rowid}, ${c.title}, ${c.text}, ${c.keywords}`;
};

const SQLITE_DDL = [
  `CREATE VIRTUAL TABLE IF NOT EXISTS "CmText" USING fts5("title", "text", "keywords", tokenize = 'porter unicode61 remove_diacritics 2')`,
  `CREATE TRIGGER IF NOT EXISTS "CmText_result_insert" AFTER INSERT ON "CmResult" BEGIN ${insertResult("NEW", "NEW.rowid")}; END`,
  `CREATE TRIGGER IF NOT EXISTS "CmText_result_update" AFTER UPDATE OF "content", "output" ON "CmResult" BEGIN
     DELETE FROM "CmText" WHERE rowid = OLD.rowid; ${insertResult("NEW", "NEW.rowid")}; END`,
  `CREATE TRIGGER IF NOT EXISTS "CmText_result_delete" AFTER DELETE ON "CmResult" BEGIN DELETE FROM "CmText" WHERE rowid = OLD.rowid; END`,
  `CREATE TRIGGER IF NOT EXISTS "CmText_pattern_insert" AFTER INSERT ON "CmPattern" BEGIN ${insertPattern("NEW", "-NEW.rowid")}; END`,
  `CREATE TRIGGER IF NOT EXISTS "CmText_pattern_update" AFTER UPDATE OF "name", "description", "keywords" ON "CmPattern" BEGIN
     DELETE FROM "CmText" WHERE rowid = -OLD.rowid; ${insertPattern("NEW", "-NEW.rowid")}; END`,
  `CREATE TRIGGER IF NOT EXISTS "CmText_pattern_delete" AFTER DELETE ON "CmPattern" BEGIN DELETE FROM "CmText" WHERE rowid = -OLD.rowid; END`,
];

/**
 * count and rowid sum of each side: a table whose rowids were renumbered (VACUUM, a copy) shows in
 * the sum. The index's side is read from its small docsize shadow table (one row per document, by
 * rowid), not by scanning the FTS table, which reads every indexed text: at 100,000 results that
 * was seconds on a restart.
 */
const SQLITE_SPAN = `SELECT
  (SELECT count(*) || ':' || total(rowid) FROM "CmResult") AS "results",
  (SELECT count(*) || ':' || total("id") FROM "CmText_docsize" WHERE "id" > 0) AS "indexedResults",
  (SELECT count(*) || ':' || total(rowid) FROM "CmPattern") AS "patterns",
  (SELECT count(*) || ':' || total(-"id") FROM "CmText_docsize" WHERE "id" < 0) AS "indexedPatterns"`;

const SQLITE_REBUILD = [
  `DELETE FROM "CmText"`,
  `${insertResult("r", "r.rowid")} FROM "CmResult" r`,
  `${insertPattern("p", "-p.rowid")} FROM "CmPattern" p`,
];

/** results searched at most: the newest (as many as the in-memory index once held), so a search's cost stops growing */
export const SEARCHED_RESULTS = 20_000;

// the newest SEARCHED_RESULTS results (rowids grow with inserts) and every pattern, ranked together
const bm25 = `bm25("CmText", 2.0, 1.0, 2.0)`;
const SQLITE_SEARCH = `SELECT "id", "score" FROM (
    SELECT 'result:' || r."id" AS "id", -${bm25} AS "score" FROM "CmText" JOIN "CmResult" r ON r.rowid = "CmText".rowid
      WHERE "CmText" MATCH ? AND "CmText".rowid > (SELECT coalesce(max(rowid), 0) FROM "CmResult") - ${SEARCHED_RESULTS}
    UNION ALL
    SELECT 'pattern:' || p."id", -${bm25} FROM "CmText" JOIN "CmPattern" p ON p.rowid = -"CmText".rowid
      WHERE "CmText" MATCH ? AND "CmText".rowid < 0
  ) ORDER BY "score" DESC, "id" LIMIT ?`;

/** An FTS5 query: any of the terms, each as a prefix (quoted, so punctuation in a term is literal). */
function ftsQuery(terms: string[]): string {
  return terms
    .map((t) => t.replace(/\u0000/g, "").trim())
    .filter((t) => t.length > 0)
    .map((t) => `"${t.replace(/"/g, '""')}"*`)
    .join(" OR ");
}

// ------------------------------------------------------------------ PostgreSQL

const PG_RESULT = `to_tsvector('english'::regconfig, left("content", ${TITLE_CHARS}) || ' ' || "content" || ' ' || left("output", ${INDEXED_OUTPUT}))`;
const PG_PATTERN = `(setweight(to_tsvector('english'::regconfig, "name" || ' ' || "keywords"), 'A') || setweight(to_tsvector('english'::regconfig, "description"), 'B'))`;
/** one key for the advisory lock under which a process creates the indexes */
const PG_LOCK = 0x636d_7478; // "cmtx"

const PG_DDL = [
  `SELECT 1 AS "locked" FROM pg_advisory_xact_lock(${PG_LOCK})`,
  `CREATE INDEX IF NOT EXISTS "CmResult_text" ON "CmResult" USING gin ((${PG_RESULT}))`,
  `CREATE INDEX IF NOT EXISTS "CmPattern_text" ON "CmPattern" USING gin ((${PG_PATTERN}))`,
];

const PG_SEARCH = `WITH q AS (SELECT to_tsquery('english'::regconfig, $1) AS q)
  (SELECT 'result:' || "id" AS "id", ts_rank(${PG_RESULT}, q.q)::float8 AS "score" FROM "CmResult", q WHERE ${PG_RESULT} @@ q.q ORDER BY 2 DESC LIMIT $2)
  UNION ALL
  (SELECT 'pattern:' || "id", ts_rank(${PG_PATTERN}, q.q)::float8 FROM "CmPattern", q WHERE ${PG_PATTERN} @@ q.q ORDER BY 2 DESC LIMIT $2)`;

/** A tsquery: any of the terms' words, each as a prefix; only letters and digits reach it. */
function tsQuery(terms: string[]): string {
  const words = terms.flatMap((t) => t.split(/[^\p{L}\p{N}]+/u)).filter((w) => w.length > 0);
  return [...new Set(words)].map((w) => `${w}:*`).join(" | ");
}

// ------------------------------------------------------------------ both

/** Create the index when missing; on SQLite, rebuild it when it does not cover every row (`rebuilt`). */
export async function prepareCmText(db: Db, dialect: CmDialect): Promise<{ rebuilt: boolean }> {
  if (dialect === "postgres") {
    await db.$transaction(async (tx) => {
      for (const sql of PG_DDL) await tx.$queryRawUnsafe(sql);
    });
    return { rebuilt: false };
  }
  return db.$transaction(async (tx) => {
    for (const sql of SQLITE_DDL) await tx.$executeRawUnsafe(sql);
    const [span] = await tx.$queryRawUnsafe<Record<string, string>[]>(SQLITE_SPAN);
    if (span.results === span.indexedResults && span.patterns === span.indexedPatterns) return { rebuilt: false };
    for (const sql of SQLITE_REBUILD) await tx.$executeRawUnsafe(sql);
    return { rebuilt: true };
  });
}

/** The best `limit` results and patterns matching any of `terms`, best first. */
export async function searchCmText(db: Db, dialect: CmDialect, terms: string[], limit: number): Promise<TextHit[]> {
  if (dialect === "postgres") {
    const q = tsQuery(terms);
    if (!q) return [];
    const rows = await db.$queryRawUnsafe<{ id: string; score: number }[]>(PG_SEARCH, q, limit);
    return rows.map((r) => ({ id: r.id, score: Number(r.score) })).sort((a, b) => b.score - a.score || a.id.localeCompare(b.id)).slice(0, limit);
  }
  const q = ftsQuery(terms);
  if (!q) return [];
  const rows = await db.$queryRawUnsafe<{ id: string; score: number }[]>(SQLITE_SEARCH, q, q, limit);
  return rows.map((r) => ({ id: r.id, score: Number(r.score) }));
}
