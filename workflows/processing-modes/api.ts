// processing-modes' app-level endpoint: GET /api/metrics/modes (its entry's `api`; the app serves it
// through the registry, app/api/[...name]/route.ts, and describes it in /api/openapi.json).
import { z } from "zod";
import { ok } from "../../lib/api/openapi/shared";
import { apiMethod, type ApiEndpoint } from "../../lib/machines/workflow-api";
import { modeMetrics } from "./mode-metrics";

const Query = z.object({ since: z.iso.datetime({ message: "since must be an ISO date-time, e.g. 2026-11-23T00:00:00Z" }).optional() }).strict();

/** metrics per mode: requests, latency, model answers used, cache hit rate, errors ({ modes }) */
export const modesMetricsApi: ApiEndpoint = {
  GET: apiMethod({
    operationId: "modeMetrics",
    tag: "System",
    summary: "Processing-modes metrics per mode",
    description: "Requests, latency (avg, p95), model answers used, cache hit rate and errors by category, per mode; served by the workflow that declares it.",
    query: Query,
    responses: { 200: ok(z.looseObject({ modes: z.array(z.looseObject({})) }), "per mode") },
    errors: { 404: "no workflow serves it" },
    handle: async ({ query }, { db }) => ({ modes: await modeMetrics(db, { since: query.since ? new Date(query.since) : undefined }) }),
  }),
};
