import { handler, json, parse } from "@/lib/api/http";
import { getReview } from "@/lib/api/reviews";
import { RunIdParam } from "@/lib/api/schemas";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

/** One review: its prompt and payload, the decisions it allows, each decision's body as JSON Schema, approvals so far and needed. */
export const GET = handler(async (_req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parse(RunIdParam, await ctx.params);
  return json(await getReview(await getRuntime(), id));
});
