import { handler, json, parse } from "@/lib/api/http";
import { ScheduleIdParam, triggerSchedule } from "@/lib/api/schedules";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

/** Run now → 201 `{ run }` (the new run's document, with its scheduleId). Operators. */
export const POST = handler(async (_req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parse(ScheduleIdParam, await ctx.params);
  const out = await triggerSchedule(await getRuntime(), id);
  return json(out, 201, { location: `/api/runs/${out.run.id}` });
});
