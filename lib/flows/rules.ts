// The transition rules of a stage machine (docs/guide/15-conversation-and-your-own-workflows.md): a move happens only when it is valid from
// an active stage, the cooldown has passed, a backward move clears the backward threshold, and
// every validator agrees. Pure functions over the config and the run's context.
import type { Detection } from "./detect";
import { END, own, type FlowConfig, type ValidatorSpec } from "./types";

export interface Decision {
  at: number;
  by: "message" | "transition";
  /** the active stages when it was decided */
  from: string[];
  to: string;
  confidence: number;
  accepted: boolean;
  reason: string;
}

export interface ToolCall {
  at: number;
  name: string;
  stage: string;
  allowed: boolean;
  reason?: string;
}

export interface FlowContext {
  task: string | null;
  startedAt: number;
  /** active stages, composites included */
  active: string[];
  enteredAt: Record<string, number>;
  visits: Record<string, number>;
  toolCalls: number;
  tools: ToolCall[];
  lastTransitionAt: number | null;
  lastDetection: (Detection & { text: string; at: number }) | null;
  decisions: Decision[];
  messages: number;
}

export const HISTORY_CAP = 500;

export const DEFAULTS = { cooldown_seconds: 0, backward_threshold: 0, detection_threshold: 0.3 } as const;

/** A stage and the composites around it, innermost first. */
export function lineage(c: FlowConfig, stage: string): string[] {
  const out = [stage];
  for (let p = own(c.parents, stage); p !== undefined; p = own(c.parents, p)) out.push(p);
  return out;
}

/** The active stages that are leaves (what the run is "in"). */
export function activeLeaves(c: FlowConfig, active: string[]): string[] {
  return active.filter((s) => !active.some((o) => o !== s && own(c.parents, o) === s));
}

/** Valid next stages from the active ones (a stage also follows its composites' transitions). */
export function validNext(c: FlowConfig, active: string[]): string[] {
  const out = new Set<string>();
  for (const s of active) for (const t of own(c.transitions, s) ?? []) out.add(t);
  return [...out];
}

/** Tools allowed now: those of every active stage (a composite's tools apply inside it). */
export function allowedTools(c: FlowConfig, active: string[]): string[] {
  const out = new Set<string>();
  for (const s of active) for (const t of own(c.stage_tools, s) ?? []) out.add(t);
  return [...out].sort();
}

const inside = (c: FlowConfig, stage: string, ancestor: string) => lineage(c, stage).includes(ancestor);

function validatorVeto(c: FlowConfig, ctx: FlowContext, to: string, at: number, v: ValidatorSpec): string | null {
  switch (v.type) {
    case "min_tool_calls":
      return to === v.target && ctx.toolCalls < v.min ? `Need at least ${v.min} tool calls before ${v.target} (${ctx.toolCalls} so far)` : null;
    case "require_visited":
      return to === v.target && !own(ctx.visits, v.stage) ? `${v.target} needs ${v.stage} to have been visited first` : null;
    case "max_visits":
      return to === v.target && (own(ctx.visits, v.target) ?? 0) >= v.max ? `${v.target} may be entered at most ${v.max} time(s)` : null;
    case "min_dwell": {
      if (!ctx.active.includes(v.stage) || inside(c, to, v.stage)) return null;
      const since = own(ctx.enteredAt, v.stage) ?? at;
      const waited = (at - since) / 1000;
      return waited < v.seconds ? `stay at least ${v.seconds} s in ${v.stage} (${waited.toFixed(1)} s so far)` : null;
    }
  }
}

/**
 * Why moving from `from` (an active stage with `to` among its next stages) is refused, or null
 * when every rule allows it.
 */
export function ruleVeto(c: FlowConfig, ctx: FlowContext, from: string, to: string, confidence: number, at: number): string | null {
  const cooldown = (c.cooldown_seconds ?? DEFAULTS.cooldown_seconds) * 1000;
  if (cooldown > 0 && ctx.lastTransitionAt !== null && at - ctx.lastTransitionAt < cooldown) {
    return `cooldown: ${((at - ctx.lastTransitionAt) / 1000).toFixed(1)} s since the last transition (needs ${c.cooldown_seconds} s)`;
  }
  const threshold = c.backward_threshold ?? DEFAULTS.backward_threshold;
  const toIndex = c.stages.indexOf(to);
  if (toIndex >= 0 && toIndex < c.stages.indexOf(from) && confidence < threshold) {
    return `backward move ${from} → ${to} needs confidence ≥ ${threshold} (got ${confidence})`;
  }
  for (const v of c.validators ?? []) {
    const veto = validatorVeto(c, ctx, to, at, v);
    if (veto) return veto;
  }
  return null;
}

/** The verdict on a requested move from the run's current stages: null = allowed. */
export function moveVeto(c: FlowConfig, ctx: FlowContext, to: string, confidence: number, at: number): string | null {
  const ending = to === END;
  if (!ending && !c.stages.includes(to)) return `unknown stage ${to}`;
  if (activeLeaves(c, ctx.active).includes(to)) return `already in ${to}`;
  const sources = ctx.active.filter((s) => (ending ? (c.ends ?? []).includes(s) && (own(c.transitions, s) ?? []).length > 0 : (own(c.transitions, s) ?? []).includes(to)));
  if (sources.length === 0) {
    const next = validNext(c, ctx.active);
    return `${to} is not a valid next stage from ${activeLeaves(c, ctx.active).join(", ")} (valid: ${next.join(", ") || "none"})`;
  }
  let veto: string | null = null;
  for (const s of sources) {
    veto = ruleVeto(c, ctx, s, to, confidence, at);
    if (!veto) return null;
  }
  return veto;
}
