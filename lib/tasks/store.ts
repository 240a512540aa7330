// The Task table in plain SQL on either database (lib/db/sql.ts). Every change is ONE statement
// whose WHERE clause says what the row must still be (status, holder, attempt), so two callers
// racing for the same row cannot both win: on SQLite statements run one at a time under the
// connection's mutex; on PostgreSQL a claim picks its row with FOR UPDATE SKIP LOCKED.
//
// A claim hands out a lease token (random, shown once) and keeps only its SHA-256: heartbeat,
// complete and fail change the row only WHERE "leaseHash" is the hash of the token shown.
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { dialectOf, query, type Row, type SqlPorts } from "../db/sql";

export type TaskStatus = "queued" | "claimed" | "done" | "failed" | "cancelled";
export const SETTLED: readonly TaskStatus[] = ["done", "failed", "cancelled"];

export interface TaskError {
  message: string;
  category?: string;
  retryable: boolean;
}

export interface TaskRow {
  id: string;
  key: string;
  queue: string;
  runId: string;
  workflow: string;
  stage: string;
  effect: string;
  input: unknown;
  status: TaskStatus;
  worker: string | null;
  attempt: number;
  maxAttempts: number;
  backoffMs: number;
  leaseUntil: number | null;
  output: unknown;
  error: TaskError | null;
  createdAt: number;
  updatedAt: number;
  doneAt: number | null;
  consumedAt: number | null;
  /** SHA-256 (hex) of the current (or last) claim's lease token */
  leaseHash: string | null;
  /** who completed or failed it (the principal; with accounts off the claim's worker name) */
  settledBy: string | null;
}

export interface NewTask {
  key: string;
  queue: string;
  runId: string;
  workflow: string;
  stage: string;
  effect: string;
  input: unknown;
  maxAttempts: number;
  backoffMs: number;
}

/** A new lease token: 32 random bytes, base64url, with a prefix that says what it is. */
export const newLeaseToken = () => `lease_${randomBytes(32).toString("base64url")}`;
export const leaseHashOf = (token: string) => createHash("sha256").update(token).digest("hex");

/** Who calls heartbeat, complete or fail: the claim's lease token (hashed) and who to credit. */
export interface Lease {
  /** SHA-256 of the lease token the caller showed */
  hash: string;
  /** who is credited with the outcome */
  by: string;
}

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
const parsed = (v: unknown) => (v === null || v === undefined ? null : JSON.parse(String(v)));

function rowOf(r: Row): TaskRow {
  return {
    id: String(r.id),
    key: String(r.key),
    queue: String(r.queue),
    runId: String(r.runId),
    workflow: String(r.workflow),
    stage: String(r.stage),
    effect: String(r.effect),
    input: parsed(r.input),
    status: String(r.status) as TaskStatus,
    worker: r.worker === null || r.worker === undefined ? null : String(r.worker),
    attempt: Number(r.attempt),
    maxAttempts: Number(r.maxAttempts),
    backoffMs: Number(r.backoffMs),
    leaseUntil: num(r.leaseUntil),
    output: parsed(r.output),
    error: parsed(r.error),
    createdAt: Number(r.createdAt),
    updatedAt: Number(r.updatedAt),
    doneAt: num(r.doneAt),
    consumedAt: num(r.consumedAt),
    leaseHash: r.leaseHash === null || r.leaseHash === undefined ? null : String(r.leaseHash),
    settledBy: r.settledBy === null || r.settledBy === undefined ? null : String(r.settledBy),
  };
}

export class TaskStore {
  constructor(private ports: SqlPorts) {}

  private async one(sql: string, args: unknown[]): Promise<TaskRow | null> {
    const r = await query(this.ports, sql, args);
    return r.rows[0] ? rowOf(r.rows[0]) : null;
  }

  /** The task of invocation `key`, created queued unless it exists (then the existing one, whatever its status). */
  async create(t: NewTask, now: number): Promise<{ task: TaskRow; created: boolean }> {
    const r = await query(
      this.ports,
      `INSERT INTO "Task" ("id","key","queue","runId","workflow","stage","effect","input","status","attempt","maxAttempts","backoffMs","createdAt","updatedAt")
       VALUES (?,?,?,?,?,?,?,?,'queued',0,?,?,?,?) ON CONFLICT ("key") DO NOTHING`,
      [randomUUID(), t.key, t.queue, t.runId, t.workflow, t.stage, t.effect, JSON.stringify(t.input ?? null), t.maxAttempts, t.backoffMs, now, now],
    );
    const task = await this.byKey(t.key);
    if (!task) throw new Error(`task ${t.key} was neither created nor found`);
    return { task, created: r.changes > 0 };
  }

  get(id: string): Promise<TaskRow | null> {
    return this.one(`SELECT * FROM "Task" WHERE "id" = ?`, [id]);
  }

  byKey(key: string): Promise<TaskRow | null> {
    return this.one(`SELECT * FROM "Task" WHERE "key" = ?`, [key]);
  }

  /**
   * Take the oldest task of `queue` that is offered: queued (and past its retry wait), or claimed
   * with a lease that ran out and attempts left. One statement: each task goes to one claimant,
   * with the hash of its new lease token (the token of any earlier claim stops working).
   */
  claim(queue: string, worker: string, leaseHash: string, now: number, leaseMs: number): Promise<TaskRow | null> {
    const lock = dialectOf(this.ports) === "postgres" ? " FOR UPDATE SKIP LOCKED" : "";
    return this.one(
      `UPDATE "Task" SET "status" = 'claimed', "worker" = ?, "leaseHash" = ?, "attempt" = "attempt" + 1, "leaseUntil" = ?, "updatedAt" = ?
       WHERE "id" = (SELECT "id" FROM "Task" WHERE "queue" = ? AND (
           ("status" = 'queued' AND ("leaseUntil" IS NULL OR "leaseUntil" <= ?))
        OR ("status" = 'claimed' AND "leaseUntil" < ? AND "attempt" < "maxAttempts"))
         ORDER BY "createdAt", "id" LIMIT 1${lock})
       RETURNING *`,
      [worker, leaseHash, now + leaseMs, now, queue, now, now],
    );
  }

  /** Extend the lease of a task still claimed with this lease (null: it is not). */
  heartbeat(id: string, l: Lease, now: number, leaseMs: number): Promise<TaskRow | null> {
    return this.one(`UPDATE "Task" SET "leaseUntil" = ?, "updatedAt" = ? WHERE "id" = ? AND "status" = 'claimed' AND "leaseHash" = ? RETURNING *`, [now + leaseMs, now, id, l.hash]);
  }

  complete(id: string, output: unknown, l: Lease, now: number): Promise<TaskRow | null> {
    return this.one(
      `UPDATE "Task" SET "status" = 'done', "output" = ?, "settledBy" = ?, "leaseUntil" = NULL, "doneAt" = ?, "updatedAt" = ? WHERE "id" = ? AND "status" = 'claimed' AND "leaseHash" = ? RETURNING *`,
      [JSON.stringify(output ?? null), l.by, now, now, id, l.hash],
    );
  }

  /** Offer it again after `retryAt` (it keeps its attempt count; the next claim adds one). */
  requeue(id: string, error: TaskError, l: Lease, now: number, retryAt: number): Promise<TaskRow | null> {
    return this.one(
      `UPDATE "Task" SET "status" = 'queued', "error" = ?, "leaseUntil" = ?, "updatedAt" = ? WHERE "id" = ? AND "status" = 'claimed' AND "attempt" < "maxAttempts" AND "leaseHash" = ? RETURNING *`,
      [JSON.stringify(error), retryAt, now, id, l.hash],
    );
  }

  fail(id: string, error: TaskError, l: Lease, now: number): Promise<TaskRow | null> {
    return this.one(
      `UPDATE "Task" SET "status" = 'failed', "error" = ?, "settledBy" = ?, "leaseUntil" = NULL, "doneAt" = ?, "updatedAt" = ? WHERE "id" = ? AND "status" = 'claimed' AND "leaseHash" = ? RETURNING *`,
      [JSON.stringify(error), l.by, now, now, id, l.hash],
    );
  }

  /** The run left the stage: the task is withdrawn (a task already done or failed stays so). */
  cancel(id: string, now: number): Promise<TaskRow | null> {
    return this.one(`UPDATE "Task" SET "status" = 'cancelled', "leaseUntil" = NULL, "doneAt" = ?, "updatedAt" = ? WHERE "id" = ? AND "status" IN ('queued','claimed') RETURNING *`, [now, now, id]);
  }

  /** Tasks whose lease ran out on their last allowed attempt: failed (no worker finished them). */
  async expire(now: number): Promise<TaskRow[]> {
    const error: TaskError = { message: "the worker's lease ran out on the last attempt allowed", category: "NETWORK", retryable: false };
    const r = await query(
      this.ports,
      `UPDATE "Task" SET "status" = 'failed', "error" = ?, "leaseUntil" = NULL, "doneAt" = ?, "updatedAt" = ? WHERE "status" = 'claimed' AND "leaseUntil" < ? AND "attempt" >= "maxAttempts" RETURNING *`,
      [JSON.stringify(error), now, now, now],
    );
    return r.rows.map(rowOf);
  }

  /** Done or failed tasks settled before `before` whose run has not taken the outcome yet. */
  async unconsumed(before: number, limit = 50): Promise<TaskRow[]> {
    const r = await query(this.ports, `SELECT * FROM "Task" WHERE "status" IN ('done','failed') AND "consumedAt" IS NULL AND "doneAt" < ? ORDER BY "doneAt" LIMIT ?`, [before, limit]);
    return r.rows.map(rowOf);
  }

  async consumed(id: string, now: number): Promise<void> {
    await query(this.ports, `UPDATE "Task" SET "consumedAt" = ? WHERE "id" = ? AND "consumedAt" IS NULL`, [now, id]);
  }

  async list(q: { runId?: string; queue?: string; status?: TaskStatus; limit?: number }): Promise<TaskRow[]> {
    const where: string[] = [];
    const args: unknown[] = [];
    if (q.runId) where.push(`"runId" = ?`), args.push(q.runId);
    if (q.queue) where.push(`"queue" = ?`), args.push(q.queue);
    if (q.status) where.push(`"status" = ?`), args.push(q.status);
    const r = await query(this.ports, `SELECT * FROM "Task"${where.length ? ` WHERE ${where.join(" AND ")}` : ""} ORDER BY "createdAt", "id" LIMIT ?`, [...args, q.limit ?? 100]);
    return r.rows.map(rowOf);
  }
}
