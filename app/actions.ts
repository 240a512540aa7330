"use server";
import { requireRole } from "@/app/session";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { principalKeyOf } from "@/lib/api/who";
import { z } from "zod";
import { startRun } from "@/lib/api/runs";
import { isEngineError } from "@/lib/engine/errors";
import { findWorkflow } from "@/lib/machines/registry";
import { getRuntime } from "@/lib/runtime";

export interface FormState {
  ok: boolean;
  message?: string;
  fieldErrors?: Record<string, string>;
}

const NewRunForm = z.object({
  workflow: z.string().min(1, "choose a workflow").refine((w) => !!findWorkflow(w), "unknown workflow"),
  json: z.string().max(100_000).optional(),
});

/** Start a run from the dashboard form: either the per-field inputs or the JSON input. */
export async function startRunAction(_prev: FormState, form: FormData): Promise<FormState> {
  const who = await requireRole("operator");
  const parsed = NewRunForm.safeParse({ workflow: form.get("workflow"), json: form.get("json") ?? undefined });
  if (!parsed.success) {
    return { ok: false, fieldErrors: Object.fromEntries(parsed.error.issues.map((i) => [String(i.path[0] ?? "form"), i.message])) };
  }
  let input: unknown = {};
  const json = parsed.data.json?.trim();
  if (json) {
    try {
      input = JSON.parse(json);
    } catch (e) {
      return { ok: false, fieldErrors: { json: `not valid JSON: ${(e as Error).message}` } };
    }
  } else {
    const fields: Record<string, string> = {};
    for (const [k, v] of form.entries()) if (k.startsWith("field:") && typeof v === "string" && v.trim()) fields[k.slice(6)] = v;
    input = fields;
  }
  let id: string;
  try {
    id = (await startRun(await getRuntime(), parsed.data.workflow, input, undefined, principalKeyOf(who, await headers()))).id;
  } catch (e) {
    if (isEngineError(e)) {
      const issues = (e.details as { path: PropertyKey[]; message: string }[] | undefined) ?? [];
      const fieldErrors = Object.fromEntries(issues.filter((i) => i.path?.length).map((i) => [json ? "json" : `field:${String(i.path[0])}`, i.message]));
      return { ok: false, message: e.message, fieldErrors };
    }
    throw e;
  }
  redirect(`/runs/${id}`);
}
