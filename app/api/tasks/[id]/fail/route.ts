import { handler, json, parse, principalOf, readJson } from "@/lib/api/http";
import { FailBody, TaskIdParam, failView } from "@/lib/api/tasks";
import { principalLabel } from "@/lib/auth/accounts";
import { getRuntime } from "@/lib/runtime";

/** POST { error, retryable, leaseToken, worker?, attempt? } → 200 { id, status: "queued" (offered again) | "failed", attempt }; 422, 404 and 409 as for complete. */
export const POST = handler(async (req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parse(TaskIdParam, await ctx.params);
  const { error, retryable, leaseToken } = parse(FailBody, await readJson(req));
  const who = principalOf(req);
  const rt = await getRuntime();
  const err = typeof error === "string" ? { message: error } : error;
  return json(failView(await rt.tasks.fail(id, err, retryable, { leaseToken, ...(who ? { by: principalLabel(who) } : {}) })));
});
