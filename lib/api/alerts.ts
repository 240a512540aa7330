// Alert use-cases behind /api/alerts: the alerts (open and resolved) and the rules users set per
// workflow and state. Evaluation itself runs in lib/alerts/monitor.ts (getRuntime().alerts).
import { z } from "zod";
import { AlertRuleInput } from "../alerts/rules";
import type { Runtime } from "../runtime-types";

const workflowId = z
  .string()
  .trim()
  .min(1, "workflow must be a workflow id")
  .max(100, "workflow is longer than 100 characters")
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "workflow must be a workflow id");

export const AlertListQuery = z
  .object({
    status: z.enum(["open", "resolved"], { error: 'status must be "open" or "resolved"' }).optional(),
    workflow: workflowId.optional(),
    limit: z.coerce.number({ error: "limit must be a number" }).int("limit must be a whole number").min(1, "limit must be at least 1").max(1_000, "limit must be at most 1000").optional(),
  })
  .strict();
export type AlertListQuery = z.infer<typeof AlertListQuery>;

export const RuleListQuery = z.object({ workflow: workflowId.optional() }).strict();

/** `{ workflow, state, metric, threshold, windowMs?, enabled? }`, checked against the workflow's states. */
export const CreateRuleBody = AlertRuleInput;

export const RuleIdParam = z.object({
  id: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[A-Za-z0-9_-]+$/, "not an alert rule id"),
});

export async function listAlerts(rt: Runtime, q: AlertListQuery) {
  return { alerts: await rt.alerts.listAlerts(q) };
}

export async function listRules(rt: Runtime, q: { workflow?: string }) {
  return { rules: await rt.alerts.listRules(q.workflow) };
}

/** `body` is the raw JSON: the monitor validates it (422 with the issues). */
export async function createRule(rt: Runtime, body: unknown) {
  return { rule: await rt.alerts.createRule(body) };
}

export async function deleteRule(rt: Runtime, id: string) {
  await rt.alerts.deleteRule(id);
}
