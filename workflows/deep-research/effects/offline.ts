// The deterministic research algorithms the offline engine runs (and any model may replace):
// a plan from the topic's own terms, fact extraction from retrieved passages, reflection by
// coverage and numeric conflicts, and an extractive report with citations.
import { coverage, isProse, keyTerms, sentences, stem, stems, tokens } from "../../../lib/knowledge/text";
import { isProseSentence, withoutCode } from "../../../lib/llm/prose";
import type { FoundFact, FoundSource, Reflection } from "../types";
import type { Fact, Plan, Source, Task } from "../research/types";
import type { SearchResult } from "../../../lib/search/types";

const ASPECTS = ["Definitions and scope", "Mechanisms and design", "Practice, tools and actors", "Numbers and evidence", "Risks, limitations and open questions"];

/** The topic as a short phrase: the question itself when short, else its key terms. */
function subject(topic: string): string {
  const phrase = topic.trim().replace(/[?.!\s]+$/, "");
  if (phrase.length <= 80) return phrase;
  return keyTerms(topic, 6).join(" ") || phrase.slice(0, 80);
}

const DROP = /^(?:please\s+)?(?:drop|remove|delete|skip|leave out|omit|no|without|forget|not)\b\s*(?:the\s+)?(.+)$/i;
const ADD = /^(?:please\s+)?(?:add|include|also(?:\s+cover)?|cover|focus on|more on|look at|research|investigate)\b\s*(.+)$/i;
const FILLER = /^(?:(?:a|an|the|one|some|more|new|another)\s+)*(?:(?:section|dimension|part|bit|angle|aspect|something)s?\s+(?:on|about|for|covering|of)\s+)?(?:the\s+)?/i;

/** "a section on cost and pricing." → "Cost and pricing" */
function phrase(text: string): string {
  const t = text.replace(FILLER, "").replace(/[\s.!?]+$/, "").trim();
  return t ? t.charAt(0).toUpperCase() + t.slice(0, 200).slice(1) : "";
}

/**
 * The dimensions after a reviewer's feedback, read offline: each clause (split at . ; , and line
 * breaks) that starts with "drop / remove / skip / no / without …" drops the dimensions sharing a
 * key term with what follows; "add / include / cover / focus on / more on …" adds what follows as a
 * dimension. Feedback with neither keeps the dimensions as they were (the reviewer's words still
 * reach the planner as feedback).
 */
export function replanDimensions(current: readonly string[], feedback: string): string[] {
  let dims = [...current];
  const clauses = feedback.split(/[.;,\n]+|\s+(?:then|but)\s+/i).map((c) => c.trim()).filter(Boolean);
  for (const clause of clauses) {
    const drop = DROP.exec(clause);
    if (drop) {
      const what = new Set(keyTerms(drop[1]!, 6).map(stem));
      if (what.size) dims = dims.filter((d) => ![...stems(d)].some((w) => what.has(w)));
      continue;
    }
    const add = ADD.exec(clause);
    if (add) {
      const name = phrase(add[1]!);
      const known = new Set(dims.map((d) => d.toLowerCase()));
      if (name && !known.has(name.toLowerCase()) && keyTerms(name, 3).length > 0) dims.push(name);
    }
  }
  dims = dims.slice(0, 12);
  return dims.length ? dims : [...current].slice(0, 1);
}

/** A plan built from the topic: one search and one read task per dimension after a decomposition step. */
export function offlinePlan(topic: string, opts: { feedback?: string; edited?: Plan | null; previous?: Plan | null } = {}): Plan {
  if (opts.edited) return { ...opts.edited, topic, estimatedIterations: opts.edited.tasks.length };
  const s = subject(topic);
  const dimensions = replanDimensions(opts.previous?.dimensions?.length ? opts.previous.dimensions : ASPECTS, opts.feedback ?? "");
  const tasks: Task[] = [{ id: "P1", type: "Planning", description: `Decompose "${topic}" into the research dimensions`, status: "PENDING", dependsOn: [], query: topic }];
  dimensions.forEach((d, i) => {
    const focus = keyTerms(`${d} ${s}`, 10).join(" ");
    tasks.push({ id: `S${i + 1}`, type: "Search", description: `Find sources: ${d}`, status: "BLOCKED", dependsOn: ["P1"], query: focus, dimension: d, critical: true });
    tasks.push({ id: `R${i + 1}`, type: "Read", description: `Extract facts: ${d}`, status: "BLOCKED", dependsOn: [`S${i + 1}`], query: keyTerms(`${s} ${d}`, 10).join(" "), dimension: d });
  });
  return { topic, dimensions, tasks, estimatedIterations: tasks.length };
}

/** Statements worth keeping from the passages: sentences that carry the query's terms or numbers. */
export function extractFacts(query: string, results: SearchResult[]): { sources: FoundSource[]; facts: FoundFact[] } {
  const terms = [...new Set(keyTerms(query, 12).map(stem))];
  const sources: FoundSource[] = results.map((r) => ({ url: r.url, title: r.title, type: r.type, raw: r.text }));
  const candidates: { statement: string; source: number; score: number }[] = [];
  results.forEach((r, i) => {
    // prose only: a command or a code block is not a fact
    for (const s of sentences(withoutCode(r.text))) {
      if (s.length < 40 || s.length > 400 || !isProse(s) || !isProseSentence(s)) continue;
      const words = stems(s);
      const hits = terms.filter((t) => words.has(t)).length;
      const numeric = /\d/.test(s) ? 0.5 : 0;
      if (hits + numeric < 1.5) continue;
      candidates.push({ statement: s, source: i, score: hits + numeric + r.score });
    }
  });
  candidates.sort((a, b) => b.score - a.score);
  const facts: FoundFact[] = [];
  const perSource = new Map<number, number>();
  for (const c of candidates) {
    if ((perSource.get(c.source) ?? 0) >= 3 || facts.length >= 8) continue;
    // a quote from one passage is never High: nobody judged it. Medium when another source (a
    // different address) carries its key terms too, Low otherwise.
    const key = keyTerms(c.statement, 5);
    const confirmations = results.filter((r, i) => i !== c.source && r.url !== results[c.source].url && coverage(key, r.text) >= 0.8).length;
    const confidence = confirmations > 0 ? "Medium" : "Low";
    facts.push({ statement: c.statement, source: c.source, confidence });
    perSource.set(c.source, (perSource.get(c.source) ?? 0) + 1);
  }
  return { sources, facts };
}

const numbers = (s: string) => (s.match(/\b\d+(?:[.,]\d+)?\b/g) ?? []).map((n) => n.replace(",", "."));

/** Gaps: dimensions with fewer than two facts. Conflicts: facts on the same subject with different numbers. */
export function offlineReflection(plan: Plan, facts: Fact[], round: number, existingConflicts: string[]): Reflection {
  const gaps = plan.dimensions
    .map((d) => ({ d, n: facts.filter((f) => f.dimension === d).length }))
    .filter((x) => x.n < 2)
    .map((x) => ({ dimension: x.d, reason: x.n === 0 ? "no facts found yet" : "only one fact found", query: keyTerms(`${plan.topic} ${x.d} overview`, 10).join(" ") }));
  const conflicts: Reflection["conflicts"] = [];
  for (let i = 0; i < facts.length; i++) {
    for (let j = i + 1; j < facts.length; j++) {
      const a = facts[i];
      const b = facts[j];
      if (a.source === b.source) continue;
      const shared = keyTerms(a.statement, 8).filter((t) => keyTerms(b.statement, 8).includes(t));
      const na = numbers(a.statement);
      const nb = numbers(b.statement);
      if (shared.length >= 3 && na.length && nb.length && !na.some((n) => nb.includes(n))) {
        const subjectText = shared.slice(0, 3).join(" ");
        if (existingConflicts.some((c) => c.includes(subjectText)) || conflicts.some((c) => c.subject === subjectText)) continue;
        conflicts.push({ subject: subjectText, facts: [a.id, b.id], detail: `${a.id} says ${na.join("/")}, ${b.id} says ${nb.join("/")}` });
      }
    }
  }
  const notes =
    gaps.length || conflicts.length
      ? `Round ${round}: ${gaps.length} dimension(s) under-covered and ${conflicts.length} conflict(s); adding tasks.`
      : `Round ${round}: every dimension has at least two facts and no numeric conflicts remain.`;
  return { round, gaps, conflicts, notes };
}

const CONF_ORDER = { High: 0, Medium: 1, Low: 2 } as const;

/** What a fact rests on, in plain words (offline facts are quotes, not judgements). */
function basis(f: Fact): string {
  return f.confidence === "Low" ? "quoted from one passage" : f.confidence === "Medium" ? "quoted; another source uses the same key terms" : "High confidence";
}

/** report.md assembled from the facts, each cited to its source. */
export function offlineReport(topic: string, missionId: string, plan: Plan, facts: Fact[], sources: Source[]): string {
  const cited = new Set(facts.map((f) => f.source)).size;
  const lines: string[] = [
    `# ${topic}`,
    "",
    `_Mission ${missionId}. Written by the offline engine: ${facts.length} sentence${facts.length === 1 ? "" : "s"} quoted from ${cited} source${cited === 1 ? "" : "s"} that share words with the topic. No model read them, judged them or wrote this report; connect a model in Settings for a written one._`,
    "",
  ];
  const best = [...facts].filter((f) => isProseSentence(f.statement)).sort((a, b) => CONF_ORDER[a.confidence] - CONF_ORDER[b.confidence]).slice(0, 3);
  lines.push("## Summary", "", "The quotes that share most words with the topic:", "");
  for (const f of best) lines.push(`- ${f.statement} [${f.source}]`);
  lines.push("");
  for (const d of plan.dimensions) {
    const here = facts.filter((f) => f.dimension === d);
    lines.push(`## ${d}`, "");
    if (!here.length) lines.push("_No facts were found for this dimension._");
    for (const f of here) lines.push(`- ${f.statement} [${f.source}] _(${f.id}, ${basis(f)})_`);
    lines.push("");
  }
  const other = facts.filter((f) => !f.dimension || !plan.dimensions.includes(f.dimension));
  if (other.length) {
    lines.push("## Further findings", "");
    for (const f of other) lines.push(`- ${f.statement} [${f.source}]`);
    lines.push("");
  }
  lines.push("## Sources", "");
  for (const s of sources) lines.push(`- [${s.id}] ${s.title} — ${s.url} (${s.type}, accessed ${s.accessDate})`);
  lines.push("");
  return lines.join("\n");
}
