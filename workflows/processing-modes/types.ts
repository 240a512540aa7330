// Types of the processing-modes workflow (workflows/processing-modes/guide.md): the six modes, their cognitive levels and
// runtimes, and what a run's context holds. The machine is in ./machine.ts, the
// processors in ./effects.

import type { SandboxResult } from "../../lib/sandbox";

export const MODES = ["CHAT", "KNOWLEDGE", "SEARCH", "CODE", "THINKING", "DEEP_RESEARCH"] as const;
export type Mode = (typeof MODES)[number];
export type Level = "System 1" | "System 2" | "Agent";

/** The seed's Mode-to-Infrastructure table. */
export const LEVEL: Record<Mode, Level> = {
  CHAT: "System 1",
  KNOWLEDGE: "System 1",
  SEARCH: "System 2",
  CODE: "System 2",
  THINKING: "System 2",
  DEEP_RESEARCH: "Agent",
};

/** THINKING's five stages, in order. */
export const THINKING_STAGES = ["ProblemAnalysis", "MultiPerspective", "DeepReasoning", "SynthesisAndReflection", "FinalAnswer"] as const;
export type ThinkingStage = (typeof THINKING_STAGES)[number];

/** AgentRuntime's WorkflowState steps. */
export const WORKFLOW_STEPS = ["plan", "search", "synthesize"] as const;
export type WorkflowStep = (typeof WORKFLOW_STEPS)[number];

export interface ModesConfig {
  /** the seed's system1.enable_cache */
  enableCache: boolean;
  cacheTtlMs: number;
  /** retry_with_backoff(max_retries) */
  maxRetries: number;
  /** retry_with_backoff(base_delay) */
  backoffBaseMs: number;
  codeTimeoutMs: number;
  codeMemoryMb: number;
}

export interface RoutingDecision {
  mode: Mode;
  level: Level;
  runtime: "ModelRuntime" | "AgentRuntime";
  routedBy: "explicit" | "classified";
  confidence: number;
  scores: Partial<Record<Mode, number>>;
  reason: string;
  adapter: string;
  /** when the request started (for RecordMetrics' latency) */
  startedAt: number;
}

export interface Citation {
  id: string;
  title: string;
  url?: string;
}

export interface Passage {
  id: string;
  title: string;
  url: string;
  text: string;
  score: number;
  via: string;
}

export interface ModeResult {
  text: string;
  adapter: string;
  citations: Citation[];
  /** served from the response cache */
  cached: boolean;
}

export interface CacheCheck {
  key: string;
  status: "hit" | "miss" | "disabled" | "bypassed";
  result?: ModeResult;
  storedAt?: number;
  expiresAt?: number;
}

/** CODE's ExecuteInSandbox: what the sandbox answered. */
export type Execution = SandboxResult;

/** AgentRuntime's WorkflowState, the seed's intermediate_results["workflow_state"]. */
export interface WorkflowState {
  steps: string[];
  status: "running" | "completed" | "failed";
  /** the step the workflow is in (plan, search, synthesize), null when finished */
  current: WorkflowStep | null;
  /** steps finished in the current attempt */
  completed: WorkflowStep[];
  /** a deep-research child run, in runs recorded before DEEP_RESEARCH ran its own states */
  childRunId?: string | null;
  attempts: number;
  errors: { attempt: number; category: string; message: string }[];
}

/** DEEP_RESEARCH: WriteReportPlan's outline. */
export interface ReportPlan {
  title: string;
  sections: { heading: string; covers: string }[];
  adapter: string;
}

/** DEEP_RESEARCH: one of GenerateSearchQueries' (query, goal, priority) tuples, and what came of it. */
export interface SearchTaskState {
  query: string;
  goal: string;
  priority: "high" | "medium" | "low";
  /** SearchTask: how many results, from which engine */
  results: number;
  via: string;
  /** ProcessResult: the summary, citing sources as [S01] */
  summary: string | null;
  adapter: string | null;
  /** source ids this task's results were registered under */
  sources: string[];
}

/** DEEP_RESEARCH: a source in the run's registry, cited as [S01] … */
export interface ResearchSource {
  id: string;
  title: string;
  url: string;
  text: string;
  via: string;
}

export interface ResearchState {
  plan: ReportPlan | null;
  tasks: SearchTaskState[];
  /** the task SearchTask / ProcessResult work on */
  index: number;
  sources: ResearchSource[];
}

export interface ModeMetrics {
  mode: Mode;
  latencyMs: number;
  /** model answers the mode used: completed model calls of the run, not the router's and not failed attempts (those are in the run's usage) */
  llmCalls: number;
  cacheHit: boolean;
  ok: boolean;
  errorCategory: string | null;
}

export interface ModesContext {
  config: ModesConfig;
  query: string;
  /** the mode the client asked for, if any */
  requested: Mode | null;
  routing: RoutingDecision | null;
  cache: CacheCheck | null;
  /** CHAT: the built prompt */
  prompt: string | null;
  /** KNOWLEDGE: the query's embedding (or its BM25 terms offline) */
  embedding: { adapter: string; dims: number; terms: string[] } | null;
  /** KNOWLEDGE / SEARCH: retrieved passages */
  passages: Passage[];
  /** SEARCH: the generated queries and what each found */
  searches: { query: string; results: number; via: string }[];
  /** CODE */
  code: { language: "javascript" | "python"; code: string; source: "request" | "model" } | null;
  execution: Execution | null;
  /** THINKING: each stage's output */
  stages: { stage: ThinkingStage; text: string; adapter: string }[];
  /** DEEP_RESEARCH: AgentRuntime's WorkflowState */
  workflow: WorkflowState | null;
  /** DEEP_RESEARCH: the report plan, the search tasks with their results, the source registry */
  research?: ResearchState | null;
  result: ModeResult | null;
  /** retry: the state a person's RETRY re-enters (a model error waiting in ERROR) */
  error: { state: string; message: string; category: string; retry?: string } | null;
  metrics: ModeMetrics | null;
}
