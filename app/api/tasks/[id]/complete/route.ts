import { handler, json, parse, principalOf, readJson } from "@/lib/api/http";
import { CompleteBody, TaskIdParam, completeView } from "@/lib/api/tasks";
import { principalLabel } from "@/lib/auth/accounts";
import { getRuntime } from "@/lib/runtime";

/**
 * POST { output, leaseToken, worker?, attempt? } → 200 { id, status: "done", output } (again with the same
 * lease: the first answer). 422 without leaseToken; 404 unknown task; 409 `run_moved_on`, `not_claimed`,
 * `lease_lost` (a wrong or stale token), in that order. The output is credited to the caller (with
 * accounts off: the claim's worker).
 */
export const POST = handler(async (req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parse(TaskIdParam, await ctx.params);
  const { output, leaseToken } = parse(CompleteBody, await readJson(req));
  const who = principalOf(req);
  const rt = await getRuntime();
  return json(completeView(await rt.tasks.complete(id, output, { leaseToken, ...(who ? { by: principalLabel(who) } : {}) })));
});
