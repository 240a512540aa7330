"use server";
// The Schedules page's actions: the same checks as /api/schedules (lib/api/schedules.ts for the
// shape, the scheduler for the rest), with each refusal next to its field. Operators only.
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { requireRole } from "@/app/session";
import { CreateScheduleBody, ScheduleIdParam, UpdateScheduleBody } from "@/lib/api/schedules";
import { isEngineError } from "@/lib/engine/errors";
import { issuesByField, type Issue } from "@/lib/field-errors";
import { getRuntime } from "@/lib/runtime";

const SCHEDULE_FIELDS = ["name", "workflow", "version", "cron", "timezone", "input", "runName", "overlap", "catchup"] as const;
export type ScheduleField = (typeof SCHEDULE_FIELDS)[number];

export interface ScheduleFormResult {
  ok: boolean;
  id?: string;
  error?: string;
  fieldErrors?: Partial<Record<ScheduleField, string>>;
}

/** The form's text fields, as the API body: empty optional fields left out, input read as JSON. */
const FormFields = z.object({
  id: z.string().max(100).optional(),
  name: z.string().max(200),
  workflow: z.string().max(100),
  version: z.string().max(10),
  cron: z.string().max(200),
  timezone: z.string().max(100),
  input: z.string().max(100_000),
  runName: z.string().max(500),
  overlap: z.string().max(20),
  catchup: z.string().max(20),
  paused: z.boolean(),
});
export type ScheduleForm = z.infer<typeof FormFields>;

function refused(issues: readonly Issue[], fallback?: string): ScheduleFormResult {
  const { fields, other } = issuesByField(issues, (head) => ((SCHEDULE_FIELDS as readonly string[]).includes(head) ? (head as ScheduleField) : null));
  const error = [...other, ...(Object.keys(fields).length || other.length ? [] : [fallback ?? "not saved"])].join("; ");
  return { ok: false, fieldErrors: fields, ...(error ? { error } : {}) };
}

function bodyOf(f: ScheduleForm): { body?: Record<string, unknown>; issues?: Issue[] } {
  let input: unknown = {};
  if (f.input.trim()) {
    try {
      input = JSON.parse(f.input);
    } catch (e) {
      return { issues: [{ path: "input", message: `not JSON: ${(e as Error).message}` }] };
    }
  }
  const version = f.version.trim() ? Number(f.version) : null;
  return {
    body: {
      workflow: f.workflow,
      cron: f.cron,
      timezone: f.timezone.trim() || "UTC",
      input,
      overlap: f.overlap,
      catchup: f.catchup,
      paused: f.paused,
      ...(f.name.trim() ? { name: f.name } : {}),
      version,
      runName: f.runName.trim() ? f.runName : null,
    },
  };
}

/** Create (no id) or change (id) a schedule from the form. */
export async function saveScheduleAction(raw: ScheduleForm): Promise<ScheduleFormResult> {
  const who = await requireRole("operator");
  const form = FormFields.safeParse(raw);
  if (!form.success) return refused(form.error.issues);
  const { body, issues } = bodyOf(form.data);
  if (!body) return refused(issues!);
  const rt = await getRuntime();
  try {
    if (form.data.id) {
      const parsed = UpdateScheduleBody.safeParse(body);
      if (!parsed.success) return refused(parsed.error.issues);
      const s = await rt.schedules.update(form.data.id, parsed.data);
      revalidatePath("/schedules");
      return { ok: true, id: s.id };
    }
    const parsed = CreateScheduleBody.safeParse({ ...body, version: body.version ?? undefined, runName: body.runName ?? undefined });
    if (!parsed.success) return refused(parsed.error.issues);
    const s = await rt.schedules.create(parsed.data, who?.name ?? null);
    revalidatePath("/schedules");
    return { ok: true, id: s.id };
  } catch (e) {
    if (!isEngineError(e)) throw e;
    const details = (e as { details?: unknown }).details;
    return refused(Array.isArray(details) ? (details as Issue[]) : [], e.message);
  }
}

const Target = z.object({ id: ScheduleIdParam.shape.id, action: z.enum(["pause", "resume", "trigger", "delete"]) });

/** Pause, resume, run now or delete. */
export async function scheduleCommandAction(raw: z.input<typeof Target>): Promise<{ ok: boolean; error?: string; runId?: string }> {
  await requireRole("operator");
  const t = Target.safeParse(raw);
  if (!t.success) return { ok: false, error: t.error.issues.map((i) => i.message).join("; ") };
  const rt = await getRuntime();
  try {
    let runId: string | undefined;
    if (t.data.action === "delete") await rt.schedules.remove(t.data.id);
    else if (t.data.action === "trigger") runId = (await rt.schedules.trigger(t.data.id)).runId;
    else await rt.schedules.update(t.data.id, { paused: t.data.action === "pause" });
    revalidatePath("/schedules");
    return { ok: true, runId };
  } catch (e) {
    if (!isEngineError(e)) throw e;
    return { ok: false, error: e.message };
  }
}
