import { handler, json, parse, readJson } from "@/lib/api/http";
import { FailBody, TaskIdParam, failView } from "@/lib/api/tasks";
import { getRuntime } from "@/lib/runtime";

/** POST { error, retryable, worker?, attempt? } → 200 { id, status: "queued" (offered again) | "failed", attempt }; 409 as for complete. */
export const POST = handler(async (req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parse(TaskIdParam, await ctx.params);
  const { error, retryable, ...fence } = parse(FailBody, await readJson(req));
  const rt = await getRuntime();
  const err = typeof error === "string" ? { message: error } : error;
  return json(failView(await rt.tasks.fail(id, err, retryable, fence)));
});
