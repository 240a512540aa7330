// ANALYZE, offline: per-metric statistics over the question's window against the window
// before it (or the profile's baseline), read with the domains' "better" direction; a verdict;
// and a gap when the entries point at a domain outside the current expertise.
import { DOMAINS, METRICS, domainById } from "../domains/index";
import type { ActiveDomainContext } from "../domains/types";
import type { Analysis, Clarification, Finding, QueryPlan, RetrievedEntry } from "../types";
import { BASELINE_KEYS, fromAnswer } from "./profile-values";

/** Metrics that add up over a window (volume); the rest are averaged. */
const SUMMED = new Set(["distance_km", "duration_min", "elevation_m", "training_load", "alcohol_drinks"]);

interface Series {
  values: number[];
  ids: string[];
}

const round = (n: number) => (Math.abs(n) >= 100 ? Math.round(n) : Math.round(n * 10) / 10);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const pct = (x: number) => `${x > 0 ? "+" : ""}${Math.round(x * 100)} %`;

function collect(entries: RetrievedEntry[], from: string, to: string): Map<string, Series> {
  const out = new Map<string, Series>();
  for (const e of entries) {
    if (e.day < from || e.day > to) continue;
    for (const m of e.metrics) {
      const s = out.get(m.name) ?? { values: [], ids: [] };
      s.values.push(m.value);
      if (!s.ids.includes(e.id)) s.ids.push(e.id);
      out.set(m.name, s);
    }
  }
  return out;
}

function concernOf(better: string, change: number | undefined, metric: string): boolean {
  if (change === undefined) return false;
  if (better === "higher") return change <= -0.1;
  if (better === "lower") return change >= 0.1;
  return SUMMED.has(metric) ? change >= 0.3 : false;
}

/** One finding per metric with data in the window, compared with the window before. */
export function findingsFor(entries: RetrievedEntry[], plan: QueryPlan, profile: Record<string, string>): Finding[] {
  const w = plan.window;
  const current = collect(entries, w.from, w.to);
  const before = collect(entries, w.baselineFrom, w.baselineTo);
  const findings: Finding[] = [];
  for (const [name, s] of current) {
    const spec = METRICS.get(name);
    if (!spec) continue;
    const agg = SUMMED.has(name) ? sum : mean;
    const cur = agg(s.values);
    const prior = before.get(name);
    const fallback = Number(profile[BASELINE_KEYS[name] ?? ""]);
    const base = prior ? agg(prior.values) : !SUMMED.has(name) && Number.isFinite(fallback) && fallback > 0 ? fallback : undefined;
    const change = base ? (cur - base) / base : undefined;
    const what = SUMMED.has(name) ? "totalled" : "averaged";
    const against = prior ? ` vs ${round(base!)} ${spec.unit} the period before (${w.baselineFrom} to ${w.baselineTo}), ${pct(change!)}` : base ? ` vs your baseline of ${round(base)} ${spec.unit}, ${pct(change!)}` : "";
    findings.push({
      statement: `${spec.label} ${what} ${round(cur)} ${spec.unit} over ${w.label} (${s.values.length} value${s.values.length === 1 ? "" : "s"})${against}.`,
      metric: name,
      domain: spec.domain,
      current: round(cur),
      baseline: base === undefined ? undefined : round(base),
      change: change === undefined ? undefined : Math.round(change * 1000) / 1000,
      concern: concernOf(spec.better, change, name),
      evidence: [...s.ids, ...(prior?.ids ?? []), ...(!prior && base ? [`profile:${BASELINE_KEYS[name]}`] : [])],
    });
  }
  // rank: concerns first, then by the size of the change
  return findings.sort((a, b) => Number(b.concern) - Number(a.concern) || Math.abs(b.change ?? 0) - Math.abs(a.change ?? 0));
}

/** Findings only the person's own facts make possible (protein per kg, share of max heart rate). */
function personalFindings(findings: Finding[], profile: Record<string, string>): Finding[] {
  const out: Finding[] = [];
  const weight = Number(profile.body_weight_kg);
  const protein = findings.find((f) => f.metric === "protein_g");
  if (weight > 0 && protein?.current !== undefined) {
    const perKg = protein.current / weight;
    out.push({
      statement: `Protein averaged ${round(perKg)} g per kg of body weight (${weight} kg); people who train need about 1.6 g/kg.`,
      metric: "protein_per_kg",
      domain: "nutrition",
      current: round(perKg),
      baseline: 1.6,
      change: Math.round(((perKg - 1.6) / 1.6) * 1000) / 1000,
      concern: perKg < 1.4,
      evidence: [...protein.evidence, "profile:body_weight_kg"],
    });
  }
  const max = Number(profile.max_hr);
  const hr = findings.find((f) => f.metric === "avg_hr");
  if (max > 0 && hr?.current !== undefined) {
    const share = hr.current / max;
    out.push({
      statement: `Average session heart rate was ${Math.round(share * 100)} % of your maximum (${max} bpm): ${share >= 0.87 ? "threshold work or harder" : share >= 0.77 ? "tempo effort" : "easy aerobic effort"}.`,
      metric: "hr_share_of_max",
      domain: "training",
      current: Math.round(share * 100) / 100,
      concern: share >= 0.87,
      evidence: [...hr.evidence, "profile:max_hr"],
    });
  }
  return out;
}

export function offlineAnalysis(input: {
  query: string;
  plan: QueryPlan;
  entries: RetrievedEntry[];
  context: ActiveDomainContext;
  clarification: Clarification | null;
  canExpand: boolean;
}): Omit<Analysis, "adapter"> {
  const { plan, entries, context } = input;
  const profile = { ...context.profile };
  const c = input.clarification;
  if (c?.answer && c.need) profile[c.need] = fromAnswer(c.need, c.answer);
  const all = findingsFor(entries, plan, profile);
  const findings = [...all.filter((f) => context.domains.includes(f.domain)), ...personalFindings(all, profile)];

  // for a "why" question: entries that speak to a domain outside the loaded ones, and look notable there
  let gap: Analysis["gap"] = null;
  if (input.canExpand && plan.causal) {
    const outside = new Map<string, string[]>();
    for (const f of all.filter((x) => !context.domains.includes(x.domain) && x.concern)) outside.set(f.domain, [...(outside.get(f.domain) ?? []), f.statement]);
    for (const e of entries) {
      if (e.day < plan.window.from || e.day > plan.window.to) continue;
      for (const d of e.domains.filter((x) => !context.domains.includes(x))) {
        const why = domainById(d)?.significant({ day: e.day, text: e.text, metrics: e.metrics, domains: e.domains }, profile);
        if (why) outside.set(d, [...(outside.get(d) ?? []), `${e.day}: ${why}`]);
      }
    }
    const suspected = [...outside.entries()].sort((a, b) => b[1].length - a[1].length || DOMAINS.findIndex((d) => d.id === a[0]) - DOMAINS.findIndex((d) => d.id === b[0]))[0];
    if (suspected) {
      gap = { outside_current_expertise: true, suspected_domain: suspected[0], description: `entries in the window point at ${suspected[0]}, outside the loaded expertise: ${suspected[1].slice(0, 3).join("; ")}` };
    }
  }

  const focus = plan.focus.length ? plan.focus : context.domains;
  const onFocus = findings.filter((f) => focus.includes(f.domain));
  if (onFocus.length === 0) {
    const none = entries.length === 0 ? "no entries" : `no ${focus.join("/") || "matching"} values`;
    return { verdict: "INSUFFICIENT", findings, gap, reason: `${none} between ${plan.window.from} and ${plan.window.to}` };
  }
  if (plan.causal) {
    const worse = onFocus.filter((f) => f.concern);
    const causes = findings.filter((f) => f.concern && !focus.includes(f.domain));
    if (worse.length && causes.length === 0) {
      return { verdict: "INSUFFICIENT", findings, gap, reason: `${worse.map((f) => f.metric).join(", ")} got worse, but nothing in ${context.domains.join(", ")} over ${plan.window.label} explains it yet` };
    }
    return {
      verdict: "SUFFICIENT",
      findings,
      gap,
      reason: worse.length ? `${worse.length} worsening ${focus.join("/")} signal(s), ${causes.length} likely contributor(s)` : `no ${focus.join("/")} metric got worse over ${plan.window.label}`,
    };
  }
  return { verdict: "SUFFICIENT", findings, gap, reason: `${onFocus.length} ${focus.join("/")} metric(s) with data over ${plan.window.label}` };
}
