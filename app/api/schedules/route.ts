import { handler, json, parse, principalOf, readJson } from "@/lib/api/http";
import { CreateScheduleBody, createSchedule, listSchedules } from "@/lib/api/schedules";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

/** → `{ schedules: [{ id, name, workflow, cron, timezone, nextFireAt, nextFires, paused, … }] }` */
export const GET = handler(async () => json(await listSchedules(await getRuntime())));

/** `{ workflow, version?, cron, timezone?, input, name?, runName?, overlap, catchup, paused? }` → 201 `{ schedule }`; 422 naming the field. Operators. */
export const POST = handler(async (req: Request) => {
  const body = parse(CreateScheduleBody, await readJson(req));
  const out = await createSchedule(await getRuntime(), body, principalOf(req)?.name ?? null);
  return json(out, 201, { location: `/api/schedules/${out.schedule.id}` });
});
