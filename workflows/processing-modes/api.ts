// processing-modes' app-level endpoint: GET /api/metrics/modes (app/api/metrics/modes/route.ts
// finds it by name through the registry's apiOf("metrics/modes")).
import { z } from "zod";
import { parse, query } from "../../lib/api/http";
import type { ApiHandler } from "../../lib/machines/built-in";
import { modeMetrics } from "./mode-metrics";

const Query = z.object({ since: z.iso.datetime({ message: "since must be an ISO date-time, e.g. 2026-11-23T00:00:00Z" }).optional() }).strict();

/** metrics per mode: requests, latency, model answers used, cache hit rate, errors ({ modes }) */
export const modesMetricsApi: ApiHandler = Object.assign(
  async (req: Request, { db }: { db: Parameters<ApiHandler>[1]["db"] }) => {
    const q = parse(Query, query(req));
    return { modes: await modeMetrics(db, { since: q.since ? new Date(q.since) : undefined }) };
  },
  { query: Query },
);
