import { handler, json, parse, readJson } from "@/lib/api/http";
import { HeartbeatBody, TaskIdParam, heartbeatView } from "@/lib/api/tasks";
import { getRuntime } from "@/lib/runtime";

/** POST { worker?, attempt? } → 200 { id, leaseMs, leaseUntil, attempt }; 409 when the lease was lost. */
export const POST = handler(async (req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parse(TaskIdParam, await ctx.params);
  const body = parse(HeartbeatBody, (await readJson(req, { optional: true })) ?? {});
  const rt = await getRuntime();
  const t = await rt.tasks.heartbeat(id, body);
  return json({ ...heartbeatView(t), leaseMs: rt.tasks.leaseMs });
});
