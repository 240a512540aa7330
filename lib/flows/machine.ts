// FlowConfig → one XState v5 machine and its WorkflowDefinition (seed 003's generic
// StateMachine). Every stage is a state node; composites nest (two or more starts make parallel
// regions); every allowed move is a TRANSITION edge guarded by the stage rules (lib/flows/
// rules.ts), so the diagram, the REST description and the runs all come from this one machine.
// MESSAGE scores the text with the keyword detector and raises the TRANSITION it suggests;
// TOOL records a tool call (refused when the stage does not allow the tool). Every attempted
// move, accepted or refused, is kept in context.decisions with its reason.
import { assign, enqueueActions, setup, type AnyStateMachine } from "xstate";
import { z } from "zod";
import type { StateMeta, WorkflowDefinition } from "../machines/types";
import { detectStage } from "./detect";
import { activeLeaves, allowedTools, DEFAULTS, HISTORY_CAP, moveVeto, ruleVeto, validNext, type Decision, type FlowContext } from "./rules";
import { edgeKey, type FlowConfig } from "./types";
import { childrenOf } from "./validate";

type Stamp = { at?: number };
export type FlowEvent =
  | (Stamp & { type: "BEGIN" })
  | (Stamp & { type: "MESSAGE"; text: string })
  | (Stamp & { type: "TRANSITION"; to: string; confidence?: number; by?: "message" })
  | (Stamp & { type: "TOOL"; name: string });

export interface FlowInput {
  task?: string;
  /** the definition version the run was started with (user-defined workflows) */
  definitionVersion?: number;
}

const cap = <T>(list: T[], item: T) => [...list.slice(-(HISTORY_CAP - 1)), item];
const at = (e: Stamp, c: FlowContext) => e.at ?? c.lastTransitionAt ?? c.startedAt;

export function flowMachine(c: FlowConfig): AnyStateMachine {
  const children = childrenOf(c);
  const ends = new Set(c.ends ?? []);
  // the children of a parallel composite live in regions: stage → its region's key
  const region = new Map<string, string>();
  const regions = new Map<string, string[][]>();
  for (const [composite, kids] of children) {
    const starts = c.initials?.[composite] ?? [];
    if (starts.length < 2) continue;
    const parts = regionsOf(c, kids, starts);
    regions.set(composite, parts);
    parts.forEach((members, i) => members.forEach((m) => region.set(m, `${composite}_r${i + 1}`)));
  }
  const scopeOf = (stage: string) => region.get(stage) ?? c.parents?.[stage] ?? "";
  const endKey = (scope: string) => (scope ? `${scope}_end` : "END");
  const endState = (scope: string, members: string[]) =>
    members.some((k) => ends.has(k) && (c.transitions[k] ?? []).length > 0) ? { [endKey(scope)]: { id: endKey(scope), type: "final" } } : {};

  const node = (stage: string): Record<string, unknown> => {
    const kids = children.get(stage) ?? [];
    const next = c.transitions[stage] ?? [];
    const tools = c.stage_tools?.[stage] ?? [];
    const meta: StateMeta = { summary: c.notes?.[stage] ?? (c.choices?.includes(stage) ? "◇ choice" : tools.length ? `tools: ${tools.join(", ")}` : undefined) };
    const config: Record<string, unknown> = {
      id: stage,
      meta,
      entry: { type: "entered", params: { stage } },
      tags: c.choices?.includes(stage) ? ["choice"] : [],
    };
    const edges = next.map((to) => ({
      target: `#${to}`,
      guard: { type: "stageRules", params: { from: stage, to } },
      actions: { type: "moved", params: { from: stage, to } },
      description: c.labels?.[edgeKey(stage, to)] ?? "",
    }));
    if (ends.has(stage) && next.length > 0) {
      // may end here, or move on: an explicit end state next to it
      edges.push({ target: `#${endKey(scopeOf(stage))}`, guard: { type: "stageRules", params: { from: stage, to: "[*]" } }, actions: { type: "moved", params: { from: stage, to: "[*]" } }, description: c.labels?.[edgeKey(stage, "[*]")] ?? "end" });
    }
    if (edges.length) config.on = { TRANSITION: edges };
    if (kids.length === 0) {
      // a final stage keeps its place in context.active: the run ends there
      if (next.length === 0 && (ends.has(stage) || !c.parents?.[stage])) config.type = "final";
      else {
        config.exit = { type: "left", params: { stage } };
        // nothing runs inside a stage: the run waits for its next message, move or tool call
        config.tags = [...(config.tags as string[]), "waiting"];
      }
      return config;
    }
    config.exit = { type: "left", params: { stage } };
    const starts = c.initials?.[stage] ?? [kids[0]!];
    const sub = (members: string[]) => Object.fromEntries(members.map((k) => [k, node(k)]));
    const parts = regions.get(stage);
    if (parts) {
      // parallel regions: each start and what it reaches inside the composite
      config.type = "parallel";
      config.states = Object.fromEntries(parts.map((members, i) => {
        const key = `${stage}_r${i + 1}`;
        return [key, { initial: starts[i], states: { ...sub(members), ...endState(key, members) } }];
      }));
    } else {
      config.initial = starts[0];
      config.states = { ...sub(kids), ...endState(stage, kids) };
    }
    // a finished composite takes its only way out by itself
    if (next.length === 1) config.onDone = { target: `#${next[0]}`, actions: { type: "moved", params: { from: stage, to: next[0], auto: true } }, description: c.labels?.[edgeKey(stage, next[0]!)] ?? "done" };
    return config;
  };

  const top = c.stages.filter((s) => !c.parents?.[s]);
  const states = { ...Object.fromEntries(top.map((s) => [s, node(s)])), ...endState("", top) };

  const decide = (ctx: FlowContext, d: Omit<Decision, "from">): Decision[] => cap(ctx.decisions, { ...d, from: activeLeaves(c, ctx.active) });

  return setup({
    types: { context: {} as FlowContext, events: {} as FlowEvent, input: {} as FlowInput },
    guards: {
      stageRules: ({ context, event }, p: { from: string; to: string }) => {
        if (event.type !== "TRANSITION" || event.to !== p.to) return false;
        return ruleVeto(c, context, p.from, p.to, event.confidence ?? 1, at(event, context)) === null;
      },
      refused: ({ context, event }) => event.type === "TRANSITION" && moveVeto(c, context, event.to, event.confidence ?? 1, at(event, context)) !== null,
    },
    actions: {
      entered: assign(({ context, event }, p: { stage: string }) => ({
        active: context.active.includes(p.stage) ? context.active : [...context.active, p.stage],
        enteredAt: { ...context.enteredAt, [p.stage]: at(event as Stamp, context) },
        visits: { ...context.visits, [p.stage]: (context.visits[p.stage] ?? 0) + 1 },
      })),
      left: assign(({ context }, p: { stage: string }) => ({ active: context.active.filter((s) => s !== p.stage) })),
      moved: assign(({ context, event }, p: { from: string; to: string; auto?: boolean }) => {
        const when = at(event as Stamp, context);
        if (p.auto) return { lastTransitionAt: when };
        const e = event as Extract<FlowEvent, { type: "TRANSITION" }>;
        const reason = `${p.from} → ${p.to}: valid${e.by === "message" ? ", detected from the message" : ""}, confidence ${e.confidence ?? 1}`;
        // exit actions have already run: the stage left is p.from
        const decision: Decision = { at: when, by: e.by ?? "transition", from: [p.from], to: p.to, confidence: e.confidence ?? 1, accepted: true, reason };
        return { lastTransitionAt: when, decisions: cap(context.decisions, decision) };
      }),
      refuse: assign(({ context, event }) => {
        const e = event as Extract<FlowEvent, { type: "TRANSITION" }>;
        const when = at(e, context);
        const reason = moveVeto(c, context, e.to, e.confidence ?? 1, when) ?? "refused";
        return { decisions: decide(context, { at: when, by: e.by ?? "transition", to: e.to, confidence: e.confidence ?? 1, accepted: false, reason }) };
      }),
      begin: assign(({ context, event }) => {
        const when = (event as Stamp).at ?? context.startedAt;
        return { startedAt: when, enteredAt: Object.fromEntries(context.active.map((s) => [s, when])) };
      }),
      tool: assign(({ context, event }) => {
        const e = event as Extract<FlowEvent, { type: "TOOL" }>;
        const allowed = allowedTools(c, context.active);
        const ok = allowed.includes(e.name);
        const stage = activeLeaves(c, context.active).join(", ");
        const call = { at: at(e, context), name: e.name, stage, allowed: ok, ...(ok ? {} : { reason: `${e.name} is not allowed in ${stage} (allowed: ${allowed.join(", ") || "none"})` }) };
        return { tools: cap(context.tools, call), toolCalls: context.toolCalls + (ok ? 1 : 0) };
      }),
      detect: enqueueActions(({ context, event, enqueue }) => {
        const e = event as Extract<FlowEvent, { type: "MESSAGE" }>;
        const when = at(e, context);
        const next = validNext(c, context.active);
        const found = detectStage(e.text, c.keywords ?? {}, next);
        enqueue.assign({ messages: context.messages + 1, lastDetection: { ...found, text: e.text.slice(0, 2_000), at: when } });
        if (!found.stage || activeLeaves(c, context.active).includes(found.stage)) return;
        const threshold = c.detection_threshold ?? DEFAULTS.detection_threshold;
        if (found.confidence < threshold) {
          enqueue.assign({ decisions: decide(context, { at: when, by: "message", to: found.stage, confidence: found.confidence, accepted: false, reason: `detected ${found.stage} with confidence ${found.confidence}, below the detection threshold ${threshold}` }) });
          return;
        }
        enqueue.raise({ type: "TRANSITION", to: found.stage, confidence: found.confidence, by: "message", at: when });
      }),
    },
  }).createMachine({
    id: c.id,
    initial: c.initial_stage,
    context: ({ input }) => ({
      task: input?.task ?? null,
      startedAt: 0,
      active: [],
      enteredAt: {},
      visits: {},
      toolCalls: 0,
      tools: [],
      lastTransitionAt: null,
      lastDetection: null,
      decisions: [],
      messages: 0,
    }),
    on: {
      BEGIN: { actions: "begin", description: "run started" },
      MESSAGE: { actions: "detect", description: "message scored by the stage detector" },
      TOOL: { actions: "tool", description: "tool call recorded" },
      TRANSITION: { guard: "refused", actions: "refuse", description: "transition refused (reason in decisions)" },
    },
    states: states as never,
  }) as unknown as AnyStateMachine;
}

/** Partition a parallel composite's children: each start and the children it reaches. */
function regionsOf(c: FlowConfig, kids: string[], starts: string[]): string[][] {
  const owner = new Map<string, number>();
  starts.forEach((s, i) => {
    const todo = [s];
    while (todo.length) {
      const k = todo.pop()!;
      if (owner.has(k) || !kids.includes(k)) continue;
      owner.set(k, i);
      todo.push(...(c.transitions[k] ?? []));
    }
  });
  return starts.map((_, i) => kids.filter((k) => (owner.get(k) ?? 0) === i));
}

const Message = z.object({ type: z.literal("MESSAGE"), text: z.string().trim().min(1, "write a message").max(20_000) });
const Transition = z.object({ type: z.literal("TRANSITION"), to: z.string().min(1).max(80), confidence: z.number().min(0).max(1).optional() });
const Tool = z.object({ type: z.literal("TOOL"), name: z.string().trim().min(1).max(80) });

export interface FlowView {
  stage: string[];
  tools: string[];
  next: string[];
}

/** Where a run of this config stands: its stage(s), the tools they allow, the valid next stages. */
export function flowView(c: FlowConfig, ctx: FlowContext): FlowView {
  return { stage: activeLeaves(c, ctx.active), tools: allowedTools(c, ctx.active), next: validNext(c, ctx.active) };
}

/** The WorkflowDefinition of a config: built-in (conversation) or user-defined (with its version). */
export function flowWorkflow(c: FlowConfig, opts: { seed?: string; version?: number; example?: unknown } = {}): WorkflowDefinition {
  const machine = flowMachine(c);
  const input = z
    .object({ task: z.string().trim().max(20_000).optional() })
    .strict()
    .transform((i) => ({ ...i, ...(opts.version ? { definitionVersion: opts.version } : {}) }));
  return {
    id: c.id,
    title: c.title ?? c.id,
    seed: opts.seed ?? "user-defined",
    description: c.description ?? `A user-defined workflow with ${c.stages.length} stages.`,
    machine,
    input,
    events: { MESSAGE: Message, TRANSITION: Transition, TOOL: Tool },
    startEvents: (i) => [{ type: "BEGIN" }, ...((i as FlowInput).task ? [{ type: "MESSAGE", text: (i as FlowInput).task! }] : [])],
    output: (ctx) => ({ ...flowView(c, ctx as FlowContext), last: (ctx as FlowContext).decisions.at(-1) ?? null }),
    example: opts.example ?? { task: "" },
    eventFields: {
      MESSAGE: [{ name: "text", label: "Message", placeholder: "what the agent says or does next" }],
      TRANSITION: [{ name: "to", label: "Move to stage" }],
      TOOL: [{ name: "name", label: "Tool" }],
    },
    flow: c,
    version: opts.version ?? null,
  };
}
