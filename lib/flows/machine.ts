// FlowConfig → one XState v5 machine and its WorkflowDefinition (the stage machine's generic
// StateMachine). Every stage is a state node; composites nest (two or more starts make parallel
// regions); every allowed move is a TRANSITION edge guarded by the stage rules (lib/flows/
// rules.ts), so the diagram, the REST description and the runs all come from this one machine.
// MESSAGE scores the text with the keyword detector and raises the TRANSITION it suggests;
// TOOL records a tool call (refused when the stage does not allow the tool). Every attempted
// move, accepted or refused, is kept in context.decisions with its reason.
import { assign, enqueueActions, setup, type AnyStateMachine } from "xstate";
import { z } from "zod";
import type { DecisionWho, StateMeta, WorkflowDefinition } from "../machines/types";
import { detectStage, labelledEdges, labelMatch } from "./detect";
import { activeLeaves, allowedTools, DEFAULTS, HISTORY_CAP, moveVeto, ruleVeto, validNext, type Decision, type FlowContext } from "./rules";
import { forkPlan, regionsOf } from "./forks";
import { childrenOf, END, edgeKey, own, type FlowConfig } from "./types";
import { effect } from "../machines/effect";
import { decisionEvents, refuseDecision, reviewView, stepDelays, stepGuards, stepNode, stepUpdates, type StepContext } from "../steps/compile";
import { render } from "../steps/template";
import { declaredInputs, inputFields } from "./inputs";
import { flowResult } from "./result";

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

/**
 * XState keys and ids for stages: the name itself, unless it holds a character XState reads
 * (`.` paths, `#` ids) or `%`, which are then written as %XX. Pseudo-states (END, X_end, X_r1,
 * X_b1) keep their names unless a stage already has it, then get a "_" more.
 */
function stageKeys(c: FlowConfig) {
  const key = new Map(c.stages.map((s) => [s, /[.#\\%]/.test(s) ? s.replace(/[.#\\%]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`) : s]));
  const taken = new Set(key.values());
  const pseudo = (name: string) => {
    let n = name;
    while (taken.has(n)) n += "_";
    taken.add(n);
    return n;
  };
  return { key: (s: string) => key.get(s) ?? s, pseudo };
}

export function flowMachine(c: FlowConfig): AnyStateMachine {
  const children = childrenOf(c);
  const ends = new Set(c.ends ?? []);
  const { key, pseudo } = stageKeys(c);
  const next = (s: string) => own(c.transitions, s) ?? [];
  const { forks } = forkPlan(c);
  // a fork's branches live inside it: stage → [fork, branch index]
  const inFork = new Map<string, [string, number]>();
  const branchKeys = new Map<string, { branch: string; joined: string }[]>();
  for (const f of forks.values()) {
    f.branches.forEach((members, i) => members.forEach((m) => inFork.set(m, [f.fork, i])));
    branchKeys.set(f.fork, f.branches.map((_, i) => ({ branch: pseudo(`${key(f.fork)}_b${i + 1}`), joined: pseudo(`${key(f.fork)}_b${i + 1}_joined`) })));
  }
  // the children of a parallel composite live in regions: stage → its region's key
  const region = new Map<string, string>();
  const regions = new Map<string, string[][]>();
  for (const [composite, kids] of children) {
    const starts = own(c.initials, composite) ?? [];
    if (starts.length < 2) continue;
    const parts = regionsOf(c, kids, starts);
    const keys = parts.map((_, i) => pseudo(`${key(composite)}_r${i + 1}`));
    regions.set(composite, parts);
    parts.forEach((members, i) => members.forEach((m) => region.set(m, keys[i]!)));
  }
  const scopeOf = (stage: string) => region.get(stage) ?? (own(c.parents, stage) !== undefined ? key(own(c.parents, stage)!) : "");
  const endKeys = new Map<string, string>();
  const endKey = (scope: string) => endKeys.get(scope) ?? endKeys.set(scope, pseudo(scope ? `${scope}_end` : "END")).get(scope)!;
  /** scopes that need an end state: some stage there may end or move on, or a composite there ends its scope when done */
  const needEnd = new Set<string>();
  const endState = (scope: string) => (needEnd.has(scope) ? { [endKey(scope)]: { id: endKey(scope), type: "final" } } : {});
  /** a stage's composites (the forks around it included) have a TRANSITION of their own: the run can leave from here */
  const canLeave = (stage: string): boolean => {
    for (let p = own(c.parents, stage); p !== undefined; p = own(c.parents, p)) if (next(p).length) return true;
    return false;
  };
  /** a composite with several ways out, once done, waits in its final children for the move that picks one */
  const waitInFinals = (states: Record<string, Record<string, unknown>>, waiting: boolean) => {
    if (waiting) for (const n of Object.values(states)) if (n.type === "final") n.tags = [...((n.tags as string[] | undefined) ?? []), "waiting"];
    return states;
  };
  const moved = (from: string, to: string, auto = false) => ({ type: "moved", params: { from, to, ...(auto ? { auto: true } : {}) } });
  // steps (lib/steps): a step that fails with no on_error ends the run failed; on_error targets that end the run are failures too
  const failedKey = pseudo("STEP_FAILED");
  let needFailed = false;
  const failEnds = new Set(Object.values(c.steps ?? {}).flatMap((s) => (s.on_error ? [s.on_error] : [])));

  const node = (stage: string): Record<string, unknown> => {
    const kids = (children.get(stage) ?? []).filter((k) => !inFork.has(k));
    const out = next(stage);
    const tools = own(c.stage_tools, stage) ?? [];
    const kind = c.choices?.includes(stage) ? "choice" : c.joins?.includes(stage) ? "join" : c.forks?.includes(stage) ? "fork" : null;
    const meta: StateMeta = { ...(key(stage) !== stage ? { name: stage } : {}), summary: own(c.notes, stage) ?? (kind ? `◇ ${kind}` : tools.length ? `tools: ${tools.join(", ")}` : undefined) };
    const config: Record<string, unknown> = { id: key(stage), meta, tags: kind === "choice" ? ["choice"] : [] };
    const fork = forks.get(stage);
    if (fork) {
      // a parallel split: every branch at once; done when each has moved into the join
      config.type = "parallel";
      config.states = Object.fromEntries(
        fork.branches.map((members, i) => {
          const k = branchKeys.get(stage)![i]!;
          return [k.branch, { initial: key(members[0]!), states: { ...Object.fromEntries(members.map((m) => [key(m), node(m)])), [k.joined]: { id: k.joined, type: "final" } } }];
        }),
      );
      config.onDone = { target: `#${key(fork.join)}`, actions: moved(stage, fork.join, true), description: "every branch joined" };
      return config;
    }
    config.entry = { type: "entered", params: { stage } };
    // every stage leaves context.active when it exits, finals inside composites too; a top-level final keeps its place: the run ends there
    const topLevel = scopeOf(stage) === "" && !inFork.has(stage);
    if (!(topLevel && kids.length === 0 && out.length === 0)) config.exit = { type: "left", params: { stage } };
    const joinedAt = inFork.get(stage);
    // a branch moving into its fork's join waits there for the other branches
    const targetOf = (to: string) => `#${joinedAt && forks.get(joinedAt[0])!.join === to ? branchKeys.get(joinedAt[0])![joinedAt[1]]!.joined : key(to)}`;
    const edges = out.map((to) => {
      const target = targetOf(to);
      return { target, guard: { type: "stageRules", params: { from: stage, to } }, actions: moved(stage, to), description: own(c.labels, edgeKey(stage, to)) ?? "" };
    });
    if (ends.has(stage) && out.length > 0) {
      // may end here, or move on: an explicit end state next to it
      needEnd.add(scopeOf(stage));
      edges.push({ target: `#${endKey(scopeOf(stage))}`, guard: { type: "stageRules", params: { from: stage, to: END } }, actions: moved(stage, END), description: own(c.labels, edgeKey(stage, END)) ?? "end" });
    }
    const spec = own(c.steps, stage);
    if (spec && kids.length === 0) {
      // the step moves the run: no TRANSITION from clients here
      const target = targetOf;
      const failed = () => ((needFailed = true), `#${failedKey}`);
      const s = stepNode(c, stage, spec, { key, target, failed, moved });
      return { ...config, ...s, tags: [...(config.tags as string[]), ...((s.tags as string[] | undefined) ?? [])], entry: [config.entry, ...((s.entry as unknown[] | undefined) ?? [])], meta: { ...meta, ...(s.meta as StateMeta) } };
    }
    if (edges.length) config.on = { TRANSITION: edges };
    if (kids.length === 0) {
      // a stage with no way out ends its scope (the run, at the top): final. Inside a composite that
      // has moves of its own it waits for one of them, unless it is drawn as an end (`X --> [*]`).
      if (out.length === 0 && (ends.has(stage) || !canLeave(stage))) {
        config.type = "final";
        if (failEnds.has(stage) && scopeOf(stage) === "") config.tags = [...(config.tags as string[]), "failed"];
      }
      else config.tags = [...(config.tags as string[]), "waiting"]; // nothing runs inside a stage: the run waits for a message, move or tool call
      return config;
    }
    const starts = own(c.initials, stage) ?? [kids[0]!];
    const sub = (members: string[]) => Object.fromEntries(members.map((k) => [key(k), node(k)]));
    const parts = regions.get(stage);
    if (parts) {
      config.type = "parallel";
      config.states = Object.fromEntries(
        parts.map((members, i) => {
          const k = region.get(members[0]!) ?? pseudo(`${key(stage)}_r${i + 1}`);
          const states = sub(members);
          return [k, { initial: key(starts[i]!), states: waitInFinals({ ...states, ...endState(k) }, out.length > 1) }];
        }),
      );
    } else {
      config.initial = key(starts[0]!);
      const states = sub(kids);
      config.states = waitInFinals({ ...states, ...endState(key(stage)) }, out.length > 1);
    }
    // a finished composite takes its only way out by itself, ends its own scope when it has none,
    // and with several waits (in its final child, tagged "waiting") for the move that picks one
    if (out.length === 1) config.onDone = { target: `#${key(out[0]!)}`, actions: moved(stage, out[0]!, true), description: own(c.labels, edgeKey(stage, out[0]!)) ?? "done" };
    else if (out.length === 0) {
      const scope = scopeOf(stage);
      needEnd.add(scope);
      config.onDone = { target: `#${endKey(scope)}`, actions: moved(stage, END, true), description: "done" };
    }
    return config;
  };

  const top = c.stages.filter((s) => own(c.parents, s) === undefined && !inFork.has(s));
  const built = Object.fromEntries(top.map((s) => [key(s), node(s)]));
  const states = { ...built, ...endState(""), ...(needFailed ? { [failedKey]: { id: failedKey, type: "final", tags: ["failed"], meta: { summary: "a step failed" } } } : {}) };
  const updates = stepUpdates(c);
  const stepActions = Object.fromEntries(Object.entries(updates).map(([name, fn]) => [name, assign(({ context, event }, p: never) => (fn as (c: unknown, e: unknown, p: unknown) => object)(context, event, p) as never)]));

  /**
   * The active stages a client moves, messages and calls tools in: those without a step (a step
   * moves the run itself). A composite around a running step counts when it has moves of its own.
   */
  const free = (ctx: FlowContext): FlowContext => (c.steps ? { ...ctx, active: ctx.active.filter((s) => own(c.steps, s) === undefined && !forks.has(s)) } : ctx);
  const manual = (ctx: FlowContext) => {
    if (!c.steps) return true;
    const f = free(ctx);
    return activeLeaves(c, f.active).some((s) => !children.has(s) || next(s).length > 0);
  };
  const decide = (ctx: FlowContext, d: Omit<Decision, "from">): Decision[] => cap(ctx.decisions, { ...d, from: activeLeaves(c, ctx.active) });

  return setup({
    types: { context: {} as FlowContext, events: {} as FlowEvent, input: {} as FlowInput },
    actors: { "step.llm": effect("step.llm"), "step.http": effect("step.http"), "step.code": effect("step.code"), "step.external": effect("step.external") },
    delays: stepDelays(c) as never,
    guards: {
      stageRules: ({ context, event }, p: { from: string; to: string }) => {
        if (event.type !== "TRANSITION" || event.to !== p.to) return false;
        return ruleVeto(c, context, p.from, p.to, event.confidence ?? 1, at(event, context)) === null;
      },
      refused: ({ context, event }) => event.type === "TRANSITION" && manual(context) && moveVeto(c, free(context), event.to, event.confidence ?? 1, at(event, context)) !== null,
      // messages, moves and tool calls are for stages without a step: a step moves the run itself
      manual: ({ context }) => manual(context),
      ...(stepGuards(c) as {}),
    },
    actions: {
      ...(stepActions as {}),
      entered: assign(({ context, event }, p: { stage: string }) => ({
        active: context.active.includes(p.stage) ? context.active : [...context.active, p.stage],
        enteredAt: { ...context.enteredAt, [p.stage]: at(event as Stamp, context) },
        visits: { ...context.visits, [p.stage]: (own(context.visits, p.stage) ?? 0) + 1 },
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
        const reason = moveVeto(c, free(context), e.to, e.confidence ?? 1, when) ?? "refused";
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
        // a message naming a transition's label moves along that transition
        const movable = free(context).active;
        const named = labelMatch(e.text, labelledEdges(c, movable));
        if (named && !activeLeaves(c, context.active).includes(named.to)) {
          const lastDetection = { scores: [{ stage: named.to, hits: [named.label], score: 1 }], stage: named.to, confidence: 1, text: e.text.slice(0, 2_000), at: when };
          enqueue.assign({ messages: context.messages + 1, lastDetection });
          enqueue.raise({ type: "TRANSITION", to: named.to, confidence: 1, by: "message", at: when });
          return;
        }
        const next = validNext(c, movable);
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
    initial: key(c.initial_stage),
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
      // steps: the run's input, each step's output, the last review's decision, approvals so far, an edit awaiting its approvals
      ...(c.steps ? ({ input: stepInput(input), steps: {}, review: null, approvals: {}, edits: {} } satisfies StepContext) : {}),
    }),
    on: {
      BEGIN: { actions: "begin", description: "run started" },
      MESSAGE: { guard: "manual", actions: "detect", description: "message scored by the stage detector" },
      TOOL: { guard: "manual", actions: "tool", description: "tool call recorded" },
      TRANSITION: { guard: "refused", actions: "refuse", description: "transition refused (reason in decisions)" },
    },
    states: states as never,
  }) as unknown as AnyStateMachine;
}

/** the run input templates see: what the run was started with, less the engine's own keys */
function stepInput(input: FlowInput | undefined): Record<string, unknown> {
  const { definitionVersion: _v, ...rest } = (input ?? {}) as FlowInput & Record<string, unknown>;
  void _v;
  return rest;
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
  const task = z.object({ task: z.string().trim().max(20_000).optional() });
  // a workflow with steps takes any JSON object as input (templates read input.<name>); declared inputs are enforced, with or without steps
  const declared = declaredInputs(c);
  const open = c.steps || declared ? task.catchall(z.unknown()) : task.strict();
  const checked = declared ? open.superRefine((i, ctx) => void z.safeParse(declared, i).error?.issues.forEach((issue) => ctx.addIssue({ code: "custom", path: issue.path, message: issue.message }))) : open;
  const input = checked.transform((i) => ({ ...i, ...(opts.version ? { definitionVersion: opts.version } : {}) }));
  const fields = opts.seed ? [] : inputFields(c);
  const stageOf = (state: string) => {
    const last = state.split(".").at(-1)!;
    return c.stages.find((s) => s === last || s.replace(/[.#\\%]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`) === last) ?? last;
  };
  return {
    id: c.id,
    title: c.title ?? c.id,
    seed: opts.seed ?? "user-defined",
    description: c.description ?? `A user-defined workflow with ${c.stages.length} stages.`,
    machine,
    input,
    events: { MESSAGE: Message, TRANSITION: Transition, TOOL: Tool, ...(c.steps ? decisionEvents(c) : {}) },
    ...(c.steps
      ? {
          review: (state: string, ctx: unknown) => {
            const stage = stageOf(state);
            const spec = own(c.steps, stage);
            return spec?.review ? reviewView(stage, spec, ctx as StepContext) : { prompt: `Decide for ${stage}`, payload: {} };
          },
          refuseDecision: (state: string, ctx: unknown, decision: string, who: DecisionWho) => refuseDecision(c, stageOf(state), ctx as StepContext, decision, who),
        }
      : {}),
    startEvents: (i) => [{ type: "BEGIN" }, ...((i as FlowInput).task ? [{ type: "MESSAGE", text: (i as FlowInput).task! }] : [])],
    output: (ctx) => ({ ...flowView(c, ctx as FlowContext), last: (ctx as FlowContext).decisions.at(-1) ?? null, ...(c.steps ? { steps: (ctx as StepContext).steps } : {}) }),
    // the New run form: declared inputs, else the input names the definition reads, else a first message
    example: opts.example ?? (fields.length ? Object.fromEntries(fields.map((f) => [f.name, f.type === "string" ? "" : null])) : c.steps ? {} : { task: "" }),
    ...(fields.length ? { inputFields: fields } : {}),
    ...(c.run_name ? { runName: (i: unknown) => render(c.run_name!, { input: stepInput(i as FlowInput), steps: {}, review: null }) } : {}),
    ...(c.steps ? { result: (ctx: unknown) => flowResult(c, ctx as StepContext) } : {}),
    eventFields: {
      MESSAGE: [{ name: "text", label: "Message", placeholder: "what the agent says or does next" }],
      TRANSITION: [{ name: "to", label: "Move to stage" }],
      TOOL: [{ name: "name", label: "Tool" }],
    },
    flow: c,
    version: opts.version ?? null,
    // a fork may edit what came from the run's input; the engine and the steps keep the rest
    forkEditable: c.steps ? ["task", "input"] : ["task"],
    forkStart: (ctx, from) => forkStart(c, ctx as FlowContext & Partial<StepContext>, from.imported),
  };
}

/**
 * The context a fork of a run of `c` starts from: no approvals or pending edits (a review it starts
 * in counts afresh), and from an imported run none of its decisions either (its last review, the
 * review stages' records, the move decisions): an export can be edited before it is imported.
 */
function forkStart(c: FlowConfig, ctx: FlowContext & Partial<StepContext>, imported: boolean): FlowContext {
  const out: FlowContext & Partial<StepContext> = { ...ctx };
  if (c.steps) {
    out.approvals = {};
    out.edits = {};
  }
  if (imported) {
    out.decisions = [];
    if (c.steps) {
      out.review = null;
      out.steps = Object.fromEntries(Object.entries(ctx.steps ?? {}).filter(([stage]) => !own(c.steps, stage)?.review));
    }
  }
  return out;
}
