import { handler, json, parse, readJson } from "@/lib/api/http";
import { abortRun } from "@/lib/api/runs";
import { AbortBody, RunIdParam } from "@/lib/api/schemas";
import { getRuntime } from "@/lib/runtime";

export const POST = handler(async (req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parse(RunIdParam, await ctx.params);
  const body = parse(AbortBody, (await readJson(req, { optional: true })) ?? {});
  return json(await abortRun(await getRuntime(), id, body.reason));
});
