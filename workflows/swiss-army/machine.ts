// Swiss-army (workflows/swiss-army/guide.md) — Swiss Army Knife State Machine, as one XState v5 machine.
// IDLE → REQUEST_RECEIVED → CONTEXT_SEARCH → EXECUTING → CONTEXT_UPDATE → HUMAN_REVIEW → IDLE,
// with the seed's error paths, hard timeouts and global abort. Every transition carries the
// seed's condition as its description, which the engine records as the transition's reason.
import { cycleFile, swissArtifacts } from "./artifacts";
import { assign, setup } from "xstate";
import { z } from "zod";
import { effect } from "../../lib/machines/effect";
import type { StateMeta, WorkflowDefinition } from "../../lib/machines/types";
import type {
  CycleOutcome,
  ExecuteOutput,
  ParseOutput,
  SearchOutput,
  StoreOutput,
  SwissConfig,
  SwissContext,
  SwissError,
} from "./types";

export const defaultSwissConfig: SwissConfig = {
  parseTimeoutMs: 5_000,
  searchTimeoutMs: 5_000,
  executionTimeoutMs: 10 * 60_000,
  updateTimeoutMs: 10_000,
  idleAnalysisMs: 5 * 60_000,
};

type Stamp = { at?: number };
type ReviewEvent = Stamp & { feedback?: string; reviewer?: string; modifications?: string[] };
export type SwissEvent =
  | (Stamp & { type: "REQUEST"; request: string })
  | (Stamp & { type: "ABORT"; reason?: string; feedback?: string; reviewer?: string })
  | (Stamp & { type: "RETRY"; feedback?: string; reviewer?: string })
  | (ReviewEvent & { type: "APPROVE" })
  | (ReviewEvent & { type: "REJECT" })
  | (ReviewEvent & { type: "MODIFY" })
  | (Stamp & { type: "EXECUTION.PROGRESS"; message: string; partial?: string });

export interface SwissInput {
  request?: string;
  config?: Partial<SwissConfig>;
}

const HISTORY = 20;

function finish(context: SwissContext, outcome: Omit<CycleOutcome, "request_id" | "content" | "cycle">): Partial<SwissContext> {
  const last: CycleOutcome = {
    request_id: context.request?.id ?? "",
    cycle: context.cycle,
    content: context.request?.content ?? "",
    ...outcome,
  };
  return { last, history: [last, ...context.history].slice(0, HISTORY) };
}

/** a timeout as its warning says it: "5 s", "0.5 s" */
function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

function preview(text: string): string {
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}

function critical(state: string, message: string, partial?: string): SwissError {
  return {
    category: "critical",
    state,
    message,
    suggestions: ["Check the error details and send the request again.", "If it keeps failing, simplify the request."],
    ...(partial ? { partial } : {}),
  };
}

/** The context update of a critical error: the seed's "return to IDLE with error", partial results kept. */
function failed(context: SwissContext, event: { error?: unknown; at?: number }, state: string, message: string, keepPartial: boolean): Partial<SwissContext> {
  const detail = event.error !== undefined ? `${message}: ${errorMessage(event.error)}` : message;
  const error = critical(state, detail, keepPartial ? context.output || undefined : undefined);
  return { error, ...finish(context, { outcome: "failed", result_preview: keepPartial ? preview(context.output) : "", at: event.at ?? 0, error }) };
}

function errorMessage(error: unknown): string {
  if (error && typeof error === "object" && "message" in error) return String((error as { message: unknown }).message);
  return String(error);
}

const abort = {
  target: "#swiss-army.IDLE",
  description: "User abort",
  actions: ["abortCycle", "recordAbort"],
} as const;

/** Model errors (the port already retried them with backoff) go to a person; anything else is the seed's critical error. */
const MODEL_ERRORS = new Set(["LLM", "NETWORK"]);
const modelCategory = (event: unknown) => (event as { error?: { category?: string } }).error?.category ?? "";

/** The steps that call the model and that a person can retry from ERROR. */
const RETRYABLE = ["REQUEST_RECEIVED", "EXECUTING"] as const;

/** onError's first branch: a model error after the port's retries waits in ERROR for a person. */
function modelErrorToReview(state: (typeof RETRYABLE)[number]) {
  return {
    guard: "modelFailure" as const,
    target: "#swiss-army.ERROR",
    description: "Model error after retries: ask a person",
    actions: { type: "modelError" as const, params: { state } },
  };
}

export const swissArmyMachine = setup({
  types: {
    context: {} as SwissContext,
    events: {} as SwissEvent,
    input: {} as SwissInput,
  },
  actors: {
    parseRequest: effect<ParseOutput, { requestId: string; content: string; feedback?: string; at: number }>("parseRequest"),
    searchContext: effect<SearchOutput, { requestId: string; content: string; type: string }>("searchContext"),
    execute: effect<ExecuteOutput, { requestId: string; content: string; hits: SwissContext["hits"]; type: string }>("execute"),
    storeResult: effect<StoreOutput, { requestId: string; content: string; output: string; partial: boolean; execution: SwissContext["records"]["execution"]; hits: SwissContext["hits"]; tokens: number; requestType: string }>(
      "storeResult",
    ),
  },
  actions: {
    // side effects the engine runs after the transition is committed (./effects)
    logDecision: () => {},
    recordAbort: () => {},
    analyzePatterns: () => {},
    modelError: assign(({ context, event }, params: { state: string }) => {
      const e = event as { error?: unknown };
      const error: SwissError = {
        category: "recoverable",
        state: params.state,
        message: errorMessage(e.error),
        model_error: modelCategory(event),
        suggestions: ["Retry the step (the endpoint may be back, or the next reply may match its schema).", "Abort the request; what was produced is kept."],
        ...(params.state === "EXECUTING" && context.output ? { partial: context.output } : {}),
      };
      return { error };
    }),
    abortCycle: assign(({ context, event }) => {
      const reason = (event as { reason?: string }).reason || (context.error?.category === "user" ? context.error.message : "") || "aborted by user";
      const partial = context.output || context.records.execution?.result_preview || "";
      const error: SwissError = { category: "user", state: "", message: reason, suggestions: [], partial: partial || undefined };
      return { error, ...finish(context, { outcome: "aborted", result_preview: preview(partial), at: event.at ?? 0, error }) };
    }),
  },
  guards: {
    modelFailure: ({ event }) => MODEL_ERRORS.has(modelCategory(event)),
    retryFrom: ({ context }, params: { state: string }) => context.error?.state === params.state,
    requestValid: ({ event }) => (event as unknown as { output: ParseOutput }).output.valid,
    cmAvailable: ({ event }) => (event as unknown as { output: SearchOutput }).output.record.status !== "unavailable",
    stored: ({ event }) => (event as unknown as { output: StoreOutput }).output.record.storage_status === "success",
  },
  delays: {
    parseTimeout: ({ context }) => context.config.parseTimeoutMs,
    searchTimeout: ({ context }) => context.config.searchTimeoutMs,
    executionTimeout: ({ context }) => context.config.executionTimeoutMs,
    updateTimeout: ({ context }) => context.config.updateTimeoutMs,
    idleAnalysis: ({ context }) => context.config.idleAnalysisMs,
  },
}).createMachine({
  id: "swiss-army",
  description: "Swiss Army Knife request loop around a Context Manager",
  initial: "IDLE",
  context: ({ input }) => ({
    config: { ...defaultSwissConfig, ...(input?.config ?? {}) },
    cycle: 0,
    request: null,
    records: {},
    hits: [],
    output: "",
    tokens: 0,
    enteredReviewAt: null,
    warnings: [],
    error: null,
    last: null,
    history: [],
    patternAnalysisAt: null,
  }),
  states: {
    IDLE: {
      tags: ["waiting"],
      description: "Waiting for a new request; the state returned to after completion, error or abort.",
      meta: { summary: "Waiting for a request" } satisfies StateMeta,
      on: {
        REQUEST: {
          target: "REQUEST_RECEIVED",
          description: "User submits request",
          actions: assign(({ context, event }) => ({
            cycle: context.cycle + 1,
            request: {
              id: `${context.cycle + 1}`,
              content: event.request,
              original: event.request,
              receivedAt: event.at ?? 0,
            },
            records: {},
            hits: [],
            output: "",
            tokens: 0,
            warnings: [],
            error: null,
            enteredReviewAt: null,
          })),
        },
      },
      after: {
        idleAnalysis: {
          description: "Idle > 5 minutes: run pattern analysis",
          actions: ["analyzePatterns", assign(({ event }) => ({ patternAnalysisAt: (event as Stamp).at ?? 0 }))],
        },
      },
    },

    REQUEST_RECEIVED: {
      description: "Parse intent and parameters, validate, estimate complexity, log to the Context Manager.",
      meta: { summary: "Validating the request", timeout: "5 s" } satisfies StateMeta,
      invoke: {
        id: "parse",
        src: "parseRequest",
        input: ({ context }) => ({
          requestId: context.request!.id,
          content: context.request!.content,
          feedback: context.request!.feedback,
          at: context.request!.receivedAt,
        }),
        onDone: [
          {
            guard: "requestValid",
            target: "CONTEXT_SEARCH",
            description: "Request validated",
            actions: assign(({ context, event }) => ({
              request: { ...context.request!, id: event.output.record.request_id },
              records: { ...context.records, request: event.output.record },
            })),
          },
          {
            target: "IDLE",
            description: "Invalid request",
            actions: assign(({ context, event }) => {
              const error = event.output.error!;
              return {
                records: { ...context.records, request: event.output.record },
                error,
                ...finish(context, { outcome: "invalid", result_preview: "", at: (event as Stamp).at ?? 0, error }),
              };
            }),
          },
        ],
        onError: [
          modelErrorToReview("REQUEST_RECEIVED"),
          {
            target: "IDLE",
            description: "Critical error: request parsing failure",
            actions: assign(({ context, event }) => failed(context, event, "REQUEST_RECEIVED", "Request parsing failed", false)),
          },
        ],
      },
      after: {
        parseTimeout: {
          target: "IDLE",
          description: "Critical error: parsing exceeded its 5 s maximum",
          actions: assign(({ context, event }) => failed(context, event as Stamp, "REQUEST_RECEIVED", "Request parsing exceeded its 5 s maximum", false)),
        },
      },
      on: { ABORT: abort },
    },

    CONTEXT_SEARCH: {
      description: "Query the Context Manager for similar requests, solution patterns, examples and pitfalls.",
      meta: { summary: "Searching the Context Manager", timeout: "5 s (hard)" } satisfies StateMeta,
      invoke: {
        id: "search",
        src: "searchContext",
        input: ({ context }) => ({
          requestId: context.request!.id,
          content: context.request!.content,
          type: context.records.request?.metadata.request_type ?? "query",
        }),
        onDone: [
          {
            guard: "cmAvailable",
            target: "EXECUTING",
            description: "Context retrieved",
            actions: assign(({ context, event }) => ({
              records: { ...context.records, context_search: event.output.record },
              hits: event.output.hits,
            })),
          },
          {
            target: "EXECUTING",
            description: "Context Manager unavailable: skip search with a warning",
            actions: assign(({ context, event }) => ({
              records: { ...context.records, context_search: event.output.record },
              hits: [],
              warnings: [...context.warnings, event.output.record.warning ?? "Context Manager unavailable: proceeding without context"],
            })),
          },
        ],
        onError: {
          target: "IDLE",
          description: "Critical error",
          actions: assign(({ context, event }) => failed(context, event, "CONTEXT_SEARCH", "Context search failed", false)),
        },
      },
      after: {
        searchTimeout: {
          target: "EXECUTING",
          description: "Context timeout (proceed anyway)",
          actions: assign(({ context }) => ({
            hits: [],
            warnings: [...context.warnings, `Context search timed out after ${seconds(context.config.searchTimeoutMs)}: proceeding without context`],
            records: {
              ...context.records,
              context_search: {
                type: "context_search" as const,
                request_id: context.request!.id,
                queries: [],
                results_count: 0,
                relevance_scores: [],
                search_duration_ms: context.config.searchTimeoutMs,
                status: "timeout" as const,
                warning: "timed out",
              },
            },
          })),
        },
      },
      on: { ABORT: abort },
    },

    EXECUTING: {
      description: "The agent performs the task using the retrieved context, streaming progress.",
      meta: { summary: "Executing the task", timeout: "10 min (configurable)" } satisfies StateMeta,
      invoke: {
        id: "execute",
        src: "execute",
        input: ({ context }) => ({
          requestId: context.request!.id,
          content: context.request!.content,
          hits: context.hits,
          type: context.records.request?.metadata.request_type ?? "query",
        }),
        onDone: {
          target: "CONTEXT_UPDATE",
          description: "Task complete",
          actions: assign(({ context, event }) => ({
            output: event.output.output,
            tokens: event.output.tokens_used,
            records: {
              ...context.records,
              execution: { ...event.output.record, progress_updates: [...(context.records.execution?.progress_updates ?? []), ...event.output.record.progress_updates] },
            },
          })),
        },
        onError: [
          modelErrorToReview("EXECUTING"),
          {
          target: "IDLE",
          description: "Execution failed",
          actions: assign(({ context, event }) => {
            const execution = context.records.execution;
            return {
              ...failed(context, event, "EXECUTING", "Execution failed", true),
              records: execution ? { ...context.records, execution: { ...execution, status: "failed" as const } } : context.records,
            };
          }),
          },
        ],
      },
      after: {
        executionTimeout: {
          target: "CONTEXT_UPDATE",
          description: "Timeout (10 min): partial results",
          actions: assign(({ context }) => {
            const base = context.records.execution;
            return {
              warnings: [...context.warnings, "Execution timed out: storing partial results"],
              records: {
                ...context.records,
                execution: {
                  type: "execution" as const,
                  request_id: context.request!.id,
                  status: "partial" as const,
                  progress_updates: base?.progress_updates ?? [],
                  patterns_applied: base?.patterns_applied ?? [],
                  execution_duration_ms: context.config.executionTimeoutMs,
                  result_preview: preview(context.output),
                  adapter: base?.adapter,
                },
              },
            };
          }),
        },
      },
      on: {
        ABORT: abort,
        "EXECUTION.PROGRESS": {
          description: "Progress update",
          actions: assign(({ context, event }) => {
            const base = context.records.execution ?? {
              type: "execution" as const,
              request_id: context.request!.id,
              status: "in_progress" as const,
              progress_updates: [],
              patterns_applied: [],
              execution_duration_ms: 0,
              result_preview: "",
            };
            const output = event.partial ?? context.output;
            return {
              output,
              records: {
                ...context.records,
                execution: { ...base, progress_updates: [...base.progress_updates, event.message], result_preview: preview(output) },
              },
            };
          }),
        },
      },
    },

    CONTEXT_UPDATE: {
      description: "Store results, patterns learned and metrics in the Context Manager.",
      meta: { summary: "Saving to the Context Manager", timeout: "10 s" } satisfies StateMeta,
      invoke: {
        id: "store",
        src: "storeResult",
        input: ({ context }) => ({
          requestId: context.request!.id,
          content: context.request!.content,
          output: context.output,
          partial: context.records.execution?.status === "partial",
          execution: context.records.execution,
          hits: context.hits,
          tokens: context.tokens,
          requestType: context.records.request?.metadata.request_type ?? "query",
        }),
        onDone: [
          {
            guard: "stored",
            target: "HUMAN_REVIEW",
            description: "Context saved",
            actions: assign(({ context, event }) => ({
              records: { ...context.records, execution_result: event.output.record },
              enteredReviewAt: null,
            })),
          },
          {
            target: "HUMAN_REVIEW",
            description: "Save failed (proceed with warning)",
            actions: assign(({ context, event }) => ({
              records: { ...context.records, execution_result: event.output.record },
              warnings: [...context.warnings, event.output.record.warning ?? "Context storage failed: results were not saved"],
            })),
          },
        ],
        onError: {
          target: "IDLE",
          description: "Critical error",
          actions: assign(({ context, event }) => failed(context, event, "CONTEXT_UPDATE", "Storing the result failed critically", true)),
        },
      },
      after: {
        updateTimeout: {
          target: "HUMAN_REVIEW",
          description: "Save failed (timeout after 10 s): proceed with warning",
          actions: assign(({ context }) => ({
            warnings: [...context.warnings, `Context storage timed out after ${seconds(context.config.updateTimeoutMs)}: results were not saved`],
          })),
        },
      },
      on: { ABORT: abort },
    },

    ERROR: {
      tags: ["waiting", "human", "error"],
      description:
        "A model call failed after its retries with backoff (a reply that never matched its schema, an endpoint down): a person retries the step or aborts the request.",
      meta: { summary: "Error: needs your intervention", review: { kind: "intervention", decisions: ["retry", "abort"] } } satisfies StateMeta,
      on: {
        RETRY: RETRYABLE.map((state) => ({
          guard: { type: "retryFrom" as const, params: { state } },
          target: `#swiss-army.${state}`,
          description: `Retry ${state}`,
          actions: assign({ error: null }),
        })),
        ABORT: {
          target: "#swiss-army.IDLE",
          description: "Abort after the model error (partial results kept)",
          actions: [
            assign(({ context, event }) => {
              const reason = event.reason || event.feedback || `aborted after a model error in ${context.error?.state}: ${context.error?.message}`;
              return { error: context.error ? { ...context.error, category: "user" as const, message: reason } : null };
            }),
            "abortCycle",
            "recordAbort",
          ],
        },
      },
    },

    HUMAN_REVIEW: {
      tags: ["waiting", "human"],
      description: "Present the result for approval; waits indefinitely.",
      meta: {
        summary: "Waiting for your review",
        review: { kind: "result_review", decisions: ["approve", "reject", "modify"] },
      } satisfies StateMeta,
      entry: assign(({ event }) => ({ enteredReviewAt: (event as Stamp).at ?? 0 })),
      on: {
        APPROVE: {
          target: "IDLE",
          description: "User approves",
          actions: [
            assign(({ context, event }) => reviewed(context, event, "approved")),
            "logDecision",
          ],
        },
        REJECT: {
          target: "IDLE",
          description: "User rejects",
          actions: [assign(({ context, event }) => reviewed(context, event, "rejected")), "logDecision"],
        },
        MODIFY: {
          target: "REQUEST_RECEIVED",
          description: "Modify requested (new cycle)",
          actions: [
            assign(({ context, event }) => {
              const base = reviewed(context, event, "modify");
              const feedback = event.feedback?.trim() ?? "";
              const original = context.request!.original;
              return {
                ...base,
                cycle: context.cycle + 1,
                request: {
                  id: `${context.cycle + 1}`,
                  original,
                  feedback,
                  content: feedback ? `${original}\n\nRequested changes: ${feedback}` : original,
                  receivedAt: event.at ?? 0,
                },
                records: { review_result: base.records!.review_result },
                hits: [],
                output: "",
                tokens: 0,
                warnings: [],
                error: null,
              };
            }),
            "logDecision",
          ],
        },
        ABORT: abort,
      },
    },
  },
});

function reviewed(
  context: SwissContext,
  event: ReviewEvent,
  decision: "approved" | "rejected" | "modify",
): Partial<SwissContext> {
  const at = event.at ?? 0;
  const review_result = {
    type: "review_result" as const,
    request_id: context.request!.id,
    decision,
    feedback: event.feedback ?? "",
    review_duration_ms: context.enteredReviewAt ? Math.max(0, at - context.enteredReviewAt) : 0,
    modifications_requested: event.modifications ?? (decision === "modify" && event.feedback ? [event.feedback] : []),
    ...(event.reviewer ? { reviewer: event.reviewer } : {}),
  };
  const records = { ...context.records, review_result };
  if (decision === "modify") return { records };
  return {
    records,
    ...finish({ ...context, records }, { outcome: decision, result_preview: preview(context.output), at, feedback: event.feedback }),
  };
}

const requestText = z.string().trim().min(1, "request must not be empty").max(20_000, "request is longer than 20,000 characters");
const reviewFields = {
  feedback: z.string().max(10_000).optional(),
  reviewer: z.string().max(200).optional(),
  modifications: z.array(z.string().max(2_000)).max(50).optional(),
};

export const swissArmy = {
  id: "swiss-army",
  title: "Swiss Army Knife",
  seed: "001_aea31e4f20de8be2.txt",
  description:
    "A request loop around a Context Manager: validate the request, search for patterns, execute, store what was learned, and ask a human to approve, reject or modify.",
  machine: swissArmyMachine,
  artifacts: swissArtifacts,
  // a long-lived run is named by the request it started with; the request it works on now is its subtitle
  runName: (input) => (input as SwissInput | null)?.request,
  runSubtitle: (context) => (context as SwissContext | null)?.request?.content ?? (context as SwissContext | null)?.last?.content,
  input: z
    .object({
      request: requestText.optional(),
      config: z
        .object({
          parseTimeoutMs: z.number().int().min(10).max(60_000),
          searchTimeoutMs: z.number().int().min(10).max(60_000),
          executionTimeoutMs: z.number().int().min(10).max(24 * 3600_000),
          updateTimeoutMs: z.number().int().min(10).max(600_000),
          idleAnalysisMs: z.number().int().min(1_000).max(24 * 3600_000),
        })
        .partial()
        .strict()
        .optional(),
    })
    .strict(),
  events: {
    REQUEST: z.object({ type: z.literal("REQUEST"), request: requestText }).strict(),
    ABORT: z.object({ type: z.literal("ABORT"), reason: z.string().max(2_000).optional(), feedback: z.string().max(10_000).optional(), reviewer: z.string().max(200).optional() }).strict(),
    RETRY: z.object({ type: z.literal("RETRY"), feedback: z.string().max(10_000).optional(), reviewer: z.string().max(200).optional() }).strict(),
    APPROVE: z.object({ type: z.literal("APPROVE"), ...reviewFields }).strict(),
    REJECT: z.object({ type: z.literal("REJECT"), ...reviewFields }).strict(),
    MODIFY: z.object({ type: z.literal("MODIFY"), ...reviewFields }).strict(),
  },
  startEvents: (input) => {
    const request = (input as SwissInput).request;
    return request ? [{ type: "REQUEST", request }] : [];
  },
  review: (state, ctx) => {
    const context = ctx as SwissContext;
    if (state === "ERROR") {
      return {
        prompt: `Request ${context.cycle} stopped in ${context.error?.state}: ${context.error?.message}. Retry the step, or abort.`,
        payload: { kind: "intervention", error: context.error, request_id: context.request?.id, request: context.request?.content },
      };
    }
    const r = context.records;
    return {
      prompt: `Review the result of request ${context.cycle}: "${preview(context.request?.content ?? "").slice(0, 160)}"`,
      payload: {
        request_id: context.request?.id,
        request: context.request?.content,
        output: context.output,
        request_type: r.request?.metadata.request_type,
        complexity: r.request?.metadata.estimated_complexity,
        patterns_applied: r.execution?.patterns_applied ?? [],
        context_relevance: r.execution_result?.result.metrics.context_relevance ?? 0,
        results_count: r.context_search?.results_count ?? 0,
        storage_status: r.execution_result?.storage_status,
        adapter: r.execution?.adapter,
        partial: r.execution?.status === "partial",
        warnings: context.warnings,
      },
    };
  },
  result: (ctx) => {
    const c = ctx as SwissContext;
    const last = c.last;
    if (!last) return null;
    return { title: `Request #${last.cycle ?? "?"}: ${last.outcome}`, text: last.result_preview || "(no output)", file: cycleFile(last) };
  },
  output: (ctx) => {
    const context = ctx as SwissContext;
    return context.last ? { last: context.last, cycles: context.cycle } : null;
  },
  metrics: [
    { state: "REQUEST_RECEIVED", metric: "Parse time", target: "<1s", alert: ">5s", compute: { kind: "duration", state: "REQUEST_RECEIVED", targetMs: 1_000, alertMs: 5_000 } },
    { state: "CONTEXT_SEARCH", metric: "Search time", target: "<3s", alert: ">5s", compute: { kind: "duration", state: "CONTEXT_SEARCH", targetMs: 3_000, alertMs: 5_000 } },
    { state: "CONTEXT_SEARCH", metric: "Result count", target: ">0", alert: "0 for >50% requests", compute: { kind: "zero-share", state: "CONTEXT_SEARCH", field: "results_count", alertShare: 0.5 } },
    { state: "EXECUTING", metric: "Success rate", target: ">80%", alert: "<60%", compute: { kind: "outcome-rate", state: "EXECUTING", good: ["Task complete"], of: ["Task complete", "Execution failed", "Model error after retries: ask a person", "Timeout (10 min): partial results"], target: 0.8, alert: 0.6 } },
    { state: "EXECUTING", metric: "Completion time", target: "<30s", alert: ">5min", compute: { kind: "duration", state: "EXECUTING", targetMs: 30_000, alertMs: 300_000 } },
    { state: "CONTEXT_UPDATE", metric: "Store success", target: ">95%", alert: "<80%", compute: { kind: "outcome-rate", state: "CONTEXT_UPDATE", good: ["Context saved"], of: ["Context saved", "Save failed (proceed with warning)", "Save failed (timeout after 10 s): proceed with warning"], target: 0.95, alert: 0.8 } },
    { state: "HUMAN_REVIEW", metric: "Approval rate", target: ">75%", alert: "<50%", compute: { kind: "outcome-rate", state: "HUMAN_REVIEW", good: ["User approves"], of: ["User approves", "User rejects"], target: 0.75, alert: 0.5 } },
  ],
  // what a fork may edit: what the run's input gave; the rest is the machine's and its effects'
  forkEditable: ["config"],
  example: { request: "Write a TypeScript function that retries a fetch with exponential backoff" },
  eventFields: { REQUEST: [{ name: "request", label: "Next request", placeholder: "What should the agent do next?" }] },
} satisfies WorkflowDefinition;
