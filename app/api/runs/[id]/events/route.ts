import { handler, json, parse, readJson } from "@/lib/api/http";
import { sendEvent } from "@/lib/api/runs";
import { EventBody, RunIdParam } from "@/lib/api/schemas";
import { getRuntime } from "@/lib/runtime";

export const POST = handler(async (req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parse(RunIdParam, await ctx.params);
  const event = parse(EventBody, await readJson(req));
  return json(await sendEvent(await getRuntime(), id, event));
});
