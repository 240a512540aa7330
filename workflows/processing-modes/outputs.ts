// What each processing-modes effect must return, as zod schemas: the output an external worker
// gives for an effect sent out by SWITCHYARD_EXTERNAL_EFFECTS is parsed with these before the
// machine sees it (builtIn() checks at compile time that each schema's type is the effect's
// output type). Limits keep a hostile worker from filling a run's context (a query is at most
// 20,000 characters); code's return value is any JSON, capped by its serialized size.
import { z } from "zod";
import { SANDBOX_ERROR_KINDS } from "../../lib/sandbox";
import { MODES, THINKING_STAGES } from "./types";

const text = (max: number) => z.string().max(max);
const adapter = text(100);
const time = z.number().int().min(0);
const count = z.number().int().min(0).max(100_000_000);
const few = <T extends z.core.$ZodType>(schema: T, n: number) => z.array(schema).max(n);
const mode = z.enum(MODES);
const stage = z.enum(THINKING_STAGES);
const language = z.enum(["javascript", "python"]);
const jsonSize = (v: unknown) => (JSON.stringify(v) ?? "").length;

const citation = z.object({ id: text(200), title: text(500), url: text(2_000).optional() });
const result = z.object({ text: text(200_000), adapter, citations: few(citation, 100), cached: z.boolean() });
const passage = z.object({ id: text(200), title: text(500), url: text(2_000), text: text(20_000), score: z.number().finite(), via: text(100) });
const source = z.object({ id: text(20), title: text(500), url: text(2_000), text: text(20_000), via: text(100) });
const reportPlan = z.object({ title: z.string().min(1).max(500), sections: few(z.object({ heading: text(300), covers: text(1_000) }), 30), adapter });
const task = z.object({ query: z.string().min(1).max(500), goal: text(1_000), priority: z.enum(["high", "medium", "low"]) });

/** the effects' outputs, by effect name */
export const modesOutputs = {
  /** the router: the mode, its level and runtime, why */
  route: z.object({
    mode,
    level: z.enum(["System 1", "System 2", "Agent"]),
    runtime: z.enum(["ModelRuntime", "AgentRuntime"]),
    routedBy: z.enum(["explicit", "classified"]),
    confidence: z.number().min(0).max(1),
    scores: z.partialRecord(mode, z.number().finite()),
    reason: text(2_000),
    adapter,
    startedAt: time,
  }),
  /** the response cache's answer for the query */
  cacheCheck: z.object({ key: text(200), status: z.enum(["hit", "miss", "disabled", "bypassed"]), result: result.optional(), storedAt: time.optional(), expiresAt: time.optional() }),
  /** the response cached: until when */
  cachePut: z.object({ expiresAt: time }),
  /** CHAT */
  chat: result,
  /** KNOWLEDGE: the query's embedding (or its BM25 terms) */
  embed: z.object({ adapter, dims: z.number().int().min(0).max(100_000), terms: few(text(100), 1_000) }),
  /** KNOWLEDGE: passages found */
  searchKnowledge: z.object({ passages: few(passage, 100) }),
  /** KNOWLEDGE / SEARCH: the answer from the passages */
  answer: result,
  /** SEARCH: the queries to run */
  generateQueries: z.object({ queries: few(z.string().min(1).max(500), 20), adapter }),
  /** SEARCH: passages found, and what each query found */
  executeSearches: z.object({ passages: few(passage, 200), searches: few(z.object({ query: text(500), results: count, via: text(100) }), 20) }),
  /** CODE: the program */
  generateCode: z.object({ language, code: z.string().min(1).max(100_000), source: z.enum(["request", "model"]) }),
  /** CODE: what running it gave */
  executeCode: z.object({
    ok: z.boolean(),
    exitCode: z.number().int(),
    stdout: text(1_000_000),
    stderr: text(1_000_000),
    returnValue: z.unknown().refine((v) => jsonSize(v) <= 1_000_000, "the return value is larger than 1,000,000 characters as JSON"),
    durationMs: z.number().min(0).max(86_400_000),
    truncated: z.boolean(),
    error: z.object({ kind: z.enum(SANDBOX_ERROR_KINDS), message: text(10_000) }).nullable(),
    engine: text(100),
  }),
  /** THINKING: one stage's text */
  think: z.object({ stage, text: text(100_000), adapter }),
  /** DEEP_RESEARCH: the report's outline */
  writeReportPlan: reportPlan,
  /** DEEP_RESEARCH: the search tasks (query, goal, priority) */
  generateSearchTasks: z.object({ tasks: few(task, 30), adapter, kept: z.boolean().optional() }),
  /** DEEP_RESEARCH: one task's results, registered as sources */
  searchTask: z.object({ results: count, via: text(100), sources: few(source, 500), ids: few(text(20), 100) }),
  /** DEEP_RESEARCH: one task's summary (citing [S01] …) */
  processResult: z.object({ summary: text(50_000), adapter }),
  /** DEEP_RESEARCH: the final report */
  writeFinalReport: z.object({ report: z.string().min(1).max(1_000_000), adapter, cited: few(text(20), 500) }),
  /** RecordMetrics: the request's metrics */
  recordMetrics: z.object({ mode, latencyMs: time, llmCalls: z.number().int().min(0).max(10_000), cacheHit: z.boolean(), ok: z.boolean(), errorCategory: text(100).nullable() }),
};
