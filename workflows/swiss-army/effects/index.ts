// The side effects of the swiss-army machine: what each state does in the world. The engine
// runs them after the transition that invoked them is committed; each receives a stable key,
// so a re-run after a crash writes nothing twice.
import { z } from "zod";
import type { ActionFn, EffectContext } from "../../../lib/engine/engine";
import type { EffectsOf } from "../../../lib/machines/effects-of";
import type { swissArmyMachine } from "../machine";
import { CmUnavailableError, idFromKey, type ContextManager } from "../context-manager/context-manager";
import { hitTitle, type KnowledgeStore } from "../../../lib/knowledge/documents";
import { clip } from "../../../lib/knowledge/text";
import type {
  ExecuteOutput,
  ExecutionRecord,
  ParseOutput,
  SearchHit,
  SearchOutput,
  StoreOutput,
  SwissContext,
} from "../types";
import { analyzeRequest } from "./parse";

/** The part of the knowledge store CONTEXT_SEARCH needs. */
export type DocumentSearch = Pick<KnowledgeStore, "search">;

export interface SwissPorts {
  cm: ContextManager;
  /** the knowledge store's documents, searched alongside the Context Manager's patterns and results */
  documents?: () => Promise<DocumentSearch>;
}

const DOCUMENT_HITS = 3;

const PatternsSchema = z.object({ patterns: z.array(z.object({ name: z.string().min(3).max(120), why: z.string().max(300) })).max(3) });
const ParseSchema = z.object({
  intent: z.string().min(1).max(200),
  request_type: z.enum(["code", "docs", "refactor", "query"]),
  estimated_complexity: z.enum(["simple", "medium", "complex"]),
  parameters: z.array(z.object({ name: z.string().min(1).max(40), value: z.string().max(200) })).max(10),
});

/** Passages of the knowledge store as context hits (kind "document"). */
async function documentHits(ports: SwissPorts, content: string): Promise<SearchHit[]> {
  if (!ports.documents) return [];
  const store = await ports.documents();
  const hits = await store.search(content, { limit: DOCUMENT_HITS });
  return hits
    .filter((h) => h.score >= 0.15)
    .map((h) => ({
      id: `doc:${h.chunkId}`,
      kind: "document" as const,
      title: hitTitle(h),
      snippet: clip(h.text, 400),
      score: Math.round(h.score * 100) / 100,
      source: h.source,
    }));
}


export function swissArmyEffects(ports: SwissPorts): EffectsOf<typeof swissArmyMachine> {
  const parseRequest = async (input: { requestId: string; content: string; at: number }, ctx: EffectContext): Promise<ParseOutput> => {
    const requestId = idFromKey(ctx.key);
    const out = analyzeRequest(input.content, requestId, input.at || ctx.clock.now());
    // the model reads the request (intent, type, complexity, parameters); the analysis screens
    // out the seed's user errors first, and offline it is the answer (recorded as an offline answer)
    if (out.valid) {
      const m = out.record.metadata;
      const parsed = await ctx.model.generateObject({
        purpose: "parse",
        schemaName: "request_analysis",
        schema: ParseSchema,
        system: "Analyze a request to a coding assistant: its intent in a few words, its type (code, docs, refactor or query), its complexity, and its parameters (language, file, limits …) as name/value pairs.",
        prompt: input.content,
        // the analysis, within the schema's bounds (a 200-character intent or parameter is the most a model may give too)
        offline: () => ({ intent: m.intent.slice(0, 200), request_type: m.request_type, estimated_complexity: m.estimated_complexity, parameters: Object.entries(m.parameters).slice(0, 10).map(([name, value]) => ({ name: name.slice(0, 40), value: value.slice(0, 200) })) }),
      });
      const p = parsed.object;
      out.record = {
        ...out.record,
        metadata: { ...m, intent: p.intent, request_type: p.request_type, estimated_complexity: p.estimated_complexity, parameters: Object.fromEntries(p.parameters.map((x) => [x.name, x.value])) },
      };
    }
    if (out.valid) {
      // the seed's "Initial Context Manager logging"; queued while the CM is unavailable
      await ports.cm.logRequest(ctx.runId, out.record);
    }
    return out;
  };

  const searchContext = async (input: { requestId: string; content: string; type: string }, ctx: EffectContext): Promise<SearchOutput> => {
    const started = ctx.clock.now();
    const t0 = performance.now();
    try {
      const found = await ports.cm.search(input.content, input.type);
      let warning: string | undefined;
      const docs = await documentHits(ports, input.content).catch((e: unknown) => {
        warning = `the knowledge store could not be searched: ${e instanceof Error ? e.message : String(e)}`;
        return [] as SearchHit[];
      });
      const hits = [...found.hits, ...docs].sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
      const queries = ports.documents ? [...found.queries, input.content.slice(0, 200)] : found.queries;
      const elapsed = Math.max(ctx.clock.now() - started, Math.round(performance.now() - t0));
      return {
        hits,
        record: {
          type: "context_search",
          request_id: input.requestId,
          queries,
          results_count: hits.length,
          relevance_scores: hits.map((h) => h.score),
          search_duration_ms: elapsed,
          status: hits.length ? "found" : "empty",
          ...(warning ? { warning } : {}),
        },
      };
    } catch (e) {
      if (!(e instanceof CmUnavailableError)) throw e;
      return {
        hits: [],
        record: {
          type: "context_search",
          request_id: input.requestId,
          queries: [],
          results_count: 0,
          relevance_scores: [],
          search_duration_ms: ctx.clock.now() - started,
          status: "unavailable",
          warning: `${(e as Error).message}: skipped the search and proceeded without context`,
        },
      };
    }
  };

  const execute = async (input: { requestId: string; content: string; hits: SearchHit[]; type: string }, ctx: EffectContext): Promise<ExecuteOutput> => {
    const started = performance.now();
    const model = ctx.model;
    const patterns = input.hits.filter((h) => h.kind === "pattern");
    ctx.emit({ type: "EXECUTION.PROGRESS", message: patterns.length ? `Applying ${patterns.length} pattern(s): ${patterns.map((p) => p.title).join(", ")}` : "No stored pattern matched; planning from the request itself" });
    let streamed = "";
    const result = await model.generate({
      purpose: "execute",
      system: `You are the Swiss Army Agent. Complete the user's ${input.type} request. Use the numbered context passages where they help and cite them as [n].`,
      prompt: input.content,
      passages: input.hits.map((h) => ({ id: h.id, title: h.title, text: h.snippet, score: h.score })),
      onText: (chunk) => {
        streamed += chunk;
        ctx.progress(chunk);
      },
    });
    ctx.emit({ type: "EXECUTION.PROGRESS", message: `Validated output against the request (${result.text.length} characters)`, partial: result.text });
    const applied = input.hits.filter((h) => h.kind === "pattern" && result.citations.includes(h.id));
    const record: ExecutionRecord = {
      type: "execution",
      request_id: input.requestId,
      status: "completed",
      progress_updates: [],
      patterns_applied: applied.map((h) => h.title),
      execution_duration_ms: Math.round(performance.now() - started),
      result_preview: clip(result.text || streamed, 500),
      adapter: result.adapter,
    };
    return { output: result.text, record, tokens_used: result.usage.promptTokens + result.usage.completionTokens };
  };

  const storeResult = async (
    input: { requestId: string; content: string; output: string; partial: boolean; execution: ExecutionRecord | undefined; hits: SearchHit[]; tokens: number; requestType: string },
    ctx: EffectContext,
  ): Promise<StoreOutput> => {
    if (!input.requestId) throw new Error("no request to store a result for");
    const tokens = input.tokens;
    const success = !input.partial && input.output.length > 0;
    // CONTEXT_UPDATE's pattern extraction is the model's: reusable approaches in the output (offline
    // none: the Context Manager derives one from the request's terms)
    let patterns: string[] | undefined;
    let patternWarning: string | undefined;
    if (success) {
      // non-critical, like storage: a model failing here costs the patterns, not the result
      const out = await ctx.model.generateObject({
        purpose: "extract-patterns",
        schemaName: "patterns",
        schema: PatternsSchema,
        system: "Name up to three reusable solution patterns (approaches that would help a similar request) that this result applies. Short names, e.g. \"Retry with exponential backoff\". None when nothing is reusable.",
        prompt: `Request (${input.requestType}): ${input.content}\n\nResult:\n${clip(input.output, 6_000)}`,
        offline: () => ({ patterns: [] }),
      }).catch((e: unknown) => {
        patternWarning = `pattern extraction by the model failed (${e instanceof Error ? e.message : String(e)}); the pattern was derived from the request's terms`;
        return null;
      });
      if (out) patterns = out.object.patterns.map((p) => p.name.trim()).filter(Boolean);
    }
    try {
      const stored = await ports.cm.storeResult({
        patterns,
        runId: ctx.runId,
        requestId: input.requestId,
        content: input.content,
        requestType: input.requestType,
        output: input.output,
        success: !input.partial && input.output.length > 0,
        partial: input.partial,
        execution: input.execution,
        hits: input.hits,
        tokens,
        executionMs: input.execution?.execution_duration_ms ?? 0,
      });
      const queued = stored.storage === "queued";
      return {
        record: {
          type: "execution_result",
          request_id: input.requestId,
          result: {
            output: input.output,
            success: !input.partial && input.output.length > 0,
            patterns_discovered: stored.patterns_discovered,
            metrics: { tokens_used: tokens, execution_time_ms: input.execution?.execution_duration_ms ?? 0, context_relevance: stored.context_relevance },
          },
          storage_status: queued ? "failed" : "success",
          context_links: stored.context_links,
          ...(queued ? { queued: true, warning: "Context Manager unavailable: the result is queued and will be stored when it returns" } : patternWarning ? { warning: patternWarning } : {}),
        },
      };
    } catch (e) {
      // storage failure is non-critical (seed: "Storage failed → HUMAN_REVIEW (with warning)")
      return {
        record: {
          type: "execution_result",
          request_id: input.requestId,
          result: { output: input.output, success: false, patterns_discovered: [], metrics: { tokens_used: tokens, execution_time_ms: 0, context_relevance: 0 } },
          storage_status: "failed",
          context_links: [],
          warning: `Storing the result failed: ${e instanceof Error ? e.message : String(e)}`,
        },
      };
    }
  };

  // post-commit actions: run again after a crash (the engine's outbox), so their writes are keyed
  const logDecision: ActionFn = async ({ context, key }) => {
    const c = context as SwissContext;
    const review = c.records.review_result;
    if (!review || !c.request) return;
    const patterns = c.hits.filter((h) => h.kind === "pattern").map((h) => h.id);
    await ports.cm.logDecision(review.request_id, review.decision, review.feedback, patterns, key);
  };

  // the seed's global abort: "store partial results if valuable"
  const recordAbort: ActionFn = async ({ context, runId, key }) => {
    const c = context as SwissContext;
    if (!c.request?.id || !c.output || !c.records.request) return; // nothing valuable to keep
    await ports.cm.storeResult({
      runId,
      requestId: c.request.id,
      content: c.request.content,
      requestType: c.records.request.metadata.request_type,
      output: c.output,
      success: false,
      partial: true,
      execution: c.records.execution,
      hits: c.hits,
      tokens: c.tokens,
      executionMs: c.records.execution?.execution_duration_ms ?? 0,
    });
    // storeResult is idempotent on the request id; the decision on the action's key
    await ports.cm.logDecision(c.request.id, "aborted", c.error?.message ?? "aborted by user", [], key);
  };

  const analyzePatterns: ActionFn = async () => {
    await ports.cm.analyzePatterns();
  };

  return {
    actors: {
      parseRequest,
      searchContext,
      execute,
      storeResult,
    },
    actions: { logDecision, recordAbort, analyzePatterns },
  };
}
