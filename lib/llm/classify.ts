// Keyword and pattern classification with a confidence: the offline engine's way to route,
// tag and detect. Each label has weighted cues (words or regular expressions); the score is
// the sum of matched weights, the confidence the winner's share of all matched weight.
import { tokens } from "../knowledge/text";

export type Cue = string | RegExp | { cue: string | RegExp; weight: number };

export interface Classification<L extends string> {
  label: L;
  confidence: number;
  scores: Record<L, number>;
  /** the cues that matched for the winning label */
  matched: string[];
}

export function classify<L extends string>(text: string, labels: Record<L, Cue[]>, fallback: L): Classification<L> {
  const words = new Set(tokens(text));
  const lower = text.toLowerCase();
  const scores = {} as Record<L, number>;
  const matchedBy = {} as Record<L, string[]>;
  let total = 0;
  for (const label of Object.keys(labels) as L[]) {
    let score = 0;
    const matched: string[] = [];
    for (const c of labels[label]) {
      const { cue, weight } = typeof c === "object" && !(c instanceof RegExp) ? c : { cue: c, weight: 1 };
      const hit = cue instanceof RegExp ? cue.test(lower) : cue.includes(" ") ? lower.includes(cue) : words.has(cue);
      if (hit) {
        score += weight;
        matched.push(cue instanceof RegExp ? cue.source : cue);
      }
    }
    scores[label] = score;
    matchedBy[label] = matched;
    total += score;
  }
  let label = fallback;
  for (const l of Object.keys(scores) as L[]) if (scores[l] > (scores[label] ?? 0)) label = l;
  const confidence = total === 0 ? 0 : scores[label] / total;
  return { label, confidence: Math.round(confidence * 100) / 100, scores, matched: matchedBy[label] ?? [] };
}
