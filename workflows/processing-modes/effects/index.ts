// The processors of the processing-modes machine (workflows/processing-modes/guide.md) on this runtime's ports: the model
// port (offline engine or OpenAI-compatible endpoints), the knowledge store, web search when
// configured, the WebAssembly sandbox, the response cache and the metrics table. DEEP_RESEARCH's
// steps are in ./research.
import { z } from "zod";
import type { Db } from "../../../lib/db/client";
import type { EffectContext } from "../../../lib/engine/engine";
import { EffectError, type ErrorCategory } from "../../../lib/engine/effect-error";
import type { EffectsOf } from "../../../lib/machines/effects-of";
import type { processingModesMachine } from "../machine";
import { keyTerms } from "../../../lib/knowledge/text";
import { isSmallTalk, OFFLINE_ADAPTER, synthesize } from "../../../lib/llm/offline";
import { LEVEL, MODES, type CacheCheck, type Citation, type Execution, type Mode, type ModeMetrics, type ModeResult, type ModesContext, type Passage, type RoutingDecision, type ThinkingStage } from "../types";
import { codeBlock, runInSandbox } from "../../../lib/sandbox";
import type { SearchPort } from "../../../lib/search/types";
import { cacheGet, cachePut } from "./cache";
import { researchEffects } from "./research";
import { classifyMode } from "./router";
import { offlineStage } from "./thinking";

export interface ModesPorts {
  db: Db;
  knowledge: SearchPort;
  web: SearchPort | null;
}

const STAGE_PROMPTS: Record<ThinkingStage, string> = {
  ProblemAnalysis: "Decompose the problem into its components and identify the key aspects and unknowns.",
  MultiPerspective: "Analyze the problem from critical, creative and analytical perspectives.",
  DeepReasoning: "Reason step by step (chain of thought) to a conclusion.",
  SynthesisAndReflection: "Consolidate the analysis so far, check its quality and correct weaknesses.",
  FinalAnswer: "Write the final, structured answer in Markdown.",
};

const classified = (message: string, category: ErrorCategory) => new EffectError(message, { category });

export function processingModesEffects(ports: ModesPorts): EffectsOf<typeof processingModesMachine> {
  const toPassages = (rs: Awaited<ReturnType<SearchPort["search"]>>): Passage[] =>
    rs.map((r, i) => ({ id: `${r.via === "knowledge store" ? "kb" : "web"}:${i + 1}:${r.url}`, title: r.title, url: r.url, text: r.text, score: r.score, via: r.via }));

  const route = async (input: { query: string; requested: Mode | null }, ctx: EffectContext): Promise<RoutingDecision> => {
    const startedAt = ctx.clock.now();
    if (input.requested) {
      const mode = input.requested;
      return { mode, level: LEVEL[mode], runtime: LEVEL[mode] === "Agent" ? "AgentRuntime" : "ModelRuntime", routedBy: "explicit", confidence: 1, scores: { [mode]: 1 }, reason: `${mode} chosen by the client`, adapter: "client", startedAt };
    }
    const top = (await ports.knowledge.search(input.query, { limit: 1, signal: ctx.signal }))[0]?.score ?? 0;
    const offline = classifyMode(input.query, top);
    const out = await ctx.model.generateObject({
      purpose: "route",
      schemaName: "routing",
      schema: z.object({ mode: z.enum(MODES), confidence: z.number().min(0).max(1), reason: z.string() }),
      system:
        "Route the user's request to one processing mode: CHAT (small talk, a direct answer), KNOWLEDGE (answerable from the product's documentation), SEARCH (needs current web information), CODE (write or run code), THINKING (a hard problem needing multi-step reasoning), DEEP_RESEARCH (a research report with sources).",
      prompt: input.query,
      offline: () => ({ mode: offline.mode, confidence: offline.confidence, reason: offline.reason }),
    });
    const mode = out.object.mode;
    return { mode, level: LEVEL[mode], runtime: LEVEL[mode] === "Agent" ? "AgentRuntime" : "ModelRuntime", routedBy: "classified", confidence: out.object.confidence, scores: offline.scores, reason: out.object.reason, adapter: out.adapter, startedAt };
  };

  const cacheCheck = (input: { mode: Mode; query: string; enabled: boolean; system1: boolean }, ctx: EffectContext): Promise<CacheCheck> =>
    cacheGet(ports.db, input.mode, input.query, input, ctx.clock.now());

  const putInCache = (input: { key: string; mode: Mode; query: string; result: ModeResult; ttlMs: number }, ctx: EffectContext) =>
    cachePut(ports.db, input.key, input.mode, input.query, input.result, input.ttlMs, ctx.clock.now());

  const chat = async (input: { prompt: string; query: string }, ctx: EffectContext): Promise<ModeResult> => {
    // a model converses from the message alone; the offline engine cannot, so its answer quotes what
    // the stored documents say about the message (small talk gets its short reply, no search)
    let quoted: Passage[] = [];
    const out = await ctx.model.generate({
      purpose: "chat",
      system: input.prompt.split("\nUser:")[0]!.replace(/^System: /, ""),
      prompt: input.query,
      onText: (c) => ctx.progress(c),
      offline: async () => {
        quoted = isSmallTalk(input.query) ? [] : toPassages(await ports.knowledge.search(input.query, { limit: 3, signal: ctx.signal }));
        return synthesize({ purpose: "chat", prompt: input.query, passages: quoted });
      },
    });
    return { text: out.text, adapter: out.adapter, citations: cite(quoted, out.citations), cached: false };
  };

  const cite = (passages: Passage[], ids: string[]): Citation[] =>
    ids.map((id) => passages.find((p) => p.id === id)).filter((p): p is Passage => !!p).map((p) => ({ id: p.id, title: p.title, url: p.url }));

  const embed = async (input: { query: string }, ctx: EffectContext) => {
    const model = ctx.model;
    if (model.embed) {
      const e = await model.embed([input.query]);
      return { adapter: e.adapter, dims: e.vectors[0]?.length ?? 0, terms: keyTerms(input.query, 12) };
    }
    // offline: the query's terms are what BM25 matches on
    return { adapter: "BM25 terms (no embeddings endpoint)", dims: 0, terms: keyTerms(input.query, 12) };
  };

  const searchKnowledge = async (input: { query: string }, ctx: EffectContext) => ({ passages: toPassages(await ports.knowledge.search(input.query, { limit: 6, signal: ctx.signal })) });

  const answer = async (input: { query: string; passages: Passage[]; mode: Mode }, ctx: EffectContext): Promise<ModeResult> => {
    const out = await ctx.model.generate({
      purpose: "answer",
      system: input.mode === "SEARCH" ? "Write a comprehensive answer from the search results. Cite them as [n]." : "Answer from the numbered passages only and cite them as [n]. Say so when they do not answer the question.",
      prompt: input.query,
      passages: input.passages.map((p) => ({ id: p.id, title: p.title, text: p.text, score: p.score })),
      onText: (c) => ctx.progress(c),
    });
    return { text: out.text, adapter: out.adapter, citations: cite(input.passages, out.citations), cached: false };
  };

  const generateQueries = async (input: { query: string }, ctx: EffectContext) => {
    const terms = keyTerms(input.query, 8);
    const offline = [...new Set([input.query.trim().slice(0, 300), terms.join(" "), terms.slice(0, 4).join(" ") + " overview"].map((q) => q.trim()).filter((q) => q.length > 2))].slice(0, 3);
    const out = await ctx.model.generateObject({
      purpose: "search-queries",
      schemaName: "search_queries",
      schema: z.object({ queries: z.array(z.string().min(2).max(300)).min(2).max(3) }),
      system: "Turn the user's question into 2-3 precise, search-engine-optimized queries.",
      prompt: input.query,
      offline: () => ({ queries: offline.length >= 2 ? offline : [input.query, `${input.query} overview`] }),
    });
    return { queries: out.object.queries, adapter: out.adapter };
  };

  const executeSearches = async (input: { queries: string[] }, ctx: EffectContext) => {
    const port = ports.web ?? ports.knowledge;
    // concurrent, as the seed says; one failing engine does not sink the others
    const settled = await Promise.allSettled(input.queries.map((q) => port.search(q, { limit: 5, signal: ctx.signal })));
    const searches = input.queries.map((q, i) => {
      const s = settled[i]!;
      return { query: q, results: s.status === "fulfilled" ? s.value.length : 0, via: s.status === "fulfilled" ? port.name : `${port.name} (failed: ${(s.reason as Error).message})` };
    });
    if (settled.every((s) => s.status === "rejected")) throw classified(`every search failed: ${(settled[0] as PromiseRejectedResult).reason}`, "NETWORK");
    const seen = new Set<string>();
    const all = settled.flatMap((s) => (s.status === "fulfilled" ? s.value : [])).sort((a, b) => b.score - a.score);
    const unique = all.filter((r) => {
      const k = `${r.url}#${r.text.slice(0, 80)}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
    return { passages: toPassages(unique.slice(0, 8)), searches };
  };

  const generateCode = async (input: { query: string }, ctx: EffectContext) => {
    const block = codeBlock(input.query);
    if (block) return { ...block, source: "request" as const };
    const out = await ctx.model.generateObject({
      purpose: "generate-code",
      schemaName: "code",
      schema: z.object({ language: z.enum(["javascript", "python"]), code: z.string().min(1).max(100_000) }),
      system: "Write a self-contained program that does what the user asks. JavaScript (no imports, no I/O besides console.log) or Python (standard library only). The last expression is the return value.",
      prompt: input.query,
      // writing code is a model's work: offline, the request must bring its code
      offline: (): { language: "javascript" | "python"; code: string } => {
        throw classified("the request has no code block and the offline engine cannot write code: put the code in ```js or ```python fences, or configure a model endpoint", "BUSINESS");
      },
    });
    return { ...out.object, source: "model" as const };
  };

  const executeCode = async (input: { language: "javascript" | "python"; code: string; timeoutMs: number; memoryMb: number }, ctx: EffectContext): Promise<Execution> => {
    ctx.progress(`running ${input.language} in the sandbox (limit ${input.timeoutMs} ms, ${input.memoryMb} MB)`);
    return runInSandbox({ language: input.language, code: input.code, timeoutMs: input.timeoutMs, memoryMb: input.memoryMb }, { ctx });
  };

  const think = async (input: { stage: ThinkingStage; query: string; previous: { stage: ThinkingStage; text: string }[] }, ctx: EffectContext) => {
    const out = await ctx.model.generate({
      purpose: `thinking:${input.stage}`,
      system: STAGE_PROMPTS[input.stage],
      prompt: [`Problem: ${input.query}`, ...input.previous.map((p) => `## ${p.stage}\n${p.text}`)].join("\n\n"),
      onText: (c) => ctx.progress(c),
      // the offline stage is built from the request and the store (recorded as an offline answer)
      offline: async () => offlineStage(input.stage, input.query, input.previous, toPassages(await ports.knowledge.search(input.query, { limit: 3, signal: ctx.signal }))),
    });
    return { stage: input.stage, text: out.text, adapter: out.adapter };
  };

  const research = researchEffects({ search: () => ports.web ?? ports.knowledge });

  const recordMetrics = async (input: { context: ModesContext }, ctx: EffectContext): Promise<ModeMetrics> => {
    const c = input.context;
    const mode = c.routing?.mode ?? c.requested ?? "CHAT";
    // model answers the mode used: completed calls to a model, not the router's, not failed attempts (the offline engine's answers are recorded as offline, no model calls: lib/llm/recording.ts)
    const llmCalls = await ports.db.modelCall.count({ where: { runId: ctx.runId, purpose: { not: "route" }, ok: true, adapter: { not: OFFLINE_ADAPTER } } });
    const metrics: ModeMetrics = {
      mode,
      latencyMs: Math.max(0, ctx.clock.now() - (c.routing?.startedAt ?? ctx.clock.now())),
      llmCalls,
      cacheHit: c.cache?.status === "hit",
      ok: c.error === null,
      errorCategory: c.error?.category ?? null,
    };
    const row = { mode, level: LEVEL[mode], routedBy: c.routing?.routedBy ?? "explicit", confidence: c.routing?.confidence ?? 0, latencyMs: metrics.latencyMs, llmCalls, cacheHit: metrics.cacheHit, ok: metrics.ok, errorCategory: metrics.errorCategory, createdAt: new Date(ctx.clock.now()) };
    await ports.db.modeRequest.upsert({ where: { id: ctx.runId }, create: { id: ctx.runId, ...row }, update: row });
    return metrics;
  };

  return {
    actors: {
      route,
      cacheCheck,
      cachePut: putInCache,
      chat,
      embed,
      searchKnowledge,
      answer,
      generateQueries,
      executeSearches,
      generateCode,
      executeCode,
      think,
      writeReportPlan: research.writeReportPlan,
      generateSearchTasks: research.generateSearchTasks,
      searchTask: research.searchTask,
      processResult: research.processResult,
      writeFinalReport: research.writeFinalReport,
      recordMetrics,
    },
  };
}
