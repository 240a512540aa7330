import { handler, json, parse, principalOf, readJson } from "@/lib/api/http";
import { decideReview } from "@/lib/api/reviews";
import { DecisionBody, RunIdParam } from "@/lib/api/schemas";
import { getRuntime } from "@/lib/runtime";

export const POST = handler(async (req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parse(RunIdParam, await ctx.params);
  const body = parse(DecisionBody, await readJson(req));
  return json(await decideReview(await getRuntime(), id, body, principalOf(req)));
});
