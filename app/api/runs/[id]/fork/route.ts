import { handler, json, parse, principalOf, readJson } from "@/lib/api/http";
import { principalKeyOf } from "@/lib/api/who";
import { forkRun } from "@/lib/api/runs";
import { ForkBody, RunIdParam } from "@/lib/api/schemas";
import { getRuntime } from "@/lib/runtime";

export const POST = handler(async (req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parse(RunIdParam, await ctx.params);
  const body = parse(ForkBody, await readJson(req));
  return json(await forkRun(await getRuntime(), id, body, principalKeyOf(principalOf(req), req.headers)), 201);
});
