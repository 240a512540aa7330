import { handler, json, parse, readJson } from "@/lib/api/http";
import { deleteSchedule, getSchedule, ScheduleIdParam, UpdateScheduleBody, updateSchedule } from "@/lib/api/schedules";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ id: string }> };

/** → `{ schedule, runs: [{ id, status, createdAt, finishedAt }] }` (its newest runs first); 404 for an unknown id. */
export const GET = handler(async (_req: Request, ctx: Ctx) => {
  const { id } = parse(ScheduleIdParam, await ctx.params);
  return json(await getSchedule(await getRuntime(), id));
});

/** Any create field (`{ paused: true }` pauses, `{ paused: false }` resumes) → `{ schedule }`. Operators. */
export const PATCH = handler(async (req: Request, ctx: Ctx) => {
  const { id } = parse(ScheduleIdParam, await ctx.params);
  const body = parse(UpdateScheduleBody, await readJson(req));
  return json(await updateSchedule(await getRuntime(), id, body));
});

/** 204; its runs stay (they keep their scheduleId). Operators. */
export const DELETE = handler(async (_req: Request, ctx: Ctx) => {
  const { id } = parse(ScheduleIdParam, await ctx.params);
  await deleteSchedule(await getRuntime(), id);
  return new Response(null, { status: 204 });
});
