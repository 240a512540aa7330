import { handler, json, parse, principalOf, readJson } from "@/lib/api/http";
import { idempotent, keyedRequest, replayHeaders } from "@/lib/api/idempotency";
import { rebuiltStep, sendEvent } from "@/lib/api/runs";
import { EventBody, RunIdParam } from "@/lib/api/schemas";
import { getRuntime } from "@/lib/runtime";

export const POST = handler(async (req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parse(RunIdParam, await ctx.params);
  const body = await readJson(req);
  parse(EventBody, body);
  // the body as sent, not EventBody's copy: that copy drops a "__proto__" key, which the
  // workflow's strict event schema must see (and refuse) like any other unknown field
  const who = principalOf(req);
  const rt = await getRuntime();
  const a = await idempotent(rt, keyedRequest(req, body, who), 200, (claim) => sendEvent(rt, id, body, who, claim), (row) => rebuiltStep(rt, row));
  return json(a.body, a.status, replayHeaders(a));
});
