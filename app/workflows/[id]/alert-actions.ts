"use server";
import { requireRole } from "@/app/session";
// The workflow page's Alerts panel: add a rule (form units: seconds, percent, minutes) and
// delete one. The rule itself is validated by lib/alerts/rules (the same checks as POST /api/alerts/rules).
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { ALERT_METRICS } from "@/lib/alerts/rules";
import { isEngineError } from "@/lib/engine/errors";
import { issuesByField, type Issue } from "@/lib/field-errors";
import { getRuntime } from "@/lib/runtime";

export type RuleField = "state" | "metric" | "threshold" | "windowMinutes";

export interface RuleFormResult {
  ok: boolean;
  /** a problem not tied to one field */
  error?: string;
  fieldErrors?: Partial<Record<RuleField, string>>;
}

const number = (what: string) =>
  z
    .string({ error: `enter ${what}` })
    .trim()
    .min(1, `enter ${what}`)
    .refine((v) => Number.isFinite(Number(v)), `${what} must be a number`)
    .transform(Number);

const RuleForm = z
  .object({
    workflow: z.string().trim().min(1, "the workflow is missing").max(100),
    state: z.string({ error: "choose a state" }).trim().min(1, "choose a state").max(300),
    metric: z.enum(ALERT_METRICS, { error: "choose what to watch" }),
    threshold: number("a threshold"),
    windowMinutes: number("a window").refine((n) => n >= 1 && n <= 43_200, "the window is 1 minute to 30 days (43,200 minutes)"),
  })
  .superRefine((f, ctx) => {
    if (f.metric === "failure_rate" && (f.threshold < 0 || f.threshold > 100)) ctx.addIssue({ code: "custom", path: ["threshold"], message: "a failure rate is 0 to 100 %" });
    if (f.metric !== "failure_rate" && f.threshold <= 0) ctx.addIssue({ code: "custom", path: ["threshold"], message: "a duration must be more than 0 seconds" });
  });

const FIELD_OF: Record<string, RuleField> = { state: "state", metric: "metric", threshold: "threshold", windowMs: "windowMinutes", windowMinutes: "windowMinutes" };

function fieldErrors(issues: readonly Issue[]): RuleFormResult {
  const { fields, other } = issuesByField(issues, (head) => (Object.hasOwn(FIELD_OF, head) ? FIELD_OF[head] : null));
  return { ok: false, fieldErrors: fields, ...(other.length ? { error: other.join("; ") } : {}) };
}

/** Add a rule: threshold in seconds (dwell, waiting) or percent (failure rate), window in minutes. Evaluated at once. */
export async function createAlertRuleAction(input: Record<string, string>): Promise<RuleFormResult> {
  await requireRole("admin");
  const form = RuleForm.safeParse(input);
  if (!form.success) return fieldErrors(form.error.issues);
  const f = form.data;
  const rt = await getRuntime();
  try {
    await rt.alerts.createRule({
      workflow: f.workflow,
      state: f.state,
      metric: f.metric,
      threshold: f.metric === "failure_rate" ? f.threshold / 100 : Math.round(f.threshold * 1_000),
      windowMs: Math.round(f.windowMinutes * 60_000),
    });
  } catch (e) {
    if (isEngineError(e) && e.status === 422 && Array.isArray(e.details)) return fieldErrors(e.details as { path: PropertyKey[]; message: string }[]);
    if (isEngineError(e)) return { ok: false, error: e.message };
    throw e;
  }
  await rt.alerts.evaluateOnce().catch(() => {}); // the monitor would within its interval; show it now
  revalidatePath(`/workflows/${f.workflow}`);
  return { ok: true };
}

const Delete = z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{1,200}$/), workflow: z.string().max(100) });

/** Delete a rule; its open alert resolves. */
export async function deleteAlertRuleAction(input: { id: string; workflow: string }): Promise<RuleFormResult> {
  await requireRole("admin");
  const parsed = Delete.safeParse(input);
  if (!parsed.success) return { ok: false, error: "not an alert rule" };
  const rt = await getRuntime();
  try {
    await rt.alerts.deleteRule(parsed.data.id);
  } catch (e) {
    if (isEngineError(e)) return { ok: false, error: e.message };
    throw e;
  }
  revalidatePath(`/workflows/${parsed.data.workflow}`);
  return { ok: true };
}
