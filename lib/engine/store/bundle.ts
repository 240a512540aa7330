// A run with every row it owns, read and written as one (RunStore.exportRun / importRun; the
// document format around it is lib/api/run-export.ts). The same statements on both databases,
// run in one transaction by lib/db/sql: reads in one consistent snapshot, writes all or nothing.
// They differ in how text sorts (bytes on both: COLLATE "C" on PostgreSQL), how a date or a
// boolean is bound, and in what an artifact may hold (PostgreSQL keeps artifacts as TEXT).
import { byteOrder, dbBool, dbDate, isConstraintError, msOf, readAll, writeAll, type Dialect, type SqlPorts, type Stmt } from "../../db/sql";
import { ARTIFACT_COLS, insertTransitionsSql, json, parse, REVIEW_COLS, rowReaders, RUN_FROM, RUN_INSERT, RUN_SELECT, runWriters, SNAPSHOT_COLS, TIMER_COLS, timersJson, type Row } from "./rows";
import type { ArtifactRow, ImportOutcome, ModelCallRow, RunBundle } from "./types";

/** dates as epoch ms whatever form they come back in (text, a number, a Date) */
const read = rowReaders(msOf);
const num = (v: unknown) => Number(v);
const str = (v: unknown) => (v === null || v === undefined ? null : String(v));
const utf8 = new TextDecoder("utf-8", { fatal: true });

export const MODEL_CALL_COLS = `"id","key","runId","state","purpose","adapter","endpoint","model","promptTokens","completionTokens","estimated","latencyMs","attempts","ok","errorCategory","error","output","createdAt"`;

/** The run and what it owns, in the bundle's order (text sort keys in byte order on both databases). */
export async function readBundle(ports: SqlPorts, d: Dialect, id: string): Promise<RunBundle | null> {
  const c = byteOrder(d);
  const args = [id];
  const stmts: Stmt[] = [
    `SELECT ${RUN_SELECT} FROM ${RUN_FROM} WHERE r."id" = ?`,
    `SELECT * FROM "Transition" WHERE "runId" = ? ORDER BY "seq"`,
    `SELECT * FROM "Review" WHERE "runId" = ? ORDER BY "seq", "createdAt", "id"${c}`,
    `SELECT * FROM "Snapshot" WHERE "runId" = ? ORDER BY "seq"`,
    `SELECT * FROM "Timer" WHERE "runId" = ? ORDER BY "dueAt", "id"${c}`,
    `SELECT * FROM "Artifact" WHERE "runId" = ? ORDER BY "name"${c}`,
    `SELECT * FROM "ModelCall" WHERE "runId" = ? ORDER BY "createdAt", "id"${c}`,
    `SELECT "id" FROM "Run" WHERE "parentId" = ? ORDER BY "createdAt", "id"${c}`,
  ].map((sql) => ({ sql, args }));
  const [[r], transitions, reviews, snapshots, timers, artifacts, usage, children] = await readAll(ports, stmts);
  if (!r) return null;
  return {
    run: read.run(r),
    transitions: transitions.map(read.transition),
    reviews: reviews.map(read.review),
    snapshots: snapshots.map((x) => ({ seq: num(x.seq), first: num(x.first), snapshot: parse(x.snapshot), context: parse(x.context), timers: parse(x.timers) ?? [], at: msOf(x.at) })),
    timers: timers.map(read.timer),
    artifacts: artifacts.map((a) => ({ name: String(a.name), content: Buffer.isBuffer(a.content) || typeof a.content === "string" ? a.content : String(a.content ?? ""), size: num(a.size), updatedAt: msOf(a.updatedAt) })),
    usage: usage.map(modelCall),
    children: children.map((x) => String(x.id)),
  };
}

function modelCall(m: Row): ModelCallRow {
  return {
    id: String(m.id),
    key: str(m.key),
    runId: String(m.runId),
    state: str(m.state),
    purpose: String(m.purpose),
    adapter: String(m.adapter),
    endpoint: str(m.endpoint),
    model: str(m.model),
    promptTokens: num(m.promptTokens),
    completionTokens: num(m.completionTokens),
    estimated: Boolean(num(m.estimated)), // 0/1 on SQLite, a boolean on PostgreSQL
    latencyMs: num(m.latencyMs),
    attempts: num(m.attempts),
    ok: Boolean(num(m.ok)),
    errorCategory: str(m.errorCategory),
    error: str(m.error),
    output: str(m.output),
    createdAt: msOf(m.createdAt),
  };
}

const UNSTORABLE = "binary content (or a NUL character) cannot be stored here: this instance keeps artifacts as text on PostgreSQL";

/**
 * An artifact's content as stored: text as text; bytes as the BLOB they were on SQLite. PostgreSQL
 * keeps artifacts as TEXT (no NUL character): there, bytes that are UTF-8 text go in as that text
 * and anything else is refused rather than altered.
 */
function artifactValue(d: Dialect, a: ArtifactRow): string | Buffer | null {
  if (d === "sqlite") return a.content;
  let text: string | null = typeof a.content === "string" ? a.content : null;
  if (text === null) {
    try {
      text = utf8.decode(a.content as Buffer);
    } catch {
      return null; // not UTF-8
    }
  }
  return text.includes("\u0000") ? null : text;
}

/** PostgreSQL refuses NUL characters (and bytes that are no UTF-8) in text. */
const isUnstorableText = (e: unknown) => ["22021", "22P05"].includes(String((e as { code?: unknown })?.code));

class RunExists extends Error {}

/**
 * The bundle written as a new run, in one transaction: its Run row (inFlight 0: nothing of it is
 * live), transitions, reviews (with who decided them), snapshots, timers, artifacts and model
 * calls. The run's own snapshot and context go in its Snapshot row at its seq (where every run's
 * current state is kept), replacing an exported one there.
 */
export async function writeBundle(ports: SqlPorts, d: Dialect, b: RunBundle): Promise<ImportOutcome> {
  const date = (ms: number) => dbDate(d, ms);
  const dateOrNull = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : date(ms));
  const r = b.run;
  const id = r.id;
  const contents: (string | Buffer)[] = [];
  for (const [i, a] of b.artifacts.entries()) {
    const v = artifactValue(d, a);
    if (v === null) return { ok: false, reason: "unstorable", path: `artifacts.${i}.content`, message: `${UNSTORABLE} (artifact ${JSON.stringify(a.name)})` };
    contents.push(v);
  }
  const stmts: Stmt[] = [
    {
      sql: `SELECT 1 AS "x" FROM "Run" WHERE "id" = ?`,
      args: [id],
      check: ({ rows }) => {
        if (rows.length) throw new RunExists();
      },
    },
    // RUN_INSERT's columns: the engine's insert less inFlight
    { sql: RUN_INSERT, args: runWriters(date).insert(r).slice(0, -1) },
    {
      sql: insertTransitionsSql("VALUES (?,?,?,?,?,?,?,?,?)"),
      each: b.transitions.map((t) => [id, t.seq, JSON.stringify(t.from), JSON.stringify(t.to), t.event, t.reason, date(t.at), t.durationMs, json(t.payload)]),
    },
    {
      sql: `INSERT INTO "Review" (${REVIEW_COLS},"decidedBy") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
      each: b.reviews.map((v) => [v.id, id, v.workflow, v.state, v.kind, v.prompt, JSON.stringify(v.payload ?? null), v.status, v.decision, v.feedback, v.reviewer, date(v.createdAt), dateOrNull(v.decidedAt), v.seq, v.decidedBy ?? null]),
    },
    {
      sql: `INSERT INTO "Snapshot" (${SNAPSHOT_COLS}) VALUES (?,?,?,?,?,?,?)`,
      each: b.snapshots.map((x) => [id, x.seq, x.first, JSON.stringify(x.snapshot), JSON.stringify(x.context ?? null), JSON.stringify(x.timers), date(x.at)]),
    },
    {
      sql: `INSERT INTO "Snapshot" (${SNAPSHOT_COLS}) VALUES (?,?,?,?,?,?,?) ON CONFLICT ("runId","seq") DO UPDATE SET "snapshot"=excluded."snapshot","context"=excluded."context"`,
      args: [id, r.seq, r.seq, JSON.stringify(r.snapshot), JSON.stringify(r.context ?? null), timersJson(b.timers), date(r.updatedAt)],
    },
    {
      sql: `INSERT INTO "Timer" (${TIMER_COLS}) VALUES (?,?,?,?,?)`,
      each: b.timers.map((t) => [id, t.id, date(t.dueAt), JSON.stringify(t.event), t.seq]),
    },
    {
      // bytes go in as a BLOB (SQLite), text as text; the size is what is stored
      sql: `INSERT INTO "Artifact" (${ARTIFACT_COLS}) VALUES (?,?,?,?,?)`,
      each: b.artifacts.map((a, i) => [id, a.name, contents[i], typeof contents[i] === "string" ? Buffer.byteLength(contents[i]) : contents[i].length, date(a.updatedAt)]),
    },
    {
      sql: `INSERT INTO "ModelCall" (${MODEL_CALL_COLS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
      each: b.usage.map((u) => [u.id, u.key, id, u.state, u.purpose, u.adapter, u.endpoint, u.model, u.promptTokens, u.completionTokens, dbBool(d, u.estimated), u.latencyMs, u.attempts, dbBool(d, u.ok), u.errorCategory, u.error, u.output, date(u.createdAt)]),
    },
  ];
  try {
    await writeAll(ports, stmts);
    return { ok: true };
  } catch (e) {
    if (e instanceof RunExists) return { ok: false, reason: "exists", message: `run ${id} already exists` };
    if (isConstraintError(e)) return { ok: false, reason: "constraint", message: (e as Error).message };
    if (isUnstorableText(e)) return { ok: false, reason: "unstorable", message: `${(e as Error).message} (PostgreSQL stores no NUL characters in text)` };
    throw e;
  }
}
