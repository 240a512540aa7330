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
import type { InputField } from "@/lib/flows/inputs";

export interface FormState {
  ok: boolean;
  message?: string;
  fieldErrors?: Record<string, string>;
}

const NewRunForm = z.object({
  workflow: z.string().min(1, "choose a workflow").refine((w) => !!findWorkflow(w), "unknown workflow"),
  json: z.string().max(100_000).optional(),
  name: z.string().trim().max(200, "at most 200 characters").optional(),
});

/** A typed field's value from the form (a checkbox is "on" or absent; numbers and JSON are parsed), or its problem. */
function fieldValue(f: InputField, raw: FormDataEntryValue | null): { value?: unknown; error?: string } {
  if (f.type === "boolean") return raw === null ? (f.required ? { value: false } : {}) : { value: true };
  const text = typeof raw === "string" ? raw.trim() : "";
  if (!text) return {};
  if (f.type === "number") return Number.isFinite(Number(text)) ? { value: Number(text) } : { error: "a number" };
  if (f.type === "object" || f.type === "array") {
    try {
      const v = JSON.parse(text) as unknown;
      return (f.type === "array") === Array.isArray(v) && v !== null && typeof v === "object" ? { value: v } : { error: `JSON ${f.type === "array" ? "array [ … ]" : "object { … }"}` };
    } catch (e) {
      return { error: `not valid JSON: ${(e as Error).message}` };
    }
  }
  return { value: typeof raw === "string" ? raw : "" };
}

/** Start a run from the dashboard form: either the per-field inputs or the JSON input. */
export async function startRunAction(_prev: FormState, form: FormData): Promise<FormState> {
  const who = await requireRole("operator");
  const parsed = NewRunForm.safeParse({ workflow: form.get("workflow"), json: form.get("json") ?? undefined, name: form.get("name") ?? undefined });
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
  } else if (findWorkflow(parsed.data.workflow)?.inputFields) {
    // a user workflow's inputs, typed as it declares them
    const fields: Record<string, unknown> = {};
    const errors: Record<string, string> = {};
    for (const f of findWorkflow(parsed.data.workflow)!.inputFields!) {
      const { value, error } = fieldValue(f, form.get(`field:${f.name}`));
      if (error) errors[`field:${f.name}`] = error;
      else if (value !== undefined) fields[f.name] = value;
    }
    if (Object.keys(errors).length) return { ok: false, fieldErrors: errors };
    input = fields;
  } else {
    const fields: Record<string, string> = {};
    for (const [k, v] of form.entries()) if (k.startsWith("field:") && typeof v === "string" && v.trim()) fields[k.slice(6)] = v;
    input = fields;
  }
  let id: string;
  try {
    id = (await startRun(await getRuntime(), parsed.data.workflow, input, { principal: principalKeyOf(who, await headers()), name: parsed.data.name || undefined })).id;
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
