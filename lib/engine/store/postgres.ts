// The run store on PostgreSQL (node-postgres): one transaction per group-committed batch, where
// one item's conflict (run version or review compare-and-set) leaves only that item unwritten (a
// savepoint for items that close reviews), and the same rows, columns and semantics as the
// SQLite store.
import pg from "pg";
import { PostgresCrashLedger, type CrashLedger } from "../poison";
import { runAggregates } from "./aggregates";
import { postgresArchive } from "./archive";
import { idempotencyKeys } from "./idempotency";
import type {
  ArtifactInfo,
  IdempotencyKeys,
  RunAggregates,
  RunArchive,
  CommitItem,
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
import { pgTransaction } from "../../db/sql";
import { commitItems, ts } from "./postgres-commit";
import { liveParts, OUTBOX_CLAIM, OUTBOX_FAILED } from "./rows";
import { imported, notImported } from "../imported";
import { BOOT_RUNS, group, parse, PENDING_TIMER, rowReaders, RUN_FROM, RUN_SELECT, type Row } from "./rows";

/** Announce commits on a LISTEN/NOTIFY channel; `origin` names this process (it skips its own notices). */
export interface StoreNotify {
  channel: string;
  origin: string;
}

/** What one NOTIFY carries: the committing process and, per run, [id, version, first seq, last seq]. */
export interface CommitNotice {
  o: string;
  runs: [string, number, number, number][];
}

/** TIMESTAMP(3) columns hold UTC (as Prisma writes them): read them as UTC epoch ms. */
const types = {
  getTypeParser: ((oid: number, format?: string) => (oid === 1114 ? (s: string) => Date.parse(`${s.replace(" ", "T")}Z`) : pg.types.getTypeParser(oid, format as never))) as typeof pg.types.getTypeParser,
};


/** PostgreSQL reads dates back as epoch ms already (the pool's type parser) */
const read = rowReaders(Number);

/** WHERE for run queries; `$n` placeholders numbered from `start`. */
function where(q: Omit<RunQuery, "limit" | "offset">, start = 1): { sql: string; args: unknown[] } {
  const parts: string[] = [];
  const args: unknown[] = [];
  const p = (v: unknown) => {
    args.push(v);
    return `$${start + args.length - 1}`;
  };
  if (q.status?.length) parts.push(`"status" IN (${q.status.map(p).join(",")})`);
  if (q.workflow) parts.push(`"workflow" = ${p(q.workflow)}`);
  if (q.waitingForHuman) parts.push(`"id" IN (SELECT v."runId" FROM "Review" v WHERE v."status" = 'pending')`);
  if (q.from !== undefined) parts.push(`"createdAt" >= ${p(ts(q.from))}`);
  if (q.to !== undefined) parts.push(`"createdAt" < ${p(ts(q.to))}`);
  if (q.text) {
    const pattern = p(`%${q.text.replace(/\0/g, "").replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    parts.push(`("input" ILIKE ${pattern} OR "output" ILIKE ${pattern} OR "id" ILIKE ${pattern})`);
  }
  if (q.waitingSince !== undefined) parts.push(`"waitingSince" <= ${p(ts(q.waitingSince))}`);
  if (q.retrying) parts.push(`"retries" > 0 AND "status" IN ('running','waiting')`);
  if (q.failedIn) {
    const lit = q.failedIn.replace(/[\\%_]/g, (c) => `\\${c}`);
    parts.push(`"status" = 'failed' AND ("failedStates" LIKE ${p(`%|${lit}|%`)} OR "failedStates" LIKE ${p(`%.${lit}|%`)})`);
  }
  if (q.scheduleId !== undefined) parts.push(`"scheduleId" = ${p(q.scheduleId)}`);
  if (q.idPrefix !== undefined) parts.push(`left("id", ${p(q.idPrefix.length)}) = ${p(q.idPrefix)}`);
  if (q.ids) parts.push(q.ids.length ? `"id" = ANY(${p(q.ids)}::text[])` : "FALSE");
  parts.push(...liveParts(q, p));
  if (q.replayOf !== undefined) parts.push(`"replayOf" = ${p(q.replayOf)}`);
  else if (!q.replays) parts.push(`"replayOf" IS NULL`);
  return { sql: parts.length ? `WHERE ${parts.join(" AND ")}` : "", args };
}

export class PostgresRunStore implements RunStore {
  readonly dialect = "postgres" as const;
  readonly pool: pg.Pool;

  private notify: StoreNotify | null;
  readonly archive: RunArchive;
  readonly idempotency: IdempotencyKeys;
  readonly aggregates: RunAggregates;

  /** `options`: e.g. "-c search_path=…" (tests use a schema of their own) */
  constructor(connectionString: string, opts: { options?: string; max?: number; notify?: StoreNotify } = {}) {
    this.pool = new pg.Pool({ connectionString, options: opts.options, max: opts.max ?? 10, types });
    this.notify = opts.notify ?? null;
    this.archive = postgresArchive(this.pool);
    this.idempotency = idempotencyKeys({ pg: this.pool }, "postgres");
    this.aggregates = runAggregates({ pg: this.pool }, "postgres");
  }

  /**
   * Items are written in run-id order, so two processes committing batches that touch the same
   * runs lock them in the same order; a deadlock or serialization failure that still happens
   * rolls the batch back and it is tried again (the transaction is all-or-nothing).
   */
  async commit(items: CommitItem[]): Promise<CommitOutcome[]> {
    if (items.length === 0) return [];
    const order = items.map((_, i) => i).sort((a, b) => (items[a].run.id < items[b].run.id ? -1 : items[a].run.id > items[b].run.id ? 1 : a - b));
    const sorted = order.map((i) => items[i]);
    for (let attempt = 0; ; attempt++) {
      try {
        const done = await this.commitOnce(sorted);
        const out: CommitOutcome[] = new Array(items.length);
        order.forEach((i, k) => (out[i] = done[k]));
        return out;
      } catch (e) {
        const code = (e as { code?: string }).code;
        if ((code !== "40P01" && code !== "40001") || attempt >= 4) throw e;
        await new Promise((r) => setTimeout(r, 5 + Math.random() * 20 * (attempt + 1)));
      }
    }
  }

  private commitOnce(items: CommitItem[]): Promise<CommitOutcome[]> {
    return pgTransaction(this.pool, "BEGIN", async (c) => {
      const out = await commitItems(c, items);
      if (this.notify) await this.announce(c, items, out);
      return out;
    });
  }

  /** NOTIFY the committed runs inside the transaction (delivered at COMMIT, never for a rollback). */
  private async announce(c: pg.PoolClient, items: CommitItem[], out: CommitOutcome[]) {
    const runs: CommitNotice["runs"] = [];
    items.forEach((item, i) => {
      if (out[i] !== "ok" || !item.transitions.length && !item.reviewsOpen.length && !item.reviewsClose.length) return;
      runs.push([item.run.id, item.run.version, item.transitions[0]?.seq ?? item.run.seq + 1, item.run.seq]);
    });
    // a NOTIFY payload holds under 8000 bytes: 60 runs of ~100 bytes per message
    for (let i = 0; i < runs.length; i += 60) {
      const notice: CommitNotice = { o: this.notify!.origin, runs: runs.slice(i, i + 60) };
      await c.query(`SELECT pg_notify($1, $2)`, [this.notify!.channel, JSON.stringify(notice)]);
    }
  }

  private async rows(sql: string, args: unknown[] = []): Promise<Row[]> {
    return (await this.pool.query(sql, args)).rows as Row[];
  }

  async getRun(id: string): Promise<RunRow | null> {
    const [r] = await this.rows(`SELECT ${RUN_SELECT} FROM ${RUN_FROM} WHERE r."id"=$1`, [id]);
    return r ? read.run(r) : null;
  }

  async runVersion(id: string): Promise<number | null> {
    const [r] = await this.rows(`SELECT "version" FROM "Run" WHERE "id"=$1`, [id]);
    return r ? Number(r.version) : null;
  }

  async listRuns(q: RunQuery): Promise<RunRow[]> {
    const w = where(q);
    const k = w.args.length;
    const page = `SELECT "id" FROM "Run" ${w.sql} ORDER BY "createdAt" DESC, "id" DESC LIMIT $${k + 1} OFFSET $${k + 2}`;
    return (await this.rows(`SELECT ${RUN_SELECT} FROM ${RUN_FROM} WHERE r."id" IN (${page}) ORDER BY r."createdAt" DESC, r."id" DESC`, [...w.args, q.limit ?? 50, q.offset ?? 0])).map(read.run);
  }

  async countRuns(q: Omit<RunQuery, "limit" | "offset">): Promise<number> {
    const w = where(q);
    return Number((await this.rows(`SELECT COUNT(*) AS n FROM "Run" ${w.sql}`, w.args))[0].n);
  }

  async countByStatus(workflow?: string): Promise<StatusCounts> {
    const out: StatusCounts = { running: 0, waiting: 0, completed: 0, failed: 0, aborted: 0, imported: 0, replay: 0 };
    // replay and evaluation runs (lib/change) and imported runs recorded as running or waiting (lib/engine/imported.ts) are counted apart
    const status = `CASE WHEN "replayOf" IS NOT NULL THEN 'replay' WHEN "status" IN ('running','waiting') AND ${imported(`"id"`)} THEN 'imported' ELSE "status" END`;
    const rows = await this.rows(`SELECT ${status} AS "status", COUNT(*) AS n FROM "Run" ${workflow ? `WHERE "workflow" = $1` : ""} GROUP BY 1`, workflow ? [workflow] : []);
    for (const r of rows) if ((r.status as string) in out) out[r.status as keyof StatusCounts] = Number(r.n);
    return out;
  }

  async transitions(runId: string, afterSeq = 0, limit = 10_000): Promise<TransitionRow[]> {
    return (await this.rows(`SELECT * FROM "Transition" WHERE "runId"=$1 AND "seq">$2 ORDER BY "seq" LIMIT $3`, [runId, afterSeq, limit])).map(read.transition);
  }

  async transitionsLeaving(workflow: string, state: string, limit: number, since = 0): Promise<TransitionRow[]> {
    const rows = await this.rows(`SELECT t.* FROM "Transition" t JOIN "Run" r ON r."id"=t."runId" WHERE r."workflow"=$1 AND r."replayOf" IS NULL AND t."from" LIKE $2 AND t."at" > $3 ORDER BY t."at" DESC LIMIT $4`, [workflow, `%${JSON.stringify(state)}%`, ts(since), limit]);
    return rows.map(read.transition).filter((t) => t.from.includes(state) && !t.to.includes(state));
  }

  async getReview(id: string): Promise<ReviewRow | null> {
    const [r] = await this.rows(`SELECT * FROM "Review" WHERE "id"=$1`, [id]);
    return r ? read.review(r) : null;
  }

  async listReviews(q: ReviewQuery): Promise<ReviewRow[]> {
    const parts: string[] = [];
    const args: unknown[] = [];
    if (q.status) parts.push(`"status" = $${args.push(q.status)}`);
    if (q.runId) parts.push(`"runId" = $${args.push(q.runId)}`);
    if (q.runIds) parts.push(`"runId" = ANY($${args.push(q.runIds)})`);
    // routing: group names are stored as a JSON array; '"name"' found in it is membership
    const anyGroup = (gs: string[]) => (gs.length ? gs.map((g) => `strpos("assignedTo", $${args.push(JSON.stringify(g))}) > 0`).join(" OR ") : "false");
    if (q.assigned) parts.push(`(${anyGroup(q.assigned)})`);
    if (q.decidableBy) parts.push(`("status" <> 'pending' OR "assignedTo" IS NULL OR ${anyGroup(q.decidableBy)})`);
    if (q.dueBy !== undefined) parts.push(`"dueAt" <= $${args.push(new Date(q.dueBy).toISOString())}`);
    // an imported run's pending review is no one's to decide here (lib/engine/imported.ts)
    if (q.status === "pending") parts.push(notImported(`"runId"`));
    const rows = await this.rows(`SELECT * FROM "Review" ${parts.length ? `WHERE ${parts.join(" AND ")}` : ""} ORDER BY "createdAt" ASC LIMIT $${args.length + 1}`, [...args, q.limit ?? 200]);
    return rows.map(read.review);
  }

  async timers(runId: string): Promise<TimerRow[]> {
    return (await this.rows(`SELECT * FROM "Timer" WHERE "runId"=$1 ORDER BY "dueAt"`, [runId])).map(read.timer);
  }

  async outcomes(runId: string): Promise<OutcomeRow[]> {
    return (await this.rows(`SELECT * FROM "EffectOutcome" WHERE "runId"=$1 ORDER BY "seq", "key"`, [runId])).map(read.outcome);
  }

  async snapshotAt(runId: string, seq: number): Promise<SnapshotRow | null> {
    const [r] = await this.rows(`SELECT * FROM "Snapshot" WHERE "runId"=$1 AND "seq">=$2 AND "first"<=$2 ORDER BY "seq" LIMIT 1`, [runId, seq]);
    if (!r) return null;
    const timers = (parse(r.timers) ?? []) as Omit<TimerRow, "runId">[];
    return { runId, seq: Number(r.seq), first: Number(r.first), snapshot: parse(r.snapshot), context: parse(r.context), timers: timers.map((t) => ({ ...t, runId })), at: Number(r.at) };
  }

  async artifacts(runId: string): Promise<ArtifactInfo[]> {
    return (await this.rows(`SELECT "name","size","updatedAt" FROM "Artifact" WHERE "runId"=$1 ORDER BY "name"`, [runId])).map((r) => ({ name: r.name as string, size: Number(r.size), updatedAt: Number(r.updatedAt) }));
  }

  async artifact(runId: string, name: string): Promise<string | null> {
    const [r] = await this.rows(`SELECT "content" FROM "Artifact" WHERE "runId"=$1 AND "name"=$2`, [runId, name]);
    return r ? (r.content as string) : null;
  }

  async resumable(): Promise<ResumableRun[]> {
    const runs = (await this.rows(`SELECT ${RUN_SELECT} FROM ${RUN_FROM} WHERE r."status" IN ('running','waiting')`)).map(read.run);
    const timers = (await this.rows(`SELECT t.* FROM "Timer" t JOIN "Run" r ON r."id" = t."runId" WHERE r."status" IN ('running','waiting')`)).map(read.timer);
    const reviews = (await this.rows(`SELECT * FROM "Review" WHERE "status" = 'pending'`)).map(read.review);
    return group(runs, timers, reviews);
  }

  async activeRuns(): Promise<ResumableRun[]> {
    const live = BOOT_RUNS;
    const runs = (await this.rows(`SELECT ${RUN_SELECT} FROM ${RUN_FROM} WHERE ${live}`)).map(read.run);
    const timers = (await this.rows(`SELECT t.* FROM "Run" r JOIN "Timer" t ON t."runId" = r."id" WHERE ${live}`)).map(read.timer);
    const reviews = (await this.rows(`SELECT v.* FROM "Run" r JOIN "Review" v ON v."runId" = r."id" WHERE ${live} AND v."status" = 'pending'`)).map(read.review);
    return group(runs, timers, reviews);
  }

  async nextTimer(after: number | null): Promise<number | null> {
    const [r] = await this.rows(`SELECT t."dueAt" FROM "Timer" t JOIN "Run" r ON r."id" = t."runId" WHERE ${after === null ? "true" : `t."dueAt" > $1`} AND ${PENDING_TIMER} ORDER BY t."dueAt" LIMIT 1`, after === null ? [] : [ts(after)]);
    return r ? Number(r.dueAt) : null;
  }

  async dueTimers(by: number, limit: number): Promise<TimerRow[]> {
    return (await this.rows(`SELECT t.* FROM "Timer" t JOIN "Run" r ON r."id" = t."runId" WHERE t."dueAt" <= $1 AND ${PENDING_TIMER} ORDER BY t."dueAt" LIMIT $2`, [ts(by), limit])).map(read.timer);
  }

  async outbox(q: { limit: number; maxAttempts: number; dueBy?: number }): Promise<OutboxRow[]> {
    const due = q.dueBy === undefined ? "" : ` AND "dueAt" <= $3`;
    const rows = await this.rows(`SELECT * FROM "ActionOutbox" WHERE "attempts" < $1${due} ORDER BY "createdAt", "key" LIMIT $2`, [q.maxAttempts, q.limit, ...(q.dueBy === undefined ? [] : [ts(q.dueBy)])]);
    return rows.map(read.outbox);
  }

  async claimOutbox(key: string, attempts: number, until: number, now?: number): Promise<boolean> {
    const sql = OUTBOX_CLAIM((i) => `$${i}`) + (now === undefined ? "" : ` AND "dueAt" <= $4`);
    const r = await this.pool.query(sql, [ts(until), key, attempts, ...(now === undefined ? [] : [ts(now)])]);
    return (r.rowCount ?? 0) > 0;
  }

  async outboxDone(keys: string[]): Promise<void> {
    if (keys.length) await this.pool.query(`DELETE FROM "ActionOutbox" WHERE "key" = ANY($1::text[])`, [keys]);
  }

  async outboxFailed(key: string, attempts: number, error: string, dueAt: number): Promise<void> {
    await this.pool.query(OUTBOX_FAILED((i) => `$${i}`), [error, ts(dueAt), attempts, key]);
  }

  crashLedger(): CrashLedger {
    return new PostgresCrashLedger(this.pool);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
