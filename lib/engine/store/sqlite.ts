// The run store on SQLite: prepared statements on the shared better-sqlite3 connection, one
// synchronous transaction per batch (group commit), compare-and-set on the run version and on
// each review's pending status.
import type Database from "better-sqlite3";
import { SqliteCrashLedger, type CrashLedger } from "../poison";
import { fromSqliteDate, sqliteDate, type SqliteHandle } from "../../db/sqlite";
import { SqliteWriter, type WriteItem, type WriteOp } from "../../db/sqlite-writer";
import { idempotencyKeys, idempotencyValues, insertIdempotencySql } from "./idempotency";
import { ensureRunText, hasStaleText, REINDEX_STALE, reindexStale, STALE_REINDEX_MS, textFilter, textMatches } from "./sqlite-text";
import { deliveryValues, ESCALATE_REVIEW, groupsJson, insertDeliveriesSql, insertOutboxSql, insertOutcomesSql, MARK_REPLAYED, ADD_FLEET, liveParts, OUTBOX_CLAIM, OUTBOX_FAILED, outboxValues, outcomeValues, ROUTE_REVIEW, routed, SET_INPUT } from "./rows";
import { activeChange, activeRows, activeVersion, DROP_ACTIVE, DROP_RUN_ACTIVE, PUT_ACTIVE, type ActiveSet } from "./active";
import { imported, IMPORTED_PREFIX, notImported } from "../imported";

/** the first id after every imported one (bytewise: the prefix's last character, "-", plus one) */
const IMPORTED_END = `${IMPORTED_PREFIX.slice(0, -1)}${String.fromCharCode(IMPORTED_PREFIX.charCodeAt(IMPORTED_PREFIX.length - 1) + 1)}`;
import { BOOT_RUNS, group, insertTransitionsSql, json, openReviewsSql, parse, PENDING_TIMER, putArtifactSql, putSnapshotSql, rowReaders, RUN_FROM, RUN_INSERT_LIVE, RUN_SELECT, RUN_UPDATED, runWriters, setTimersSql, snapshotFirst, type Row } from "./rows";

/** above this many free-text matches, a page is found faster by walking runs newest first */
const DENSE_TEXT = 500;
import { runAggregates } from "./aggregates";
import { sqliteArchive } from "./archive";
import type {
  ArtifactInfo,
  IdempotencyKeys,
  RunAggregates,
  RunArchive,
  CommitItem,
  FleetDelta,
  CommitOutcome,
  OutboxRow,
  OutcomeRow,
  ResumableRun,
  ReviewQuery,
  ReviewRow,
  RunQuery,
  RunRow,
  RunStatus,
  RunStore,
  SnapshotRow,
  StatusCounts,
  TimerRow,
  TransitionRow,
} from "./types";

/** The statements a commit writes with (run by the writer, sqlite-writer.ts), and their indexes. */
export const WRITES = {
  insertRun: RUN_INSERT_LIVE,
  updateRun: `UPDATE "Run" SET ${RUN_UPDATED.map((c) => `"${c}"=?`).join(",")} WHERE "id"=? AND "version"=?`,
  closeReview: `UPDATE "Review" SET "status"=?,"decision"=?,"feedback"=?,"reviewer"=?,"decidedAt"=?,"decidedBy"=? WHERE "id"=? AND "status"='pending'`,
  insertTransition: insertTransitionsSql("VALUES (?,?,?,?,?,?,?,?,?)"),
  // the run's state after the commit, at its seq: a new row after transitions, the same row
  // rewritten by a commit that made none (which keeps the transitions it answers for)
  putSnapshot: putSnapshotSql("VALUES (?,?,?,?,?,?,?)", "min"),
  clearTimer: `DELETE FROM "Timer" WHERE "runId"=? AND "id"=?`,
  setTimer: setTimersSql("VALUES (?,?,?,?,?)"),
  openReview: openReviewsSql("VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)"),
  putArtifact: putArtifactSql("?,?,?,?,?", "put"),
  appendArtifact: putArtifactSql("?,?,?,?,?", "append"),
  // the engine's outbox (post-commit actions) and the webhook deliveries a commit makes
  insertOutbox: insertOutboxSql("VALUES (?,?,?,?,?,?,?,?)"),
  insertDelivery: insertDeliveriesSql("VALUES (?,?,?,?,?,?,?,?,?)"),
  claimOutbox: OUTBOX_CLAIM(() => "?"),
  claimDueOutbox: `${OUTBOX_CLAIM(() => "?")} AND "dueAt"<=?`,
  outboxDone: `DELETE FROM "ActionOutbox" WHERE "key"=?`,
  outboxFailed: OUTBOX_FAILED(() => "?"),
  // a request's Idempotency-Key (a key already there: constraint violation = this item's conflict)
  insertIdempotency: insertIdempotencySql("VALUES (?,?,?,?,?,?,?,?)"),
  // what effects were given and returned (lib/change), a replay's decisions, a migration's version pin
  insertOutcome: insertOutcomesSql("VALUES (?,?,?,?,?,?,?,?,?,?)"),
  markReplayed: MARK_REPLAYED(() => "?"),
  routeReview: ROUTE_REVIEW(() => "?"),
  escalateReview: ESCALATE_REVIEW(() => "?"),
  setInput: SET_INPUT(() => "?"),
  // where live runs are (active.ts)
  putActive: PUT_ACTIVE(() => "?"),
  dropActive: DROP_ACTIVE(() => "?"),
  dropRunActive: DROP_RUN_ACTIVE(() => "?"),
  // the hour's row and the all-time row (hour -1) from one set of arguments
  addFleet: ADD_FLEET(`SELECT x.w, x.v, CASE WHEN y.a = 0 THEN x.h ELSE -1 END, x.k, x.s, x.b, x.n FROM (SELECT ? AS w, ? AS v, ? AS h, ? AS k, ? AS s, ? AS b, ? AS n) AS x CROSS JOIN (SELECT 0 AS a UNION ALL SELECT 1) AS y WHERE true`),
};
export const W = Object.fromEntries(Object.keys(WRITES).map((k, i) => [k, i])) as Record<keyof typeof WRITES, number>;

/** where the state, the status and the entry times are among RUN_UPDATED's values */
const STATE = RUN_UPDATED.indexOf("state");
const STATUS = RUN_UPDATED.indexOf("status");
const ENTERED = RUN_UPDATED.indexOf("entered");

const num = (v: unknown) => (typeof v === "bigint" ? Number(v) : (v as number));
const read = rowReaders(fromSqliteDate);

const write = runWriters(sqliteDate);

/** UPDATE statements by the set of RUN_UPDATED columns they write (a bit per column) */
const updates = new Map<number, string>();

/** The UPDATE of the run columns whose values differ from `last` (the version always does), with its arguments. */
function changedUpdate(now: unknown[], last: unknown[], id: string, expectVersion: number): [string, unknown[]] {
  let mask = 0;
  const args: unknown[] = [];
  for (let j = 0; j < now.length; j++) {
    if (now[j] !== last[j] || RUN_UPDATED[j] === "version") {
      mask |= 1 << j;
      args.push(now[j]);
    }
  }
  let sql = updates.get(mask);
  if (!sql) {
    sql = `UPDATE "Run" SET ${RUN_UPDATED.filter((_, j) => mask & (1 << j)).map((c) => `"${c}"=?`).join(",")} WHERE "id"=? AND "version"=?`;
    updates.set(mask, sql);
  }
  args.push(id, expectVersion);
  return [sql, args];
}

/** `stateJoined`: the page query joins the state's ActiveState rows itself (listRuns), so the state is not filtered here */
function where(q: Omit<RunQuery, "limit" | "offset">, denseText = false, stateJoined = false): { sql: string; args: unknown[] } {
  const parts: string[] = [];
  const args: unknown[] = [];
  if (q.status?.length) {
    parts.push(`"status" IN (${q.status.map(() => "?").join(",")})`);
    args.push(...q.status);
  }
  if (q.workflow) {
    parts.push(`"workflow" = ?`);
    args.push(q.workflow);
  }
  // run sets from the Review index (one lookup per match, not one subquery per run)
  if (q.waitingForHuman) parts.push(`"id" IN (SELECT v."runId" FROM "Review" v WHERE v."status" = 'pending')`);
  if (q.from !== undefined) {
    parts.push(`"createdAt" >= ?`);
    args.push(sqliteDate(q.from));
  }
  if (q.to !== undefined) {
    parts.push(`"createdAt" < ?`);
    args.push(sqliteDate(q.to));
  }
  if (q.text) {
    // the trigram index (sqlite-text.ts); % and _ in the text are matched literally
    const t = textFilter(q.text, denseText);
    parts.push(t.sql);
    args.push(...t.args);
  }
  if (q.waitingSince !== undefined) {
    // the engine keeps waitingSince = the oldest pending review's opening (indexed)
    parts.push(`"waitingSince" <= ?`);
    args.push(sqliteDate(q.waitingSince));
  }
  if (q.retrying) {
    // retries counts RETRY events and retry transitions as they commit (indexed with status)
    // (+"status": read from the retries index, not the much larger status one)
    parts.push(`"retries" > 0 AND +"status" IN ('running','waiting')`);
  }
  if (q.failedIn) {
    // the engine keeps a failed run's failure states as "|A|B.C|": a state matches by its path or its last segment
    parts.push(`"status" = 'failed' AND ("failedStates" LIKE ? ESCAPE '\\' OR "failedStates" LIKE ? ESCAPE '\\')`);
    const lit = q.failedIn.replace(/[\\%_]/g, (c) => `\\${c}`);
    args.push(`%|${lit}|%`, `%.${lit}|%`);
  }
  if (q.scheduleId !== undefined) {
    parts.push(`"scheduleId" = ?`);
    args.push(q.scheduleId);
  }
  if (q.idPrefix !== undefined) {
    // a range on the primary key (SQLite compares text bytewise)
    parts.push(`"id" >= ? AND "id" < ?`);
    args.push(q.idPrefix, `${q.idPrefix}\uffff`);
  }
  if (q.ids) {
    parts.push(q.ids.length ? `"id" IN (${q.ids.map(() => "?").join(",")})` : "0");
    args.push(...q.ids);
  }
  parts.push(
    ...liveParts(stateJoined ? { ...q, state: undefined } : q, (v) => {
      args.push(v);
      return "?";
    }),
  );
  if (q.replayOf !== undefined) {
    parts.push(`"replayOf" = ?`);
    args.push(q.replayOf);
  } else if (!q.replays) {
    // replays left out: the few rowids the replayOf index holds (every index carries the rowid: no row read per run)
    parts.push(`"Run".rowid NOT IN (SELECT rowid FROM "Run" WHERE "replayOf" IS NOT NULL)`);
  }
  return { sql: parts.length ? `WHERE ${parts.join(" AND ")}` : "", args };
}

/**
 * A batch's counter rows (sqlite-writer.ts, check 3): each distinct row numbered, its arguments sent
 * once, with its first increment; later increments are two numbers each.
 */
class CounterRows {
  private rows = new Map<string, number>();
  /** the arguments of a check-3 op adding `d`'s increment to its row */
  add(d: FleetDelta): unknown[] {
    const key = `${d[0]}\u0001${d[1]}\u0001${d[2]}\u0001${d[3]}\u0001${d[4]}\u0001${d[5]}`;
    const row = this.rows.get(key);
    if (row !== undefined) return [row, d[6]];
    this.rows.set(key, this.rows.size);
    return [this.rows.size - 1, d[6], d[0], d[1], d[2], d[3], d[4], d[5]];
  }
}

export class SqliteRunStore implements RunStore {
  readonly dialect = "sqlite" as const;
  /** on the writer thread, batches of 100 with up to 4 in flight overlap writing and stepping */
  readonly pipeline: { batch: number; depth: number } | undefined;
  private db: Database.Database;
  private s: Record<string, Database.Statement>;
  private writer: SqliteWriter;
  readonly archive: RunArchive;
  readonly idempotency: IdempotencyKeys;
  readonly aggregates: RunAggregates;

  /** `writer`: where commits are written (default: a worker thread for a file, inline for :memory:) */
  constructor(
    private handle: SqliteHandle,
    opts: { writer?: "thread" | "inline" } = {},
  ) {
    this.db = handle.db;
    this.archive = sqliteArchive(handle);
    this.idempotency = idempotencyKeys({ sqlite: handle }, "sqlite");
    this.aggregates = runAggregates({ sqlite: handle }, "sqlite");
    // runs whose output changed are re-indexed for search a moment later, off the commit path
    this.writer = new SqliteWriter(handle, Object.values(WRITES), opts.writer, { sqls: REINDEX_STALE, afterMs: STALE_REINDEX_MS });
    this.writer.onTidy = () => this.onWrite?.(null);
    this.pipeline = this.writer.mode === "thread" ? { batch: 100, depth: 4 } : undefined;
    ensureRunText(this.db);
    const p = (sql: string) => this.db.prepare(sql).safeIntegers(false);
    this.s = {
      snapshotAt: p(`SELECT * FROM "Snapshot" WHERE "runId"=? AND "seq">=? AND "first"<=? ORDER BY "seq" LIMIT 1`),
      listArtifacts: p(`SELECT "name","size","updatedAt" FROM "Artifact" WHERE "runId"=? ORDER BY "name"`),
      getArtifact: p(`SELECT "content" FROM "Artifact" WHERE "runId"=? AND "name"=?`),
      getRun: p(`SELECT ${RUN_SELECT} FROM ${RUN_FROM} WHERE r."id"=?`),
      runVersion: p(`SELECT "version" FROM "Run" WHERE "id"=?`),
      transitions: p(`SELECT * FROM "Transition" WHERE "runId"=? AND "seq">? ORDER BY "seq" LIMIT ?`),
      // (replays left out: their visits are not the workflow's, lib/change; `+`: never read through the replayOf index, which nearly every run shares a null in)
      leaving: p(`SELECT t.* FROM "Transition" t JOIN "Run" r ON r."id"=t."runId" WHERE r."workflow"=? AND +r."replayOf" IS NULL AND t."from" LIKE ? AND t."at" > ? ORDER BY t."at" DESC LIMIT ?`),
      outcomes: p(`SELECT * FROM "EffectOutcome" WHERE "runId"=? ORDER BY "seq", "key"`),
      anyReplay: p(`SELECT 1 AS x FROM "Run" WHERE "replayOf" IS NOT NULL LIMIT 1`),
      getReview: p(`SELECT * FROM "Review" WHERE "id"=?`),
      timers: p(`SELECT * FROM "Timer" WHERE "runId"=? ORDER BY "dueAt"`),
      nextTimer: p(`SELECT t."dueAt" FROM "Timer" t CROSS JOIN "Run" r WHERE r."id" = t."runId" AND t."dueAt" > ? AND ${PENDING_TIMER} ORDER BY t."dueAt" LIMIT 1`),
      dueTimers: p(`SELECT t.* FROM "Timer" t CROSS JOIN "Run" r WHERE r."id" = t."runId" AND t."dueAt" <= ? AND ${PENDING_TIMER} ORDER BY t."dueAt" LIMIT ?`),
    };
  }

  /**
   * Per live run, the values its last committed write left in the RUN_UPDATED columns and the
   * version it left: the next step updates only the columns whose values changed (SQLite
   * rewrites the index entries of every column in an UPDATE's SET list, changed or not, and 5
   * of the run indexes hold a column a step may rewrite). Entries are confirmed by the commit's
   * outcome and dropped on a conflict, a failure or when the run finishes; a step whose expected
   * version is not the one remembered writes every column.
   */
  private written = new Map<string, { version: number; values: unknown[] }>();

  /** One item's writes, serialised for the writer (which may be another thread); `counters`: the batch's counter rows. */
  private ops(item: CommitItem, values: unknown[], counters: CounterRows): WriteItem {
    const { run } = item;
    const ops: WriteOp[] = [];
    // the ActiveState rows before: none for a new run, the run's as last written ("same": state, status and entry times unchanged), else not known (null: all dropped)
    let before: ActiveSet | null | "same" = { status: run.status, version: null, rows: [] };
    if (item.expectVersion === null) ops.push([W.insertRun, write.insert(run), 2]);
    else {
      const last = this.written.get(run.id);
      if (last?.version === item.expectVersion && item.setInput === undefined) {
        ops.push([...changedUpdate(values, last.values, run.id, item.expectVersion), 1]);
        const lv = last.values;
        if (lv[STATE] === values[STATE] && lv[STATUS] === values[STATUS] && lv[ENTERED] === values[ENTERED]) before = "same";
        else {
          const version = activeVersion(run, run.input);
          before = { status: lv[STATUS] as RunStatus, version, rows: activeRows({ id: run.id, status: lv[STATUS] as RunStatus, state: JSON.parse(lv[STATE] as string) as string[], entered: JSON.parse(lv[ENTERED] as string) as Record<string, number> }) };
        }
      } else {
        ops.push(last?.version === item.expectVersion ? [...changedUpdate(values, last.values, run.id, item.expectVersion), 1] : [W.updateRun, [...values, run.id, item.expectVersion], 1]);
        before = null;
      }
    }
    if (before !== "same") {
      const now: ActiveSet = { status: run.status, version: activeVersion(run, item.setInput !== undefined ? item.setInput : run.input), rows: activeRows(run) };
      const { drop, put } = activeChange(before, now);
      if (drop === null) ops.push([W.dropRunActive, [run.id], 0]);
      else for (const s of drop) ops.push([W.dropActive, [run.id, s], 0]);
      if (put.length) {
        const created = sqliteDate(run.createdAt);
        for (const r of put) ops.push([W.putActive, [r.state, run.id, created, run.workflow, now.version, run.status, r.since === null ? null : sqliteDate(r.since)], 0]);
      }
    }
    for (const c of item.reviewsClose) ops.push([W.closeReview, [c.status, c.decision, c.feedback, c.reviewer, sqliteDate(c.decidedAt), c.decidedBy ?? null, c.id], 1]);
    for (const t of item.transitions) {
      ops.push([W.insertTransition, [t.runId, t.seq, JSON.stringify(t.from), JSON.stringify(t.to), t.event, t.reason, sqliteDate(t.at), t.durationMs, json(t.payload)], 0]);
    }
    ops.push([W.putSnapshot, write.snapshot(run, snapshotFirst(item), item.timers), 0]);
    for (const id of item.timersClear) ops.push([W.clearTimer, [run.id, id], 0]);
    for (const t of item.timersSet) ops.push([W.setTimer, [t.runId, t.id, sqliteDate(t.dueAt), JSON.stringify(t.event), t.seq], 0]);
    for (const r of item.reviewsOpen) {
      ops.push([W.openReview, [r.id, r.runId, r.workflow, r.state, r.kind, r.prompt, JSON.stringify(r.payload), r.status, r.decision, r.feedback, r.reviewer, sqliteDate(r.createdAt), r.decidedAt === null ? null : sqliteDate(r.decidedAt), r.seq], 0]);
    }
    for (const f of item.artifacts) {
      ops.push([f.mode === "append" ? W.appendArtifact : W.putArtifact, [run.id, f.name, f.content, Buffer.byteLength(f.content), sqliteDate(run.updatedAt)], 0]);
    }
    if (item.outbox) for (const o of item.outbox) ops.push([W.insertOutbox, outboxValues(o, sqliteDate), 0]);
    if (item.deliveries) for (const d of item.deliveries) ops.push([W.insertDelivery, deliveryValues(d, sqliteDate), 0]);
    if (item.idempotency) ops.push([W.insertIdempotency, idempotencyValues(item.idempotency, sqliteDate), 2]);
    if (item.outcomes) for (const o of item.outcomes) ops.push([W.insertOutcome, outcomeValues(o, sqliteDate), 0]);
    for (const r of item.reviewsOpen) if (r.replayedFrom) ops.push([W.markReplayed, [r.replayedFrom, r.id], 0]);
    for (const r of item.reviewsOpen) if (routed(r)) ops.push([W.routeReview, [groupsJson(r.assignedTo), r.dueAt == null ? null : sqliteDate(r.dueAt), groupsJson(r.escalatedFrom), r.id], 0]);
    for (const r of item.reviewsRoute ?? []) ops.push([W.escalateReview, [groupsJson(r.assignedTo), groupsJson(r.escalatedFrom), r.id], 0]);
    if (item.setInput !== undefined) ops.push([W.setInput, [JSON.stringify(item.setInput ?? null), run.id], 0]);
    // the fleet's counters: summed over the batch's committed items, written once per row at its end (check 3)
    if (item.fleet) for (const d of item.fleet) ops.push([W.addFleet, counters.add(d), 3]);
    return { guarded: item.reviewsClose.length > 0 || item.idempotency !== undefined, ops };
  }

  /** observer of each batch as written, and of each upkeep (null) (the benchmark replays them with raw better-sqlite3) */
  onWrite?: (batch: WriteItem[] | null) => void;

  async commit(items: CommitItem[]): Promise<CommitOutcome[]> {
    if (items.length === 0) return [];
    const values = items.map((i) => write.updated(i.run));
    const counters = new CounterRows();
    const batch = items.map((item, i) => this.ops(item, values[i], counters));
    this.onWrite?.(batch);
    let out: CommitOutcome[];
    try {
      out = await this.writer.write(batch);
    } catch (e) {
      for (const item of items) this.written.delete(item.run.id);
      throw e;
    }
    items.forEach(({ run }, i) => {
      if (out[i] === "ok" && run.finishedAt === null) this.written.set(run.id, { version: run.version, values: values[i] });
      else this.written.delete(run.id);
    });
    return out;
  }

  forget(runId: string): void {
    // its next step writes every column (nothing kept per waiting run)
    this.written.delete(runId);
  }

  async getRun(id: string): Promise<RunRow | null> {
    const r = this.s.getRun.get(id) as Row | undefined;
    return r ? read.run(r) : null;
  }

  async runVersion(id: string): Promise<number | null> {
    const r = this.s.runVersion.get(id) as Row | undefined;
    return r ? Number(r.version) : null;
  }

  /**
   * One page of runs, newest first. The page is chosen on row ids alone (narrow, mostly from an
   * index), then its rows are read. Filters the planner misjudges get their index named:
   * free text matching many runs walks the creation-time index (the first 25 matches come
   * early), waiting and retrying read their own (waitingSince|retries, …, createdAt) index.
   */
  async listRuns(q: RunQuery): Promise<RunRow[]> {
    await this.freshText(q.text);
    const dense = this.denseText(q.text);
    const order = (t: string) => `ORDER BY ${t}."createdAt" DESC, ${t}.rowid DESC`;
    // runs in a state: walked newest first on the state's ActiveState rows (their createdAt is the run's), a page's worth of runs read
    const joined = q.state !== undefined && !q.text;
    const w = where(q, dense, joined);
    const page = joined
      ? `SELECT "Run".rowid FROM (SELECT "runId" AS "activeRun", "createdAt" AS "activeAt" FROM "ActiveState" WHERE "state" = ?) AS a CROSS JOIN "Run" ON "Run"."id" = a."activeRun" ${w.sql} ORDER BY a."activeAt" DESC, "Run".rowid DESC`
      : `SELECT "Run".rowid FROM "Run"${this.pageIndex(q, dense)} ${w.sql} ${order(`"Run"`)}`;
    const rows = this.db
      .prepare(`SELECT ${RUN_SELECT} FROM ${RUN_FROM} WHERE r.rowid IN (${page} LIMIT ? OFFSET ?) ${order("r")}`)
      .safeIntegers(false)
      .all(...(joined ? [q.state] : []), ...w.args, q.limit ?? 50, q.offset ?? 0) as Row[];
    return rows.map(read.run);
  }

  /** Before the text index answers: re-index the runs whose output changed since it last did. */
  private async freshText(text: string | undefined): Promise<void> {
    if (!text || !hasStaleText(this.db)) return;
    await this.handle.mutex.runExclusive(() => {
      if (hasStaleText(this.db)) reindexStale(this.db);
    });
  }

  private denseText(text: string | undefined): boolean {
    return !!text && textMatches(this.db, text) > DENSE_TEXT;
  }

  private pageIndex(q: RunQuery, dense: boolean): string {
    if (dense && !q.workflow && !q.status?.length) return ` INDEXED BY "Run_createdAt_idx"`;
    if (q.waitingSince !== undefined && !q.text) return ` INDEXED BY "Run_waitingSince_createdAt_idx"`;
    if (q.retrying && !q.text && q.waitingSince === undefined) return ` INDEXED BY "Run_retries_status_createdAt_idx"`;
    // live runs by where they are or what they wait on: the few live ones, read through the status index
    if ((q.waitingFor?.length || q.unclaimedSince !== undefined) && !q.text && q.waitingSince === undefined && !q.retrying) return ` INDEXED BY "Run_status_createdAt_idx"`;
    return "";
  }

  async countRuns(q: Omit<RunQuery, "limit" | "offset">): Promise<number> {
    const { text, replays, ...rest } = q;
    await this.freshText(text);
    // free text alone: the index's own count (it counts replays too: only when there are none, or they are asked for)
    if (text && Object.values(rest).every((v) => v === undefined || v === false) && (replays || !this.s.anyReplay.get())) {
      const n = textMatches(this.db, text);
      if (n >= 0) return n;
    }
    const dense = this.denseText(text);
    // replays left out: every matching run, less the matching replays (read through the small replayOf index)
    const hide = !replays && q.replayOf === undefined;
    const all = { ...q, replays: replays || hide };
    const w = where(all, dense);
    const count = (sql: string, args: unknown[]) => (this.db.prepare(`SELECT COUNT(*) AS n FROM ${sql}`).safeIntegers(false).get(...args) as { n: number }).n;
    let n: number;
    if (q.state !== undefined && !text) {
      // runs in a state: its ActiveState rows (an index range count when nothing else filters them), joined to the runs when something does
      const rest = where(all, dense, true);
      n = rest.sql
        ? count(`(SELECT "runId" AS "activeRun" FROM "ActiveState" WHERE "state" = ?) AS a CROSS JOIN "Run" ON "Run"."id" = a."activeRun" ${rest.sql}`, [q.state, ...rest.args])
        : count(`"ActiveState" WHERE "state" = ?`, [q.state]);
    } else n = count(`"Run" ${w.sql}`, w.args);
    if (!hide || !this.s.anyReplay.get()) return n;
    return n - count(`"Run" ${w.sql ? `${w.sql} AND` : "WHERE"} "replayOf" IS NOT NULL`, w.args);
  }

  /**
   * Runs per status. Completed runs pile up, so they are not counted one by one: the total is an
   * index count, the other (smaller) statuses are index range counts, completed is the rest.
   */
  async countByStatus(workflow?: string): Promise<StatusCounts> {
    const by = workflow ? `"workflow" = ? AND ` : "";
    const args = workflow ? [workflow] : [];
    const total = (this.db.prepare(`SELECT COUNT(*) AS n FROM "Run" ${workflow ? `WHERE "workflow" = ?` : ""}`).safeIntegers(false).get(...args) as { n: number }).n;
    const count = this.db.prepare(`SELECT COUNT(*) AS n FROM "Run" WHERE ${by}"status" = ?`).safeIntegers(false);
    const out: Record<RunStatus, number> = { running: 0, waiting: 0, completed: 0, failed: 0, aborted: 0 };
    for (const s of ["running", "waiting", "failed", "aborted"] as const) out[s] = (count.get(...args, s) as { n: number }).n;
    out.completed = total - out.running - out.waiting - out.failed - out.aborted;
    // replay and evaluation runs are not the workflow's work: counted apart, whatever their status (the replayOf index)
    const replays = this.db.prepare(`SELECT "status", COUNT(*) AS n FROM "Run" INDEXED BY "Run_replayOf_idx" WHERE "replayOf" IS NOT NULL ${workflow ? `AND "workflow" = ?` : ""} GROUP BY "status"`).safeIntegers(false).all(...args) as { status: RunStatus; n: number }[];
    for (const r of replays) if (r.status in out) out[r.status] -= r.n;
    // imported runs recorded as running or waiting are not live: counted apart
    // (read through the id index: the range holds exactly the ids with the imported prefix, bytewise, and there are few; `+`: not the status index, whose live runs are many)
    const apart = this.db
      .prepare(`SELECT "status", COUNT(*) AS n FROM "Run" WHERE "id" >= '${IMPORTED_PREFIX}' AND "id" < '${IMPORTED_END}' AND ${workflow ? `+"workflow" = ? AND ` : ""}+"status" IN ('running','waiting') AND ${imported(`"id"`)} AND +"replayOf" IS NULL GROUP BY "status"`)
      .safeIntegers(false)
      .all(...args) as { status: "running" | "waiting"; n: number }[];
    for (const r of apart) out[r.status] -= r.n;
    return { ...out, imported: apart.reduce((n, r) => n + r.n, 0), replay: replays.reduce((n, r) => n + r.n, 0) };
  }

  async transitions(runId: string, afterSeq = 0, limit = 10_000): Promise<TransitionRow[]> {
    return (this.s.transitions.all(runId, afterSeq, limit) as Row[]).map(read.transition);
  }

  async transitionsLeaving(workflow: string, state: string, limit: number, since = 0): Promise<TransitionRow[]> {
    return (this.s.leaving.all(workflow, `%${JSON.stringify(state)}%`, sqliteDate(since), limit) as Row[]).map(read.transition).filter((t) => t.from.includes(state) && !t.to.includes(state));
  }

  async getReview(id: string): Promise<ReviewRow | null> {
    const r = this.s.getReview.get(id) as Row | undefined;
    return r ? read.review(r) : null;
  }

  async listReviews(q: ReviewQuery): Promise<ReviewRow[]> {
    const parts: string[] = [];
    const args: unknown[] = [];
    if (q.status) {
      parts.push(`"status" = ?`);
      args.push(q.status);
    }
    if (q.runId) {
      parts.push(`"runId" = ?`);
      args.push(q.runId);
    }
    if (q.runIds) {
      parts.push(q.runIds.length ? `"runId" IN (${q.runIds.map(() => "?").join(",")})` : "0");
      args.push(...q.runIds);
    }
    // routing: group names are stored as a JSON array; '"name"' found in it is membership
    const anyGroup = (gs: string[]) => (gs.length ? gs.map((g) => (args.push(JSON.stringify(g)), `instr("assignedTo", ?) > 0`)).join(" OR ") : "0");
    if (q.assigned) parts.push(`(${anyGroup(q.assigned)})`);
    if (q.decidableBy) parts.push(`("status" <> 'pending' OR "assignedTo" IS NULL OR ${anyGroup(q.decidableBy)})`);
    if (q.dueBy !== undefined) {
      parts.push(`"dueAt" <= ?`);
      args.push(sqliteDate(q.dueBy));
    }
    // an imported run's pending review is no one's to decide here (lib/engine/imported.ts)
    if (q.status === "pending") parts.push(notImported(`"runId"`));
    const rows = this.db
      .prepare(`SELECT * FROM "Review" ${parts.length ? `WHERE ${parts.join(" AND ")}` : ""} ORDER BY "createdAt" ASC LIMIT ?`)
      .safeIntegers(false)
      .all(...args, q.limit ?? 200) as Row[];
    return rows.map(read.review);
  }

  async timers(runId: string): Promise<TimerRow[]> {
    return (this.s.timers.all(runId) as Row[]).map(read.timer);
  }

  async outcomes(runId: string): Promise<OutcomeRow[]> {
    return (this.s.outcomes.all(runId) as Row[]).map(read.outcome);
  }

  async snapshotAt(runId: string, seq: number): Promise<SnapshotRow | null> {
    // the snapshot of the commit that wrote `seq` (none when it was pruned: a later one would be another state)
    const r = this.s.snapshotAt.get(runId, seq, seq) as Row | undefined;
    if (!r) return null;
    const timers = (parse(r.timers) ?? []) as Omit<TimerRow, "runId">[];
    return { runId, seq: num(r.seq), first: num(r.first), snapshot: parse(r.snapshot), context: parse(r.context), timers: timers.map((t) => ({ ...t, runId })), at: fromSqliteDate(r.at) };
  }

  async artifacts(runId: string): Promise<ArtifactInfo[]> {
    return (this.s.listArtifacts.all(runId) as Row[]).map((r) => ({ name: r.name as string, size: num(r.size), updatedAt: fromSqliteDate(r.updatedAt) }));
  }

  async artifact(runId: string, name: string): Promise<string | null> {
    const r = this.s.getArtifact.get(runId, name) as Row | undefined;
    return r ? (r.content as string) : null;
  }

  async resumable(): Promise<ResumableRun[]> {
    const runs = (this.db.prepare(`SELECT ${RUN_SELECT} FROM ${RUN_FROM} WHERE r."status" IN ('running','waiting')`).safeIntegers(false).all() as Row[]).map(read.run);
    const timers = (this.db.prepare(`SELECT t.* FROM "Timer" t JOIN "Run" r ON r."id" = t."runId" WHERE r."status" IN ('running','waiting')`).safeIntegers(false).all() as Row[]).map(read.timer);
    const reviews = (this.db.prepare(`SELECT * FROM "Review" WHERE "status" = 'pending'`).safeIntegers(false).all() as Row[]).map(read.review);
    return group(runs, timers, reviews);
  }

  async activeRuns(): Promise<ResumableRun[]> {
    const live = BOOT_RUNS;
    const runs = (this.db.prepare(`SELECT ${RUN_SELECT} FROM ${RUN_FROM} WHERE ${live}`).safeIntegers(false).all() as Row[]).map(read.run);
    const timers = (this.db.prepare(`SELECT t.* FROM "Run" r JOIN "Timer" t ON t."runId" = r."id" WHERE ${live}`).safeIntegers(false).all() as Row[]).map(read.timer);
    const reviews = (this.db.prepare(`SELECT v.* FROM "Run" r JOIN "Review" v ON v."runId" = r."id" WHERE ${live} AND v."status" = 'pending'`).safeIntegers(false).all() as Row[]).map(read.review);
    return group(runs, timers, reviews);
  }

  // the Timer table read in due order (its dueAt index), each row's run looked up by its key (CROSS JOIN keeps that order)
  async nextTimer(after: number | null): Promise<number | null> {
    const r = this.s.nextTimer.get(after === null ? "" : sqliteDate(after)) as Row | undefined;
    return r ? fromSqliteDate(r.dueAt) : null;
  }

  async dueTimers(by: number, limit: number): Promise<TimerRow[]> {
    return (this.s.dueTimers.all(sqliteDate(by), limit) as Row[]).map(read.timer);
  }

  async outbox(q: { limit: number; maxAttempts: number; dueBy?: number }): Promise<OutboxRow[]> {
    const due = q.dueBy === undefined ? "" : ` AND "dueAt" <= ?`;
    const args: unknown[] = [q.maxAttempts, ...(q.dueBy === undefined ? [] : [sqliteDate(q.dueBy)]), q.limit];
    const rows = this.db.prepare(`SELECT * FROM "ActionOutbox" WHERE "attempts" < ?${due} ORDER BY "createdAt", "key" LIMIT ?`).safeIntegers(false).all(...args) as Row[];
    return rows.map(read.outbox);
  }

  async claimOutbox(key: string, attempts: number, until: number, now?: number): Promise<boolean> {
    const op: WriteOp = now === undefined ? [W.claimOutbox, [sqliteDate(until), key, attempts], 1] : [W.claimDueOutbox, [sqliteDate(until), key, attempts, sqliteDate(now)], 1];
    const [out] = await this.writer.write([{ guarded: false, ops: [op] }]);
    return out === "ok";
  }

  async outboxDone(keys: string[]): Promise<void> {
    if (keys.length) await this.writer.write([{ guarded: false, ops: keys.map((k): WriteOp => [W.outboxDone, [k], 0]) }]);
  }

  async outboxFailed(key: string, attempts: number, error: string, dueAt: number): Promise<void> {
    await this.writer.write([{ guarded: false, ops: [[W.outboxFailed, [error, sqliteDate(dueAt), attempts, key], 0]] }]);
  }

  crashLedger(): CrashLedger {
    return new SqliteCrashLedger(this.db);
  }

  /** how the writer runs: "thread" (its own connection on a worker thread) or "inline" */
  get writerMode(): "thread" | "inline" {
    return this.writer.mode;
  }

  /** the writer thread's busy and idle time (null when it writes inline) */
  writerUtilization(): { activeMs: number; idleMs: number } | null {
    return this.writer.utilization();
  }

  async close(): Promise<void> {
    // ends the writer thread; the shared connection belongs to the caller (Prisma uses it too)
    await this.writer.close();
  }
}
