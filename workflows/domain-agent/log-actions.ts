"use server";
import { requireRole } from "@/app/session";
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { DomainParam, ProfileKey, ProfileValue, putProfileFact, removeProfileFact } from "./api";
import { isEngineError } from "@/lib/engine/errors";
import { getRuntime } from "@/lib/runtime";

export interface FactFormState {
  ok: boolean;
  message?: string;
  fieldErrors?: Record<string, string>;
  saved?: { key: string; value: string; changed: boolean };
}

/** The add and edit forms of the global context: a domain field left out keeps the stored domain, "" clears it. */
const FactForm = z.object({
  key: ProfileKey,
  value: ProfileValue,
  domain: z.union([z.literal(""), DomainParam]).optional(),
});

/** The person sets a profile fact (source "user", reason "edited by the person"). */
export async function saveFactAction(_prev: FactFormState, form: FormData): Promise<FactFormState> {
  await requireRole("operator");
  const domain = form.get("domain");
  const parsed = FactForm.safeParse({
    key: form.get("key") ?? "",
    value: form.get("value") ?? "",
    domain: typeof domain === "string" ? domain : undefined,
  });
  if (!parsed.success) {
    const fieldErrors: Record<string, string> = {};
    for (const i of parsed.error.issues) fieldErrors[String(i.path[0] ?? "form")] ??= i.message;
    return { ok: false, fieldErrors };
  }
  const { key, value } = parsed.data;
  try {
    const rt = await getRuntime();
    const body = { key, value, ...(parsed.data.domain !== undefined ? { domain: parsed.data.domain || null } : {}) };
    const r = await putProfileFact(rt.db, body, rt.clock.now());
    revalidatePath("/log");
    return { ok: true, saved: { key, value: r.fact.value, changed: r.changed } };
  } catch (e) {
    if (isEngineError(e)) return { ok: false, fieldErrors: { value: e.message } };
    console.error("[log] saving a profile fact failed", e);
    return { ok: false, message: "saving failed; the fact was not changed" };
  }
}

const DeleteInput = z.object({ key: ProfileKey });

/** Remove a profile fact. */
export async function deleteFactAction(input: z.input<typeof DeleteInput>): Promise<{ ok: boolean; error?: string }> {
  await requireRole("operator");
  const parsed = DeleteInput.safeParse(input);
  if (!parsed.success) return { ok: false, error: parsed.error.issues.map((i) => i.message).join("; ") };
  try {
    const rt = await getRuntime();
    await removeProfileFact(rt.db, parsed.data.key);
    revalidatePath("/log");
    return { ok: true };
  } catch (e) {
    if (isEngineError(e)) return { ok: false, error: e.message };
    console.error("[log] deleting a profile fact failed", e);
    return { ok: false, error: "the delete failed; the fact was not changed" };
  }
}
