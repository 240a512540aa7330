import { handler, json, parse, query } from "@/lib/api/http";
import { AlertListQuery, listAlerts } from "@/lib/api/alerts";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

/** `?status=open|resolved&workflow=&limit=` → `{ alerts: [{ id, ruleId, source, workflow, state, metric, value, threshold, message, status, openedAt, resolvedAt }] }`, newest first. */
export const GET = handler(async (req: Request) => {
  const q = parse(AlertListQuery, query(req));
  return json(await listAlerts(await getRuntime(), q));
});
