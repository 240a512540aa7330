"use server";
import { requireRole } from "@/app/session";
import { createWorkflow, CreateWorkflowBody } from "@/lib/api/workflows";
import { isEngineError, isZodError } from "@/lib/engine/errors";
import type { FlowIssue } from "@/lib/flows/types";
import { getRuntime } from "@/lib/runtime";

export type SaveResult = { ok: true; id: string; version: number; created: boolean } | { ok: false; error: string; issues?: FlowIssue[] };

/** Save a workflow definition from the editor (same validation as POST /api/workflows). */
export async function saveWorkflowAction(input: unknown): Promise<SaveResult> {
  await requireRole("admin");
  try {
    const body = CreateWorkflowBody.parse(input);
    const out = await createWorkflow(await getRuntime(), body);
    return { ok: true, id: out.id, version: out.version ?? 1, created: out.created };
  } catch (e) {
    if (isEngineError(e)) return { ok: false, error: e.message, issues: (e.details as { issues?: FlowIssue[] } | undefined)?.issues };
    if (isZodError(e)) return { ok: false, error: e.issues.map((i) => i.message).join("; ") };
    console.error("[action] unexpected error", e);
    return { ok: false, error: "something went wrong; nothing was saved" };
  }
}
