import { handler, parse } from "@/lib/api/http";
import { deleteRule, RuleIdParam } from "@/lib/api/alerts";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

/** Deletes the rule (its open alert resolves): 204, or 404 for an unknown id. */
export const DELETE = handler(async (_req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parse(RuleIdParam, await ctx.params);
  await deleteRule(await getRuntime(), id);
  return new Response(null, { status: 204 });
});
