// The System 1 ResponseCache: SHA-256 of "<mode>:<query>", a TTL, kept in the database so that
// it survives restarts and is shared by every process.
import { createHash } from "node:crypto";
import type { Db } from "../../../lib/db/client";
import type { CacheCheck, Mode, ModeResult } from "../types";

export function cacheKey(mode: Mode, query: string): string {
  return createHash("sha256").update(`${mode}:${query}`).digest("hex");
}

/** System 2 modes bypass the cache; System 1 modes use it unless system1.enable_cache is off. */
export async function cacheGet(db: Db, mode: Mode, query: string, opts: { enabled: boolean; system1: boolean }, now: number): Promise<CacheCheck> {
  const key = cacheKey(mode, query);
  if (!opts.system1) return { key, status: "bypassed" };
  if (!opts.enabled) return { key, status: "disabled" };
  const row = await db.responseCache.findUnique({ where: { key } });
  if (!row || row.expiresAt.getTime() <= now) return { key, status: "miss" };
  await db.responseCache.update({ where: { key }, data: { hits: { increment: 1 } } });
  return { key, status: "hit", result: JSON.parse(row.response) as ModeResult, storedAt: row.createdAt.getTime(), expiresAt: row.expiresAt.getTime() };
}

export async function cachePut(db: Db, key: string, mode: Mode, query: string, result: ModeResult, ttlMs: number, now: number): Promise<{ expiresAt: number }> {
  const expiresAt = now + ttlMs;
  const data = { mode, query, response: JSON.stringify({ ...result, cached: false }), hits: 0, createdAt: new Date(now), expiresAt: new Date(expiresAt) };
  await db.responseCache.upsert({ where: { key }, create: { key, ...data }, update: data });
  // expired entries go when new ones come in: the table does not grow without bound
  await db.responseCache.deleteMany({ where: { expiresAt: { lte: new Date(now) } } });
  return { expiresAt };
}
