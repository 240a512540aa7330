// What each swiss-army effect must return, as zod schemas: the output an external worker gives
// for an effect sent out by SWITCHYARD_EXTERNAL_EFFECTS is parsed with these before the machine sees
// it (builtIn() checks at compile time that each schema's type is the effect's output type).
// Limits keep a hostile worker from filling a run's context (a request is at most 20,000
// characters, 30,000 with the reviewer's feedback appended).
import { z } from "zod";

const text = (max: number) => z.string().max(max);
const id = z.string().min(1).max(200);
const ms = z.number().int().min(0).max(7 * 24 * 3600_000);
const count = z.number().int().min(0).max(100_000_000);
const strings = (n: number, max: number) => z.array(text(max)).max(n);

const error = z.object({
  category: z.enum(["recoverable", "critical", "user"]),
  state: text(100),
  message: text(2_000),
  suggestions: strings(20, 500),
  model_error: text(50).optional(),
  partial: text(200_000).optional(),
});

const hit = z.object({
  id: text(300),
  kind: z.enum(["pattern", "request", "result", "document"]),
  title: text(500),
  snippet: text(2_000),
  score: z.number().min(0).max(1_000),
  confidence: z.number().min(0).max(1).optional(),
  source: text(2_000).optional(),
});

const requestRecord = z.object({
  type: z.literal("request"),
  request_id: id,
  content: text(40_000),
  metadata: z.object({
    estimated_complexity: z.enum(["simple", "medium", "complex"]),
    request_type: z.enum(["code", "docs", "refactor", "query"]),
    timestamp: text(40),
    intent: text(200),
    parameters: z.record(z.string().max(40), text(200)).refine((p) => Object.keys(p).length <= 20, "at most 20 parameters"),
    estimated_duration_ms: ms,
  }),
});

const searchRecord = z.object({
  type: z.literal("context_search"),
  request_id: id,
  queries: strings(20, 2_000),
  results_count: z.number().int().min(0).max(1_000),
  relevance_scores: z.array(z.number().min(0).max(1_000)).max(100),
  search_duration_ms: ms,
  status: z.enum(["found", "empty", "unavailable", "timeout"]),
  warning: text(2_000).optional(),
});

const executionRecord = z.object({
  type: z.literal("execution"),
  request_id: id,
  status: z.enum(["in_progress", "completed", "failed", "partial"]),
  progress_updates: strings(100, 500),
  patterns_applied: strings(50, 200),
  execution_duration_ms: ms,
  result_preview: text(2_000),
  adapter: text(100).optional(),
});

const resultRecord = z.object({
  type: z.literal("execution_result"),
  request_id: id,
  result: z.object({
    output: text(200_000),
    success: z.boolean(),
    patterns_discovered: strings(50, 200),
    metrics: z.object({ tokens_used: count, execution_time_ms: ms, context_relevance: z.number().min(0).max(1_000) }),
  }),
  storage_status: z.enum(["success", "failed"]),
  context_links: strings(100, 300),
  queued: z.boolean().optional(),
  warning: text(2_000).optional(),
});

/** the effects' outputs, by effect name */
export const swissOutputs = {
  /** REQUEST_PARSING: the request record (intent, type, complexity, parameters); invalid: the user error */
  parseRequest: z.object({ valid: z.boolean(), record: requestRecord, error: error.optional() }),
  /** CONTEXT_SEARCH: the search record and the hits ranked (at most 50) */
  searchContext: z.object({ record: searchRecord, hits: z.array(hit).max(50) }),
  /** EXECUTING: the result and its execution record */
  execute: z.object({ output: text(200_000), record: executionRecord, tokens_used: count }),
  /** CONTEXT_UPDATE: the stored result's record */
  storeResult: z.object({ record: resultRecord }),
};
