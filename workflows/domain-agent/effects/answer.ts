// SYNTHESIZE and EVALUATE, offline: an answer written from the findings (numbered citations of
// the entries they rest on, the domains' expertise where it applies), and a check of that answer
// against the question.
import { DOMAINS, domainById } from "../domains/index";
import type { ActiveDomainContext } from "../domains/types";
import { stems } from "../../../lib/knowledge/text";
import type { Analysis, Clarification, Evaluation, Finding, QueryPlan, RetrievedEntry } from "../types";
import { clip } from "../../../lib/knowledge/text";

export interface AnswerDraft {
  text: string;
  citations: string[];
}

/** The expertise line of a finding's domain that shares most words with it. */
function expertiseFor(f: Finding, context: ActiveDomainContext): string | null {
  const lines = context.expertise.find((e) => e.domain === f.domain)?.lines ?? [];
  const words = stems(`${f.statement} ${f.metric ?? ""}`);
  let best: string | null = null;
  let bestScore = 0;
  for (const line of lines) {
    const score = [...stems(line)].filter((w) => words.has(w) && w.length > 3).length;
    if (score > bestScore) [best, bestScore] = [line, score];
  }
  return best;
}

const title = (d: string) => domainById(d)?.title.toLowerCase() ?? d;
/** findings computed from the person's own facts (see personalFindings in ./analyze) */
const PERSONAL = new Set(["protein_per_kg", "hr_share_of_max"]);

export function offlineAnswer(input: {
  query: string;
  plan: QueryPlan | null;
  analysis: Analysis | null;
  context: ActiveDomainContext;
  clarification: Clarification | null;
  partial: boolean;
  entries: RetrievedEntry[];
}): AnswerDraft {
  const { plan, analysis, context, clarification } = input;
  const cites: string[] = [];
  const cite = (f: Finding) => {
    const ids = f.evidence.filter((e) => !e.startsWith("profile:")).slice(0, 4);
    const nums = ids.map((id) => {
      if (!cites.includes(id)) cites.push(id);
      return cites.indexOf(id) + 1;
    });
    return nums.length ? ` [${nums.join(", ")}]` : f.evidence.some((e) => e.startsWith("profile:")) ? " [global context]" : "";
  };
  const lines: string[] = [];
  if (input.partial) lines.push(`**Partial answer:** ${analysis?.verdict === "INSUFFICIENT" ? analysis.reason : "the answer did not pass evaluation within the retry limit"}.`, "");
  if (clarification?.declined) lines.push(`You chose not to answer “${clarification.question}”, so this rests on your log alone.`, "");

  if (plan?.decision === "SYNTHESIZE") {
    const facts = Object.entries(context.profile).filter(([k]) => input.query.toLowerCase().includes(k.split("_")[0]!) || (k === "max_hr" && /max/i.test(input.query)));
    lines.push("From your global context:");
    for (const [k, v] of facts.length ? facts : Object.entries(context.profile)) lines.push(`- ${k.replace(/_/g, " ")}: ${v} [global context]`);
    return { text: lines.join("\n"), citations: [] };
  }

  const findings = analysis?.findings ?? [];
  const focus = plan?.focus.length ? plan.focus : context.domains;
  const onFocus = findings.filter((f) => focus.includes(f.domain));
  const others = findings.filter((f) => !focus.includes(f.domain));
  const label = plan?.window.label ?? "the period asked about";
  if (findings.length === 0) {
    lines.push(`I found no ${focus.map(title).join(" or ") || "matching"} entries in your log for ${label}${plan ? ` (${plan.window.from} to ${plan.window.to})` : ""}. Log a few days (for example “slept 7 h, resting HR 52”) and ask again.`);
    return { text: lines.join("\n"), citations: [] };
  }
  const worse = onFocus.filter((f) => f.concern);
  if (plan?.causal) {
    lines.push(
      worse.length
        ? `Your ${focus.map(title).join(" and ")} is worse over ${label}: ${worse.map((f) => f.statement.replace(/\.$/, "")).join("; ")}.`
        : `Your ${focus.map(title).join(" and ")} did not get worse over ${label}.`,
    );
    const causes = others.filter((f) => f.concern);
    if (causes.length) {
      lines.push("", "Likely contributors:");
      for (const f of causes.slice(0, 5)) {
        const rule = expertiseFor(f, context);
        lines.push(`- ${f.statement}${cite(f)}${rule ? ` — ${rule}` : ""}`);
      }
    } else if (worse.length) {
      lines.push("", `Nothing in your ${context.domains.filter((d) => !focus.includes(d)).map(title).join(", ") || "other"} entries over ${label} explains it.`);
    }
  } else {
    // a finding only the person's own facts make possible (protein per kg …) answers the question itself: it leads
    const direct = findings.find((f) => PERSONAL.has(f.metric ?? ""));
    if (direct) lines.push(`**Short answer:** ${direct.concern ? "not quite — " : ""}${direct.statement}`, "");
    lines.push(`Here is what your log shows for ${label}:`);
  }
  const rest = plan?.causal ? [...onFocus, ...others.filter((f) => !f.concern)] : findings;
  if (rest.length) {
    if (plan?.causal) lines.push("", "What else the log shows:");
    for (const f of rest.slice(0, 8)) lines.push(`- ${f.statement}${cite(f)}`);
  }
  const byId = new Map(input.entries.map((e) => [e.id, e]));
  if (cites.length) {
    lines.push("", "Entries cited:");
    cites.forEach((id, n) => {
      const e = byId.get(id);
      // the entry's text may start with its own day ("2026-11-20: …"): say the day once
      lines.push(`${n + 1}. ${e ? `${e.day} — ${clip(e.text.replace(new RegExp(`^${e.day}\\s*[:\\-–]?\\s*`), ""), 90)}` : id}`);
    });
  }
  return { text: lines.join("\n"), citations: cites };
}

/**
 * EVALUATE, offline: no model reads the answer, so this checks the data the answer was written
 * from (never the wording of its own template) and says so: does it rest on cited entries, on a
 * sufficient analysis, on findings for each domain asked about, and (for a why-question with a
 * worse metric) on at least one likely contributor? The score is the share of checks passed.
 */
export function offlineEvaluation(input: { query: string; answer: { text: string; citations: string[] }; analysis: Analysis | null; plan: QueryPlan | null; partial: boolean }): Omit<Evaluation, "adapter"> {
  const { answer, analysis, plan } = input;
  const reasons: string[] = [];
  const fromProfile = plan?.decision === "SYNTHESIZE";
  const findings = analysis?.findings ?? [];
  const focus = plan?.focus ?? [];
  const checks = fromProfile ? 0 : 3 + (plan?.causal ? 1 : 0);
  if (!fromProfile && answer.citations.length === 0) reasons.push("cites no log entry");
  if (!fromProfile && analysis?.verdict === "INSUFFICIENT") reasons.push(`rests on an insufficient analysis (${analysis.reason})`);
  const missing = focus.filter((d) => !findings.some((f) => f.domain === d));
  if (!fromProfile && missing.length) reasons.push(`the log has no findings for ${missing.join(", ")}`);
  const worse = findings.some((f) => focus.includes(f.domain) && f.concern);
  if (plan?.causal && !fromProfile && worse && !findings.some((f) => !focus.includes(f.domain) && f.concern)) reasons.push("asked why, but no finding points to a likely contributor");
  const score = checks === 0 ? 1 : Math.round(((checks - reasons.length) / checks) * 100) / 100;
  const did = fromProfile ? "answered from the global context" : `cites ${answer.citations.length} entr${answer.citations.length === 1 ? "y" : "ies"}; findings for ${focus.join(", ") || "the question"}`;
  return { verdict: reasons.length ? "FAIL" : "PASS", score, reasons: reasons.length ? reasons : [`offline check of the data, not of the wording (no model read the answer): ${did}`] };
}
