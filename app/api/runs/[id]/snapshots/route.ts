import { handler, json, parse, query } from "@/lib/api/http";
import { runSnapshot } from "@/lib/api/runs";
import { RunIdParam, SnapshotQuery } from "@/lib/api/schemas";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

export const GET = handler(async (req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parse(RunIdParam, await ctx.params);
  const { seq } = parse(SnapshotQuery, query(req));
  return json(await runSnapshot(await getRuntime(), id, seq));
});
