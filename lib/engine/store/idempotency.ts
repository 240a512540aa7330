// The IdempotencyKey row a commit writes (CommitItem.idempotency), the same statement on both
// stores. No ON CONFLICT: a key that is already there is a constraint violation, which the
// stores treat as a conflict of that item (its whole commit is undone, the batch's others stand).
// And the rest of a key's life (RunStore.idempotency): read, its answer stored, forgotten.
import { dbDate, msOf, query, type Dialect, type SqlPorts } from "../../db/sql";
import type { IdempotencyKeys, IdempotencyRow } from "./types";

/** how long a key is remembered (a repeat after that is a new request; lib/api/idempotency.ts); retention prunes older keys */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export const IDEMPOTENCY_COLS = `"scope","key","fingerprint","runId","status","fromSeq","toSeq","createdAt"`;

/** PostgreSQL claims keys with ON CONFLICT DO NOTHING and reads which it won. */
export const insertIdempotencySql = (source: string, onConflict = "") => `INSERT INTO "IdempotencyKey" (${IDEMPOTENCY_COLS}) ${source}${onConflict}`;

/** A key's column values for the insert (IDEMPOTENCY_COLS order). */
export const idempotencyValues = (k: IdempotencyRow, date: (ms: number) => unknown): unknown[] => [k.scope, k.key, k.fingerprint, k.runId, k.status, k.fromSeq, k.toSeq, date(k.createdAt)];

const SELECT = `SELECT ${IDEMPOTENCY_COLS},"response" FROM "IdempotencyKey" WHERE "scope"=? AND "key"=?`;

/** The key statements on either database (one statement each, on the store's connection). */
export function idempotencyKeys(ports: SqlPorts, d: Dialect): IdempotencyKeys {
  const date = (ms: number) => dbDate(d, ms);
  return {
    async get(scope, key) {
      const r = (await query(ports, SELECT, [scope, key])).rows[0];
      if (!r) return null;
      return {
        scope: String(r.scope),
        key: String(r.key),
        fingerprint: String(r.fingerprint),
        runId: String(r.runId),
        status: Number(r.status),
        fromSeq: Number(r.fromSeq),
        toSeq: Number(r.toSeq),
        createdAt: msOf(r.createdAt),
        response: (r.response as string | null) ?? null,
      };
    },
    async answered(scope, key, response) {
      await query(ports, `UPDATE "IdempotencyKey" SET "response"=? WHERE "scope"=? AND "key"=? AND "response" IS NULL`, [response, scope, key]);
    },
    async forget(scope, key, before) {
      await query(ports, `DELETE FROM "IdempotencyKey" WHERE "scope"=? AND "key"=? AND "createdAt"<=?`, [scope, key, date(before)]);
    },
    expire: async (before) => (await query(ports, `DELETE FROM "IdempotencyKey" WHERE "createdAt" <= ?`, [date(before)])).changes,
  };
}
