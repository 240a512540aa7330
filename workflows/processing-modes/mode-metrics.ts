// RecordMetrics, aggregated: per processing mode, the requests, latency (mean and p95), model answers used
// per request, the cache hit rate of System 1 modes, and errors by category.
import type { Db } from "../../lib/db/client";
import { LEVEL, MODES, type Mode } from "./types";

export interface ModeSummary {
  mode: Mode;
  level: string;
  requests: number;
  avgLatencyMs: number;
  p95LatencyMs: number;
  avgLlmCalls: number;
  /** hits / requests, System 1 modes only (null for modes without a cache) */
  cacheHitRate: number | null;
  errors: number;
  errorsByCategory: Record<string, number>;
}

export async function modeMetrics(db: Db, opts: { since?: Date } = {}): Promise<ModeSummary[]> {
  const rows = await db.modeRequest.findMany({ where: opts.since ? { createdAt: { gte: opts.since } } : {}, orderBy: { createdAt: "asc" } });
  return MODES.map((mode) => {
    const mine = rows.filter((r) => r.mode === mode);
    const latencies = mine.map((r) => r.latencyMs).sort((a, b) => a - b);
    const errorsByCategory: Record<string, number> = {};
    for (const r of mine) if (!r.ok) errorsByCategory[r.errorCategory ?? "UNKNOWN"] = (errorsByCategory[r.errorCategory ?? "UNKNOWN"] ?? 0) + 1;
    const n = mine.length;
    return {
      mode,
      level: LEVEL[mode],
      requests: n,
      avgLatencyMs: n ? Math.round(latencies.reduce((a, b) => a + b, 0) / n) : 0,
      p95LatencyMs: n ? latencies[Math.min(n - 1, Math.ceil(n * 0.95) - 1)]! : 0,
      avgLlmCalls: n ? Math.round((mine.reduce((a, r) => a + r.llmCalls, 0) / n) * 100) / 100 : 0,
      cacheHitRate: LEVEL[mode] === "System 1" ? (n ? Math.round((mine.filter((r) => r.cacheHit).length / n) * 1000) / 1000 : 0) : null,
      errors: mine.filter((r) => !r.ok).length,
      errorsByCategory,
    };
  });
}
