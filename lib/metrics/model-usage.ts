// Model usage (calls, tokens, latency, errors) per run and per state, from the ModelCall records.
import type { Db } from "../db/client";
import type { RunStore } from "../engine/store/types";
import { OFFLINE_ADAPTER } from "../llm/offline";

export interface UsageRow {
  state: string;
  calls: number;
  promptTokens: number;
  completionTokens: number;
  avgLatencyMs: number;
  errors: number;
}

/** SQLite's ORDER BY on text: NULL first, then by UTF-8 bytes (the same order on PostgreSQL). */
function byState(a: { state: string | null }, b: { state: string | null }): number {
  if (a.state === null || b.state === null) return (a.state === null ? 0 : 1) - (b.state === null ? 0 : 1);
  return Buffer.compare(Buffer.from(a.state), Buffer.from(b.state));
}

/** A workflow's model calls per state (replays left out), from the run store's aggregate. */
export async function workflowUsage(store: Pick<RunStore, "aggregates">, workflow: string): Promise<UsageRow[]> {
  const rows = await store.aggregates.usageByState(workflow);
  return rows.sort(byState).map((r) => ({ ...r, state: r.state ?? "—", avgLatencyMs: Math.round(r.avgLatencyMs) }));
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
