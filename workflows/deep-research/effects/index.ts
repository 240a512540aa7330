// The side effects of the deep-research machine: the planner, the research sub-agents, the
// reflector and the synthesizer. Each thinks through the model port (the offline engine runs
// the deterministic algorithms in ./offline) and searches through the search ports.
import { z } from "zod";
import type { EffectContext } from "../../../lib/engine/engine";
import { keyTerms } from "../../../lib/knowledge/text";
import { PlanSchema, type deepResearchMachine, type PlanOutput } from "../machine";
import type { EffectsOf } from "../../../lib/machines/effects-of";
import type { FoundFact, FoundSource, Reflection, TaskResult } from "../types";
import type { Fact, Plan, Source, Task } from "../research/types";
import type { SearchPort, SearchResult } from "../../../lib/search/types";
import { extractFacts, offlinePlan, offlineReflection, offlineReport } from "./offline";

export interface ResearchPorts {
  /** the knowledge store, always there */
  knowledge: SearchPort;
  /** a web search adapter, when one is configured */
  web?: SearchPort | null;
  /** how many deep-research missions already started on that day (for DR-YYYYMMDD-NNN) */
  missionsOn: (day: string) => Promise<number>;
}

const ReflectionSchema = z.object({
  round: z.number().int(),
  gaps: z.array(z.object({ dimension: z.string(), reason: z.string(), query: z.string() })),
  conflicts: z.array(z.object({ subject: z.string(), facts: z.array(z.string()), detail: z.string() })),
  notes: z.string(),
});

const QueriesSchema = z.object({ queries: z.array(z.string().min(2).max(300)).min(1).max(3) });
const FactsSchema = z.object({
  facts: z.array(z.object({ statement: z.string().min(10).max(400), source: z.number().int().min(1), confidence: z.enum(["High", "Medium", "Low"]) })).max(8),
});
const VerdictSchema = z.object({
  resolution: z.string().min(10).max(400),
  source: z.number().int().min(1),
  confidence: z.enum(["High", "Medium", "Low"]),
  reasoning: z.string().max(1_000),
});

const used = (u: { promptTokens: number; completionTokens: number }) => u.promptTokens + u.completionTokens;
const numbered = (results: SearchResult[]) => results.map((r, i) => `[${i + 1}] ${r.title} (${r.url})\n${r.text.slice(0, 1_500)}`).join("\n\n");
/** The model's facts, each pointing at one of the numbered results (out-of-range numbers dropped). */
const factsFrom = (facts: { statement: string; source: number; confidence: FoundFact["confidence"] }[], n: number): FoundFact[] =>
  facts.filter((f) => f.source >= 1 && f.source <= n).map((f) => ({ statement: f.statement.trim(), source: f.source - 1, confidence: f.confidence }));
const sourcesOf = (results: SearchResult[]): FoundSource[] => results.map((r) => ({ url: r.url, title: r.title, type: r.type, raw: r.text }));

export function deepResearchEffects(ports: ResearchPorts): EffectsOf<typeof deepResearchMachine> {
  const plan = async (input: { topic: string; feedback?: string; previous?: Plan | null; edited?: Plan | null; createdAt: number }, ctx: EffectContext): Promise<PlanOutput> => {
    const model = ctx.model;
    const out = await model.generateObject({
      purpose: "plan",
      schemaName: "research_plan",
      schema: PlanSchema as unknown as z.core.$ZodType<Plan>,
      system:
        "You plan research missions. Break the topic into 3-6 dimensions. Tasks: P1 (Planning) decomposes; one S (Search) task per dimension depending on P1; one R (Read) task per dimension depending on its S task. Give each S/R task a search query and its dimension; mark S tasks critical.",
      prompt: [`Topic: ${input.topic}`, input.previous ? `Previous plan: ${JSON.stringify(input.previous)}` : "", input.edited ? `The reviewer edited the plan to: ${JSON.stringify(input.edited)}` : "", input.feedback ? `Reviewer feedback: ${input.feedback}` : ""]
        .filter(Boolean)
        .join("\n"),
      offline: () => offlinePlan(input.topic, { feedback: input.feedback, edited: input.edited, previous: input.previous }),
    });
    const day = new Date(input.createdAt || ctx.clock.now()).toISOString().slice(0, 10);
    const n = await ports.missionsOn(day);
    const missionId = `DR-${day.replace(/-/g, "")}-${String(Math.max(1, n)).padStart(3, "0")}`;
    const rationale = `${out.object.dimensions.length} dimensions, ${out.object.tasks.length} tasks (${out.adapter})`;
    return { plan: out.object, missionId, rationale, adapter: out.adapter, tokens: out.usage.promptTokens + out.usage.completionTokens };
  };

  const researchTask = async (input: { task: Task; topic: string; attempt: number }, ctx: EffectContext): Promise<TaskResult> => {
    const { task, topic, attempt } = input;
    if (task.type === "Planning") {
      return { taskId: task.id, attempt, approach: "decomposition", query: topic, sources: [], facts: [], notes: `key terms: ${keyTerms(topic, 8).join(", ")}`, tokens: 0, toolsUsed: 0 };
    }
    // attempt 1 uses the task's query on the primary source; the retry changes both (alternative approach)
    const primary = ports.web ?? ports.knowledge;
    const secondary = ports.web ? ports.knowledge : null;
    const base = task.query ?? task.description;
    // one journal key per task and attempt (the invocation's key, then the task's)
    const model = ctx.model.at(`${task.id}.${attempt}`);
    let tokens = 0;
    // a search sub-agent with a model formulates its own queries from the task (offline: the planned one)
    let queries = [attempt === 1 ? base : `${keyTerms(`${base} ${topic}`, 8).join(" ")}`];
    if (task.type === "Search") {
      const out = await model.generateObject({
        purpose: "search-queries",
        schemaName: "search_queries",
        schema: QueriesSchema,
        system: "You are a research sub-agent. Write 1-3 precise search queries that find sources for the task. Attempt 2 means the first queries found nothing useful: try a different angle.",
        prompt: `Topic: ${topic}\nTask ${task.id}: ${task.description}\nDimension: ${task.dimension ?? "general"}\nPlanned query: ${base}\nAttempt: ${attempt}`,
        offline: () => ({ queries }),
      });
      queries = out.object.queries;
      tokens += used(out.usage);
    }
    const source = attempt === 1 || !secondary ? primary : secondary;
    const query = queries.join(" | ");
    ctx.progress(`${task.id}: searching ${source.name} for "${query}"`);
    let results = await searchAll(source, queries, ctx.signal);
    let toolsUsed = queries.length;
    if (results.length === 0 && source !== ports.knowledge && attempt === 1) {
      results = await searchAll(ports.knowledge, queries, ctx.signal);
      toolsUsed += queries.length;
    }
    if (results.length === 0) throw new Error(`no results for "${query}" from ${source.name}`);
    const approach = `${source.name}: ${attempt === 1 ? "task query" : "alternative query"}`;
    // offline, every sub-agent quotes the results: sentences that carry the task's terms
    const quoted = (): TaskResult => {
      const { sources, facts } = extractFacts(`${query} ${task.dimension ?? ""}`, results);
      if (facts.length === 0 && task.type !== "Search") throw new Error(`nothing extractable for "${query}"`);
      return { taskId: task.id, attempt, approach, query, sources, facts, notes: `${results.length} result(s) via ${source.name}; facts quoted by the offline engine`, tokens: 0, toolsUsed };
    };
    // with a model, a search sub-agent returns its sources; read and conflict sub-agents ask the model
    const read = async (): Promise<TaskResult> => {
      if (task.type === "Search") {
        // finding sources is the search sub-agent's job; read sub-agents turn them into facts
        return { taskId: task.id, attempt, approach: `${approach} (queries by ${model.name})`, query, sources: sourcesOf(results), facts: [], notes: `${results.length} result(s) via ${source.name}`, tokens, toolsUsed };
      }
      if (task.type === "Conflict") {
        const out = await model.generateObject({
          purpose: "judge-conflict",
          schemaName: "conflict_verdict",
          schema: VerdictSchema,
          system: "You are a research sub-agent resolving a conflict between facts. Read the numbered sources, decide which claim they support, and state the resolution as one fact citing the source number that settles it.",
          prompt: `Topic: ${topic}\nConflict: ${task.description}\nSources:\n${numbered(results)}`,
          offline: () => ({ resolution: task.description, source: 1, confidence: "Low" as const, reasoning: "" }),
        });
        tokens += used(out.usage);
        const facts = factsFrom([{ statement: out.object.resolution, source: out.object.source, confidence: out.object.confidence }], results.length);
        return { taskId: task.id, attempt, approach: `${approach} (judged by ${out.adapter})`, query, sources: sourcesOf(results), facts, notes: out.object.reasoning || "conflict judged", tokens, toolsUsed };
      }
      const out = await model.generateObject({
        purpose: "read",
        schemaName: "facts",
        schema: FactsSchema,
        system:
          "You are a research sub-agent. Read the numbered sources and extract up to 8 facts relevant to the task: each a self-contained statement, the number of the source it comes from, and a confidence (High only when several sources agree, Medium for one reliable source, Low otherwise). Never invent facts the sources do not state.",
        prompt: `Topic: ${topic}\nTask ${task.id}: ${task.description}\nDimension: ${task.dimension ?? "general"}\nSources:\n${numbered(results)}`,
        offline: () => ({ facts: [] }),
      });
      tokens += used(out.usage);
      const facts = factsFrom(out.object.facts, results.length);
      if (facts.length === 0) throw new Error(`${out.adapter} found nothing to extract for "${query}"`);
      return { taskId: task.id, attempt, approach: `${approach} (read by ${out.adapter})`, query, sources: sourcesOf(results), facts, notes: `${results.length} result(s) via ${source.name}`, tokens, toolsUsed };
    };
    return model.think("sub-agent", read, quoted);
  };

  const reflect = async (input: { topic: string; plan: Plan; facts: Fact[]; sources: Source[]; round: number; known?: string[] }, ctx: EffectContext): Promise<Reflection> => {
    // conflicts earlier rounds already turned into C tasks are not raised again
    const known = input.known ?? [];
    const out = await ctx.model.generateObject({
      purpose: "reflect",
      schemaName: "reflection",
      schema: ReflectionSchema,
      system: "You review research coverage. List dimensions with fewer than two facts as gaps (with a search query) and pairs of facts that contradict each other as conflicts.",
      prompt: `Topic: ${input.topic}\nDimensions: ${input.plan.dimensions.join("; ")}\nFacts:\n${input.facts.map((f) => `${f.id} [${f.dimension}] ${f.statement}`).join("\n")}\nRound: ${input.round}${known.length ? `\nConflicts already being resolved (do not list again): ${known.join("; ")}` : ""}`,
      offline: () => offlineReflection(input.plan, input.facts, input.round, known),
    });
    const conflicts = out.object.conflicts.filter((c) => !known.some((k) => k === c.subject || k.includes(c.subject) || c.subject.includes(k)));
    return { ...out.object, conflicts, round: input.round };
  };

  const synthesize = async (input: { topic: string; plan: Plan; facts: Fact[]; sources: Source[]; missionId: string }, ctx: EffectContext) => {
    const out = await ctx.model.generate({
      purpose: "synthesize",
      system: "Write a research report in Markdown. Cite every claim with its source id in brackets, e.g. [S01]. End with a Sources section listing the ids you cited.",
      prompt: `Topic: ${input.topic}\nDimensions: ${input.plan.dimensions.join("; ")}\nFacts:\n${input.facts.map((f) => `- ${f.statement} [${f.source}] (${f.confidence})`).join("\n")}\nSources:\n${input.sources.map((s) => `[${s.id}] ${s.title} ${s.url}`).join("\n")}`,
      onText: (chunk) => ctx.progress(chunk),
      // offline, the report is assembled from the facts: no model call, no tokens
      offline: () => offlineReport(input.topic, input.missionId, input.plan, input.facts, input.sources),
    });
    return { report: out.text, adapter: out.adapter, tokens: out.usage.promptTokens + out.usage.completionTokens };
  };

  return { actors: { plan, researchTask, reflect, synthesize } };
}

/** Every query's results, best first, without repeats (one search failing does not sink the others). */
async function searchAll(port: SearchPort, queries: string[], signal: AbortSignal): Promise<SearchResult[]> {
  const settled = await Promise.allSettled(queries.map((q) => port.search(q, { limit: 6, signal })));
  if (settled.every((r) => r.status === "rejected")) throw (settled[0] as PromiseRejectedResult).reason;
  const seen = new Set<string>();
  return settled
    .flatMap((r) => (r.status === "fulfilled" ? r.value : []))
    .sort((a, b) => b.score - a.score)
    .filter((r) => {
      const k = `${r.url}#${r.text.slice(0, 80)}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    })
    .slice(0, 6);
}
