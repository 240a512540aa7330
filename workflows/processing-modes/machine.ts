// Processing-modes (workflows/processing-modes/guide.md) — processing modes, as one XState v5 machine: RouteRequest picks the mode (explicit or
// classified), CheckRuntime sends System 1 / System 2 modes to ModelRuntime (CacheCheck →
// CacheHit | ProcessorExec → CachePut) and the agent mode to AgentRuntime (WorkflowInit →
// RetryableExec with retry_with_backoff → WorkflowComplete | ErrorClassify → RetryableExec |
// WorkflowFailed); every request ends in RecordMetrics. Each mode's own state machine is nested
// inside ProcessorExec; DEEP_RESEARCH's (InitWorkflow → RetryBoundary { WriteReportPlan →
// GenerateSearchQueries → ExecuteSearchTasks { SearchTask ⇄ ProcessResult } → WriteFinalReport }
// → WorkflowComplete, or ErrorHandling) inside AgentRuntime's boxes, which are the same steps
// drawn from further away. A model error that outlived its retries waits in ERROR for a person.
import { assign, setup } from "xstate";
import { z } from "zod";
import { backoffMs, type DoublingRetry } from "../../lib/engine/retry";
import { effect } from "../../lib/machines/effect";
import {
  LEVEL,
  MODES,
  WORKFLOW_STEPS,
  type CacheCheck,
  type Execution,
  type Mode,
  type ModeMetrics,
  type ModeResult,
  type ModesConfig,
  type ModesContext,
  type Passage,
  type ReportPlan,
  type ResearchSource,
  type ResearchState,
  type RoutingDecision,
  type SearchTaskState,
  type ThinkingStage,
  THINKING_STAGES,
  type WorkflowStep,
} from "./types";
import type { StateMeta, WorkflowDefinition } from "../../lib/machines/types";

/** The run input's retry knobs (config.maxRetries, config.backoffBaseMs) as a retry policy. */
const retryOf = (c: ModesConfig): DoublingRetry => ({ maxAttempts: c.maxRetries + 1, backoffMs: c.backoffBaseMs });

export const defaultModesConfig: ModesConfig = { enableCache: true, cacheTtlMs: 300_000, maxRetries: 2, backoffBaseMs: 1_000, codeTimeoutMs: 5_000, codeMemoryMb: 64 };

export interface ModesInput {
  query: string;
  mode?: Mode;
  config?: Partial<ModesConfig>;
}

type Decision = { feedback?: string; reviewer?: string };
type ModesEvent =
  | (Decision & { type: "RETRY" })
  | (Decision & { type: "ABORT"; reason?: string })
  | { type: `xstate.done.actor.${string}`; output: unknown }
  | { type: `xstate.error.actor.${string}`; error?: { message?: string; category?: string } };

const out = <T>(event: unknown) => (event as { output: T }).output;
const errorOf = (event: unknown) => (event as { error?: { message?: string; category?: string } }).error ?? {};
const RETRYABLE = new Set(["NETWORK", "LLM"]);
const isModelFailure = (event: unknown) => RETRYABLE.has(errorOf(event).category ?? "");

/** DEEP_RESEARCH's step outputs. */
export type SearchTaskOutput = { results: number; via: string; sources: ResearchSource[]; ids: string[] };
export type SummaryOutput = { summary: string; adapter: string };
export type ReportOutput = { report: string; adapter: string; cited: string[] };

const AGENT = "#processing-modes.AgentRuntime";
const PROCESSOR = "#processing-modes.ModelRuntime.ProcessorExec";

/** The states a person can retry from ERROR (a model error after its retries), as paths. */
const RETRY_TARGETS = [
  "RouteRequest",
  "ModelRuntime.ProcessorExec.CHAT",
  "ModelRuntime.ProcessorExec.KNOWLEDGE",
  "ModelRuntime.ProcessorExec.SEARCH",
  "ModelRuntime.ProcessorExec.CODE",
  ...THINKING_STAGES.map((s) => `ModelRuntime.ProcessorExec.THINKING.${s}`),
  "AgentRuntime.RetryableExec",
] as const;

/** onError of a ModelRuntime step: a model error (LLM, NETWORK: the port already retried) asks a person; anything else fails the request. */
function processorError(state: string, retry: string) {
  return [
    { guard: "modelFailure" as const, target: "#processing-modes.ERROR", description: "Model error after retries: ask a person", actions: { type: "fail" as const, params: { state, retry } } },
    { target: `${PROCESSOR}.Processed`, actions: { type: "fail" as const, params: { state } } },
  ];
}

/** onError of a DEEP_RESEARCH step: the RetryBoundary's Exception, classified in ErrorHandling. */
const boundaryError = { target: `${AGENT}.ErrorClassify.ErrorHandling`, description: "Exception", actions: "classifyError" as const };

const emptyResearch = (): ResearchState => ({ plan: null, tasks: [], index: 0, sources: [] });

export const processingModesMachine = setup({
  types: { context: {} as ModesContext, events: {} as ModesEvent, input: {} as ModesInput },
  actors: {
    route: effect<RoutingDecision, { query: string; requested: Mode | null }>("route"),
    cacheCheck: effect<CacheCheck, { mode: Mode; query: string; enabled: boolean; system1: boolean }>("cacheCheck"),
    cachePut: effect<{ expiresAt: number }, { key: string; mode: Mode; query: string; result: ModeResult; ttlMs: number }>("cachePut"),
    chat: effect<ModeResult, { prompt: string; query: string }>("chat"),
    embed: effect<{ adapter: string; dims: number; terms: string[] }, { query: string }>("embed"),
    searchKnowledge: effect<{ passages: Passage[] }, { query: string }>("searchKnowledge"),
    answer: effect<ModeResult, { query: string; passages: Passage[]; mode: Mode }>("answer"),
    generateQueries: effect<{ queries: string[]; adapter: string }, { query: string }>("generateQueries"),
    executeSearches: effect<{ passages: Passage[]; searches: { query: string; results: number; via: string }[] }, { queries: string[] }>("executeSearches"),
    generateCode: effect<{ language: "javascript" | "python"; code: string; source: "request" | "model" }, { query: string }>("generateCode"),
    executeCode: effect<Execution, { language: "javascript" | "python"; code: string; timeoutMs: number; memoryMb: number }>("executeCode"),
    think: effect<{ stage: ThinkingStage; text: string; adapter: string }, { stage: ThinkingStage; query: string; previous: { stage: ThinkingStage; text: string }[] }>("think"),
    writeReportPlan: effect<ReportPlan, { query: string; plan: ReportPlan | null }>("writeReportPlan"),
    generateSearchTasks: effect<{ tasks: Pick<SearchTaskState, "query" | "goal" | "priority">[]; adapter: string; kept?: boolean }, { query: string; plan: ReportPlan; tasks: SearchTaskState[] }>("generateSearchTasks"),
    searchTask: effect<SearchTaskOutput, { task: SearchTaskState; sources: ResearchSource[] }>("searchTask"),
    processResult: effect<SummaryOutput, { query: string; task: SearchTaskState; sources: ResearchSource[] }>("processResult"),
    writeFinalReport: effect<ReportOutput, { query: string; plan: ReportPlan; tasks: SearchTaskState[]; sources: ResearchSource[] }>("writeFinalReport"),
    recordMetrics: effect<ModeMetrics, { context: ModesContext }>("recordMetrics"),
  },
  guards: {
    isAgent: ({ context }) => context.routing?.level === "Agent",
    isMode: ({ context }, params: { mode: Mode }) => context.routing?.mode === params.mode,
    cacheHit: ({ event }) => out<CacheCheck>(event).status === "hit",
    isSystem1: ({ context }) => context.routing?.level === "System 1" && context.cache?.status === "miss",
    exitZero: ({ event }) => out<Execution>(event).exitCode === 0,
    retryable: ({ context }) => {
      const w = context.workflow!;
      const last = w.errors[w.errors.length - 1];
      return !!last && RETRYABLE.has(last.category) && w.attempts < retryOf(context.config).maxAttempts;
    },
    // a model error (network/LLM) that outlived retry_with_backoff: a person decides
    retriesExhausted: ({ context }) => {
      const w = context.workflow!;
      const last = w.errors[w.errors.length - 1];
      return !!last && RETRYABLE.has(last.category) && w.attempts >= retryOf(context.config).maxAttempts;
    },
    notRetryable: ({ context }) => {
      const last = context.workflow!.errors[context.workflow!.errors.length - 1];
      return !last || !RETRYABLE.has(last.category);
    },
    moreTasks: ({ context }) => context.research!.index + 1 < context.research!.tasks.length,
    modelFailure: ({ event }) => isModelFailure(event),
    retryFrom: ({ context }, params: { state: string }) => context.error?.retry === params.state,
    requestFailed: ({ context }) => context.error !== null,
  },
  delays: {
    // retry_with_backoff: base_delay × 2^(attempt − 1)
    backoff: ({ context }) => backoffMs(retryOf(context.config), (context.workflow?.attempts ?? 1) - 1),
  },
  actions: {
    setRouting: assign(({ event }) => ({ routing: out<RoutingDecision>(event) })),
    setCache: assign(({ event }) => {
      const c = out<CacheCheck>(event);
      return { cache: c, ...(c.status === "hit" && c.result ? { result: { ...c.result, cached: true } } : {}) };
    }),
    cacheStored: assign(({ context, event }) => ({ cache: { ...context.cache!, expiresAt: out<{ expiresAt: number }>(event).expiresAt } })),
    buildPrompt: assign(({ context }) => ({ prompt: `System: You are a helpful assistant. Answer the user's message directly and concisely.\nUser: ${context.query}` })),
    setResult: assign(({ event }) => ({ result: out<ModeResult>(event) })),
    setEmbedding: assign(({ event }) => ({ embedding: out<{ adapter: string; dims: number; terms: string[] }>(event) })),
    setPassages: assign(({ event }) => ({ passages: out<{ passages: Passage[] }>(event).passages })),
    setQueries: assign(({ event }) => ({ searches: out<{ queries: string[] }>(event).queries.map((q) => ({ query: q, results: 0, via: "" })) })),
    setSearchResults: assign(({ event }) => {
      const o = out<{ passages: Passage[]; searches: { query: string; results: number; via: string }[] }>(event);
      return { passages: o.passages, searches: o.searches };
    }),
    setCode: assign(({ event }) => ({ code: out<NonNullable<ModesContext["code"]>>(event) })),
    setExecution: assign(({ event }) => ({ execution: out<Execution>(event) })),
    formatSuccess: assign(({ context }) => {
      const e = context.execution!;
      const value = e.returnValue === undefined || e.returnValue === null ? "" : `\n\n**Return value:**\n\n\`\`\`json\n${JSON.stringify(e.returnValue, null, 2)}\n\`\`\``;
      const stdout = e.stdout ? `\n\n**stdout:**\n\n\`\`\`\n${e.stdout}\n\`\`\`` : "";
      return { result: { text: `Ran ${context.code!.language} in ${e.engine}: exit 0 in ${e.durationMs} ms.${stdout}${value}`, adapter: e.engine, citations: [], cached: false } };
    }),
    formatError: assign(({ context }) => {
      const e = context.execution!;
      const why = e.error ? `${e.error.kind}: ${e.error.message}` : `exit ${e.exitCode}`;
      const stderr = e.stderr ? `\n\n**stderr:**\n\n\`\`\`\n${e.stderr}\n\`\`\`` : "";
      const stdout = e.stdout ? `\n\n**stdout:**\n\n\`\`\`\n${e.stdout}\n\`\`\`` : "";
      return { result: { text: `The ${context.code!.language} code failed in ${e.engine} (exit ${e.exitCode}, ${e.durationMs} ms): ${why}.${stderr}${stdout}`, adapter: e.engine, citations: [], cached: false } };
    }),
    addStage: assign(({ context, event }) => {
      const s = out<{ stage: ThinkingStage; text: string; adapter: string }>(event);
      return { stages: [...context.stages, s] };
    }),
    finishThinking: assign(({ context }) => {
      const final = context.stages[context.stages.length - 1]!;
      return { result: { text: final.text, adapter: final.adapter, citations: [], cached: false } };
    }),
    initWorkflow: assign({ workflow: () => ({ steps: [...WORKFLOW_STEPS], status: "running" as const, current: null, completed: [], attempts: 0, errors: [] }) }),
    countAttempt: assign(({ context }) => ({ workflow: { ...context.workflow!, status: "running" as const, current: null, completed: [], attempts: context.workflow!.attempts + 1 } })),
    // the WorkflowState's current step, lit as the boundary goes: plan, search, synthesize
    workflowStep: assign(({ context }, params: { step: WorkflowStep }) => {
      const w = context.workflow!;
      const i = WORKFLOW_STEPS.indexOf(params.step);
      return { workflow: { ...w, current: params.step, completed: WORKFLOW_STEPS.slice(0, i) as WorkflowStep[] } };
    }),
    resetResearch: assign({ research: () => emptyResearch() }),
    setReportPlan: assign(({ context, event }) => ({ research: { ...context.research!, plan: out<ReportPlan>(event) } })),
    setSearchTasks: assign(({ context, event }) => {
      const o = out<{ tasks: Pick<SearchTaskState, "query" | "goal" | "priority">[]; kept?: boolean }>(event);
      // a retry keeps the tasks of an earlier attempt, with what they found
      if (o.kept) return { research: { ...context.research!, index: 0 } };
      const tasks = o.tasks;
      return { research: { ...context.research!, index: 0, tasks: tasks.map((t) => ({ ...t, results: 0, via: "", summary: null, adapter: null, sources: [] })) } };
    }),
    setSearchResult: assign(({ context, event }) => {
      const o = out<SearchTaskOutput>(event);
      const r = context.research!;
      return { research: { ...r, sources: o.sources, tasks: r.tasks.map((t, i) => (i === r.index ? { ...t, results: o.results, via: o.via, sources: o.ids } : t)) } };
    }),
    setSummary: assign(({ context, event }) => {
      const o = out<SummaryOutput>(event);
      const r = context.research!;
      return { research: { ...r, tasks: r.tasks.map((t, i) => (i === r.index ? { ...t, summary: o.summary, adapter: o.adapter } : t)) } };
    }),
    nextTask: assign(({ context }) => ({ research: { ...context.research!, index: context.research!.index + 1 } })),
    setReport: assign(({ context, event }) => {
      const o = out<ReportOutput>(event);
      const cited = context.research!.sources.filter((s) => o.cited.includes(s.id));
      return { result: { text: o.report, adapter: o.adapter, citations: cited.map((s) => ({ id: s.id, title: s.title, url: s.url })), cached: false } };
    }),
    workflowComplete: assign(({ context }) => ({ workflow: { ...context.workflow!, status: "completed" as const, current: null, completed: [...WORKFLOW_STEPS] } })),
    classifyError: assign(({ context, event }) => {
      const e = errorOf(event);
      const w = context.workflow!;
      return { workflow: { ...w, errors: [...w.errors, { attempt: w.attempts, category: e.category ?? "UNKNOWN", message: e.message ?? "unknown error" }] } };
    }),
    workflowFailed: assign(({ context }) => {
      const w = context.workflow!;
      const last = w.errors[w.errors.length - 1]!;
      return { workflow: { ...w, status: "failed" as const }, error: { state: "AgentRuntime.RetryableExec", message: last.message, category: last.category } };
    }),
    // retries exhausted: the request waits in ERROR; a person's RETRY re-enters RetryableExec
    askPerson: assign(({ context }) => {
      const w = context.workflow!;
      const last = w.errors[w.errors.length - 1]!;
      return { error: { state: "AgentRuntime.RetryableExec", message: last.message, category: last.category, retry: "AgentRuntime.RetryableExec" } };
    }),
    fail: assign(({ event }, params: { state: string; retry?: string }) => {
      const e = errorOf(event);
      return { error: { state: params.state, message: e.message ?? "unknown error", category: e.category ?? "UNKNOWN", ...(params.retry ? { retry: params.retry } : {}) } };
    }),
    abortAfterError: assign(({ context, event }) => {
      const e = event as { reason?: string; feedback?: string };
      const why = e.reason || e.feedback || "aborted by a person after the model error";
      return {
        error: context.error ? { ...context.error, message: `${context.error.message} (${why})` } : null,
        workflow: context.workflow ? { ...context.workflow, status: "failed" as const, current: null } : null,
      };
    }),
    setMetrics: assign(({ event }) => ({ metrics: out<ModeMetrics>(event) })),
  },
}).createMachine({
  id: "processing-modes",
  description: "Processing modes: router, runtimes, response cache",
  initial: "RouteRequest",
  context: ({ input }) => ({
    config: { ...defaultModesConfig, ...(input.config ?? {}) },
    query: input.query,
    requested: input.mode ?? null,
    routing: null,
    cache: null,
    prompt: null,
    embedding: null,
    passages: [],
    searches: [],
    code: null,
    execution: null,
    stages: [],
    workflow: null,
    research: null,
    result: null,
    error: null,
    metrics: null,
  }),
  states: {
    RouteRequest: {
      description: "DefaultRouter.route(): the explicit mode, or one classified from the request, with its confidence.",
      meta: { summary: "Routing the request" } satisfies StateMeta,
      invoke: {
        src: "route",
        input: ({ context }) => ({ query: context.query, requested: context.requested }),
        onDone: { target: "CheckRuntime", description: "RoutingDecision", actions: "setRouting" },
        onError: [
          { guard: "modelFailure", target: "ERROR", description: "Model error after retries: ask a person", actions: { type: "fail", params: { state: "RouteRequest", retry: "RouteRequest" } } },
          { target: "RecordMetrics", actions: { type: "fail", params: { state: "RouteRequest" } } },
        ],
      },
    },
    CheckRuntime: {
      description: "The mode's cognitive level picks the runtime.",
      meta: { summary: "Choosing the runtime" } satisfies StateMeta,
      always: [
        { guard: "isAgent", target: "AgentRuntime", description: "Agent level" },
        { target: "ModelRuntime", description: "System 1 or System 2" },
      ],
    },
    ModelRuntime: {
      description: "Stateless execution: System 1 modes go through the response cache, System 2 modes bypass it.",
      meta: { summary: "ModelRuntime" } satisfies StateMeta,
      initial: "CacheCheck",
      onDone: { target: "RecordMetrics", description: "Result ready" },
      states: {
        CacheCheck: {
          description: "SHA-256 of mode:query looked up in the ResponseCache (System 1 with system1.enable_cache on).",
          meta: { summary: "Checking the response cache" } satisfies StateMeta,
          invoke: {
            src: "cacheCheck",
            input: ({ context }) => ({ mode: context.routing!.mode, query: context.query, enabled: context.config.enableCache, system1: context.routing!.level === "System 1" }),
            onDone: [
              { guard: "cacheHit", target: "CacheHit", description: "System 1 + cache enabled: HIT", actions: "setCache" },
              { target: "ProcessorExec", description: "Cache miss or System 2", actions: "setCache" },
            ],
            onError: { target: "#processing-modes.RecordMetrics", actions: { type: "fail", params: { state: "CacheCheck" } } },
          },
        },
        CacheHit: { type: "final", description: "ReturnCached: the stored result.", meta: { summary: "Returned from cache" } satisfies StateMeta },
        ProcessorExec: {
          description: "The mode's processor, each its own state machine.",
          meta: { summary: "Processor" } satisfies StateMeta,
          initial: "SelectProcessor",
          onDone: [
            { guard: "requestFailed", target: "Completed", description: "Processor failed" },
            { guard: "isSystem1", target: "CachePut", description: "System 1 result" },
            { target: "Completed", description: "System 2 result" },
          ],
          states: {
            SelectProcessor: {
              meta: { summary: "Selecting the processor" } satisfies StateMeta,
              always: [
                { guard: { type: "isMode", params: { mode: "CHAT" } }, target: "CHAT", description: "ChatProcessor" },
                { guard: { type: "isMode", params: { mode: "KNOWLEDGE" } }, target: "KNOWLEDGE", description: "KnowledgeProcessor" },
                { guard: { type: "isMode", params: { mode: "SEARCH" } }, target: "SEARCH", description: "SearchProcessor" },
                { guard: { type: "isMode", params: { mode: "CODE" } }, target: "CODE", description: "CodeProcessor" },
                { target: "THINKING", description: "ThinkingProcessor" },
              ],
            },
            CHAT: {
              description: "ChatProcessor: one call with the system prompt.",
              meta: { summary: "Chat" } satisfies StateMeta,
              initial: "BuildPrompt",
              onDone: "Processed",
              states: {
                BuildPrompt: { entry: "buildPrompt", meta: { summary: "Combining system prompt + query" } satisfies StateMeta, always: { target: "CallLLM", description: "generate(prompt)" } },
                CallLLM: {
                  meta: { summary: "MultiProviderLLMClient.generate()" } satisfies StateMeta,
                  invoke: {
                    src: "chat",
                    input: ({ context }) => ({ prompt: context.prompt!, query: context.query }),
                    onDone: { target: "ReturnResult", description: "Store result", actions: "setResult" },
                    onError: processorError("CHAT.CallLLM", "ModelRuntime.ProcessorExec.CHAT"),
                  },
                },
                ReturnResult: { type: "final", meta: { summary: "Result ready" } satisfies StateMeta },
              },
            },
            KNOWLEDGE: {
              description: "KnowledgeProcessor: retrieval from the knowledge store, then a grounded answer with citations.",
              meta: { summary: "Knowledge (RAG)" } satisfies StateMeta,
              initial: "GenerateEmbeddings",
              onDone: "Processed",
              states: {
                GenerateEmbeddings: {
                  meta: { summary: "Embedding the query" } satisfies StateMeta,
                  invoke: {
                    src: "embed",
                    input: ({ context }) => ({ query: context.query }),
                    onDone: { target: "SearchVectorDB", description: "Vector similarity search", actions: "setEmbedding" },
                    onError: processorError("KNOWLEDGE.GenerateEmbeddings", "ModelRuntime.ProcessorExec.KNOWLEDGE"),
                  },
                },
                SearchVectorDB: {
                  meta: { summary: "Top-k passages from the knowledge store" } satisfies StateMeta,
                  invoke: {
                    src: "searchKnowledge",
                    input: ({ context }) => ({ query: context.query }),
                    onDone: { target: "SynthesizeContext", description: "Combine retrieved chunks + query", actions: "setPassages" },
                    onError: processorError("KNOWLEDGE.SearchVectorDB", "ModelRuntime.ProcessorExec.KNOWLEDGE"),
                  },
                },
                SynthesizeContext: { meta: { summary: "Enriched prompt" } satisfies StateMeta, always: { target: "CallLLM", description: "Generate answer with context" } },
                CallLLM: {
                  meta: { summary: "Grounded answer" } satisfies StateMeta,
                  invoke: {
                    src: "answer",
                    input: ({ context }) => ({ query: context.query, passages: context.passages, mode: "KNOWLEDGE" as const }),
                    onDone: { target: "ReturnResult", description: "Store in cache", actions: "setResult" },
                    onError: processorError("KNOWLEDGE.CallLLM", "ModelRuntime.ProcessorExec.KNOWLEDGE"),
                  },
                },
                ReturnResult: { type: "final", meta: { summary: "Result ready" } satisfies StateMeta },
              },
            },
            SEARCH: {
              description: "SearchProcessor: 2–3 generated queries run concurrently, results aggregated, answer synthesized.",
              meta: { summary: "Search" } satisfies StateMeta,
              initial: "GenerateSearchQueries",
              onDone: "Processed",
              states: {
                GenerateSearchQueries: {
                  meta: { summary: "2–3 optimized queries" } satisfies StateMeta,
                  invoke: {
                    src: "generateQueries",
                    input: ({ context }) => ({ query: context.query }),
                    onDone: { target: "ExecuteSearches", description: "Concurrent searches", actions: "setQueries" },
                    onError: processorError("SEARCH.GenerateSearchQueries", "ModelRuntime.ProcessorExec.SEARCH"),
                  },
                },
                ExecuteSearches: {
                  meta: { summary: "Searching concurrently" } satisfies StateMeta,
                  invoke: {
                    src: "executeSearches",
                    input: ({ context }) => ({ queries: context.searches.map((s) => s.query) }),
                    onDone: { target: "SynthesizeResults", description: "Aggregate all search results", actions: "setSearchResults" },
                    onError: processorError("SEARCH.ExecuteSearches", "ModelRuntime.ProcessorExec.SEARCH"),
                  },
                },
                SynthesizeResults: { meta: { summary: "Unified context" } satisfies StateMeta, always: { target: "CallLLM", description: "Generate comprehensive report" } },
                CallLLM: {
                  meta: { summary: "Comprehensive answer" } satisfies StateMeta,
                  invoke: {
                    src: "answer",
                    input: ({ context }) => ({ query: context.query, passages: context.passages, mode: "SEARCH" as const }),
                    onDone: { target: "ReturnResult", description: "Answer ready", actions: "setResult" },
                    onError: processorError("SEARCH.CallLLM", "ModelRuntime.ProcessorExec.SEARCH"),
                  },
                },
                ReturnResult: { type: "final", meta: { summary: "Result ready" } satisfies StateMeta },
              },
            },
            CODE: {
              description: "CodeProcessor: code from the model (or the request's own code block) runs in the WebAssembly sandbox.",
              meta: { summary: "Code" } satisfies StateMeta,
              initial: "GenerateCode",
              onDone: "Processed",
              states: {
                GenerateCode: {
                  meta: { summary: "Executable code from the request" } satisfies StateMeta,
                  invoke: {
                    src: "generateCode",
                    input: ({ context }) => ({ query: context.query }),
                    onDone: { target: "ExecuteInSandbox", description: "Send to the sandbox", actions: "setCode" },
                    onError: processorError("CODE.GenerateCode", "ModelRuntime.ProcessorExec.CODE"),
                  },
                },
                ExecuteInSandbox: {
                  meta: { summary: "SandboxService.execute(code, timeout)" } satisfies StateMeta,
                  invoke: {
                    src: "executeCode",
                    input: ({ context }) => ({ language: context.code!.language, code: context.code!.code, timeoutMs: context.config.codeTimeoutMs, memoryMb: context.config.codeMemoryMb }),
                    onDone: [
                      { guard: "exitZero", target: "FormatSuccess", description: "Exit code 0", actions: "setExecution" },
                      { target: "FormatError", description: "Non-zero exit / timeout", actions: "setExecution" },
                    ],
                    onError: processorError("CODE.ExecuteInSandbox", "ModelRuntime.ProcessorExec.CODE"),
                  },
                },
                FormatSuccess: { type: "final", entry: "formatSuccess", description: "Capture stdout + return value", meta: { summary: "stdout + return value" } satisfies StateMeta },
                FormatError: { type: "final", entry: "formatError", description: "Capture stderr + error message", meta: { summary: "stderr + error message" } satisfies StateMeta },
              },
            },
            THINKING: {
              description: "ThinkingProcessor: five stages, each stored and visible.",
              meta: { summary: "Thinking" } satisfies StateMeta,
              initial: "ProblemAnalysis",
              onDone: "Processed",
              states: {
                ...thinkingStage("ProblemAnalysis", "MultiPerspective", "Analyze from multiple angles", "Decompose and understand the problem"),
                ...thinkingStage("MultiPerspective", "DeepReasoning", "Chain-of-thought reasoning", "Critical, creative, analytical perspectives"),
                ...thinkingStage("DeepReasoning", "SynthesisAndReflection", "Consolidate + self-reflect", "Step-by-step logical inference"),
                ...thinkingStage("SynthesisAndReflection", "FinalAnswer", "Generate structured answer", "Quality check and refinement"),
                ...thinkingStage("FinalAnswer", "Answered", "Answer ready", "The structured final answer"),
                Answered: { type: "final", entry: "finishThinking", meta: { summary: "Answer ready" } satisfies StateMeta },
              },
            },
            Processed: { type: "final", meta: { summary: "Processor finished" } satisfies StateMeta },
          },
        },
        CachePut: {
          description: "Store the System 1 result with its TTL (default 300 s).",
          meta: { summary: "Storing in the response cache" } satisfies StateMeta,
          invoke: {
            src: "cachePut",
            input: ({ context }) => ({ key: context.cache!.key, mode: context.routing!.mode, query: context.query, result: context.result!, ttlMs: context.config.cacheTtlMs }),
            onDone: { target: "Completed", description: "Stored", actions: "cacheStored" },
            // a cache that cannot store does not fail the request
            onError: { target: "Completed", description: "Cache write failed (result kept)" },
          },
        },
        Completed: { type: "final", meta: { summary: "Result ready" } satisfies StateMeta },
      },
    },
    AgentRuntime: {
      description: "Stateful, workflow-tracked, retry-wrapped: DEEP_RESEARCH's states inside the AgentRuntime's boxes.",
      meta: { summary: "AgentRuntime" } satisfies StateMeta,
      initial: "WorkflowInit",
      onDone: { target: "RecordMetrics", description: "Workflow finished" },
      states: {
        WorkflowInit: {
          description: "AgentRuntime creates the WorkflowState.",
          meta: { summary: "Creating the WorkflowState" } satisfies StateMeta,
          initial: "InitWorkflow",
          states: {
            InitWorkflow: {
              entry: ["initWorkflow", "resetResearch"],
              description: "WorkflowState(steps=[plan, search, synthesize]), status running.",
              meta: { summary: "WorkflowState(steps=[plan, search, synthesize])" } satisfies StateMeta,
              always: { target: `${AGENT}.RetryableExec.RetryBoundary`, description: "retry_with_backoff(max=2)" },
            },
          },
        },
        RetryableExec: {
          entry: "countAttempt",
          description: "One attempt of the retry boundary: the research pipeline, plan → search → synthesize. What an earlier attempt produced is kept; only the failed step and those after it run again.",
          meta: { summary: "Running the research workflow" } satisfies StateMeta,
          initial: "RetryBoundary",
          states: {
            RetryBoundary: {
              description: "DeepResearchProcessor: outline, search tasks, searched and summarized one by one, the report with citations.",
              meta: { summary: "Research pipeline" } satisfies StateMeta,
              initial: "WriteReportPlan",
              onDone: { target: `${AGENT}.WorkflowComplete`, description: "Success", actions: "workflowComplete" },
              states: {
                WriteReportPlan: {
                  entry: { type: "workflowStep", params: { step: "plan" } },
                  description: "Generate a detailed research outline from the request.",
                  meta: { summary: "Writing the report plan" } satisfies StateMeta,
                  invoke: {
                    src: "writeReportPlan",
                    input: ({ context }) => ({ query: context.query, plan: context.research!.plan }),
                    onDone: { target: "GenerateSearchQueries", description: "Extract structured search tasks", actions: "setReportPlan" },
                    onError: boundaryError,
                  },
                },
                GenerateSearchQueries: {
                  entry: { type: "workflowStep", params: { step: "search" } },
                  description: "Create (query, goal, priority) tuples from the report plan.",
                  meta: { summary: "Search tasks from the plan" } satisfies StateMeta,
                  invoke: {
                    src: "generateSearchTasks",
                    input: ({ context }) => ({ query: context.query, plan: context.research!.plan!, tasks: context.research!.tasks }),
                    onDone: { target: "ExecuteSearchTasks", description: "Iterate through tasks", actions: "setSearchTasks" },
                    onError: boundaryError,
                  },
                },
                ExecuteSearchTasks: {
                  description: "Each search task in turn: search, then collect and summarize what it found.",
                  meta: { summary: "Executing the search tasks" } satisfies StateMeta,
                  initial: "SearchTask",
                  onDone: { target: "WriteFinalReport", description: "Synthesize all results" },
                  states: {
                    SearchTask: {
                      description: "Execute the web search (or the knowledge store, without a search engine) for the current task.",
                      meta: { summary: "Searching for the current task" } satisfies StateMeta,
                      invoke: {
                        src: "searchTask",
                        input: ({ context }) => ({ task: context.research!.tasks[context.research!.index]!, sources: context.research!.sources }),
                        onDone: { target: "ProcessResult", description: "Collect and summarize", actions: "setSearchResult" },
                        onError: boundaryError,
                      },
                    },
                    ProcessResult: {
                      description: "Summarize the task's results for its goal, citing the sources as [S01] ….",
                      meta: { summary: "Summarizing the results" } satisfies StateMeta,
                      invoke: {
                        src: "processResult",
                        input: ({ context }) => {
                          const r = context.research!;
                          const task = r.tasks[r.index]!;
                          return { query: context.query, task, sources: r.sources.filter((s) => task.sources.includes(s.id)) };
                        },
                        onDone: [
                          { guard: "moreTasks", target: "SearchTask", description: "Next task", actions: ["setSummary", "nextTask"] },
                          { target: "TasksDone", description: "All tasks done", actions: "setSummary" },
                        ],
                        onError: boundaryError,
                      },
                    },
                    TasksDone: { type: "final", meta: { summary: "All tasks done" } satisfies StateMeta },
                  },
                },
                WriteFinalReport: {
                  entry: { type: "workflowStep", params: { step: "synthesize" } },
                  description: "Synthesize the summaries with the plan into a structured report with citations.",
                  meta: { summary: "Writing the final report" } satisfies StateMeta,
                  invoke: {
                    src: "writeFinalReport",
                    input: ({ context }) => ({ query: context.query, plan: context.research!.plan!, tasks: context.research!.tasks, sources: context.research!.sources }),
                    onDone: { target: "ReportWritten", description: "Report ready", actions: "setReport" },
                    onError: boundaryError,
                  },
                },
                ReportWritten: { type: "final", meta: { summary: "Report ready" } satisfies StateMeta },
              },
            },
          },
        },
        ErrorClassify: {
          description: "ErrorClassifier.classify(): NETWORK / LLM errors are retried after an exponential backoff (base 1 s), the rest fail at once.",
          meta: { summary: "Classifying the error" } satisfies StateMeta,
          initial: "ErrorHandling",
          // retry_with_backoff: the backoff is this edge's delay
          after: { backoff: { guard: "retryable", target: "RetryableExec", description: "Retryable (network/LLM): retried after the backoff" } },
          states: {
            ErrorHandling: {
              description: "The classified error: retryable ones wait for the backoff; a model error past max retries asks a person; the rest fail.",
              meta: { summary: "Handling the error" } satisfies StateMeta,
              always: [
                { guard: "retriesExhausted", target: "#processing-modes.ERROR", description: "Max retries exceeded (network/LLM): ask a person", actions: "askPerson" },
                { guard: "notRetryable", target: `${AGENT}.WorkflowFailed`, description: "Non-retryable", actions: "workflowFailed" },
              ],
            },
          },
        },
        WorkflowComplete: { type: "final", description: "WorkflowState.complete()", meta: { summary: "Workflow complete" } satisfies StateMeta },
        WorkflowFailed: { type: "final", description: "ErrorClassifier.classify(error): the classified error is recorded.", meta: { summary: "Workflow failed" } satisfies StateMeta },
      },
    },
    ERROR: {
      tags: ["waiting", "human", "error"],
      description: "A model call failed after its retries (a reply that never matched its schema, an endpoint down): a person retries the step or aborts the request.",
      meta: { summary: "Error: needs your intervention", review: { kind: "intervention", decisions: ["retry", "abort"] } } satisfies StateMeta,
      on: {
        RETRY: RETRY_TARGETS.map((state) => ({
          guard: { type: "retryFrom" as const, params: { state } },
          target: `#processing-modes.${state}`,
          description: `Retry ${state.split(".").pop()}`,
          actions: assign({ error: null }),
        })),
        ABORT: { target: "RecordMetrics", description: "Abort (the error is recorded)", actions: "abortAfterError" },
      },
    },
    RecordMetrics: {
      description: "Per mode: latency, model answers used (the router's call and failed attempts are not counted), cache hit, errors.",
      meta: { summary: "Recording metrics" } satisfies StateMeta,
      invoke: {
        src: "recordMetrics",
        input: ({ context }) => ({ context }),
        onDone: [
          { guard: "requestFailed", target: "Failed", description: "The request failed", actions: "setMetrics" },
          { target: "Done", description: "Recorded", actions: "setMetrics" },
        ],
        onError: [
          { guard: "requestFailed", target: "Failed", description: "Metrics not recorded" },
          { target: "Done", description: "Metrics not recorded" },
        ],
      },
    },
    Done: { type: "final", description: "The result is returned.", meta: { summary: "Done" } satisfies StateMeta },
    Failed: { type: "final", tags: ["failed"], description: "The request failed; its classified error is kept.", meta: { summary: "Failed" } satisfies StateMeta },
  },
});

/** One THINKING stage: invoke the stage, store its output, go on. */
function thinkingStage(stage: ThinkingStage, next: string, edge: string, summary: string) {
  return {
    [stage]: {
      meta: { summary } satisfies StateMeta,
      invoke: {
        src: "think" as const,
        input: ({ context }: { context: ModesContext }) => ({ stage, query: context.query, previous: context.stages.map((s) => ({ stage: s.stage, text: s.text })) }),
        onDone: { target: next, description: edge, actions: "addStage" as const },
        onError: processorError(`THINKING.${stage}`, `ModelRuntime.ProcessorExec.THINKING.${stage}`),
      },
    },
  };
}

export const processingModes = {
  id: "processing-modes",
  title: "Processing Modes",
  seed: "004_7d2066cca6d42ffb.txt",
  description:
    "One request through the router and the runtime its mode's cognitive level selects: CHAT and KNOWLEDGE via the response cache, SEARCH, CODE (WebAssembly sandbox) and THINKING without it, DEEP_RESEARCH through the AgentRuntime's retry-wrapped research pipeline (plan, search tasks, report with citations); every request records its metrics.",
  machine: processingModesMachine,
  input: z
    .object({
      query: z.string().trim().min(1, "query is required").max(20_000),
      mode: z.enum(MODES, { message: `mode must be one of ${MODES.join(", ")}` }).optional(),
      config: z
        .object({
          enableCache: z.boolean(),
          cacheTtlMs: z.number().int().min(0).max(86_400_000),
          maxRetries: z.number().int().min(0).max(5),
          backoffBaseMs: z.number().int().min(0).max(60_000),
          codeTimeoutMs: z.number().int().min(100).max(30_000),
          codeMemoryMb: z.number().int().min(16).max(256),
        })
        .partial()
        .strict()
        .optional(),
    })
    .strict(),
  events: {
    RETRY: z.object({ type: z.literal("RETRY"), feedback: z.string().max(10_000).optional(), reviewer: z.string().max(200).optional() }).strict(),
    ABORT: z.object({ type: z.literal("ABORT"), reason: z.string().max(2_000).optional(), feedback: z.string().max(10_000).optional(), reviewer: z.string().max(200).optional() }).strict(),
  },
  review: (_state, ctx) => {
    const c = ctx as ModesContext;
    return { prompt: `The ${c.routing?.mode ?? "request"} request stopped in ${c.error?.state}: ${c.error?.message}. Retry the step, or abort.`, payload: { kind: "intervention", error: c.error } };
  },
  output: (ctx) => {
    const c = ctx as ModesContext;
    return {
      mode: c.routing?.mode ?? null,
      level: c.routing ? LEVEL[c.routing.mode] : null,
      routedBy: c.routing?.routedBy ?? null,
      confidence: c.routing?.confidence ?? null,
      cache: c.cache?.status ?? null,
      result: c.result?.text ?? null,
      adapter: c.result?.adapter ?? null,
      // the seed's context.intermediate_results["workflow_state"] (DEEP_RESEARCH)
      intermediate_results: c.workflow ? { workflow_state: c.workflow } : null,
      error: c.error,
      metrics: c.metrics,
    };
  },
  result: (ctx) => {
    const c = ctx as ModesContext;
    return c.result?.text ? { title: c.routing ? `${c.routing.mode} answer` : "Answer", text: c.result.text, by: c.result.adapter ?? null } : null;
  },
  // what a fork may edit: what the run's input gave; the rest is the machine's and its effects'
  forkEditable: ["config", "query", "requested"],
  example: { query: "What does the response cache key on, and how long do entries live?" },
  inputChoices: { mode: { label: "Mode", options: MODES, empty: "Route automatically (classified)" } },
} satisfies WorkflowDefinition;
