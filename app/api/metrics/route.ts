import { handler, parse, query } from "@/lib/api/http";
import { NoQuery } from "@/lib/api/schemas";
import { PROMETHEUS_CONTENT_TYPE, prometheusText } from "@/lib/metrics/prometheus";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

/** Prometheus text (exposition format 0.0.4): runs by status, transitions, state dwell, review wait, model usage. */
export const GET = handler(async (req: Request) => {
  parse(NoQuery, query(req));
  const rt = await getRuntime();
  return new Response(await prometheusText(rt), { status: 200, headers: { "content-type": PROMETHEUS_CONTENT_TYPE, "cache-control": "no-store" } });
});
