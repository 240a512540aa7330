import { handler, json } from "@/lib/api/http";
import { authEnabled } from "@/lib/auth/roles";
import type { SqliteRunStore } from "@/lib/engine/store/sqlite";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

function workerSummary(s: { effects: number; timers: number; chores: number; stale: number; failed: number; startLatencyMs: number[] }) {
  const sorted = [...s.startLatencyMs].sort((a, b) => a - b);
  const at = (p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : null);
  return { effects: s.effects, timers: s.timers, chores: s.chores, stale: s.stale, failed: s.failed, queueLatencyMs: { p50: at(0.5), p95: at(0.95) } };
}

// SQLite: where the run store's batches are written, and how busy that thread has been
function writerSummary(store: SqliteRunStore) {
  const u = store.writerUtilization();
  return { mode: store.writerMode, busy: u && u.activeMs + u.idleMs > 0 ? Math.round((u.activeMs / (u.activeMs + u.idleMs)) * 1000) / 1000 : null };
}

/**
 * Anyone may ask whether the server is up. With accounts on, a caller without a session or token
 * gets `{ status }` only; run counts, the model, the Context Manager and the database are for
 * signed-in people (any role).
 */
export const GET = handler(async (req: Request) => {
  const rt = await getRuntime();
  const started = performance.now();
  const counts = await rt.store.countByStatus(); // also: the database answers
  if (authEnabled() && !(await rt.accounts.fromRequest(req.headers))) return json({ status: "ok" });
  const services = await rt.services.health();
  return json({
    status: "ok",
    database: { provider: rt.provider, latencyMs: Math.round((performance.now() - started) * 100) / 100, ...(rt.store.dialect === "sqlite" ? { writer: writerSummary(rt.store as SqliteRunStore) } : {}) },
    // liveRuns: runs held in memory; evictedRuns: idle waiting runs dropped from it since start (lib/engine/evict.ts)
    engine: { liveRuns: rt.engine.size, evictedRuns: rt.engine.memory.evicted, committed: rt.engine.committer.stats },
    // PostgreSQL cluster mode: this process's role and, when it runs jobs, what it did
    cluster: rt.cluster ? { role: rt.role, process: rt.cluster.origin.slice(0, 8), worker: rt.cluster.worker ? workerSummary(rt.cluster.worker.stats) : null } : null,
    runs: counts,
    // what the workflows' own services report (the Context Manager: contextManager)
    ...services,
    model: rt.model.name,
  });
});
