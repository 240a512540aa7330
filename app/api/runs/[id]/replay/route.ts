import { handler, json, parse, readJson } from "@/lib/api/http";
import { RunIdParam } from "@/lib/api/schemas";
import { ReplayBody, replayRun } from "@/lib/change/replay";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

/** Replay a run without side effects: 201 { run } (replayOf, workflowVersion); 404 unknown run or version; 422 bad body. */
export const POST = handler(async (req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parse(RunIdParam, await ctx.params);
  const body = parse(ReplayBody, (await readJson(req, { optional: true })) ?? {});
  return json(await replayRun(await getRuntime(), id, body), 201);
});
