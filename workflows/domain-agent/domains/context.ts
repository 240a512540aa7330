// Domain selection and BUILD_CONTEXT: score a text against the domains' vocabularies, and
// assemble the ActiveDomainContext (vocabulary, expertise, retrieval hints) of the loaded ones.
import { isStopWord, stem } from "../../../lib/knowledge/text";
import { DOMAINS, domainById } from "./index";
import type { ActiveDomainContext } from "./types";

let vocabulary: { id: string; words: Set<string>; stems: Set<string> }[] | null = null;

function domainVocabulary() {
  vocabulary ??= DOMAINS.map((d) => {
    const words = d.vocabulary.map((w) => w.toLowerCase());
    return { id: d.id, words: new Set(words), stems: new Set(words.map(stem)) };
  });
  return vocabulary;
}

/** Phrases whose words would select the wrong domain, rewritten before matching. */
const PHRASES: [RegExp, string][] = [
  [/\bwork(?:ed|ing|s)?\s+out\b/g, "workout"], // a workout, not work (mood)
  [/\bweights\b/g, "lift"], // lifting weights, not body weight (nutrition)
];

/** Vocabulary hits per domain (word or stem matches), in DOMAINS order; domains without a hit are left out. */
export function domainScores(text: string): Record<string, number> {
  const lower = PHRASES.reduce((t, [re, to]) => t.replace(re, to), String(text ?? "").toLowerCase());
  // letters only, so "8km" yields "km" and "weigh-in" yields "weigh"
  const words = lower.match(/[a-z]+/g) ?? [];
  const out: Record<string, number> = {};
  for (const d of domainVocabulary()) {
    // a stop word counts only as itself: "at" shares its stem with "ate"
    const hits = words.filter((w) => d.words.has(w) || (!isStopWord(w) && d.stems.has(stem(w)))).length;
    if (hits > 0) out[d.id] = hits;
  }
  return out;
}

/** Domain ids whose vocabulary occurs in the text (stem-matched), in DOMAINS order. */
export function tagDomains(text: string): string[] {
  return Object.keys(domainScores(text));
}

/** Domains a text selects: every domain with a hit, strongest first (ties in DOMAINS order). */
export function selectDomains(text: string): string[] {
  const scores = domainScores(text);
  return Object.keys(scores).sort((a, b) => scores[b]! - scores[a]! || DOMAINS.findIndex((d) => d.id === a) - DOMAINS.findIndex((d) => d.id === b));
}

/** BUILD_CONTEXT: the ActiveDomainContext of the loaded domain modules. */
export function buildDomainContext(domains: string[], profile: Record<string, string>, now: number): ActiveDomainContext {
  const modules = domains.map((id) => domainById(id)).filter((m) => m !== undefined);
  const ids = modules.map((m) => m.id);
  return {
    domains: ids,
    vocabulary: [...new Set(modules.flatMap((m) => m.vocabulary))],
    expertise: modules.map((m) => ({ domain: m.id, lines: m.expertise })),
    retrievalHints: {
      metrics: modules.flatMap((m) => m.metrics.map((x) => x.name)),
      lookbackDays: Math.max(7, ...modules.map((m) => m.retrieval.lookbackDays)),
      related: [...new Set(modules.flatMap((m) => m.retrieval.related))].filter((d) => !ids.includes(d)),
    },
    profile,
    builtAt: now,
  };
}
