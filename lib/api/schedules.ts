// Schedule use-cases behind /api/schedules (the scheduler itself: lib/schedules).
import { z } from "zod";
import type { Runtime } from "../runtime-types";
import { CATCHUP, OVERLAP, type Schedule } from "../schedules/types";
import { getRun } from "./runs";

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

const fields = {
  workflow: z.string().trim().min(1, "workflow is required").max(100),
  version: z.number().int("version must be a whole number").min(1, "versions start at 1").nullable(),
  cron: z.string().trim().min(1, "cron is required").max(200),
  timezone: z.string().trim().min(1).max(100),
  input: z.record(z.string(), z.unknown(), { error: "input must be an object (the run's input)" }),
  name: z.string().trim().min(1, "name must not be empty").max(200),
  runName: z.string().max(500).nullable(),
  overlap: z.enum(OVERLAP, { error: `overlap must be one of ${OVERLAP.join(", ")}` }),
  catchup: z.enum(CATCHUP, { error: `catchup must be one of ${CATCHUP.join(", ")}` }),
  paused: z.boolean(),
};

/** `{ workflow, version?, cron, timezone?, input, name?, runName?, overlap, catchup, paused? }` */
export const CreateScheduleBody = z
  .object({
    ...fields,
    version: fields.version.optional(),
    timezone: fields.timezone.optional(),
    name: fields.name.optional(),
    runName: fields.runName.optional(),
    paused: fields.paused.optional(),
  })
  .strict();
export type CreateScheduleBody = z.infer<typeof CreateScheduleBody>;

/** any of the create fields */
export const UpdateScheduleBody = z
  .object(fields)
  .partial()
  .strict()
  .refine((b) => Object.keys(b).length > 0, "send at least one field to change");
export type UpdateScheduleBody = z.infer<typeof UpdateScheduleBody>;

export const ScheduleIdParam = z.object({ id: z.string().min(1).max(100).regex(/^[A-Za-z0-9_-]+$/, "not a schedule id") });

/** A schedule as the API shows it: dates as ISO strings, and its next three fire times. */
export function scheduleView(rt: Runtime, s: Schedule) {
  return {
    id: s.id,
    name: s.name,
    workflow: s.workflow,
    version: s.version,
    cron: s.cron,
    timezone: s.timezone,
    input: s.input,
    runName: s.runName,
    overlap: s.overlap,
    catchup: s.catchup,
    paused: s.paused,
    nextFireAt: iso(s.nextFireAt),
    nextFires: rt.schedules.upcoming(s).map((ms) => iso(ms)!),
    queuedFireAt: iso(s.queuedFireAt),
    lastFireAt: iso(s.lastFireAt),
    lastRunId: s.lastRunId,
    lastSkipAt: iso(s.lastSkipAt),
    lastSkip: s.lastSkip,
    createdBy: s.createdBy,
    createdAt: iso(s.createdAt)!,
    updatedAt: iso(s.updatedAt)!,
  };
}
export type ScheduleView = ReturnType<typeof scheduleView>;

export async function listSchedules(rt: Runtime) {
  return { schedules: (await rt.schedules.list()).map((s) => scheduleView(rt, s)) };
}

export async function createSchedule(rt: Runtime, body: CreateScheduleBody, by: string | null) {
  return { schedule: scheduleView(rt, await rt.schedules.create(body, by)) };
}

/** the schedule and its newest runs */
export async function getSchedule(rt: Runtime, id: string) {
  const s = await rt.schedules.get(id);
  return { schedule: scheduleView(rt, s), runs: await rt.schedules.runs(id) };
}

export async function updateSchedule(rt: Runtime, id: string, body: UpdateScheduleBody) {
  return { schedule: scheduleView(rt, await rt.schedules.update(id, body)) };
}

export async function deleteSchedule(rt: Runtime, id: string) {
  await rt.schedules.remove(id);
}

/** run now: the new run's API document */
export async function triggerSchedule(rt: Runtime, id: string) {
  const { runId } = await rt.schedules.trigger(id);
  return { run: await getRun(rt, runId) };
}
