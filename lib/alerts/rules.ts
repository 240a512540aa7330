// Alert rules: the thresholds a user sets on one state of one workflow, validated against the
// workflow's machine (its states come from lib/graph, like the diagram's), and the JSON views of
// rules and alerts the API, the UI and the webhooks share. No database and no Next.js here.
import { z } from "zod";
import type { AlertRule, Alert } from "../db/generated/sqlite/client";
import { formatDuration } from "../format";
import { deriveGraph, formatMs, type GraphState } from "../graph/derive";
import { findWorkflow } from "../machines/registry";

export const ALERT_METRICS = ["dwell", "failure_rate", "waiting"] as const;
export type AlertMetric = (typeof ALERT_METRICS)[number];

export const DEFAULT_WINDOW_MS = 3_600_000;
const MIN_WINDOW_MS = 1_000;
const MAX_WINDOW_MS = 30 * 86_400_000;
const MAX_DURATION_MS = 365 * 86_400_000;

/** The states a name could mean: the one with that id (full path), else those whose seed name or last path segment it is. */
export function matchStates(workflow: string, state: string): GraphState[] {
  const def = findWorkflow(workflow);
  if (!def) return [];
  const states = deriveGraph(def.machine).states;
  const exact = states.find((s) => s.id === state);
  if (exact) return [exact];
  return states.filter((s) => s.name === state || s.id.split(".").pop() === state);
}

/** the state of a workflow a rule names (undefined when unknown or ambiguous) */
export function findState(workflow: string, state: string): GraphState | undefined {
  const found = matchStates(workflow, state);
  return found.length === 1 ? found[0] : undefined;
}

/** The states a metric can be measured on: visits are recorded per leaf state; only review states make a run wait for a person. */
export function statesFor(workflow: string, metric: AlertMetric): GraphState[] {
  const def = findWorkflow(workflow);
  if (!def) return [];
  const states = deriveGraph(def.machine).states;
  return metric === "waiting" ? states.filter((s) => s.human) : states.filter((s) => s.type === "atomic");
}

const list = (xs: string[], max = 12) => (xs.length > max ? `${xs.slice(0, max).join(", ")}, …` : xs.join(", "));

/** `{ workflow, state, metric, threshold, windowMs?, enabled? }`; `state` comes out as the state's id. */
export const AlertRuleInput = z
  .object({
    workflow: z
      .string({ error: "workflow is required (a workflow id)" })
      .trim()
      .min(1, "workflow is required (a workflow id)")
      .max(100, "workflow is longer than 100 characters")
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "workflow must be a workflow id"),
    state: z.string({ error: "state is required (a state id or its seed name)" }).trim().min(1, "state is required (a state id or its seed name)").max(300, "state is longer than 300 characters"),
    metric: z.enum(ALERT_METRICS, { error: 'metric must be "dwell", "failure_rate" or "waiting"' }),
    threshold: z.number({ error: "threshold must be a number (ms for dwell and waiting, 0..1 for failure_rate)" }),
    windowMs: z
      .number({ error: "windowMs must be a number of milliseconds" })
      .int("windowMs must be a whole number of milliseconds")
      .min(MIN_WINDOW_MS, `windowMs must be at least ${MIN_WINDOW_MS} ms`)
      .max(MAX_WINDOW_MS, "windowMs must be at most 30 days")
      .default(DEFAULT_WINDOW_MS),
    enabled: z.boolean({ error: "enabled must be true or false" }).default(true),
  })
  .strict()
  .superRefine((r, ctx) => {
    if (r.metric === "failure_rate") {
      if (r.threshold < 0 || r.threshold > 1) ctx.addIssue({ code: "custom", path: ["threshold"], message: "a failure_rate threshold is a share between 0 and 1 (0.2 = 20%)" });
    } else if (r.threshold <= 0 || r.threshold > MAX_DURATION_MS) {
      ctx.addIssue({ code: "custom", path: ["threshold"], message: `a ${r.metric} threshold is a duration in milliseconds, more than 0 and at most 365 days` });
    } else if (!Number.isInteger(r.threshold)) {
      ctx.addIssue({ code: "custom", path: ["threshold"], message: `a ${r.metric} threshold is a whole number of milliseconds` });
    }
    const def = findWorkflow(r.workflow);
    if (!def) {
      ctx.addIssue({ code: "custom", path: ["workflow"], message: `unknown workflow "${r.workflow}"` });
      return;
    }
    const matches = matchStates(r.workflow, r.state);
    if (matches.length > 1) {
      ctx.addIssue({ code: "custom", path: ["state"], message: `"${r.state}" names several states of ${r.workflow} (${list(matches.map((s) => s.id))}); use the full id` });
      return;
    }
    const state = matches[0];
    const allowed = statesFor(r.workflow, r.metric);
    if (!state) {
      ctx.addIssue({ code: "custom", path: ["state"], message: `workflow ${r.workflow} has no state "${r.state}"; ${r.metric} can be watched on ${list(allowed.map((s) => s.id)) || "none of its states"}` });
      return;
    }
    if (allowed.some((s) => s.id === state.id)) return;
    const why =
      r.metric === "waiting"
        ? `runs wait for a person only in review states`
        : state.type === "final"
          ? `${state.id} is a final state: runs never leave it`
          : `${state.id} is a group of states (${state.type}); visits are measured on its own states`;
    ctx.addIssue({ code: "custom", path: ["state"], message: allowed.length ? `${why}; pick one of ${list(allowed.map((s) => s.id))}` : `${why}, and workflow ${r.workflow} has none` });
  })
  .transform((r) => ({ ...r, state: findState(r.workflow, r.state)!.id }));

export type AlertRuleInput = z.input<typeof AlertRuleInput>;

// ------------------------------------------------------------------ views

export interface AlertRuleView {
  id: string;
  workflow: string;
  /** the state's id */
  state: string;
  /** its seed name */
  stateName: string;
  metric: AlertMetric;
  /** ms for dwell and waiting, 0..1 for failure_rate */
  threshold: number;
  windowMs: number;
  enabled: boolean;
  createdAt: string;
  /** "p95 dwell time > 5 s over 1 h" */
  summary: string;
}

export type AlertStatus = "open" | "resolved";

export interface AlertView {
  id: string;
  /** a rule's id, or "seed:<workflow>:<state>:<metric>" for the metrics tables' thresholds */
  ruleId: string;
  source: "rule" | "seed";
  workflow: string;
  state: string;
  stateName: string;
  /** dwell | failure_rate | waiting, or the seed metric's name ("Success rate") */
  metric: string;
  value: number;
  threshold: number;
  message: string;
  status: AlertStatus;
  openedAt: string;
  resolvedAt: string | null;
}

export const SEED_RULE_PREFIX = "seed:";

export const seedRuleId = (workflow: string, state: string, metric: string) => `${SEED_RULE_PREFIX}${workflow}:${state}:${metric}`;

/** A set duration (a threshold, a window): "1 h", "10 min", "2 s", else like a measured one ("1.5 s"). */
export function formatSpan(ms: number): string {
  if (ms > 0 && ms % 1_000 === 0) return formatMs(ms);
  return formatDuration(ms);
}

/** A metric value as people read it: durations for dwell and waiting, a percentage for failure_rate. */
export function formatMetric(metric: string, v: number): string {
  if (metric === "failure_rate") return `${Math.round(v * 1_000) / 10}%`;
  if (metric === "dwell" || metric === "waiting") return formatDuration(v);
  return String(Math.round(v * 1_000) / 1_000);
}

export function ruleSummary(r: { metric: string; threshold: number; windowMs: number }): string {
  const t = r.metric === "failure_rate" ? formatMetric(r.metric, r.threshold) : formatSpan(r.threshold);
  if (r.metric === "waiting") return `a review waits longer than ${t}`;
  if (r.metric === "dwell") return `p95 dwell time > ${t} over ${formatSpan(r.windowMs)}`;
  return `failure rate > ${t} over ${formatSpan(r.windowMs)}`;
}

const nameOf = (workflow: string, state: string) => findState(workflow, state)?.name ?? state;

export function ruleView(r: AlertRule): AlertRuleView {
  return {
    id: r.id,
    workflow: r.workflow,
    state: r.state,
    stateName: nameOf(r.workflow, r.state),
    metric: r.metric as AlertMetric,
    threshold: r.threshold,
    windowMs: r.windowMs,
    enabled: r.enabled,
    createdAt: r.createdAt.toISOString(),
    summary: ruleSummary(r),
  };
}

export function alertView(a: Alert): AlertView {
  return {
    id: a.id,
    ruleId: a.ruleId,
    source: a.ruleId.startsWith(SEED_RULE_PREFIX) ? "seed" : "rule",
    workflow: a.workflow,
    state: a.state,
    stateName: nameOf(a.workflow, a.state),
    metric: a.metric,
    value: a.value,
    threshold: a.threshold,
    message: a.message,
    status: a.status as AlertStatus,
    openedAt: a.openedAt.toISOString(),
    resolvedAt: a.resolvedAt?.toISOString() ?? null,
  };
}

/** Alerts per state id: their messages, oldest first, one a line (the diagram's badges). */
export function alertsByState(alerts: readonly AlertView[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const a of [...alerts].sort((x, y) => x.openedAt.localeCompare(y.openedAt))) out[a.state] = out[a.state] ? `${out[a.state]}\n${a.message}` : a.message;
  return out;
}
