// Domain-agent (workflows/domain-agent/guide.md) — the domain-aware agent over a personal log, as one XState v5 machine.
// ROUTE (QUERY | LOG | BOTH, domains) → BUILD_CONTEXT → the query flow (PLAN → RETRIEVE →
// ANALYZE, with re-plan, EXPAND_DOMAIN, CLARIFY → WAIT_USER, SYNTHESIZE → EVALUATE with
// retries), the log flow (PARSE → STORE), or both as parallel regions (BOTH_SPLIT); then
// OBSERVE decides whether to update the global context, and the run is COMPLETE.
import { assign, setup } from "xstate";
import { z } from "zod";
import type { ActiveDomainContext, ParsedEntry } from "./domains/types";
import type {
  AgentConfig,
  AgentContext,
  Analysis,
  Answer,
  Clarification,
  Evaluation,
  ObserveResult,
  QueryPlan,
  RetrievedEntry,
  RouteResult,
  StoredLog,
  Trigger,
} from "./types";
import { effect } from "../../lib/machines/effect";
import type { StateMeta, WorkflowDefinition } from "../../lib/machines/types";

export const defaultAgentConfig: AgentConfig = { maxEvalRetries: 2, maxReplans: 2, maxExpansions: 2 };

type Stamp = { at?: number };
type Decision = Stamp & { feedback?: string; reviewer?: string };
export type AgentEvent =
  | (Decision & { type: "ANSWER"; answer?: string })
  | (Decision & { type: "DECLINE" })
  | (Decision & { type: "RETRY" })
  | (Decision & { type: "ABORT"; reason?: string })
  | (Stamp & { type: `xstate.done.actor.${string}`; output: unknown })
  | (Stamp & { type: `xstate.error.actor.${string}`; error?: { message?: string } });

export interface AgentInput {
  text: string;
  today?: string;
  config?: Partial<AgentConfig>;
}

export interface PlanInput {
  query: string;
  context: ActiveDomainContext;
  round: number;
  replans: number;
  retryCount: number;
  widen: number;
  analysis: Analysis | null;
  evaluation: Evaluation | null;
  clarification: Clarification | null;
  canExpand: boolean;
  today: string;
}

const out = <T>(event: unknown) => (event as { output: T }).output;

/** Which observer triggers fired (Observer Integration: workflows/domain-agent/guide.md). */
export function triggersOf(c: AgentContext): Trigger[] {
  const t: Trigger[] = [];
  if (c.answer) t.push("post_query");
  if ((c.route?.corrections.length ?? 0) > 0 || c.clarification?.answer) t.push("user_correction");
  if ((c.stored?.significant.length ?? 0) > 0) t.push("significant_log");
  return t;
}

function newDomains(c: AgentContext, requested: string[] | undefined): string[] {
  return (requested ?? []).filter((d) => !c.domains.includes(d));
}

const expansionLeft = (c: AgentContext) => c.expansions.length < c.config.maxExpansions;

/** Model errors (the port already retried them with backoff) go to a person; anything else fails the run. */
const MODEL_ERRORS = new Set(["LLM", "NETWORK"]);
const isModelFailure = (event: unknown) => MODEL_ERRORS.has((event as { error?: { category?: string } }).error?.category ?? "");

/** The states a person can retry from ERROR; a step of BOTH_SPLIT's regions retries both regions. */
const RETRYABLE = ["ROUTE", "BUILD_CONTEXT", "PLAN", "ANALYZE", "CLARIFY", "SYNTHESIZE", "EVALUATE", "OBSERVE", "BOTH_SPLIT"] as const;

/** onError of a step: a model error asks a person (ERROR), any other error fails the run. */
export function onStepError(state: string, retry: string = state) {
  return [
    { guard: "modelFailure" as const, target: "#domain-agent.ERROR", description: "Model error after retries: ask a person", actions: { type: "fail" as const, params: { state, retry } } },
    { target: "#domain-agent.FAILED", actions: { type: "fail" as const, params: { state, retry } } },
  ];
}

export const domainAgentMachine = setup({
  types: { context: {} as AgentContext, events: {} as AgentEvent, input: {} as AgentInput },
  actors: {
    route: effect<RouteResult, { text: string; today?: string }>("route"),
    buildContext: effect<ActiveDomainContext, { domains: string[] }>("buildContext"),
    plan: effect<QueryPlan, PlanInput>("plan"),
    retrieve: effect<{ entries: RetrievedEntry[] }, { plan: QueryPlan; fresh: ParsedEntry[] }>("retrieve"),
    analyze: effect<Analysis, { query: string; plan: QueryPlan; entries: RetrievedEntry[]; context: ActiveDomainContext; clarification: Clarification | null; canExpand: boolean }>("analyze"),
    clarify: effect<Clarification, { query: string; plan: QueryPlan; context: ActiveDomainContext }>("clarify"),
    synthesize: effect<Answer, { query: string; plan: QueryPlan | null; analysis: Analysis | null; context: ActiveDomainContext; clarification: Clarification | null; partial: boolean; entries: RetrievedEntry[] }>("synthesize"),
    evaluate: effect<Evaluation, { query: string; answer: Answer; analysis: Analysis | null; plan: QueryPlan | null; partial: boolean }>("evaluate"),
    parse: effect<{ entries: ParsedEntry[] }, { text: string; today: string }>("parse"),
    store: effect<StoredLog, { entries: ParsedEntry[] }>("store"),
    observe: effect<ObserveResult, { triggers: Trigger[]; context: AgentContext }>("observe"),
  },
  guards: {
    isQuery: ({ context }) => context.inputType === "QUERY",
    isLog: ({ context }) => context.inputType === "LOG",
    planSays: ({ event }, params: { decision: QueryPlan["decision"] }) => out<QueryPlan>(event).decision === params.decision,
    planExpands: ({ context, event }) => {
      const p = out<QueryPlan>(event);
      return p.decision === "EXPAND_DOMAIN" && expansionLeft(context) && newDomains(context, p.expand).length > 0;
    },
    planClarifies: ({ context, event }) => out<QueryPlan>(event).decision === "CLARIFY" && !context.clarification?.declined && !context.clarification?.answer,
    analysisGap: ({ context, event }) => {
      const a = out<Analysis>(event);
      return !!a.gap?.outside_current_expertise && !!a.gap.suspected_domain && expansionLeft(context) && newDomains(context, [a.gap.suspected_domain]).length > 0;
    },
    analysisSufficient: ({ event }) => out<Analysis>(event).verdict === "SUFFICIENT",
    canReplan: ({ context }) => context.replans < context.config.maxReplans,
    evaluationPassed: ({ event }) => out<Evaluation>(event).verdict === "PASS",
    canRetry: ({ context }) => context.retryCount < context.config.maxEvalRetries,
    modelFailure: ({ event }) => isModelFailure(event),
    retryFrom: ({ context }, params: { state: string }) => context.error?.retry === params.state,
  },
  actions: {
    setRoute: assign(({ event }) => {
      const r = out<RouteResult>(event);
      return { route: r, inputType: r.inputType, domains: r.domains, today: r.today };
    }),
    setDomainContext: assign(({ event }) => ({ domainContext: out<ActiveDomainContext>(event) })),
    setPlan: assign(({ context, event }) => ({ plan: out<QueryPlan>(event), plans: context.plans + 1 })),
    expandFromPlan: assign(({ context, event }) => {
      const p = out<QueryPlan>(event);
      const domains = newDomains(context, p.expand);
      return { domains: [...context.domains, ...domains], expansions: [...context.expansions, { from: "PLAN" as const, domains, reason: p.reason }] };
    }),
    setRetrieved: assign(({ event }) => ({ retrieved: out<{ entries: RetrievedEntry[] }>(event).entries })),
    setAnalysis: assign(({ event }) => ({ analysis: out<Analysis>(event) })),
    expandFromAnalysis: assign(({ context, event }) => {
      const a = out<Analysis>(event);
      const domains = newDomains(context, [a.gap!.suspected_domain!]);
      return { domains: [...context.domains, ...domains], expansions: [...context.expansions, { from: "ANALYZE" as const, domains, reason: a.gap!.description }] };
    }),
    // a re-plan after a retrieval looks further back; one after a clarification (nothing retrieved yet) does not
    countReplan: assign(({ context }) => ({ replans: context.replans + 1, widen: context.widen + (context.plan?.decision === "RETRIEVE" ? 1 : 0) })),
    markPartial: assign({ partial: true }),
    setClarification: assign(({ event }) => ({ clarification: out<Clarification>(event) })),
    recordAnswer: assign(({ context, event }) => ({
      clarification: { ...context.clarification!, answer: ((event as { answer?: string }).answer ?? (event as { feedback?: string }).feedback ?? "").trim() },
    })),
    recordDecline: assign(({ context }) => ({ clarification: { ...context.clarification!, declined: true } })),
    setAnswer: assign(({ context, event }) => {
      const a = out<Answer>(event);
      return { answer: a, tokens: context.tokens + a.tokens };
    }),
    setEvaluation: assign(({ event }) => ({ evaluation: out<Evaluation>(event) })),
    countRetry: assign(({ context }) => ({ retryCount: context.retryCount + 1, widen: context.widen + 1 })),
    setParsed: assign(({ event }) => ({ parsed: out<{ entries: ParsedEntry[] }>(event).entries })),
    setStored: assign(({ event }) => ({ stored: out<StoredLog>(event) })),
    setObservation: assign(({ event }) => ({ observation: out<ObserveResult>(event) })),
    fail: assign(({ event }, params: { state: string; retry?: string }) => {
      const e = (event as { error?: { message?: string; category?: string } }).error;
      // the model port's classification (NETWORK, LLM, BUSINESS, RESOURCE_LIMIT, …) is kept with the error
      return { error: { state: params.state, retry: params.retry ?? params.state, message: e?.message ?? "unknown error", ...(e?.category ? { category: e.category } : {}) } };
    }),
  },
}).createMachine({
  id: "domain-agent",
  description: "Domain-aware agent over a personal log",
  initial: "ROUTE",
  context: ({ input }) => ({
    config: { ...defaultAgentConfig, ...(input.config ?? {}) },
    text: input.text,
    today: input.today ?? null,
    route: null,
    inputType: null,
    domains: [],
    domainContext: null,
    expansions: [],
    plan: null,
    plans: 0,
    replans: 0,
    retrieved: [],
    analysis: null,
    clarification: null,
    answer: null,
    evaluation: null,
    retryCount: 0,
    widen: 0,
    partial: false,
    parsed: [],
    stored: null,
    observation: null,
    tokens: 0,
    error: null,
  }),
  states: {
    ROUTE: {
      description: "Classify the input as QUERY, LOG or BOTH and select the domains it touches.",
      meta: { summary: "Routing the input" } satisfies StateMeta,
      invoke: {
        src: "route",
        input: ({ context }) => ({ text: context.text, today: context.today ?? undefined }),
        onDone: { target: "BUILD_CONTEXT", description: "Always (domains selected)", actions: "setRoute" },
        onError: onStepError("ROUTE"),
      },
    },
    BUILD_CONTEXT: {
      description: "Assemble the ActiveDomainContext (vocabulary, expertise, retrieval hints) from the selected domain modules.",
      meta: { summary: "Building the domain context" } satisfies StateMeta,
      invoke: {
        src: "buildContext",
        input: ({ context }) => ({ domains: context.domains }),
        onDone: [
          { guard: "isQuery", target: "PLAN", description: "input_type == QUERY", actions: "setDomainContext" },
          { guard: "isLog", target: "PARSE", description: "input_type == LOG", actions: "setDomainContext" },
          { target: "BOTH_SPLIT", description: "input_type == BOTH (PLAN + PARSE in parallel)", actions: "setDomainContext" },
        ],
        onError: onStepError("BUILD_CONTEXT"),
      },
    },
    ...queryFlow("OBSERVE"),
    PARSE: {
      description: "Extract structured entries: day, metrics with units, free text, domain tags.",
      meta: { summary: "Parsing the log" } satisfies StateMeta,
      invoke: {
        src: "parse",
        input: ({ context }) => ({ text: context.route ? context.route.logText : context.text, today: context.today ?? "" }),
        onDone: { target: "STORE", description: "Always", actions: "setParsed" },
        onError: { target: "FAILED", actions: { type: "fail", params: { state: "PARSE" } } },
      },
    },
    STORE: {
      description: "Persist the entries and check which are significant.",
      meta: { summary: "Storing the entries" } satisfies StateMeta,
      invoke: {
        src: "store",
        input: ({ context }) => ({ entries: context.parsed }),
        onDone: { target: "OBSERVE", description: "Always (check significant log)", actions: "setStored" },
        onError: { target: "FAILED", actions: { type: "fail", params: { state: "STORE" } } },
      },
    },
    BOTH_SPLIT: {
      type: "parallel",
      description: "Input holds log lines and a question: the log branch and the query branch run side by side.",
      meta: { summary: "Logging and answering in parallel" } satisfies StateMeta,
      onDone: { target: "OBSERVE", description: "Both branches done" },
      states: {
        PARSE_BRANCH: {
          initial: "PARSE",
          description: "The log branch (PARSE → STORE).",
          meta: { summary: "Log branch" } satisfies StateMeta,
          states: {
            PARSE: {
              meta: { summary: "Parsing the log lines" } satisfies StateMeta,
              invoke: {
                src: "parse",
                input: ({ context }) => ({ text: context.route ? context.route.logText : context.text, today: context.today ?? "" }),
                onDone: { target: "STORE", description: "Always", actions: "setParsed" },
                onError: { target: "#domain-agent.FAILED", actions: { type: "fail", params: { state: "PARSE" } } },
              },
            },
            STORE: {
              meta: { summary: "Storing the entries" } satisfies StateMeta,
              invoke: {
                src: "store",
                input: ({ context }) => ({ entries: context.parsed }),
                onDone: { target: "LOGGED", description: "Always", actions: "setStored" },
                onError: { target: "#domain-agent.FAILED", actions: { type: "fail", params: { state: "STORE" } } },
              },
            },
            LOGGED: { type: "final", meta: { summary: "Log stored" } satisfies StateMeta },
          },
        },
        PLAN_BRANCH: {
          initial: "PLAN",
          description: "The query branch (PLAN → … → EVALUATE).",
          meta: { summary: "Query branch" } satisfies StateMeta,
          states: {
            ...queryFlow("ANSWERED"),
            BUILD_CONTEXT: {
              description: "Rebuild the ActiveDomainContext with the expanded domains.",
              meta: { summary: "Rebuilding the domain context" } satisfies StateMeta,
              invoke: {
                src: "buildContext",
                input: ({ context }) => ({ domains: context.domains }),
                onDone: { target: "PLAN", description: "Rebuilt: plan again", actions: "setDomainContext" },
                onError: onStepError("BUILD_CONTEXT", "BOTH_SPLIT"),
              },
            },
            ANSWERED: { type: "final", meta: { summary: "Answer ready" } satisfies StateMeta },
          },
        },
      },
    },
    OBSERVE: {
      description: "The observer: on post_query, user_correction or significant_log, decide whether to update the global context, and record why.",
      meta: { summary: "Observing: update the global context?" } satisfies StateMeta,
      invoke: {
        src: "observe",
        input: ({ context }) => ({ triggers: triggersOf(context), context }),
        onDone: { target: "COMPLETE", description: "Always", actions: "setObservation" },
        onError: onStepError("OBSERVE"),
      },
    },
    ERROR: {
      tags: ["waiting", "human", "error"],
      description: "A model call failed after its retries (a reply that never matched its schema, an endpoint down): a person retries the step or aborts.",
      meta: { summary: "Error: needs your intervention", review: { kind: "intervention", decisions: ["retry", "abort"] } } satisfies StateMeta,
      on: {
        RETRY: RETRYABLE.map((state) => ({
          guard: { type: "retryFrom" as const, params: { state } },
          target: `#domain-agent.${state}`,
          description: `Retry ${state}`,
          actions: assign({ error: null }),
        })),
        ABORT: { target: "FAILED", description: "Abort (what was produced is kept)" },
      },
    },
    COMPLETE: { type: "final", description: "Done.", meta: { summary: "Complete" } satisfies StateMeta },
    FAILED: { type: "final", tags: ["failed"], description: "A step failed; what was produced so far is kept.", meta: { summary: "Failed" } satisfies StateMeta },
  },
});

/**
 * The query flow of the seed's table, written once: at the top level (exit → OBSERVE) and in
 * BOTH_SPLIT's query region (exit → ANSWERED, EXPAND_DOMAIN → the region's own BUILD_CONTEXT,
 * so that the log branch keeps running).
 */
function queryFlow(exit: string) {
  // inside BOTH_SPLIT a retry re-enters both regions (PARSE and STORE are idempotent per run)
  const failed = (state: string) => onStepError(state, exit === "ANSWERED" ? "BOTH_SPLIT" : state);
  const canExpandInput = (c: AgentContext) => expansionLeft(c);
  return {
    PLAN: {
      description: "Plan the retrieval: which domains, metrics and days answer the question; or expand, clarify, or answer at once.",
      meta: { summary: "Planning the query" } satisfies StateMeta,
      invoke: {
        src: "plan" as const,
        input: ({ context }: { context: AgentContext }): PlanInput => ({
          query: context.route?.queryText || context.text,
          context: context.domainContext!,
          round: context.plans + 1,
          replans: context.replans,
          retryCount: context.retryCount,
          widen: context.widen,
          analysis: context.analysis,
          evaluation: context.evaluation,
          clarification: context.clarification,
          canExpand: canExpandInput(context),
          today: context.today ?? "",
        }),
        onDone: [
          { guard: "planExpands" as const, target: "EXPAND_DOMAIN", description: "Domain gap (proactive)", actions: ["setPlan", "expandFromPlan"] as const },
          { guard: "planClarifies" as const, target: "CLARIFY", description: "Non-retrievable gaps", actions: "setPlan" as const },
          { guard: { type: "planSays" as const, params: { decision: "SYNTHESIZE" as const } }, target: "SYNTHESIZE", description: "Already sufficient", actions: "setPlan" as const },
          { target: "RETRIEVE", description: "Normal", actions: "setPlan" as const },
        ],
        onError: failed("PLAN"),
      },
    },
    RETRIEVE: {
      description: "Fetch the log entries the plan asks for (domains, metrics, days, terms).",
      meta: { summary: "Retrieving entries" } satisfies StateMeta,
      invoke: {
        src: "retrieve" as const,
        input: ({ context }: { context: AgentContext }) => ({ plan: context.plan!, fresh: context.parsed }),
        onDone: { target: "ANALYZE", description: "Always", actions: "setRetrieved" as const },
        onError: failed("RETRIEVE"),
      },
    },
    ANALYZE: {
      description: "Compare the entries against the question and the domains' expertise: sufficient, insufficient, or a gap outside the current expertise.",
      meta: { summary: "Analyzing the entries" } satisfies StateMeta,
      invoke: {
        src: "analyze" as const,
        input: ({ context }: { context: AgentContext }) => ({
          query: context.route?.queryText || context.text,
          plan: context.plan!,
          entries: context.retrieved,
          context: context.domainContext!,
          clarification: context.clarification,
          canExpand: canExpandInput(context),
        }),
        onDone: [
          { guard: "analysisGap" as const, target: "EXPAND_DOMAIN", description: "Domain gap detected (gap.outside_current_expertise)", actions: ["setAnalysis", "expandFromAnalysis"] as const },
          { guard: "analysisSufficient" as const, target: "SYNTHESIZE", description: "Sufficient", actions: "setAnalysis" as const },
          { guard: "canReplan" as const, target: "PLAN", description: "Insufficient (re-plan)", actions: ["setAnalysis", "countReplan"] as const },
          { target: "SYNTHESIZE", description: "Insufficient, re-plan limit reached (partial)", actions: ["setAnalysis", "markPartial"] as const },
        ],
        onError: failed("ANALYZE"),
      },
    },
    EXPAND_DOMAIN: {
      description: "Load the suspected domain module(s); the context is rebuilt with their expertise.",
      meta: { summary: "Expanding the domains" } satisfies StateMeta,
      always: { target: "BUILD_CONTEXT", description: "Always (rebuild with new domains)" },
    },
    CLARIFY: {
      description: "Phrase the question only the person can answer (a non-retrievable gap).",
      meta: { summary: "Asking for clarification" } satisfies StateMeta,
      invoke: {
        src: "clarify" as const,
        input: ({ context }: { context: AgentContext }) => ({ query: context.route?.queryText || context.text, plan: context.plan!, context: context.domainContext! }),
        onDone: { target: "WAIT_USER", description: "Always", actions: "setClarification" as const },
        onError: failed("CLARIFY"),
      },
    },
    WAIT_USER: {
      tags: ["waiting", "human"],
      description: "The person answers the question, or declines and the agent answers with what it has.",
      meta: { summary: "Waiting for your answer", review: { kind: "clarification", decisions: ["answer", "decline"] } } satisfies StateMeta,
      on: {
        ANSWER: { target: "ANALYZE", description: "User provided info", actions: "recordAnswer" as const },
        DECLINE: { target: "SYNTHESIZE", description: "User declined", actions: "recordDecline" as const },
      },
    },
    SYNTHESIZE: {
      description: "Write the answer from the findings, citing the entries it rests on.",
      meta: { summary: "Writing the answer" } satisfies StateMeta,
      invoke: {
        src: "synthesize" as const,
        input: ({ context }: { context: AgentContext }) => ({
          query: context.route?.queryText || context.text,
          plan: context.plan,
          analysis: context.analysis,
          context: context.domainContext!,
          clarification: context.clarification,
          partial: context.partial,
          entries: context.retrieved,
        }),
        onDone: { target: "EVALUATE", description: "Always", actions: "setAnswer" as const },
        onError: failed("SYNTHESIZE"),
      },
    },
    EVALUATE: {
      description: "Check the answer: does it address the question, cite entries, explain a cause when asked why?",
      meta: { summary: "Evaluating the answer" } satisfies StateMeta,
      invoke: {
        src: "evaluate" as const,
        input: ({ context }: { context: AgentContext }) => ({ query: context.route?.queryText || context.text, answer: context.answer!, analysis: context.analysis, plan: context.plan, partial: context.partial }),
        onDone: [
          { guard: "evaluationPassed" as const, target: exit, description: "verdict == PASS", actions: "setEvaluation" as const },
          { guard: "canRetry" as const, target: "PLAN", description: "verdict == FAIL, retry_count < max (retry)", actions: ["setEvaluation", "countRetry"] as const },
          { target: exit, description: "verdict == FAIL, retry_count >= max (partial)", actions: ["setEvaluation", "markPartial"] as const },
        ],
        onError: failed("EVALUATE"),
      },
    },
  };
}

const decisionFields = { feedback: z.string().max(10_000).optional(), reviewer: z.string().max(200).optional() };
const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "must be a day, YYYY-MM-DD").refine((d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)), "not a real day");

export const domainAgent = {
  id: "domain-agent",
  title: "Domain Agent",
  seed: "000_9377210eaa920f57.txt",
  description:
    "A personal assistant over your own log (training, recovery, sleep, nutrition, mood): log lines are parsed and stored, questions are planned, answered from the entries with domain expertise, evaluated, and an observer keeps your global context up to date.",
  machine: domainAgentMachine,
  input: z
    .object({
      text: z.string().trim().min(2, "text must be at least 2 characters").max(20_000),
      today: day.optional(),
      config: z
        .object({ maxEvalRetries: z.number().int().min(0).max(10), maxReplans: z.number().int().min(0).max(10), maxExpansions: z.number().int().min(0).max(5) })
        .partial()
        .strict()
        .optional(),
    })
    .strict(),
  events: {
    ANSWER: z
      .object({ type: z.literal("ANSWER"), answer: z.string().max(5_000).optional(), ...decisionFields })
      .strict()
      .refine((e) => (e.answer ?? e.feedback ?? "").trim().length > 0, { message: "an answer is required (or decline)", path: ["answer"] }),
    DECLINE: z.object({ type: z.literal("DECLINE"), ...decisionFields }).strict(),
    RETRY: z.object({ type: z.literal("RETRY"), ...decisionFields }).strict(),
    ABORT: z.object({ type: z.literal("ABORT"), reason: z.string().max(2_000).optional(), ...decisionFields }).strict(),
  },
  review: (state, ctx) => {
    const c = ctx as AgentContext;
    if (state === "ERROR") {
      return { prompt: `The agent stopped in ${c.error?.state}: ${c.error?.message}. Retry the step, or abort.`, payload: { kind: "intervention", error: c.error } };
    }
    return {
      prompt: c.clarification?.question ?? "The agent needs more information",
      payload: { kind: "clarification", question: c.clarification?.question, why: c.clarification?.why, query: c.route?.queryText || c.text, need: c.clarification?.need, domains: c.domains },
    };
  },
  result: (ctx) => {
    const c = ctx as AgentContext;
    return c.answer?.text ? { title: c.partial ? "Answer (partial)" : "Answer", text: c.answer.text, by: c.answer.adapter } : null;
  },
  output: (ctx) => {
    const c = ctx as AgentContext;
    return {
      inputType: c.inputType,
      domains: c.domains,
      answer: c.answer?.text ?? null,
      partial: c.partial,
      evaluation: c.evaluation?.verdict ?? null,
      entries: c.stored?.ids.length ?? 0,
      significant: c.stored?.significant.length ?? 0,
      observation: c.observation ? { decision: c.observation.decision, triggers: c.observation.triggers, reason: c.observation.reason } : null,
    };
  },
  // what a fork may edit: what the run's input gave; the rest is the machine's and its effects'
  forkEditable: ["config", "text", "today"],
  example: { text: "ran 8 km, legs heavy, slept 6 h. Why is my recovery worse this week?" },
  eventFields: { ANSWER: [{ name: "answer", label: "Your answer", placeholder: "e.g. 72 kg" }] },
} satisfies WorkflowDefinition;
