// DEEP_RESEARCH's steps (workflows/processing-modes/guide.md): WriteReportPlan, GenerateSearchQueries, SearchTask,
// ProcessResult and WriteFinalReport. With a model endpoint the plan, the search tasks, each
// task's summary and the report are the model's (3 + one per task calls); offline each is built
// from the request and the search results, makes no call and says so.
import { z } from "zod";
import type { EffectContext } from "../../../lib/engine/engine";
import { clip, isProse, keyTerms, quotable, sentences } from "../../../lib/knowledge/text";
import { OFFLINE_ADAPTER } from "../../../lib/llm/offline";
import type { ReportOutput, SearchTaskOutput, SummaryOutput } from "../machine";
import type { ReportPlan, ResearchSource, SearchTaskState } from "../types";
import type { SearchPort } from "../../../lib/search/types";

export interface ResearchPorts {
  /** web search when configured, else the knowledge store */
  search: () => SearchPort;
}

const PRIORITIES = ["high", "medium", "low"] as const;

const PlanSchema = z.object({
  title: z.string().min(3).max(200),
  sections: z.array(z.object({ heading: z.string().min(2).max(120), covers: z.string().min(2).max(400) })).min(2).max(6),
});
const TasksSchema = z.object({
  tasks: z.array(z.object({ query: z.string().min(2).max(300), goal: z.string().min(2).max(300), priority: z.enum(PRIORITIES) })).min(1).max(5),
});

/** The offline outline: an overview of the request, then a section per pair of its other key terms. */
function offlinePlan(query: string): Omit<ReportPlan, "adapter"> {
  const terms = keyTerms(query, 5);
  const subject = terms[0] ?? "the subject";
  const title = clip(query.trim().replace(/[?.!]+$/, ""), 200) || "Research report";
  // the other terms in pairs: "resume runs", "after restart"
  const rest = terms.slice(1);
  const pairs = [rest.slice(0, 2), rest.slice(2, 4)].filter((p) => p.length > 0);
  const aspects = pairs.map((p) => ({ heading: p.map((t) => t[0]!.toUpperCase() + t.slice(1)).join(" "), covers: `${subject} ${p.join(" ")}` }));
  return { title, sections: [{ heading: "Overview", covers: title }, ...aspects].slice(0, 6).concat(aspects.length ? [] : [{ heading: "Details", covers: terms.join(" ") || title }]) };
}

/** Offline search tasks: one per section; its query is what the section covers. */
function offlineTasks(plan: ReportPlan): Pick<SearchTaskState, "query" | "goal" | "priority">[] {
  return plan.sections.slice(0, 5).map((s, i) => ({ query: clip(s.covers, 300), goal: s.heading === "Overview" ? `Overview: ${s.covers}` : `${s.heading}: ${s.covers}`, priority: PRIORITIES[Math.min(i, 2)]! }));
}

/** Offline summary: from each source, the sentence that shares most of the task's query terms, quoted and cited. */
function offlineSummary(task: SearchTaskState, sources: ResearchSource[]): string {
  if (sources.length === 0) return `Nothing was found for "${task.query}".`;
  const terms = keyTerms(task.query, 8);
  const need = Math.min(2, terms.length);
  const seen = new Set<string>();
  const lines = sources
    .map((s) => {
      const best = sentences(s.text)
        .map((x) => quotable(x))
        .filter((x): x is string => !!x && x.length >= 20 && isProse(x))
        .map((x) => ({ x, hits: terms.filter((t) => x.toLowerCase().includes(t)).length }))
        .sort((a, b) => b.hits - a.hits)[0];
      if (!best || best.hits < need || seen.has(best.x)) return null;
      seen.add(best.x);
      return `- "${best.x}" [${s.id}]`;
    })
    .filter((l): l is string => l !== null)
    .slice(0, 4);
  return lines.length ? lines.join("\n") : `The results for "${task.query}" do not say anything about ${terms.slice(0, need).join(" and ")} together.`;
}

function offlineReport(query: string, plan: ReportPlan, tasks: SearchTaskState[], sources: ResearchSource[]): { text: string; citations: string[] } {
  // a quote already given under an earlier section is not repeated
  const used = new Set<string>();
  const body = tasks
    .map((t) => {
      const lines = (t.summary ?? "").split("\n").filter((l) => {
        if (!l.startsWith("- ")) return true;
        const quote = l.replace(/ \[S\d+\]$/, "");
        if (used.has(quote)) return false;
        used.add(quote);
        return true;
      });
      return `## ${t.goal}\n\n${lines.length ? lines.join("\n") : "Nothing beyond the sections above."}`;
    })
    .join("\n\n");
  const cited = sources.filter((s) => body.includes(`[${s.id}]`));
  const list = cited.map((s) => `- [${s.id}] ${s.title}${s.url ? ` — ${s.url}` : ""}`).join("\n");
  const report = [
    `# ${plan.title}`,
    "_Assembled by the offline engine: no model endpoint is configured, so each section quotes the search results it rests on._",
    `**Question:** ${query.trim()}`,
    body,
    `## Sources\n\n${list || "(none cited)"}`,
  ].join("\n\n");
  return { text: report, citations: cited.map((s) => s.id) };
}

const sourceBlock = (sources: ResearchSource[], max = 1_200) => sources.map((s) => `[${s.id}] ${s.title} (${s.url})\n${clip(s.text, max)}`).join("\n\n");
const citedIn = (text: string, sources: ResearchSource[]) => sources.filter((s) => text.includes(`[${s.id}]`)).map((s) => s.id);

export function researchEffects(ports: ResearchPorts) {
  // a retried boundary passes through every state again; a step an earlier attempt finished returns its result without a call
  const writeReportPlan = async (input: { query: string; plan: ReportPlan | null }, ctx: EffectContext): Promise<ReportPlan> => {
    if (input.plan) return input.plan;
    const out = await ctx.model.generateObject({
      purpose: "report-plan",
      schemaName: "report_plan",
      schema: PlanSchema,
      system: "Write a detailed outline for a research report answering the user's request: a title and 2-6 sections, each with what it covers.",
      prompt: input.query,
      offline: () => offlinePlan(input.query),
    });
    return { ...out.object, adapter: out.adapter };
  };

  const generateSearchTasks = async (input: { query: string; plan: ReportPlan; tasks: SearchTaskState[] }, ctx: EffectContext) => {
    if (input.tasks.length > 0) return { tasks: input.tasks, adapter: "", kept: true };
    const out = await ctx.model.generateObject({
      purpose: "search-tasks",
      schemaName: "search_tasks",
      schema: TasksSchema,
      system: "From the research plan, extract 1-5 search tasks: a search-engine query, the goal (what the result should answer) and a priority (high, medium, low).",
      prompt: `Request: ${input.query}\nReport plan: ${input.plan.title}\n${input.plan.sections.map((s) => `- ${s.heading}: ${s.covers}`).join("\n")}`,
      offline: () => ({ tasks: offlineTasks(input.plan) }),
    });
    // high priority first, as the tasks are iterated
    const tasks = [...out.object.tasks].sort((a, b) => PRIORITIES.indexOf(a.priority) - PRIORITIES.indexOf(b.priority));
    return { tasks, adapter: out.adapter };
  };

  /** SearchTask: the task's query; new results join the source registry as S01, S02 … (by address). */
  const searchTask = async (input: { task: SearchTaskState; sources: ResearchSource[] }, ctx: EffectContext): Promise<SearchTaskOutput> => {
    if (input.task.summary !== null) return { results: input.task.results, via: input.task.via, sources: input.sources, ids: input.task.sources };
    const port = ports.search();
    const results = await port.search(input.task.query, { limit: 4, signal: ctx.signal });
    const sources = [...input.sources];
    const ids: string[] = [];
    for (const r of results) {
      const key = `${r.url}#${r.text.slice(0, 80)}`;
      let s = sources.find((x) => `${x.url}#${x.text.slice(0, 80)}` === key);
      if (!s) {
        s = { id: `S${String(sources.length + 1).padStart(2, "0")}`, title: r.title, url: r.url, text: clip(r.text, 1_500), via: r.via };
        sources.push(s);
      }
      if (!ids.includes(s.id)) ids.push(s.id);
    }
    return { results: results.length, via: port.name, sources, ids };
  };

  const processResult = async (input: { query: string; task: SearchTaskState; sources: ResearchSource[] }, ctx: EffectContext): Promise<SummaryOutput> => {
    if (input.task.summary !== null && input.task.adapter !== null) return { summary: input.task.summary, adapter: input.task.adapter };
    // nothing found, or no model: the summary is built from the results, no call is made
    if (input.sources.length === 0) return { summary: offlineSummary(input.task, input.sources), adapter: OFFLINE_ADAPTER };
    const out = await ctx.model.generate({
      purpose: "process-result",
      system: "Summarize what these search results say for the goal, in a few sentences or bullets. Cite every claim with its source id in brackets, e.g. [S01]. Say so when the results do not answer the goal.",
      prompt: `Research request: ${input.query}\nSearch: ${input.task.query}\nGoal: ${input.task.goal}\n\nResults:\n${sourceBlock(input.sources)}`,
      onText: (c) => ctx.progress(c),
      offline: () => offlineSummary(input.task, input.sources),
    });
    return { summary: out.text, adapter: out.adapter };
  };

  const writeFinalReport = async (input: { query: string; plan: ReportPlan; tasks: SearchTaskState[]; sources: ResearchSource[] }, ctx: EffectContext): Promise<ReportOutput> => {
    const out = await ctx.model.generate({
      purpose: "final-report",
      system: "Write the research report in Markdown, following the plan's sections. Cite every claim with its source id in brackets, e.g. [S01]. End with a Sources section listing the ids you cited.",
      prompt: [
        `Request: ${input.query}`,
        `Plan: ${input.plan.title}\n${input.plan.sections.map((s) => `- ${s.heading}: ${s.covers}`).join("\n")}`,
        `Findings:\n${input.tasks.map((t) => `### ${t.goal} (search: ${t.query})\n${t.summary ?? "(none)"}`).join("\n\n")}`,
        `Sources:\n${input.sources.map((s) => `[${s.id}] ${s.title} ${s.url}`).join("\n")}`,
      ].join("\n\n"),
      onText: (c) => ctx.progress(c),
      // offline, the report is assembled from the summaries (recorded as an offline answer)
      offline: () => offlineReport(input.query, input.plan, input.tasks, input.sources),
    });
    return { report: out.text, adapter: out.adapter, cited: citedIn(out.text, input.sources) };
  };

  return { writeReportPlan, generateSearchTasks, searchTask, processResult, writeFinalReport };
}
