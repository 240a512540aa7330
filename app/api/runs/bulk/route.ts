import { handler, json, parse, principalOf, readJson } from "@/lib/api/http";
import { BulkBody, bulkRuns } from "@/lib/api/bulk";
import { principalKeyOf } from "@/lib/api/who";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

/** Abort or retry runs by id or by a runs-list filter: { results: [{ id, ok, runId?, error? }] }; 422 with `total` past 1,000 runs. */
export const POST = handler(async (req: Request) => {
  const body = parse(BulkBody, await readJson(req));
  const out = await bulkRuns(await getRuntime(), body, principalKeyOf(principalOf(req), req.headers));
  return json(out.body, out.status);
});
