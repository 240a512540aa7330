import { handler, parse } from "@/lib/api/http";
import { getRun } from "@/lib/api/runs";
import { RunIdParam } from "@/lib/api/schemas";
import { sseResponse } from "@/lib/api/sse";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

export const GET = handler(async (req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parse(RunIdParam, await ctx.params);
  const rt = await getRuntime();
  const run = await getRun(rt, id); // 404 before the stream opens
  return sseResponse(rt, id, req.signal, async () => ({ run }));
});
