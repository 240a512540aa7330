import { handler, json, parse, principalOf, readJson } from "@/lib/api/http";
import { sendEvent } from "@/lib/api/runs";
import { EventBody, RunIdParam } from "@/lib/api/schemas";
import { getRuntime } from "@/lib/runtime";

export const POST = handler(async (req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parse(RunIdParam, await ctx.params);
  const body = await readJson(req);
  parse(EventBody, body);
  // the body as sent, not EventBody's copy: that copy drops a "__proto__" key, which the
  // workflow's strict event schema must see (and refuse) like any other unknown field
  return json(await sendEvent(await getRuntime(), id, body, principalOf(req)));
});
