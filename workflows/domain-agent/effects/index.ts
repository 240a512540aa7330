// The side effects of the domain-agent machine. Each step thinks through the model port: the
// offline engine runs the deterministic algorithms beside this file (keyword routing, window
// statistics, extractive answers), an OpenAI-compatible model gets the same inputs and answers
// in a zod-validated shape. Entries, the global context and the observer's decisions go to the
// database through domains/store.ts.
import { z } from "zod";
import type { Db } from "../../../lib/db/client";
import { buildDomainContext } from "../domains/context";
import { DOMAIN_IDS, domainById } from "../domains/index";
import { parseLog } from "../domains/parse";
import { getProfile, listEntries, recordObservation, saveEntries, setProfileFacts } from "../domains/store";
import type { ActiveDomainContext, ParsedEntry } from "../domains/types";
import type { EffectContext } from "../../../lib/engine/engine";
import type { domainAgentMachine, PlanInput } from "../machine";
import type { EffectsOf } from "../../../lib/machines/effects-of";
import type { AgentContext, Analysis, Answer, Clarification, Evaluation, ObserveResult, QueryPlan, RetrievedEntry, RouteResult, StoredLog, Trigger } from "../types";
import { offlineAnalysis } from "./analyze";
import { offlineAnswer, offlineEvaluation } from "./answer";
import { offlineObserve } from "./observe";
import { offlinePlan } from "./plan";
import { offlineRoute } from "./route";

export interface AgentPorts {
  db: Db;
}

const Domain = z.enum(DOMAIN_IDS as [string, ...string[]]);
const RouteSchema = z.object({
  inputType: z.enum(["QUERY", "LOG", "BOTH"]),
  domains: z.array(Domain).max(5),
  confidence: z.number().min(0).max(1),
  logText: z.string(),
  queryText: z.string(),
  corrections: z.array(z.object({ key: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/), value: z.string().max(500), text: z.string() })),
  reason: z.string(),
});
const PlanDecisionSchema = z.object({
  decision: z.enum(["RETRIEVE", "EXPAND_DOMAIN", "CLARIFY", "SYNTHESIZE"]),
  reason: z.string(),
  // structured outputs want every field present: "none" is null
  expand: z.array(Domain).nullable(),
  gap: z.object({ need: z.string().nullable(), question: z.string() }).nullable(),
});
const VerdictSchema = z.object({
  verdict: z.enum(["SUFFICIENT", "INSUFFICIENT"]),
  gap: z.object({ outside_current_expertise: z.boolean(), suspected_domain: Domain.nullable(), description: z.string() }).nullable(),
  reason: z.string(),
});
const ClarifySchema = z.object({ question: z.string().min(5).max(500), why: z.string().max(500) });
const EvaluationSchema = z.object({ verdict: z.enum(["PASS", "FAIL"]), score: z.number().min(0).max(1), reasons: z.array(z.string()) });
const ObserveSchema = z.object({
  decision: z.enum(["update", "skip"]),
  reason: z.string(),
  changes: z.array(z.object({ key: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/), value: z.string().max(500), domain: Domain.nullable(), why: z.string() })),
});

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const contextLines = (c: ActiveDomainContext) =>
  `Loaded domains: ${c.domains.join(", ") || "none"}\nExpertise:\n${c.expertise.flatMap((e) => e.lines.map((l) => `- [${e.domain}] ${l}`)).join("\n")}\nGlobal context: ${JSON.stringify(c.profile)}`;
const entryLines = (es: RetrievedEntry[]) => es.map((e) => `${e.id} ${e.day} [${e.domains.join(",")}] ${e.text} ${e.metrics.map((m) => `${m.name}=${m.value}${m.unit}`).join(" ")}`).join("\n");

export function domainAgentEffects(ports: AgentPorts): EffectsOf<typeof domainAgentMachine> {
  const route = async (input: { text: string; today?: string }, ctx: EffectContext): Promise<RouteResult> => {
    const today = input.today ?? day(ctx.clock.now());
    const out = await ctx.model.generateObject({
      purpose: "route",
      schemaName: "route",
      schema: RouteSchema,
      system: `Classify a person's message to their training/health log assistant as QUERY (questions), LOG (log lines to store) or BOTH; split it into logText and queryText; select the domains it touches among ${DOMAIN_IDS.join(", ")}; list statements that correct facts about the person (max_hr, resting_hr_baseline, hrv_baseline, body_weight_kg, goal_race, diet).`,
      prompt: input.text,
      offline: () => offlineRoute(input.text, today),
    });
    return { ...out.object, today, adapter: out.adapter } as RouteResult;
  };

  const buildContext = async (input: { domains: string[] }, ctx: EffectContext): Promise<ActiveDomainContext> => {
    ctx.progress(`loading ${input.domains.map((d) => domainById(d)?.title ?? d).join(", ") || "no"} module(s)`);
    return buildDomainContext(input.domains, await getProfile(ports.db), ctx.clock.now());
  };

  const plan = async (input: PlanInput, ctx: EffectContext): Promise<QueryPlan> => {
    const offline = offlinePlan(input);
    const out = await ctx.model.generateObject({
      purpose: "plan",
      schemaName: "plan",
      schema: PlanDecisionSchema,
      system:
        "You plan how to answer a question from the person's own log. Decide: RETRIEVE (normal), EXPAND_DOMAIN (the question needs a domain not loaded: list it in expand), CLARIFY (a fact only the person knows: say which profile key in gap.need and ask gap.question), or SYNTHESIZE (the global context already answers it).",
      prompt: `Question: ${input.query}\nToday: ${input.today}\n${contextLines(input.context)}\nRound ${input.round}, re-plans ${input.replans}, retries ${input.retryCount}${input.evaluation ? `\nLast evaluation: ${input.evaluation.reasons.join("; ")}` : ""}${input.clarification?.answer ? `\nThe person answered "${input.clarification.question}": ${input.clarification.answer}` : ""}`,
      offline: () => ({ decision: offline.decision, reason: offline.reason, expand: offline.expand ?? null, gap: offline.gap ?? null }),
    });
    const { expand, gap, ...decided } = out.object;
    return { ...offline, ...decided, expand: expand ?? undefined, gap: gap ?? undefined, adapter: out.adapter };
  };

  const retrieve = async (input: { plan: QueryPlan; fresh: ParsedEntry[] }, ctx: EffectContext): Promise<{ entries: RetrievedEntry[] }> => {
    const w = input.plan.window;
    const stored = await listEntries(ports.db, { from: w.baselineFrom, to: w.to, limit: 5000 });
    const fresh = input.fresh.map((e, i) => ({ ...e, id: `${ctx.runId}-e${i + 1}` })).filter((e) => e.day >= w.baselineFrom && e.day <= w.to);
    const byId = new Map<string, RetrievedEntry>();
    for (const e of [...stored, ...fresh]) byId.set(e.id, { id: e.id, day: e.day, text: e.text, metrics: e.metrics, domains: e.domains });
    const metrics = new Set(input.plan.metrics);
    const domains = new Set(input.plan.domains);
    const terms = input.plan.terms;
    // an entry is relevant when it carries a planned metric, is tagged with a searched domain, or mentions a term of the question
    const relevant = [...byId.values()].filter((e) => e.metrics.some((m) => metrics.has(m.name)) || e.domains.some((d) => domains.has(d)) || terms.some((t) => e.text.toLowerCase().includes(t)));
    relevant.sort((a, b) => (a.day < b.day ? 1 : a.day > b.day ? -1 : a.id.localeCompare(b.id)));
    ctx.progress(`${relevant.length} of ${byId.size} entries between ${w.baselineFrom} and ${w.to} are relevant`);
    return { entries: relevant.slice(0, 300) };
  };

  const analyze = async (input: Parameters<typeof offlineAnalysis>[0], ctx: EffectContext): Promise<Analysis> => {
    const offline = offlineAnalysis(input);
    const out = await ctx.model.generateObject({
      purpose: "analyze",
      schemaName: "analysis",
      schema: VerdictSchema,
      system:
        "You analyze log entries against a question. SUFFICIENT when the findings answer it; INSUFFICIENT when data is missing; report a gap with outside_current_expertise=true and suspected_domain when the entries point at a domain that is not loaded.",
      prompt: `Question: ${input.query}\n${contextLines(input.context)}\nWindow: ${input.plan.window.from}..${input.plan.window.to} vs ${input.plan.window.baselineFrom}..${input.plan.window.baselineTo}\nFindings:\n${offline.findings.map((f) => `- ${f.statement}`).join("\n")}\nEntries:\n${entryLines(input.entries.slice(0, 80))}${input.clarification?.answer ? `\nThe person said: ${input.clarification.answer}` : ""}`,
      offline: () => ({ verdict: offline.verdict, gap: offline.gap, reason: offline.reason }),
    });
    const gap = input.canExpand ? out.object.gap : null;
    return { ...offline, ...out.object, gap, adapter: out.adapter };
  };

  const clarify = async (input: { query: string; plan: QueryPlan; context: ActiveDomainContext }, ctx: EffectContext): Promise<Clarification> => {
    const planned = input.plan.gap?.question ?? `What should I know to answer “${input.query}”?`;
    const need = input.plan.gap?.need ?? null;
    // offline, PLAN's own question is asked
    const out = await ctx.model.generateObject({
      purpose: "clarify",
      schemaName: "clarification",
      schema: ClarifySchema,
      system: "You ask the person one short question that only they can answer (a fact about themselves missing from their log and profile), so that their question can be answered. Say briefly why you ask.",
      prompt: `Their question: ${input.query}\nWhat is missing: ${need ?? "unknown"} (${input.plan.reason})\nA draft question: ${planned}\n${contextLines(input.context)}`,
      offline: () => ({ question: planned.slice(0, 500), why: input.plan.reason.slice(0, 500) }),
    });
    return { question: out.object.question, need, why: out.object.why || input.plan.reason };
  };

  const synthesize = async (input: Parameters<typeof offlineAnswer>[0], ctx: EffectContext): Promise<Answer> => {
    const draft = offlineAnswer(input);
    const out = await ctx.model.generate({
      purpose: "synthesize",
      system: "Answer the person's question about their own log from the findings. Cite entries as [n] by their number in the list. Say plainly when data is missing. Be brief.",
      prompt: `Question: ${input.query}\n${contextLines(input.context)}\nFindings:\n${(input.analysis?.findings ?? []).map((f) => `- ${f.statement}`).join("\n")}`,
      passages: input.entries.filter((e) => draft.citations.includes(e.id)).map((e) => ({ id: e.id, title: e.day, text: e.text })),
      onText: (chunk) => ctx.progress(chunk),
      // offline, the answer is the draft written from the findings: no model call, no tokens
      offline: () => draft,
    });
    return { text: out.text, citations: out.citations.length ? out.citations : draft.citations, adapter: out.adapter, tokens: out.usage.promptTokens + out.usage.completionTokens };
  };

  const evaluate = async (input: Parameters<typeof offlineEvaluation>[0], ctx: EffectContext): Promise<Evaluation> => {
    const out = await ctx.model.generateObject({
      purpose: "evaluate",
      schemaName: "evaluation",
      schema: EvaluationSchema,
      system: "Evaluate an answer to a question about the person's log: PASS when it addresses the question, cites entries, and (for why-questions) names likely contributors; otherwise FAIL with reasons.",
      prompt: `Question: ${input.query}\nAnswer:\n${input.answer.text}`,
      offline: () => offlineEvaluation(input),
    });
    return { ...out.object, adapter: out.adapter };
  };

  const parse = async (input: { text: string; today: string }, ctx: EffectContext): Promise<{ entries: ParsedEntry[] }> => {
    const entries = input.text.trim() ? parseLog(input.text, { today: input.today || day(ctx.clock.now()) }) : [];
    ctx.progress(`${entries.length} entr${entries.length === 1 ? "y" : "ies"}, ${entries.reduce((n, e) => n + e.metrics.length, 0)} metric(s)`);
    return { entries };
  };

  const store = async (input: { entries: ParsedEntry[] }, ctx: EffectContext): Promise<StoredLog> => {
    const profile = await getProfile(ports.db);
    const flags = input.entries.map((e) => {
      for (const d of e.domains) {
        const why = domainById(d)?.significant(e, profile);
        if (why) return { domain: d, reason: why };
      }
      return null;
    });
    const saved = await saveEntries(ports.db, ctx.runId, input.entries, flags.map((f) => (f ? `${f.domain}: ${f.reason}` : null)), ctx.clock.now());
    const significant = saved.flatMap((e, i) => (flags[i] ? [{ entryId: e.id, day: e.day, text: e.text, domain: flags[i]!.domain, reason: flags[i]!.reason }] : []));
    return { ids: saved.map((e) => e.id), significant };
  };

  const observe = async (input: { triggers: Trigger[]; context: AgentContext }, ctx: EffectContext): Promise<ObserveResult> => {
    const profile = await getProfile(ports.db);
    const offline = offlineObserve(input.triggers, input.context, profile);
    const c = input.context;
    const out = await ctx.model.generateObject({
      purpose: "observe",
      schemaName: "observation",
      schema: ObserveSchema,
      system: "You are the observer of a personal log assistant. Given the triggers, decide whether to update the person's global context (a key/value profile) and say why. Only durable facts: baselines, corrections, things to watch.",
      prompt: `Triggers: ${input.triggers.join(", ") || "none"}\nGlobal context: ${JSON.stringify(profile)}\nCorrections: ${JSON.stringify(c.route?.corrections ?? [])}\nClarification: ${JSON.stringify(c.clarification)}\nSignificant: ${JSON.stringify(c.stored?.significant ?? [])}\nAnswer: ${c.answer?.text ?? ""}`,
      offline: () => offline,
    });
    const plan = input.triggers.length ? out.object : offline;
    const changes = [];
    for (const x of plan.changes) {
      const done = await setProfileFacts(ports.db, [{ key: x.key, value: x.value, domain: x.domain }], { source: "observer", reason: x.why, runId: ctx.runId }, ctx.clock.now());
      changes.push(...done);
    }
    const decision = changes.length ? "update" : "skip";
    const reason = decision === plan.decision ? plan.reason : `${plan.reason} (nothing changed: the values were already set)`;
    await recordObservation(ports.db, { id: `${ctx.runId}-observe`, runId: ctx.runId, triggers: input.triggers, decision, reason, changes }, ctx.clock.now());
    return { triggers: input.triggers, decision, reason, changes, adapter: out.adapter };
  };

  return {
    actors: {
      route,
      buildContext,
      plan,
      retrieve,
      analyze,
      clarify,
      synthesize,
      evaluate,
      parse,
      store,
      observe,
    },
  };
}
