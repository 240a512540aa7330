"use server";
import { requireRole } from "@/app/session";
import { z } from "zod";
import { decideReview } from "@/lib/api/reviews";
import { abortRun, sendEvent } from "@/lib/api/runs";
import { isEngineError, isZodError } from "@/lib/engine/errors";
import { getRuntime } from "@/lib/runtime";

export interface ActionResult {
  ok: boolean;
  error?: string;
  status?: number;
  fieldErrors?: Record<string, string>;
}

const Decision = z.object({
  reviewId: z.string().min(1).max(200),
  decision: z.string().min(1).max(50).regex(/^[a-z_]+$/),
  feedback: z.string().max(10_000).optional(),
  reviewer: z.string().max(200).optional(),
  data: z.record(z.string(), z.unknown()).optional(),
});

function fail(e: unknown): ActionResult {
  if (isEngineError(e)) return { ok: false, error: e.message, status: e.status };
  if (isZodError(e)) return { ok: false, error: "invalid input", status: 422, fieldErrors: Object.fromEntries(e.issues.map((i) => [String(i.path[0]), i.message])) };
  console.error("[action] unexpected error", e);
  return { ok: false, error: "something went wrong; the run was not changed", status: 500 };
}

export async function decideAction(input: z.input<typeof Decision>): Promise<ActionResult> {
  const who = await requireRole("reviewer");
  try {
    const d = Decision.parse(input);
    if (d.decision === "modify" && !d.feedback?.trim() && !d.data) return { ok: false, status: 422, error: "say what to change", fieldErrors: { feedback: "describe the modification you want" } };
    await decideReview(await getRuntime(), d.reviewId, { decision: d.decision, feedback: d.feedback?.trim() || undefined, reviewer: d.reviewer?.trim() || undefined, data: d.data }, who);
    return { ok: true };
  } catch (e) {
    const r = fail(e);
    // a missing name on a quorum review, an edit not shaped like what it replaces: shown at their fields
    const message = isEngineError(e) && e.status === 422 ? e.message : "";
    const field = /^(reviewer|edited)\b/.exec(message)?.[1];
    if (field) r.fieldErrors = { [field]: message };
    return r;
  }
}

const Abort = z.object({ runId: z.string().min(1).max(200), reason: z.string().max(2_000).optional() });

export async function abortAction(input: z.input<typeof Abort>): Promise<ActionResult> {
  await requireRole("operator");
  try {
    const a = Abort.parse(input);
    await abortRun(await getRuntime(), a.runId, a.reason?.trim() || undefined);
    return { ok: true };
  } catch (e) {
    return fail(e);
  }
}

const Send = z.object({ runId: z.string().min(1).max(200), event: z.looseObject({ type: z.string().min(1).max(100) }) });

export async function sendEventAction(input: z.input<typeof Send>): Promise<ActionResult> {
  const who = await requireRole("operator");
  try {
    const s = Send.parse(input);
    await sendEvent(await getRuntime(), s.runId, s.event, who);
    return { ok: true };
  } catch (e) {
    const r = fail(e);
    if (isEngineError(e) && e.status === 422 && /request/i.test(e.message)) r.fieldErrors = { request: e.message.replace(/^invalid \w+ event: /, "") };
    return r;
  }
}
