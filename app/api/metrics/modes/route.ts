import { z } from "zod";
import { handler, json, parse, query } from "@/lib/api/http";
import { modeMetrics } from "@/workflows/processing-modes/mode-metrics";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

const Query = z.object({ since: z.iso.datetime({ message: "since must be an ISO date-time, e.g. 2026-11-23T00:00:00Z" }).optional() }).strict();

/** processing-modes metrics per mode: requests, latency, LLM calls, cache hit rate, errors. */
export const GET = handler(async (req: Request) => {
  const q = parse(Query, query(req));
  const rt = await getRuntime();
  return json({ modes: await modeMetrics(rt.db, { since: q.since ? new Date(q.since) : undefined }) });
});
