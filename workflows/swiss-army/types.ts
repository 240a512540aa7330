// Data shapes of the Swiss Army Knife (workflows/swiss-army/guide.md): the context record each state writes, as the
// seed prints them, plus the run context that carries them.
import type { SearchHit } from "./context-manager/context-manager";

export type RequestType = "code" | "docs" | "refactor" | "query";
export type Complexity = "simple" | "medium" | "complex";

export interface RequestRecord {
  type: "request";
  request_id: string;
  content: string;
  metadata: {
    estimated_complexity: Complexity;
    request_type: RequestType;
    timestamp: string;
    intent: string;
    parameters: Record<string, string>;
    estimated_duration_ms: number;
  };
}

export type { SearchHit };

export interface ContextSearchRecord {
  type: "context_search";
  request_id: string;
  queries: string[];
  results_count: number;
  relevance_scores: number[];
  search_duration_ms: number;
  /** found: results ranked; empty: searched, nothing relevant; unavailable: CM down, skipped; timeout: 5 s elapsed */
  status: "found" | "empty" | "unavailable" | "timeout";
  warning?: string;
}

export interface ExecutionRecord {
  type: "execution";
  request_id: string;
  status: "in_progress" | "completed" | "failed" | "partial";
  progress_updates: string[];
  patterns_applied: string[];
  execution_duration_ms: number;
  result_preview: string;
  /** which model adapter produced the output, e.g. "offline engine" */
  adapter?: string;
}

export interface ExecutionResultRecord {
  type: "execution_result";
  request_id: string;
  result: {
    output: string;
    success: boolean;
    patterns_discovered: string[];
    metrics: { tokens_used: number; execution_time_ms: number; context_relevance: number };
  };
  storage_status: "success" | "failed";
  context_links: string[];
  /** set when the write was queued because the Context Manager was unavailable */
  queued?: boolean;
  warning?: string;
}

export interface ReviewResultRecord {
  type: "review_result";
  request_id: string;
  decision: "approved" | "rejected" | "modify";
  feedback: string;
  review_duration_ms: number;
  modifications_requested: string[];
  reviewer?: string;
}

export interface SwissError {
  /** the seed's error categories */
  category: "recoverable" | "critical" | "user";
  state: string;
  message: string;
  suggestions: string[];
  /** the model port's classification (LLM, NETWORK) when a model call failed after its retries */
  model_error?: string;
  /** partial results preserved when the cycle ended early */
  partial?: string;
}

export interface CycleOutcome {
  request_id: string;
  /** the cycle's number (1, 2, …); absent in runs recorded before it was kept */
  cycle?: number;
  content: string;
  /** how the cycle ended */
  outcome: "approved" | "rejected" | "invalid" | "failed" | "aborted";
  result_preview: string;
  at: number;
  feedback?: string;
  error?: SwissError;
}

export interface SwissConfig {
  parseTimeoutMs: number;
  searchTimeoutMs: number;
  executionTimeoutMs: number;
  updateTimeoutMs: number;
  idleAnalysisMs: number;
}

export interface SwissContext {
  config: SwissConfig;
  cycle: number;
  request: { id: string; content: string; original: string; feedback?: string; receivedAt: number } | null;
  records: {
    request?: RequestRecord;
    context_search?: ContextSearchRecord;
    execution?: ExecutionRecord;
    execution_result?: ExecutionResultRecord;
    review_result?: ReviewResultRecord;
  };
  hits: SearchHit[];
  output: string;
  /** tokens the model port reported for this cycle's execution */
  tokens: number;
  enteredReviewAt: number | null;
  warnings: string[];
  error: SwissError | null;
  last: CycleOutcome | null;
  history: CycleOutcome[];
  patternAnalysisAt: number | null;
}

export interface ParseOutput {
  valid: boolean;
  record: RequestRecord;
  error?: SwissError;
}

export interface SearchOutput {
  record: ContextSearchRecord;
  hits: SearchHit[];
}

export interface ExecuteOutput {
  output: string;
  record: ExecutionRecord;
  tokens_used: number;
}

export interface StoreOutput {
  record: ExecutionResultRecord;
}
