// Seed 004 — processing modes, as one XState v5 machine: RouteRequest picks the mode (explicit or
// classified), CheckRuntime sends System 1 / System 2 modes to ModelRuntime (CacheCheck →
// CacheHit | ProcessorExec → CachePut) and the agent mode to AgentRuntime (WorkflowInit →
// RetryableExec with retry_with_backoff → WorkflowComplete | WorkflowFailed); every request ends
// in RecordMetrics. Each mode's own state machine is nested inside ProcessorExec.
import { assign, setup } from "xstate";
import { z } from "zod";
import { effect } from "./effect";
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
  type RoutingDecision,
  type ThinkingStage,
} from "./processing-modes.types";
import type { StateMeta, WorkflowDefinition } from "./types";

export const defaultModesConfig: ModesConfig = { enableCache: true, cacheTtlMs: 300_000, maxRetries: 2, backoffBaseMs: 1_000, codeTimeoutMs: 5_000, codeMemoryMb: 64 };

export interface ModesInput {
  query: string;
  mode?: Mode;
  config?: Partial<ModesConfig>;
}

type ModesEvent =
  | { type: "WORKFLOW.STEP"; step: string; childState?: string; childRunId?: string }
  | { type: `xstate.done.actor.${string}`; output: unknown }
  | { type: `xstate.error.actor.${string}`; error?: { message?: string; category?: string } };

const out = <T>(event: unknown) => (event as { output: T }).output;
const errorOf = (event: unknown) => (event as { error?: { message?: string; category?: string } }).error ?? {};
const RETRYABLE = new Set(["NETWORK", "LLM"]);

export type ResearchOutcome = { report: string; childRunId: string; missionId: string; facts: number; sources: number; adapter: string };

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
    research: effect<ResearchOutcome, { query: string; attempt: number }>("research"),
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
      return !!last && RETRYABLE.has(last.category) && w.attempts <= context.config.maxRetries;
    },
    requestFailed: ({ context }) => context.error !== null,
  },
  delays: {
    // retry_with_backoff: base_delay × 2^(attempt − 1)
    backoff: ({ context }) => context.config.backoffBaseMs * 2 ** Math.max(0, (context.workflow?.attempts ?? 1) - 1),
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
    initWorkflow: assign({ workflow: () => ({ steps: [...WORKFLOW_STEPS], status: "running" as const, current: "plan", childRunId: null, attempts: 0, errors: [] }) }),
    countAttempt: assign(({ context }) => ({ workflow: { ...context.workflow!, attempts: context.workflow!.attempts + 1 } })),
    workflowStep: assign(({ context, event }) => {
      const e = event as { step: string; childRunId?: string };
      return { workflow: { ...context.workflow!, current: e.step, childRunId: e.childRunId ?? context.workflow!.childRunId } };
    }),
    workflowComplete: assign(({ context, event }) => {
      const o = out<ResearchOutcome>(event);
      return {
        workflow: { ...context.workflow!, status: "completed" as const, current: null, childRunId: o.childRunId },
        result: { text: o.report, adapter: o.adapter, citations: [{ id: o.childRunId, title: `deep-research run ${o.missionId}`, url: `/runs/${o.childRunId}` }], cached: false },
      };
    }),
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
    fail: assign(({ event }, params: { state: string }) => {
      const e = errorOf(event);
      return { error: { state: params.state, message: e.message ?? "unknown error", category: e.category ?? "UNKNOWN" } };
    }),
    setMetrics: assign(({ event }) => ({ metrics: out<ModeMetrics>(event) })),
  },
}).createMachine({
  id: "processing-modes",
  description: "Processing modes: router, runtimes, response cache (seed 004)",
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
        onError: { target: "RecordMetrics", actions: { type: "fail", params: { state: "RouteRequest" } } },
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
                    onError: { target: "#processing-modes.ModelRuntime.ProcessorExec.Processed", actions: { type: "fail", params: { state: "CHAT.CallLLM" } } },
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
                    onError: { target: "#processing-modes.ModelRuntime.ProcessorExec.Processed", actions: { type: "fail", params: { state: "KNOWLEDGE.GenerateEmbeddings" } } },
                  },
                },
                SearchVectorDB: {
                  meta: { summary: "Top-k passages from the knowledge store" } satisfies StateMeta,
                  invoke: {
                    src: "searchKnowledge",
                    input: ({ context }) => ({ query: context.query }),
                    onDone: { target: "SynthesizeContext", description: "Combine retrieved chunks + query", actions: "setPassages" },
                    onError: { target: "#processing-modes.ModelRuntime.ProcessorExec.Processed", actions: { type: "fail", params: { state: "KNOWLEDGE.SearchVectorDB" } } },
                  },
                },
                SynthesizeContext: { meta: { summary: "Enriched prompt" } satisfies StateMeta, always: { target: "CallLLM", description: "Generate answer with context" } },
                CallLLM: {
                  meta: { summary: "Grounded answer" } satisfies StateMeta,
                  invoke: {
                    src: "answer",
                    input: ({ context }) => ({ query: context.query, passages: context.passages, mode: "KNOWLEDGE" as const }),
                    onDone: { target: "ReturnResult", description: "Store in cache", actions: "setResult" },
                    onError: { target: "#processing-modes.ModelRuntime.ProcessorExec.Processed", actions: { type: "fail", params: { state: "KNOWLEDGE.CallLLM" } } },
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
                    onError: { target: "#processing-modes.ModelRuntime.ProcessorExec.Processed", actions: { type: "fail", params: { state: "SEARCH.GenerateSearchQueries" } } },
                  },
                },
                ExecuteSearches: {
                  meta: { summary: "Searching concurrently" } satisfies StateMeta,
                  invoke: {
                    src: "executeSearches",
                    input: ({ context }) => ({ queries: context.searches.map((s) => s.query) }),
                    onDone: { target: "SynthesizeResults", description: "Aggregate all search results", actions: "setSearchResults" },
                    onError: { target: "#processing-modes.ModelRuntime.ProcessorExec.Processed", actions: { type: "fail", params: { state: "SEARCH.ExecuteSearches" } } },
                  },
                },
                SynthesizeResults: { meta: { summary: "Unified context" } satisfies StateMeta, always: { target: "CallLLM", description: "Generate comprehensive report" } },
                CallLLM: {
                  meta: { summary: "Comprehensive answer" } satisfies StateMeta,
                  invoke: {
                    src: "answer",
                    input: ({ context }) => ({ query: context.query, passages: context.passages, mode: "SEARCH" as const }),
                    onDone: { target: "ReturnResult", description: "Answer ready", actions: "setResult" },
                    onError: { target: "#processing-modes.ModelRuntime.ProcessorExec.Processed", actions: { type: "fail", params: { state: "SEARCH.CallLLM" } } },
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
                    onError: { target: "#processing-modes.ModelRuntime.ProcessorExec.Processed", actions: { type: "fail", params: { state: "CODE.GenerateCode" } } },
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
                    onError: { target: "#processing-modes.ModelRuntime.ProcessorExec.Processed", actions: { type: "fail", params: { state: "CODE.ExecuteInSandbox" } } },
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
      description: "Stateful, workflow-tracked, retry-wrapped: DEEP_RESEARCH runs as a deep-research child run.",
      meta: { summary: "AgentRuntime" } satisfies StateMeta,
      initial: "WorkflowInit",
      onDone: { target: "RecordMetrics", description: "Workflow finished" },
      on: { "WORKFLOW.STEP": { actions: "workflowStep", description: "The child run moved to another step" } },
      states: {
        WorkflowInit: {
          entry: "initWorkflow",
          description: "WorkflowState(steps=[plan, search, synthesize]), status running.",
          meta: { summary: "Creating the WorkflowState" } satisfies StateMeta,
          always: { target: "RetryableExec", description: "retry_with_backoff(max=2)" },
        },
        RetryableExec: {
          entry: "countAttempt",
          description: "The retry boundary: the deep-research workflow (plan → search → synthesize) as a child run.",
          meta: { summary: "Running the research workflow" } satisfies StateMeta,
          invoke: {
            src: "research",
            input: ({ context }) => ({ query: context.query, attempt: context.workflow!.attempts }),
            onDone: { target: "WorkflowComplete", description: "Success", actions: "workflowComplete" },
            onError: { target: "ErrorClassify", description: "Exception", actions: "classifyError" },
          },
        },
        ErrorClassify: {
          description: "ErrorClassifier.classify(): NETWORK / LLM errors are retried, the rest fail at once.",
          meta: { summary: "Classifying the error" } satisfies StateMeta,
          always: [
            { guard: "retryable", target: "Backoff", description: "Retryable (network/LLM)" },
            { target: "WorkflowFailed", description: "Non-retryable or max retries exceeded", actions: "workflowFailed" },
          ],
        },
        Backoff: {
          description: "Exponential backoff before the next attempt (base 1 s).",
          meta: { summary: "Waiting before the retry" } satisfies StateMeta,
          after: { backoff: { target: "RetryableExec", description: "Retry" } },
        },
        WorkflowComplete: { type: "final", description: "WorkflowState.complete()", meta: { summary: "Workflow complete" } satisfies StateMeta },
        WorkflowFailed: { type: "final", description: "The classified error is recorded.", meta: { summary: "Workflow failed" } satisfies StateMeta },
      },
    },
    RecordMetrics: {
      description: "Per mode: latency, LLM calls, cache hit, errors.",
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
        onError: { target: "#processing-modes.ModelRuntime.ProcessorExec.Processed", actions: { type: "fail" as const, params: { state: `THINKING.${stage}` } } },
      },
    },
  };
}

export const processingModes: WorkflowDefinition = {
  id: "processing-modes",
  title: "Processing Modes",
  seed: "004_7d2066cca6d42ffb.txt",
  description:
    "One request through the router and the runtime its mode's cognitive level selects: CHAT and KNOWLEDGE via the response cache, SEARCH, CODE (WebAssembly sandbox) and THINKING without it, DEEP_RESEARCH as a retry-wrapped deep-research child run; every request records its metrics.",
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
  events: {},
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
      childRunId: c.workflow?.childRunId ?? null,
      error: c.error,
      metrics: c.metrics,
    };
  },
  result: (ctx) => {
    const c = ctx as ModesContext;
    return c.result?.text ? { title: c.routing ? `${c.routing.mode} answer` : "Answer", text: c.result.text, by: c.result.adapter ?? null } : null;
  },
  example: { query: "What does the response cache key on, and how long do entries live?" },
  inputChoices: { mode: { label: "Mode", options: MODES, empty: "Route automatically (classified)" } },
};
