import { handler, json, parse, readJson } from "@/lib/api/http";
import { CompleteBody, TaskIdParam, completeView } from "@/lib/api/tasks";
import { getRuntime } from "@/lib/runtime";

/** POST { output, worker?, attempt? } → 200 { id, status: "done", output } (again: the same); 409 when the run moved on or the lease was lost. */
export const POST = handler(async (req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parse(TaskIdParam, await ctx.params);
  const { output, ...fence } = parse(CompleteBody, await readJson(req));
  const rt = await getRuntime();
  return json(completeView(await rt.tasks.complete(id, output, fence)));
});
