// PLAN, offline: what the question is about, which metrics and days answer it, and which of the
// seed's four exits applies — retrieve, expand the domains (a "why" question about a domain
// whose usual causes are not loaded), clarify (a fact only the person knows), or answer at once
// from the global context.
import { selectDomains } from "../domains/context";
import { domainById } from "../domains/index";
import { keyTerms } from "../../../lib/knowledge/text";
import type { PlanInput } from "../machine";
import type { QueryPlan } from "../types";
import { windowFor } from "./window";

export const CAUSAL = /\b(why|cause[sd]?|causing|because|reason|explain|behind|worse|better|dropp?(ed|ing)?|declin\w*|affect\w*|impact\w*|improv\w*|lower|higher)\b/i;

/** Questions about the global context itself, answered from the profile when it has the fact. */
const PROFILE_QUESTIONS: { key: string; pattern: RegExp }[] = [
  { key: "max_hr", pattern: /\bmy max(imum)?\s*(hr|heart rate)\b/i },
  { key: "resting_hr_baseline", pattern: /\bmy (resting (hr|heart rate)|rhr) baseline\b|\bbaseline resting\b/i },
  { key: "hrv_baseline", pattern: /\bmy hrv baseline\b|\bbaseline hrv\b/i },
  { key: "body_weight_kg", pattern: /\bmy (body )?weight\b/i },
  { key: "goal_race", pattern: /\bmy (goal|next|target) race\b/i },
  { key: "diet", pattern: /\bmy diet\b/i },
];

export function offlinePlan(i: PlanInput): Omit<QueryPlan, "adapter"> {
  const ctx = i.context;
  const asked = selectDomains(`${i.query} ${i.clarification?.answer ?? ""}`);
  const focus = asked.filter((d) => ctx.domains.includes(d));
  const causal = CAUSAL.test(i.query);
  const window = windowFor(i.query, i.today, ctx.retrievalHints.lookbackDays, i.widen);
  const subject = focus.length ? focus : ctx.domains;
  // a "why" question (or a retry) looks at every loaded domain's metrics, not only the subject's
  const metricDomains = causal || i.retryCount > 0 ? ctx.domains : subject;
  const metrics = metricDomains.flatMap((d) => domainById(d)?.metrics.map((m) => m.name) ?? []);
  const base = { focus: subject, domains: metricDomains, metrics, terms: keyTerms(i.query, 8), window, widen: i.widen, causal, round: i.round };

  // answered by the global context alone
  const profileKeys = PROFILE_QUESTIONS.filter((p) => p.pattern.test(i.query)).map((p) => p.key);
  if (profileKeys.length && profileKeys.every((k) => ctx.profile[k]) && !causal) {
    return { ...base, decision: "SYNTHESIZE", reason: `already sufficient: the global context has ${profileKeys.join(", ")}` };
  }
  // the question names no domain this agent knows, and none is loaded: only the person can say
  if (ctx.domains.length === 0 && asked.length === 0) {
    return {
      ...base,
      decision: "CLARIFY",
      reason: "the question names nothing the log tracks (non-retrievable gap: its subject)",
      gap: { need: null, question: "Which part of your log is this about: training, recovery, sleep, nutrition, or mood and stress?" },
    };
  }
  // the answer to a clarification named domains that are not loaded yet
  const unloaded = asked.filter((d) => !ctx.domains.includes(d));
  if (unloaded.length && i.canExpand) {
    return { ...base, decision: "EXPAND_DOMAIN", expand: unloaded, reason: `the question mentions ${unloaded.join(", ")}, not loaded yet` };
  }
  // facts only the person knows (profile keys the log cannot give)
  for (const d of subject) {
    for (const need of domainById(d)?.needs ?? []) {
      if (!need.when.test(i.query) || ctx.profile[need.key]) continue;
      if (i.clarification?.need === need.key) continue;
      return { ...base, decision: "CLARIFY", reason: `needs ${need.key}, which the log cannot tell (non-retrievable gap)`, gap: { need: need.key, question: need.question } };
    }
  }
  // proactive expansion: a "why" question about a domain whose usual causes are not loaded
  if (causal && i.canExpand) {
    const related = [...new Set(subject.flatMap((d) => domainById(d)?.retrieval.related ?? []))].filter((d) => !ctx.domains.includes(d));
    if (related.length) {
      return { ...base, decision: "EXPAND_DOMAIN", expand: related, reason: `a "why" question about ${subject.join(", ")}: its usual causes (${related.join(", ")}) are outside the loaded domains` };
    }
  }
  const why = i.retryCount > 0 ? `retry ${i.retryCount} after evaluation (${i.evaluation?.reasons.join("; ") ?? "failed"})` : i.replans > 0 ? `re-plan ${i.replans}: ${i.analysis?.reason ?? "too little data"}` : "normal planning";
  return { ...base, decision: "RETRIEVE", reason: `${why}: ${metrics.length} metric(s) of ${metricDomains.join(", ") || "no domain"} over ${window.label} (${window.from} to ${window.to})` };
}
