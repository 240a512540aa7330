import { handler, json } from "@/lib/api/http";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

export const GET = handler(async () => {
  const rt = await getRuntime();
  const started = performance.now();
  const counts = await rt.store.countByStatus();
  const cm = await rt.cm.status();
  return json({
    status: "ok",
    database: { provider: rt.provider, latencyMs: Math.round((performance.now() - started) * 100) / 100 },
    engine: { liveRuns: rt.engine.size, committed: rt.engine.committer.stats },
    runs: counts,
    contextManager: cm,
    model: rt.model.name,
  });
});
