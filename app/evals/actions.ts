"use server";
import { redirect } from "next/navigation";
import { z } from "zod";
import { requireRole } from "@/app/session";
import { startEval } from "@/lib/change/evals";
import { isEngineError } from "@/lib/engine/errors";
import { getRuntime } from "@/lib/runtime";

const Form = z.object({
  workflow: z.string().trim().min(1, "pick a workflow").max(100),
  version: z.union([z.literal(""), z.coerce.number().int("a version is a whole number").min(1, "versions start at 1")]).optional(),
  limit: z.union([z.literal(""), z.coerce.number().int().min(1, "at least one case").max(500, "at most 500 cases")]).optional(),
});

/** The Evals page's form: evaluate a version (or a built-in's code) against the decisions people made. */
export async function startEvalAction(_prev: { error?: string } | null, form: FormData): Promise<{ error?: string }> {
  await requireRole("operator");
  const parsed = Form.safeParse({ workflow: form.get("workflow") ?? "", version: form.get("version") ?? "", limit: form.get("limit") ?? "" });
  if (!parsed.success) return { error: parsed.error.issues.map((i) => i.message).join("; ") };
  const { workflow, version, limit } = parsed.data;
  let id: string;
  try {
    ({ id } = await startEval(await getRuntime(), { workflow, candidate: version ? { version } : {}, cases: { from: "decided-reviews", ...(limit ? { limit } : {}) } }));
  } catch (e) {
    if (isEngineError(e) && e.status < 500) return { error: e.message };
    throw e;
  }
  redirect(`/evals/${id}`);
}
