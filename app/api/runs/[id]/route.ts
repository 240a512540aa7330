import { handler, json, parse } from "@/lib/api/http";
import { getRun } from "@/lib/api/runs";
import { RunIdParam } from "@/lib/api/schemas";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

export const GET = handler(async (_req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parse(RunIdParam, await ctx.params);
  return json(await getRun(await getRuntime(), id));
});
