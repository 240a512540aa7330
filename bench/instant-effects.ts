// swiss-army effects that answer at once (benchmarks measure the engine and its store, not BM25
// or a model).
import type { EffectContext, WorkflowEffects } from "../lib/engine/engine";
import type { ExecuteOutput, ParseOutput, SearchOutput, StoreOutput } from "../workflows/swiss-army/types";

export function instantEffects(): WorkflowEffects {
  const parseRequest = async (input: { requestId: string; content: string }, ctx: EffectContext): Promise<ParseOutput> => ({
    valid: true,
    record: {
      type: "request",
      request_id: ctx.key,
      content: input.content,
      metadata: { estimated_complexity: "simple", request_type: "code", timestamp: "2026-01-01T00:00:00.000Z", intent: "bench", parameters: {}, estimated_duration_ms: 5000 },
    },
  });
  const searchContext = async (input: { requestId: string }): Promise<SearchOutput> => ({
    hits: [{ id: "pattern:p1", kind: "pattern", title: "Retry with exponential backoff", snippet: "Wrap the call in a loop that retries only transient failures.", score: 0.9, confidence: 0.7 }],
    record: { type: "context_search", request_id: input.requestId, queries: ["bench"], results_count: 1, relevance_scores: [0.9], search_duration_ms: 1, status: "found" },
  });
  const execute = async (input: { requestId: string }): Promise<ExecuteOutput> => ({
    output: "Use a loop with exponential backoff and jitter. [1]",
    tokens_used: 120,
    record: { type: "execution", request_id: input.requestId, status: "completed", progress_updates: [], patterns_applied: ["Retry with exponential backoff"], execution_duration_ms: 1, result_preview: "Use a loop…", adapter: "bench" },
  });
  const storeResult = async (input: { requestId: string; output: string }): Promise<StoreOutput> => ({
    record: {
      type: "execution_result",
      request_id: input.requestId,
      result: { output: input.output, success: true, patterns_discovered: [], metrics: { tokens_used: 120, execution_time_ms: 1, context_relevance: 0.9 } },
      storage_status: "success",
      context_links: [],
    },
  });
  return { actors: { parseRequest, searchContext, execute, storeResult } as never, actions: {} };
}

