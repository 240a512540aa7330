import { handler, json, parse, query } from "@/lib/api/http";
import { runTransitions } from "@/lib/api/runs";
import { RunIdParam, TransitionQuery } from "@/lib/api/schemas";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

export const GET = handler(async (req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parse(RunIdParam, await ctx.params);
  const q = parse(TransitionQuery, query(req));
  const withPayload = q.payload === "1" || q.payload === "true";
  return json(await runTransitions(await getRuntime(), id, q.after ?? 0, q.limit ?? 10_000, withPayload));
});
