// The IdempotencyKey row a commit writes (CommitItem.idempotency), the same statement on both
// stores. No ON CONFLICT: a key that is already there is a constraint violation, which the
// stores treat as a conflict of that item (its whole commit is undone, the batch's others stand).
import type { IdempotencyRow } from "./types";

/** how long a key is remembered (a repeat after that is a new request; lib/api/idempotency.ts); retention prunes older keys */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export const IDEMPOTENCY_COLS = `"scope","key","fingerprint","runId","status","fromSeq","toSeq","createdAt"`;

/** PostgreSQL claims keys with ON CONFLICT DO NOTHING and reads which it won. */
export const insertIdempotencySql = (source: string, onConflict = "") => `INSERT INTO "IdempotencyKey" (${IDEMPOTENCY_COLS}) ${source}${onConflict}`;

/** A key's column values for the insert (IDEMPOTENCY_COLS order). */
export const idempotencyValues = (k: IdempotencyRow, date: (ms: number) => unknown): unknown[] => [k.scope, k.key, k.fingerprint, k.runId, k.status, k.fromSeq, k.toSeq, date(k.createdAt)];
