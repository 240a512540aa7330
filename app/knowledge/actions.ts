"use server";
import { requireRole } from "@/app/session";
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { PasteForm } from "@/lib/api/knowledge";
import { isEngineError } from "@/lib/engine/errors";
import { knowledgeStore } from "@/lib/runtime";

export interface PasteState {
  ok: boolean;
  message?: string;
  fieldErrors?: Record<string, string>;
  imported?: { id: string; title: string; chunks: number; duplicate: boolean; embedded: boolean; embedError?: string };
}

/** Import pasted text as one document (Markdown by default). */
export async function importTextAction(_prev: PasteState, form: FormData): Promise<PasteState> {
  await requireRole("admin");
  const parsed = PasteForm.safeParse({
    title: form.get("title") || undefined,
    type: form.get("type") || undefined,
    text: form.get("text") ?? "",
  });
  if (!parsed.success) {
    return { ok: false, fieldErrors: Object.fromEntries(parsed.error.issues.map((i) => [String(i.path[0] ?? "form"), i.message])) };
  }
  const { title, type, text } = parsed.data;
  try {
    const store = await knowledgeStore();
    const r = await store.importDocument({ title: title || undefined, type, source: title ? `pasted: ${title}` : "pasted text", content: text });
    revalidatePath("/knowledge");
    return {
      ok: true,
      imported: { id: r.document.id, title: r.document.title, chunks: r.chunks, duplicate: r.duplicate, embedded: r.embedded, ...(r.embedError ? { embedError: r.embedError } : {}) },
    };
  } catch (e) {
    if (isEngineError(e)) return { ok: false, fieldErrors: { text: e.message } };
    console.error("[knowledge] paste import failed", e);
    return { ok: false, message: "the import failed; nothing was stored" };
  }
}

const DeleteInput = z.object({ id: z.string().min(1).max(200).regex(/^[A-Za-z0-9_-]+$/, "not a document id") });

/** Delete a document and its chunks. */
export async function deleteDocumentAction(input: z.input<typeof DeleteInput>): Promise<{ ok: boolean; error?: string }> {
  await requireRole("admin");
  const parsed = DeleteInput.safeParse(input);
  if (!parsed.success) return { ok: false, error: parsed.error.issues.map((i) => i.message).join("; ") };
  try {
    await (await knowledgeStore()).delete(parsed.data.id);
    revalidatePath("/knowledge");
    return { ok: true };
  } catch (e) {
    if (isEngineError(e)) return { ok: false, error: e.message };
    console.error("[knowledge] delete failed", e);
    return { ok: false, error: "the delete failed; the document was not changed" };
  }
}
