import { handler, json, parse, principalOf, readJson } from "@/lib/api/http";
import { idempotent, keyedRequest, replayHeaders } from "@/lib/api/idempotency";
import { decideReview, rebuiltDecision } from "@/lib/api/reviews";
import { DecisionBody, RunIdParam } from "@/lib/api/schemas";
import { getRuntime } from "@/lib/runtime";

export const POST = handler(async (req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parse(RunIdParam, await ctx.params);
  const raw = await readJson(req);
  const who = principalOf(req);
  const keyed = keyedRequest(req, raw, who);
  const body = parse(DecisionBody, raw);
  const rt = await getRuntime();
  const a = await idempotent(rt, keyed, 200, (claim) => decideReview(rt, id, body, who, claim), (row) => rebuiltDecision(rt, id, row));
  return json(a.body, a.status, replayHeaders(a));
});
