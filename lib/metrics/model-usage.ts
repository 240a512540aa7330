// Model usage (calls, tokens, latency, errors) per run and per state, from the ModelCall records.
import type { Db } from "../db/client";
import { OFFLINE_ADAPTER } from "../llm/offline";

export interface UsageRow {
  state: string;
  calls: number;
  promptTokens: number;
  completionTokens: number;
  avgLatencyMs: number;
  errors: number;
}

/** An aggregate as a number: SQLite gives numbers (or bigints); PostgreSQL's Prisma client gives
 *  BigInt for COUNT and SUM and a Decimal for AVG. */
const n = (v: unknown) => (typeof v === "bigint" ? Number(v) : typeof v === "object" && v !== null ? Number(String(v)) : Number(v ?? 0));

/** SQLite's ORDER BY on text: NULL first, then by UTF-8 bytes (PostgreSQL sorts NULL last, by its collation). */
function byState(a: Record<string, unknown>, b: Record<string, unknown>): number {
  if (a.state === null || b.state === null) return (a.state === null ? 0 : 1) - (b.state === null ? 0 : 1);
  return Buffer.compare(Buffer.from(String(a.state)), Buffer.from(String(b.state)));
}

export async function workflowUsage(db: Db, workflow: string): Promise<UsageRow[]> {
  const rows = await db.$queryRaw<Record<string, unknown>[]>`
    SELECT m."state" AS state, COUNT(*) AS calls, SUM(m."promptTokens") AS p, SUM(m."completionTokens") AS c,
           AVG(m."latencyMs") AS lat, SUM(CASE WHEN m."ok" THEN 0 ELSE 1 END) AS errors
    FROM "ModelCall" m JOIN "Run" r ON r."id" = m."runId"
    WHERE r."workflow" = ${workflow} AND COALESCE(r."replayOf", '') = ''
    GROUP BY m."state"`;
  return rows.sort(byState).map((r) => ({ state: String(r.state ?? "—"), calls: n(r.calls), promptTokens: n(r.p), completionTokens: n(r.c), avgLatencyMs: Math.round(n(r.lat)), errors: n(r.errors) }));
}

export async function runUsage(db: Db, runId: string) {
  const calls = await db.modelCall.findMany({ where: { runId }, orderBy: { createdAt: "asc" }, take: 1_000 });
  const byState = new Map<string, UsageRow>();
  for (const c of calls) {
    const key = c.state ?? "—";
    const row = byState.get(key) ?? { state: key, calls: 0, promptTokens: 0, completionTokens: 0, avgLatencyMs: 0, errors: 0 };
    row.avgLatencyMs = Math.round((row.avgLatencyMs * row.calls + c.latencyMs) / (row.calls + 1));
    row.calls++;
    row.promptTokens += c.promptTokens;
    row.completionTokens += c.completionTokens;
    if (!c.ok) row.errors++;
    byState.set(key, row);
  }
  // the offline engine's steps are recorded too (what ran where), but they are not model calls
  const modelCalls = calls.filter((c) => c.adapter !== OFFLINE_ADAPTER);
  return {
    total: {
      calls: modelCalls.length,
      offline: calls.length - modelCalls.length,
      promptTokens: calls.reduce((s, c) => s + c.promptTokens, 0),
      completionTokens: calls.reduce((s, c) => s + c.completionTokens, 0),
      latencyMs: calls.reduce((s, c) => s + c.latencyMs, 0),
      estimated: calls.some((c) => c.estimated),
    },
    byState: [...byState.values()],
    calls: calls.map((c) => ({
      id: c.id,
      state: c.state,
      purpose: c.purpose,
      adapter: c.adapter,
      offline: c.adapter === OFFLINE_ADAPTER,
      promptTokens: c.promptTokens,
      completionTokens: c.completionTokens,
      estimated: c.estimated,
      latencyMs: c.latencyMs,
      attempts: c.attempts,
      ok: c.ok,
      errorCategory: c.errorCategory,
      error: c.error,
      at: c.createdAt.toISOString(),
    })),
  };
}
