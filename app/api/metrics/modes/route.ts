import { HttpError, handler, json } from "@/lib/api/http";
import { apiOf } from "@/lib/machines/registry";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

/** per-mode metrics (requests, latency, model answers used, cache hit rate, errors): served by the workflow whose entry declares api "metrics/modes" */
export const GET = handler(async (req: Request) => {
  const api = apiOf("metrics/modes");
  if (!api) throw new HttpError("no workflow serves /api/metrics/modes", 404, "not_found");
  const rt = await getRuntime();
  return json(await api.handler(req, { db: rt.db }));
});
