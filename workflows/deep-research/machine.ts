// Deep-research (workflows/deep-research/guide.md) — deep research, as one XState v5 machine.
// PLANNING (generate a plan, the user approves, modifies or aborts) → RESEARCHING (a DAG of
// P/S/R/C tasks dispatched to sub-agents, several at once) → REFLECTING (gaps and conflicts add
// tasks and loop) → SYNTHESIZING (report.md) → COMPLETED; ERROR on unrecoverable errors.
import { assign, enqueueActions, setup, stopChild } from "xstate";
import { z } from "zod";
import { allFinished, compensate, dispatchable, nextTaskId, refresh, setStatus, validate } from "../../lib/research/dag";
import type { Fact, Plan, Source, Task } from "../../lib/research/types";
import { researchArtifacts } from "./artifacts";
import type { ResearchConfig, ResearchContext, Reflection, TaskResult } from "./types";
import { effect } from "../../lib/machines/effect";
import type { StateMeta, WorkflowDefinition } from "../../lib/machines/types";

export const defaultResearchConfig: ResearchConfig = {
  maxIterations: 50,
  concurrency: 3,
  checkinEvery: 10,
  progressEvery: 5,
  maxAttempts: 2,
  maxReflections: 3,
};

const TaskSchema = z.object({
  id: z.string().regex(/^[PSRC]\d+$/, "task ids are P/S/R/C followed by a number"),
  type: z.enum(["Planning", "Search", "Read", "Conflict"]),
  description: z.string().min(1).max(500),
  status: z.enum(["PENDING", "BLOCKED", "IN_PROGRESS", "COMPLETED", "FAILED"]).default("PENDING"),
  dependsOn: z.array(z.string()).default([]),
  query: z.string().max(300).optional(),
  dimension: z.string().max(200).optional(),
  critical: z.boolean().optional(),
});

export const PlanSchema = z
  .object({
    topic: z.string().min(1).max(500),
    dimensions: z.array(z.string().min(1).max(200)).min(1).max(12),
    tasks: z.array(TaskSchema).min(1).max(60),
    estimatedIterations: z.number().int().min(1).max(500),
  })
  .superRefine((plan, ctx) => {
    // a plan must be a DAG: unique ids, known dependencies, no cycles
    for (const problem of validate(plan.tasks as Task[])) ctx.addIssue({ code: "custom", path: ["tasks"], message: problem });
  });

type Stamp = { at?: number };
type Review = Stamp & { feedback?: string; reviewer?: string };
export type ResearchEvent =
  | (Review & { type: "APPROVE"; plan?: Plan })
  | (Review & { type: "MODIFY"; plan?: Plan })
  | (Stamp & { type: "ABORT"; reason?: string })
  | (Review & { type: "CONTINUE" })
  | (Review & { type: "SYNTHESIZE" })
  | (Review & { type: "RETRY" })
  | (Review & { type: "SKIP" })
  | (Stamp & { type: `xstate.done.actor.${string}`; output: TaskResult })
  | (Stamp & { type: `xstate.error.actor.${string}`; error?: { message?: string; category?: string } });

export interface ResearchInput {
  topic: string;
  config?: Partial<ResearchConfig>;
}

export interface PlanOutput {
  plan: Plan;
  missionId: string;
  rationale: string;
  adapter: string;
  tokens: number;
}

const running = (c: ResearchContext) => c.tasks.some((t) => t.status === "IN_PROGRESS");
const childTask = (eventType: string) => eventType.replace(/^xstate\.(done|error)\.actor\./, "").replace(/\.\d+$/, "");
const childId = (eventType: string) => eventType.replace(/^xstate\.(done|error)\.actor\./, "");
const day = (at: number) => new Date(at).toISOString().slice(0, 10);

function pad(n: number, width: number) {
  return String(n).padStart(width, "0");
}

/** Fold one sub-agent's result into the knowledge graph, the source registry and the DAG. */
function applyResult(c: ResearchContext, r: TaskResult, at: number): Partial<ResearchContext> {
  const task = c.tasks.find((t) => t.id === r.taskId);
  if (!task || task.status !== "IN_PROGRESS") return {};
  const sources = [...c.sources];
  const ids = r.sources.map((s) => {
    const known = sources.find((x) => x.url === s.url);
    if (known) return known.id;
    const id = `S${pad(sources.length + 1, 2)}`;
    const ext = s.type.toLowerCase() === "html" ? "html" : s.type.toLowerCase() === "pdf" ? "pdf" : "txt";
    sources.push({ id, url: s.url, title: s.title, type: s.type, accessDate: day(at), localPath: `assets/${ext}/${id.toLowerCase()}.${ext}` });
    return id;
  });
  const facts: Fact[] = [...c.facts];
  const seen = new Set(facts.map((f) => f.statement.toLowerCase()));
  for (const f of r.facts) {
    if (seen.has(f.statement.toLowerCase())) continue;
    seen.add(f.statement.toLowerCase());
    const source = sources.find((s) => s.id === ids[f.source]);
    if (!source) continue;
    facts.push({ id: `Fact-${pad(facts.length + 1, 3)}`, statement: f.statement, source: source.id, confidence: f.confidence, rawFile: source.localPath, extracted: day(at), task: task.id, dimension: task.dimension });
  }
  let tasks = refresh(setStatus(c.tasks, task.id, { status: "COMPLETED", error: undefined }));
  let checkpoint = c.checkpoint;
  const problems = validate(tasks);
  let recoveries = c.recoveries;
  if (problems.length === 0) checkpoint = { iteration: c.iteration, tasks };
  else if (checkpoint) {
    // state-corruption recovery: roll the DAG back to the last consistent checkpoint and continue
    tasks = refresh(checkpoint.tasks);
    recoveries++;
  } else {
    return { tasks, facts, sources, error: { state: "RESEARCHING", message: `the task DAG is inconsistent and there is no checkpoint: ${problems.join("; ")}`, category: "UNKNOWN" } };
  }
  return { tasks, facts, sources, checkpoint, recoveries, tokens: c.tokens + r.tokens, toolsUsed: c.toolsUsed + r.toolsUsed };
}

/** Errors no retry or compensation can get past (the seed's "Any -> ERROR"). */
const UNRECOVERABLE = new Set(["RESOURCE_LIMIT"]);

function applyFailure(c: ResearchContext, taskId: string, message: string, category = "UNKNOWN"): Partial<ResearchContext> {
  const task = c.tasks.find((t) => t.id === taskId);
  if (!task || task.status !== "IN_PROGRESS") return {};
  if (UNRECOVERABLE.has(category)) {
    // the task goes back to PENDING so that a retry from ERROR dispatches it again
    return { tasks: refresh(setStatus(c.tasks, taskId, { status: "PENDING", attempts: 0, error: message })), error: { state: "RESEARCHING", message: `${taskId}: ${message}`, category } };
  }
  if ((task.attempts ?? 1) < c.config.maxAttempts) {
    // retry with an alternative approach (the next attempt changes query and source)
    return { tasks: refresh(setStatus(c.tasks, taskId, { status: "PENDING", error: message })) };
  }
  if (task.critical && !task.compensates) {
    return { tasks: setStatus(c.tasks, taskId, { status: "FAILED", error: message }), escalation: { taskId, error: message } };
  }
  return { tasks: compensate(c.tasks, taskId, message).tasks };
}

function addReflectionTasks(c: ResearchContext, r: Reflection): Task[] {
  let tasks = [...c.tasks];
  for (const g of r.gaps) {
    const id = nextTaskId(tasks, "Search");
    tasks.push({ id, type: "Search", description: `Fill gap in "${g.dimension}": ${g.reason}`, status: "PENDING", dependsOn: [], query: g.query, dimension: g.dimension, attempts: 0 });
  }
  for (const k of r.conflicts) {
    const id = nextTaskId(tasks, "Conflict");
    tasks.push({ id, type: "Conflict", description: `Resolve conflict on ${k.subject}: ${k.detail}`, status: "PENDING", dependsOn: [], query: `${c.topic} ${k.subject}`, attempts: 0 });
  }
  tasks = refresh(tasks);
  return tasks;
}

/** A readable line diff of two plans (the reviewer's modification, stored with the revision). */
export function planDiff(a: Plan | null, b: Plan | null): string {
  const lines = (p: Plan | null) =>
    p ? [...p.dimensions.map((d) => `dimension: ${d}`), ...p.tasks.map((t) => `${t.id} ${t.type}: ${t.description} [${t.dependsOn.join(",")}]`)] : [];
  const before = lines(a);
  const after = lines(b);
  const out = [...before.filter((l) => !after.includes(l)).map((l) => `- ${l}`), ...after.filter((l) => !before.includes(l)).map((l) => `+ ${l}`)];
  return out.join("\n");
}


export const deepResearchMachine = setup({
  types: { context: {} as ResearchContext, events: {} as ResearchEvent, input: {} as ResearchInput },
  actors: {
    plan: effect<PlanOutput, { topic: string; feedback?: string; previous?: Plan | null; edited?: Plan | null; createdAt: number }>("plan"),
    researchTask: effect<TaskResult, { task: Task; topic: string; attempt: number }>("researchTask"),
    reflect: effect<Reflection, { topic: string; plan: Plan; facts: Fact[]; sources: Source[]; round: number; known: string[] }>("reflect"),
    synthesize: effect<{ report: string; adapter: string; tokens: number }, { topic: string; plan: Plan; facts: Fact[]; sources: Source[]; missionId: string }>("synthesize"),
  },
  guards: {
    isTaskResult: ({ event }) => typeof (event as { output?: { taskId?: unknown } }).output?.taskId === "string",
    allTasksDone: ({ context }) => allFinished(context.tasks) && !running(context),
    iterationLimit: ({ context }) => context.iteration >= context.config.maxIterations && !running(context) && !allFinished(context.tasks),
    checkinDue: ({ context }) => context.config.checkinEvery > 0 && context.iteration > 0 && context.iteration - context.lastCheckin >= context.config.checkinEvery && !allFinished(context.tasks),
    escalationPending: ({ context }) => context.escalation !== null,
    unrecoverable: ({ context }) => context.error !== null,
    noFacts: ({ context }) => context.facts.length === 0,
    gapsFound: ({ context, event }) => {
      const r = (event as unknown as { output: Reflection }).output;
      return (r.gaps.length > 0 || r.conflicts.length > 0) && context.reflections.length < context.config.maxReflections && context.iteration < context.config.maxIterations;
    },
    failedIn: ({ context }, params: { state: string }) => context.error?.state === params.state,
  },
  actions: {
    fail: assign(({ event }, params: { state: string }) => {
      const e = (event as { error?: { message?: string; category?: string } }).error;
      return { error: { state: params.state, message: e?.message ?? "unknown error", category: e?.category ?? "UNKNOWN" }, status: "ERROR" as const };
    }),
    dispatch: enqueueActions(({ context, enqueue }) => {
      if (context.iteration >= context.config.maxIterations) return;
      let tasks = refresh(context.tasks);
      const room = context.config.maxIterations - context.iteration;
      const ready = dispatchable(tasks, context.config.concurrency).slice(0, room);
      if (ready.length === 0) {
        if (tasks !== context.tasks) enqueue.assign({ tasks });
        return;
      }
      for (const t of ready) tasks = setStatus(tasks, t.id, { status: "IN_PROGRESS", attempts: (t.attempts ?? 0) + 1 });
      enqueue.assign({ tasks, iteration: context.iteration + ready.length });
      for (const t of ready) {
        const attempt = (t.attempts ?? 0) + 1;
        enqueue.spawnChild("researchTask", { id: `${t.id}.${attempt}`, input: { task: { ...t, status: "IN_PROGRESS", attempts: attempt }, topic: context.topic, attempt } });
      }
    }),
    applyResult: enqueueActions(({ context, event, enqueue }) => {
      const e = event as unknown as { type: string; output: TaskResult; at?: number };
      enqueue.assign(applyResult(context, e.output, e.at ?? 0));
      enqueue(stopChild(childId(e.type)));
    }),
    applyFailure: enqueueActions(({ context, event, enqueue }) => {
      const e = event as unknown as { type: string; error?: { message?: string; category?: string } };
      enqueue.assign(applyFailure(context, childTask(e.type), e.error?.message ?? "sub-agent failed", e.error?.category));
      enqueue(stopChild(childId(e.type)));
    }),
  },
}).createMachine({
  id: "deep-research",
  description: "Deep research orchestration",
  initial: "PLANNING",
  context: ({ input }) => ({
    config: { ...defaultResearchConfig, ...(input.config ?? {}) },
    topic: input.topic,
    missionId: "",
    createdAt: "",
    status: "PLANNING",
    plan: null,
    planVersion: 0,
    revisions: [],
    pendingEdit: null,
    tasks: [],
    facts: [],
    sources: [],
    iteration: 0,
    reflections: [],
    report: null,
    reportAdapter: null,
    tokens: 0,
    toolsUsed: 0,
    checkpoint: null,
    recoveries: 0,
    lastCheckin: 0,
    escalation: null,
    error: null,
  }),
  on: {
    ABORT: { target: ".ABORTED", description: "User abort (partial results kept)" },
    "xstate.done.actor.*": { guard: "isTaskResult", actions: "applyResult", description: "Sub-agent result arrives (recorded, no new dispatch)" },
    "xstate.error.actor.*": { actions: "applyFailure", description: "Sub-agent failed (recorded, no new dispatch)" },
  },
  states: {
    PLANNING: {
      description: "Generate a research plan (dimensions, tasks) and present it for approval.",
      meta: { summary: "Planning the research" } satisfies StateMeta,
      entry: assign({ status: "PLANNING" as const }),
      initial: "generating",
      states: {
        generating: {
          meta: { summary: "Generating the plan" } satisfies StateMeta,
          invoke: {
            id: "planner",
            src: "plan",
            input: ({ context, event }) => ({
              topic: context.topic,
              feedback: context.pendingEdit?.feedback,
              previous: context.plan,
              edited: context.pendingEdit?.plan ?? null,
              createdAt: context.createdAt ? Date.parse(context.createdAt) : ((event as Stamp).at ?? 0),
            }),
            onDone: {
              target: "approval",
              description: "Plan generated",
              actions: assign(({ context, event }) => ({
                plan: event.output.plan,
                planVersion: context.planVersion + 1,
                missionId: context.missionId || event.output.missionId,
                createdAt: context.createdAt || `${new Date((event as Stamp).at ?? 0).toISOString().slice(0, 19)}Z`,
                pendingEdit: null,
                tokens: context.tokens + event.output.tokens,
              })),
            },
            onError: { target: "#deep-research.ERROR", description: "Unrecoverable error", actions: { type: "fail", params: { state: "PLANNING" } } },
          },
        },
        approval: {
          tags: ["waiting", "human"],
          description: "The user approves the plan, modifies it (re-planned), or aborts.",
          meta: { summary: "Waiting for plan approval", review: { kind: "plan_approval", decisions: ["approve", "modify", "abort"] } } satisfies StateMeta,
          on: {
            APPROVE: {
              target: "#deep-research.RESEARCHING",
              description: "User approves plan",
              // what the reviewer approves is what runs: an edited plan sent with the approval replaces the proposed one
              actions: assign(({ context, event }) => {
                const plan = event.plan ? { ...event.plan, topic: context.plan?.topic ?? event.plan.topic } : context.plan;
                const tasks = refresh((plan?.tasks ?? []).map((t) => ({ ...t, status: "BLOCKED" as const, attempts: 0 })));
                const edited = event.plan ? { plan, planVersion: context.planVersion + 1, revisions: [...context.revisions, { version: context.planVersion, feedback: event.feedback ?? "edited on approval", diff: planDiff(context.plan, event.plan), plan: context.plan }] } : {};
                return { ...edited, tasks, checkpoint: { iteration: 0, tasks } };
              }),
            },
            MODIFY: {
              target: "generating",
              description: "User modifies the plan (re-plan)",
              actions: assign(({ context, event }) => ({
                pendingEdit: { plan: event.plan ?? null, feedback: event.feedback ?? "" },
                revisions: [...context.revisions, { version: context.planVersion, feedback: event.feedback ?? "", diff: planDiff(context.plan, event.plan ?? null), plan: context.plan }],
              })),
            },
          },
        },
      },
    },

    RESEARCHING: {
      description: "Execute the task DAG: dispatch ready tasks to sub-agents, update the knowledge graph, source registry and DAG.",
      meta: { summary: "Researching (task DAG)" } satisfies StateMeta,
      entry: assign({ status: "RESEARCHING" as const }),
      initial: "working",
      on: {
        "xstate.done.actor.*": { guard: "isTaskResult", actions: "applyResult", description: "Sub-agent result (no dispatch while paused)" },
        "xstate.error.actor.*": { actions: "applyFailure", description: "Sub-agent failed (no dispatch while paused)" },
      },
      states: {
        working: {
          meta: { summary: "Dispatching tasks to sub-agents" } satisfies StateMeta,
          entry: "dispatch",
          on: {
            "xstate.done.actor.*": { guard: "isTaskResult", actions: ["applyResult", "dispatch"], description: "Update state, find next task" },
            "xstate.error.actor.*": { actions: ["applyFailure", "dispatch"], description: "Task failed: retry or compensate" },
          },
          always: [
            { guard: "unrecoverable", target: "#deep-research.ERROR", description: "Unrecoverable error", actions: assign({ status: "ERROR" as const }) },
            { guard: "escalationPending", target: "escalated", description: "Critical task failed: escalate to the user" },
            { guard: "allTasksDone", target: "#deep-research.REFLECTING", description: "All current DAG tasks marked [x]" },
            { guard: "checkinDue", target: "checkin", description: "Every 10 iterations: user check-in" },
            {
              guard: "iterationLimit",
              target: "#deep-research.SYNTHESIZING",
              description: "max_iterations reached: forced to SYNTHESIZING",
              actions: assign({ status: "SYNTHESIZING" as const }),
            },
          ],
        },
        checkin: {
          tags: ["waiting", "human"],
          description: "Optional check-in: continue researching or synthesize what there is.",
          meta: { summary: "Check-in with the reviewer", review: { kind: "checkin", decisions: ["continue", "synthesize", "abort"] } } satisfies StateMeta,
          on: {
            CONTINUE: { target: "working", description: "Continue researching", actions: assign(({ context }) => ({ lastCheckin: context.iteration })) },
            SYNTHESIZE: { target: "#deep-research.SYNTHESIZING", description: "Synthesize now", actions: assign(({ context }) => ({ lastCheckin: context.iteration })) },
          },
        },
        escalated: {
          tags: ["waiting", "human"],
          description: "A critical task failed twice: retry it or skip it with a compensating task.",
          meta: { summary: "A critical task failed", review: { kind: "escalation", decisions: ["retry", "skip", "abort"] } } satisfies StateMeta,
          on: {
            RETRY: {
              target: "working",
              description: "Retry the failed task",
              actions: assign(({ context }) => ({
                tasks: refresh(setStatus(context.tasks, context.escalation!.taskId, { status: "PENDING", attempts: 0, error: undefined })),
                escalation: null,
              })),
            },
            SKIP: {
              target: "working",
              description: "Skip it: add a compensating task",
              actions: assign(({ context }) => ({ tasks: compensate(context.tasks, context.escalation!.taskId, context.escalation!.error).tasks, escalation: null })),
            },
          },
        },
      },
    },

    REFLECTING: {
      description: "Check completeness: gaps and conflicts add tasks (C* for conflicts) and loop back; otherwise synthesize.",
      meta: { summary: "Reflecting on gaps and conflicts" } satisfies StateMeta,
      entry: assign({ status: "REFLECTING" as const }),
      invoke: {
        id: "reflector",
        src: "reflect",
        // the conflicts earlier rounds raised (their C tasks exist): not raised again
        input: ({ context }) => ({ topic: context.topic, plan: context.plan!, facts: context.facts, sources: context.sources, round: context.reflections.length + 1, known: context.reflections.flatMap((r) => r.conflicts.map((k) => k.subject)) }),
        onDone: [
          {
            guard: "gapsFound",
            target: "RESEARCHING",
            description: "Gaps or conflicts detected",
            actions: assign(({ context, event }) => ({ reflections: [...context.reflections, event.output], tasks: addReflectionTasks(context, event.output) })),
          },
          {
            target: "SYNTHESIZING",
            description: "Completeness confirmed, no critical gaps",
            actions: assign(({ context, event }) => ({ reflections: [...context.reflections, event.output] })),
          },
        ],
        onError: { target: "ERROR", description: "Unrecoverable error", actions: { type: "fail", params: { state: "REFLECTING" } } },
      },
    },

    SYNTHESIZING: {
      description: "Write report.md with citations to the source registry.",
      meta: { summary: "Writing report.md" } satisfies StateMeta,
      entry: assign({ status: "SYNTHESIZING" as const }),
      always: { guard: "noFacts", target: "ERROR", description: "Nothing was found to synthesize", actions: assign({ error: { state: "SYNTHESIZING", message: "no facts were collected: nothing to synthesize", category: "BUSINESS" }, status: "ERROR" as const }) },
      invoke: {
        id: "synthesizer",
        src: "synthesize",
        input: ({ context }) => ({ topic: context.topic, plan: context.plan!, facts: context.facts, sources: context.sources, missionId: context.missionId }),
        onDone: {
          target: "COMPLETED",
          description: "report.md generated successfully",
          actions: assign(({ context, event }) => ({ report: event.output.report, reportAdapter: event.output.adapter, tokens: context.tokens + event.output.tokens })),
        },
        onError: { target: "ERROR", description: "Unrecoverable error", actions: { type: "fail", params: { state: "SYNTHESIZING" } } },
      },
    },

    COMPLETED: {
      type: "final",
      description: "Research finished: report.md delivered.",
      meta: { summary: "Research finished" } satisfies StateMeta,
      entry: assign({ status: "COMPLETED" as const }),
    },

    ERROR: {
      tags: ["waiting", "human", "error"],
      description: "Unrecoverable error: the user is notified and decides (retry the failed step, or abort).",
      meta: { summary: "Error: needs your intervention", review: { kind: "intervention", decisions: ["retry", "abort"] } } satisfies StateMeta,
      entry: assign({ status: "ERROR" as const }),
      on: {
        RETRY: [
          { guard: { type: "failedIn", params: { state: "PLANNING" } }, target: "PLANNING", description: "Retry planning", actions: assign({ error: null }) },
          { guard: { type: "failedIn", params: { state: "REFLECTING" } }, target: "REFLECTING", description: "Retry reflection", actions: assign({ error: null }) },
          { guard: { type: "failedIn", params: { state: "SYNTHESIZING" } }, target: "SYNTHESIZING", description: "Retry synthesis", actions: assign({ error: null }) },
          { target: "RESEARCHING", description: "Retry research", actions: assign({ error: null }) },
        ],
      },
    },

    ABORTED: {
      type: "final",
      tags: ["aborted"],
      description: "Aborted by the user; task.md, facts and sources so far are kept.",
      meta: { summary: "Aborted (partial results kept)" } satisfies StateMeta,
    },
  },
});

const reviewFields = { feedback: z.string().max(10_000).optional(), reviewer: z.string().max(200).optional() };

export const deepResearch = {
  id: "deep-research",
  title: "Deep Research",
  seed: "002_e88dd3f43d766dd9.txt",
  description:
    "Plan a research mission, get the plan approved, run a DAG of search and read tasks through sub-agents, reflect on gaps and conflicts, and write report.md with cited sources.",
  machine: deepResearchMachine,
  input: z
    .object({
      topic: z.string().trim().min(3, "topic must be at least 3 characters").max(500),
      config: z
        .object({
          maxIterations: z.number().int().min(1).max(500),
          concurrency: z.number().int().min(1).max(16),
          checkinEvery: z.number().int().min(0).max(500),
          progressEvery: z.number().int().min(1).max(500),
          maxAttempts: z.number().int().min(1).max(5),
          maxReflections: z.number().int().min(0).max(10),
        })
        .partial()
        .strict()
        .optional(),
    })
    .strict(),
  events: {
    APPROVE: z.object({ type: z.literal("APPROVE"), ...reviewFields, plan: PlanSchema.optional() }).strict(),
    MODIFY: z.object({ type: z.literal("MODIFY"), ...reviewFields, plan: PlanSchema.optional() }).strict(),
    ABORT: z.object({ type: z.literal("ABORT"), reason: z.string().max(2_000).optional(), ...reviewFields }).strict(),
    CONTINUE: z.object({ type: z.literal("CONTINUE"), ...reviewFields }).strict(),
    SYNTHESIZE: z.object({ type: z.literal("SYNTHESIZE"), ...reviewFields }).strict(),
    RETRY: z.object({ type: z.literal("RETRY"), ...reviewFields }).strict(),
    SKIP: z.object({ type: z.literal("SKIP"), ...reviewFields }).strict(),
  },
  review: (state, ctx) => {
    const c = ctx as ResearchContext;
    if (state.endsWith("approval")) {
      return {
        prompt: `Approve the research plan for "${c.topic}" (version ${c.planVersion})`,
        // the first version, for "changes since v1"
        payload: { kind: "plan", topic: c.topic, plan: c.plan, version: c.planVersion, revisions: c.revisions.length, first: c.revisions[0]?.plan ? { version: c.revisions[0].version, plan: c.revisions[0].plan } : null, missionId: c.missionId },
      };
    }
    if (state.endsWith("checkin")) {
      return {
        prompt: `Check-in at iteration ${c.iteration}: continue researching "${c.topic}" or synthesize now?`,
        payload: { kind: "checkin", iteration: c.iteration, facts: c.facts.length, sources: c.sources.length, open: c.tasks.filter((t) => t.status !== "COMPLETED" && t.status !== "FAILED").length },
      };
    }
    if (state.endsWith("escalated")) {
      const task = c.tasks.find((t) => t.id === c.escalation?.taskId);
      return { prompt: `Critical task ${task?.id} failed: ${c.escalation?.error}`, payload: { kind: "escalation", task, error: c.escalation?.error } };
    }
    return { prompt: `Research "${c.topic}" stopped in ${c.error?.state}: ${c.error?.message}`, payload: { kind: "intervention", error: c.error } };
  },
  output: (ctx) => {
    const c = ctx as ResearchContext;
    return { missionId: c.missionId, status: c.status, iteration: c.iteration, facts: c.facts.length, sources: c.sources.length, report: c.report ? "report.md" : null };
  },
  artifacts: researchArtifacts,
  result: (ctx) => {
    const c = ctx as ResearchContext;
    return c.report ? { title: "Report", text: c.report, file: "report.md", by: c.reportAdapter ?? null } : null;
  },
  // what a fork may edit: what the run's input gave; the rest is the machine's and its effects'
  forkEditable: ["config", "topic"],
  example: { topic: "How do durable workflow engines recover from crashes?" },
} satisfies WorkflowDefinition;
