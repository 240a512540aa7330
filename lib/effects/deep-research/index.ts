// The side effects of the deep-research machine: the planner, the research sub-agents, the
// reflector and the synthesizer. Each thinks through the model port (the offline engine runs
// the deterministic algorithms in ./offline) and searches through the search ports.
import { z } from "zod";
import type { EffectContext, WorkflowEffects } from "../../engine/engine";
import { keyTerms } from "../../knowledge/text";
import type { ModelPort } from "../../llm/types";
import { PlanSchema, type PlanOutput } from "../../machines/deep-research";
import type { Reflection, TaskResult } from "../../machines/deep-research.types";
import type { Fact, Plan, Source, Task } from "../../research/types";
import type { SearchPort, SearchResult } from "../../search/types";
import { extractFacts, offlinePlan, offlineReflection, offlineReport } from "./offline";

export interface ResearchPorts {
  model: () => ModelPort;
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

export function deepResearchEffects(ports: ResearchPorts): WorkflowEffects {
  const plan = async (input: { topic: string; feedback?: string; previous?: Plan | null; edited?: Plan | null; createdAt: number }, ctx: EffectContext): Promise<PlanOutput> => {
    const model = ports.model();
    const out = await model.generateObject({
      purpose: "plan",
      schemaName: "research_plan",
      schema: PlanSchema as unknown as z.ZodType<Plan>,
      system:
        "You plan research missions. Break the topic into 3-6 dimensions. Tasks: P1 (Planning) decomposes; one S (Search) task per dimension depending on P1; one R (Read) task per dimension depending on its S task. Give each S/R task a search query and its dimension; mark S tasks critical.",
      prompt: [`Topic: ${input.topic}`, input.previous ? `Previous plan: ${JSON.stringify(input.previous)}` : "", input.edited ? `The reviewer edited the plan to: ${JSON.stringify(input.edited)}` : "", input.feedback ? `Reviewer feedback: ${input.feedback}` : ""]
        .filter(Boolean)
        .join("\n"),
      offline: () => offlinePlan(input.topic, { feedback: input.feedback, edited: input.edited, previous: input.previous }),
      runId: ctx.runId,
      state: ctx.state,
      key: ctx.key,
      signal: ctx.signal,
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
    const query = attempt === 1 ? base : `${keyTerms(`${base} ${topic}`, 8).join(" ")}`;
    const source = attempt === 1 || !secondary ? primary : secondary;
    ctx.progress(`${task.id}: searching ${source.name} for "${query}"`);
    let results: SearchResult[] = await source.search(query, { limit: 6, signal: ctx.signal });
    let toolsUsed = 1;
    if (results.length === 0 && source !== ports.knowledge && attempt === 1) {
      results = await ports.knowledge.search(query, { limit: 6, signal: ctx.signal });
      toolsUsed++;
    }
    if (results.length === 0) throw new Error(`no results for "${query}" from ${source.name}`);
    const { sources, facts } = extractFacts(`${query} ${task.dimension ?? ""}`, results);
    if (facts.length === 0 && task.type !== "Search") throw new Error(`nothing extractable for "${query}"`);
    return {
      taskId: task.id,
      attempt,
      approach: attempt === 1 ? `${source.name}: task query` : `${source.name}: alternative query`,
      query,
      sources,
      facts,
      notes: `${results.length} result(s) via ${source.name}`,
      tokens: 0,
      toolsUsed,
    };
  };

  const reflect = async (input: { topic: string; plan: Plan; facts: Fact[]; sources: Source[]; round: number }, ctx: EffectContext): Promise<Reflection> => {
    const existing = input.facts.length ? [] : [];
    const out = await ports.model().generateObject({
      purpose: "reflect",
      schemaName: "reflection",
      schema: ReflectionSchema,
      system: "You review research coverage. List dimensions with fewer than two facts as gaps (with a search query) and pairs of facts that contradict each other as conflicts.",
      prompt: `Topic: ${input.topic}\nDimensions: ${input.plan.dimensions.join("; ")}\nFacts:\n${input.facts.map((f) => `${f.id} [${f.dimension}] ${f.statement}`).join("\n")}\nRound: ${input.round}`,
      offline: () => offlineReflection(input.plan, input.facts, input.round, existing),
      runId: ctx.runId,
      state: ctx.state,
      key: ctx.key,
      signal: ctx.signal,
    });
    return { ...out.object, round: input.round };
  };

  const synthesize = async (input: { topic: string; plan: Plan; facts: Fact[]; sources: Source[]; missionId: string }, ctx: EffectContext) => {
    const model = ports.model();
    if (model.offline) {
      const report = offlineReport(input.topic, input.missionId, input.plan, input.facts, input.sources);
      const out = await model.generate({ purpose: "synthesize", prompt: input.topic, passages: [], runId: ctx.runId, state: ctx.state, key: ctx.key, signal: ctx.signal });
      return { report, adapter: out.adapter, tokens: out.usage.promptTokens + out.usage.completionTokens };
    }
    const out = await model.generate({
      purpose: "synthesize",
      system: "Write a research report in Markdown. Cite every claim with its source id in brackets, e.g. [S01]. End with a Sources section listing the ids you cited.",
      prompt: `Topic: ${input.topic}\nDimensions: ${input.plan.dimensions.join("; ")}\nFacts:\n${input.facts.map((f) => `- ${f.statement} [${f.source}] (${f.confidence})`).join("\n")}\nSources:\n${input.sources.map((s) => `[${s.id}] ${s.title} ${s.url}`).join("\n")}`,
      runId: ctx.runId,
      state: ctx.state,
      key: ctx.key,
      signal: ctx.signal,
      onText: (chunk) => ctx.progress(chunk),
    });
    return { report: out.text, adapter: out.adapter, tokens: out.usage.promptTokens + out.usage.completionTokens };
  };

  return { actors: { plan: plan as never, researchTask: researchTask as never, reflect: reflect as never, synthesize: synthesize as never } };
}
