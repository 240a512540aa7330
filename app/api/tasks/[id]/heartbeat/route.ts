import { handler, json, parse, readJson } from "@/lib/api/http";
import { HeartbeatBody, TaskIdParam, heartbeatView } from "@/lib/api/tasks";
import { getRuntime } from "@/lib/runtime";

/** POST { leaseToken, worker?, attempt? } → 200 { id, leaseMs, leaseUntil, attempt }; 422, 404 and 409 as for complete. */
export const POST = handler(async (req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parse(TaskIdParam, await ctx.params);
  const { leaseToken } = parse(HeartbeatBody, (await readJson(req, { optional: true })) ?? {});
  const rt = await getRuntime();
  const t = await rt.tasks.heartbeat(id, { leaseToken });
  return json({ ...heartbeatView(t), leaseMs: rt.tasks.leaseMs });
});
