// THINKING, offline: the five stages of the seed, each built from the request's own structure
// (its question type, its parts, its key terms) and from what the knowledge store holds on it.
// No model reasons here, and each stage says so; with a model endpoint every stage is a call.
import { keyTerms, sentences } from "../../../lib/knowledge/text";
import type { Passage, ThinkingStage } from "../types";

function questionType(q: string): string {
  const w = q.trim().toLowerCase().split(/\s+/)[0] ?? "";
  if (/^why/.test(w)) return "an explanation (why)";
  if (/^how/.test(w)) return "a method (how)";
  if (/^(should|would|is it worth)/.test(q.toLowerCase())) return "a decision (should)";
  if (/^(what|which|who|when|where)/.test(w)) return "a fact or definition (what)";
  return "an open problem";
}

/** The request's parts: clauses split on "and", commas and semicolons. */
function parts(q: string): string[] {
  return q
    .replace(/[?.!]+$/, "")
    .split(/\s*(?:;|,|\band\b|\bor\b|\bbut\b)\s*/i)
    .map((s) => s.trim())
    .filter((s) => s.split(/\s+/).length >= 2);
}

export function offlineStage(stage: ThinkingStage, query: string, previous: { stage: ThinkingStage; text: string }[], passages: Passage[]): string {
  const terms = keyTerms(query, 8);
  const ps = parts(query);
  // evidence: a passage's sentence that shares at least two of the request's key terms (one, when it has only one)
  const need = Math.min(2, terms.length);
  const evidence = passages
    .map((p) => {
      const best = sentences(p.text)
        .map((s) => ({ s, hits: terms.filter((t) => s.toLowerCase().includes(t)).length }))
        .sort((a, b) => b.hits - a.hits)[0];
      return best && need > 0 && best.hits >= need ? `${best.s} — ${p.title}` : null;
    })
    .filter((e): e is string => e !== null)
    .slice(0, 3)
    .map((e, i) => `[${i + 1}] ${e}`);
  switch (stage) {
    case "ProblemAnalysis":
      return [
        `The request asks for ${questionType(query)}.`,
        `Key terms: ${terms.join(", ") || "(none)"}.`,
        `Parts: ${ps.length ? ps.map((p, i) => `(${i + 1}) ${p}`).join("; ") : "one part"}.`,
        `Stored documents touching it: ${evidence.length}.`,
      ].join("\n\n");
    case "MultiPerspective":
      return [
        `Critical: what would make an answer about ${terms.slice(0, 3).join(", ") || "this"} wrong — missing cases, unstated assumptions, failure modes.`,
        `Creative: other framings — ${terms.length > 1 ? `start from ${terms[terms.length - 1]} instead of ${terms[0]}` : "reverse the question"}; what a simpler version of the problem would look like.`,
        `Analytical: the parts in order of dependency: ${ps.length ? ps.join(" → ") : query}.`,
      ].join("\n\n");
    case "DeepReasoning":
      return [
        ...ps.map((p, i) => `Step ${i + 1}: settle "${p}".`),
        ...(evidence.length ? ["Evidence from the knowledge store:", ...evidence] : ["No stored document speaks to these terms, so the steps rest on the request alone."]),
      ].join("\n\n");
    case "SynthesisAndReflection":
      return [
        `Consolidated: ${previous.length} stages so far; ${evidence.length} piece(s) of evidence.`,
        "Reflection: the offline engine restates structure and quotes documents; it does not reason. A model endpoint (Settings) would make each stage a real chain of thought.",
      ].join("\n\n");
    case "FinalAnswer": {
      const lines = [`**Question:** ${query}`, "", `**Type:** ${questionType(query)}`, "", "**How to approach it:**", ...(ps.length ? ps : [query]).map((p, i) => `${i + 1}. ${p}`)];
      if (evidence.length) lines.push("", "**What the stored documents say:**", ...evidence.map((e) => `- ${e}`));
      lines.push("", "_Assembled by the offline engine from the request's structure and the knowledge store; no model reasoned about it._");
      return lines.join("\n");
    }
  }
}
