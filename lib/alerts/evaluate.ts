// Alert evaluation, pure: data in (transitions, pending reviews), `now` passed in, a verdict
// out. No database, no clock: the monitor (monitor.ts) gathers the data, and tests feed these
// functions directly with any `now` they like.
import type { TransitionRow } from "../engine/store/types";
import { formatDuration } from "../format";
import type { StateMetricSpec } from "../machines/types";
import { evaluate as judgeSeedMetric, percentile } from "../metrics/state-metrics";
import { formatMetric, formatSpan, type AlertMetric } from "./rules";

export interface Evaluation {
  /** dwell: p95 ms; failure_rate: 0..1; waiting: the longest current wait in ms; seed: see evaluateSeedMetric */
  value: number;
  breached: boolean;
  /** one line, for the banner, the alert row and the webhook body */
  message: string;
  /** how many observations the value rests on (visits, or runs waiting) */
  samples: number;
}

/** A visit that ended: a transition that left the state (TransitionRow has all of it). */
export type Exit = Pick<TransitionRow, "at" | "durationMs" | "event" | "to">;

/** A review still waiting for its decision. */
export interface PendingWait {
  runId: string;
  createdAt: number;
}

/** Exits inside the look-back window (now − windowMs, now]. */
export function inWindow<T extends { at: number }>(exits: readonly T[], now: number, windowMs: number): T[] {
  const from = now - windowMs;
  return exits.filter((t) => t.at > from && t.at <= now);
}

/** Dwell time: the p95 of how long the visits that left the state within the window lasted. */
export function evaluateDwell(exits: readonly Exit[], o: { state: string; threshold: number; windowMs: number; now: number }): Evaluation {
  const d = inWindow(exits, o.now, o.windowMs)
    .map((t) => t.durationMs)
    .sort((a, b) => a - b);
  if (d.length === 0) return { value: 0, breached: false, samples: 0, message: `${o.state}: no visit ended in the last ${formatSpan(o.windowMs)}` };
  const p95 = percentile(d, 0.95);
  const breached = p95 > o.threshold;
  return {
    value: p95,
    breached,
    samples: d.length,
    message: `${o.state}: p95 dwell ${formatDuration(p95)} over ${d.length} visit${d.length === 1 ? "" : "s"} in the last ${formatSpan(o.windowMs)} (${breached ? "above" : "within"} ${formatSpan(o.threshold)})`,
  };
}

/**
 * State ids whose entry means something failed: states tagged "failed" or "error" (FAILED
 * finals, deep-research's ERROR review), and final states named for a failure
 * (processing-modes' AgentRuntime.WorkflowFailed, CODE.FormatError).
 */
export function failureStatesOf(states: readonly { id: string; name?: string; type?: string; tags: readonly string[] }[]): Set<string> {
  const failed = (s: (typeof states)[number]) => s.tags.includes("failed") || s.tags.includes("error") || (s.type === "final" && /fail|error/i.test(s.name ?? s.id.split(".").pop()!));
  return new Set(states.filter(failed).map((s) => s.id));
}

/**
 * Is this exit a failure? The definition: a visit of a state failed when it ended with an
 * error event from the state's own work (`xstate.error.*`: an invoked actor threw, e.g.
 * swiss-army's "Execution failed" and "Critical error" exits) or when it went into a failure
 * state (tagged "failed" or "error", see failureStatesOf; e.g. a domain-agent step → FAILED).
 * Exits by ABORT are the user's doing, neither success nor failure: evaluateFailureRate leaves
 * them out of the count altogether.
 */
export function isFailure(t: Pick<Exit, "event" | "to">, failureStates: ReadonlySet<string>): boolean {
  return t.event.startsWith("xstate.error.") || t.to.some((s) => failureStates.has(s));
}

/** Failure rate: failed exits (isFailure) ÷ all exits of the state within the window, aborts left out. */
export function evaluateFailureRate(exits: readonly Exit[], o: { state: string; threshold: number; windowMs: number; now: number; failureStates: ReadonlySet<string> }): Evaluation {
  const relevant = inWindow(exits, o.now, o.windowMs).filter((t) => t.event !== "ABORT");
  if (relevant.length === 0) return { value: 0, breached: false, samples: 0, message: `${o.state}: no visit ended in the last ${formatSpan(o.windowMs)}` };
  const failed = relevant.filter((t) => isFailure(t, o.failureStates)).length;
  const rate = failed / relevant.length;
  const breached = rate > o.threshold;
  return {
    value: rate,
    breached,
    samples: relevant.length,
    message: `${o.state}: ${failed} of ${relevant.length} visit${relevant.length === 1 ? "" : "s"} failed (${formatMetric("failure_rate", rate)}) in the last ${formatSpan(o.windowMs)} (${breached ? "above" : "within"} ${formatMetric("failure_rate", o.threshold)})`,
  };
}

/** Waiting time: the longest a run has been waiting, right now, for a person to decide its review in the state. */
export function evaluateWaiting(pending: readonly PendingWait[], o: { state: string; threshold: number; now: number }): Evaluation {
  if (pending.length === 0) return { value: 0, breached: false, samples: 0, message: `${o.state}: no run is waiting for a review` };
  const oldest = pending.reduce((a, b) => (b.createdAt < a.createdAt ? b : a));
  const wait = Math.max(0, o.now - oldest.createdAt);
  const breached = wait > o.threshold;
  const others = pending.length - 1;
  return {
    value: wait,
    breached,
    samples: pending.length,
    message: `${o.state}: run ${oldest.runId.slice(0, 8)} has waited ${formatDuration(wait)} for a review (${breached ? "above" : "within"} ${formatSpan(o.threshold)})${others ? `; ${others} more waiting` : ""}`,
  };
}

export interface RuleData {
  /** transitions that left the state (any age: the window is applied here) */
  exits: readonly Exit[];
  /** pending reviews in the state */
  pending: readonly PendingWait[];
  failureStates: ReadonlySet<string>;
}

/** One user rule against its data. */
export function evaluateRule(rule: { state: string; metric: AlertMetric | string; threshold: number; windowMs: number }, data: RuleData, now: number): Evaluation {
  const o = { state: rule.state, threshold: rule.threshold, windowMs: rule.windowMs, now };
  if (rule.metric === "dwell") return evaluateDwell(data.exits, o);
  if (rule.metric === "failure_rate") return evaluateFailureRate(data.exits, { ...o, failureStates: data.failureStates });
  if (rule.metric === "waiting") return evaluateWaiting(data.pending, o);
  return { value: 0, breached: false, samples: 0, message: `unknown metric "${rule.metric}"` };
}

/**
 * One row of each workflow's metrics table (lib/metrics/state-metrics' evaluate, same exits): it is
 * breached when its verdict is "alert". The number: the p95 in ms (durations), the good share
 * 0..1 (outcome rates: breached *below* the threshold), or the share of zero results
 * (zero-share); `threshold` is the spec's alert level in the same unit.
 */
export function evaluateSeedMetric(spec: StateMetricSpec, exits: TransitionRow[]): Evaluation & { threshold: number; verdict: string } {
  const judged = judgeSeedMetric(spec, exits);
  return {
    value: judged.amount,
    threshold: judged.alertAt,
    verdict: judged.verdict,
    breached: judged.verdict === "alert",
    samples: judged.samples,
    message: `${spec.state}: ${spec.metric.toLowerCase()} ${judged.value} (alert ${spec.alert}; ${judged.detail})`,
  };
}
