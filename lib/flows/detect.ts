// Keyword stage detection (StageDetectorProtocol with STAGE_KEYWORDS: docs/guide/15-conversation-and-your-own-workflows.md): each stage
// scores the keywords of its list found in a message (whole words or phrases, any case); the
// confidence of the best stage is its share of all hits, lowered when it rests on one keyword.
// A message that names a labelled transition out of the current stage (labelMatch) takes it.
import { escapeRegExp as escape } from "../regexp";
import { END, edgeKey, own, type FlowConfig } from "./types";

export interface StageScore {
  stage: string;
  /** keywords of the stage found in the message */
  hits: string[];
  /** the stage's share of all hits, 0..1 */
  score: number;
}

export interface Detection {
  /** every stage with at least one hit, best first */
  scores: StageScore[];
  /** the stage picked (null when no keyword matched) */
  stage: string | null;
  confidence: number;
}

const patterns = new Map<string, RegExp>();

function pattern(keyword: string): RegExp {
  let re = patterns.get(keyword);
  if (!re) {
    const words = keyword.trim().toLowerCase().split(/\s+/).map(escape).join("\\s+");
    re = new RegExp(`(?<![\\p{L}\\p{N}])${words}(?![\\p{L}\\p{N}])`, "u");
    patterns.set(keyword, re);
  }
  return re;
}

/**
 * Score `text` against each stage's keywords. On a tie the stage listed in `prefer` (the valid
 * next stages) wins, then the earlier stage in `keywords`.
 */
export function detectStage(text: string, keywords: Record<string, string[]>, prefer: string[] = []): Detection {
  const lower = text.toLowerCase();
  const found: StageScore[] = [];
  for (const [stage, words] of Object.entries(keywords)) {
    const hits = words.filter((w) => pattern(w).test(lower));
    if (hits.length) found.push({ stage, hits, score: 0 });
  }
  const total = found.reduce((n, f) => n + f.hits.length, 0);
  for (const f of found) f.score = round(f.hits.length / total);
  const order = Object.keys(keywords);
  found.sort((a, b) => b.hits.length - a.hits.length || Number(prefer.includes(b.stage)) - Number(prefer.includes(a.stage)) || order.indexOf(a.stage) - order.indexOf(b.stage));
  const best = found[0];
  if (!best) return { scores: [], stage: null, confidence: 0 };
  // one keyword is weak evidence; two or more found for the same stage is strong
  const strength = Math.min(1, 0.6 + 0.2 * best.hits.length);
  return { scores: found, stage: best.stage, confidence: round(best.score * strength) };
}

const round = (n: number) => Math.round(n * 100) / 100;

export interface LabelledEdge {
  from: string;
  to: string;
  label: string;
}

/**
 * The transitions out of the active stages that carry a label ("A -> B" in `labels`), moves to
 * an end (`[*]`) included when the stage may end there.
 */
export function labelledEdges(c: Pick<FlowConfig, "transitions" | "labels" | "ends">, active: string[]): LabelledEdge[] {
  const out: LabelledEdge[] = [];
  for (const from of active) {
    const targets = [...(own(c.transitions, from) ?? []), ...(c.ends?.includes(from) ? [END] : [])];
    for (const to of targets) {
      const label = own(c.labels, edgeKey(from, to))?.trim();
      if (label) out.push({ from, to, label });
    }
  }
  return out;
}

/**
 * The edge a message names by its label: the message equals a label (any case, spacing and end
 * punctuation aside), or contains one as whole words (labels of three characters or more). An
 * exact match wins, then the longest label found; a label two edges share to different stages
 * names neither.
 */
export function labelMatch(text: string, edges: LabelledEdge[]): LabelledEdge | null {
  const norm = (s: string) => s.toLowerCase().replace(/\s+/g, " ").replace(/[.!?]+$/, "").trim();
  const message = norm(text);
  if (!message) return null;
  const pick = (found: LabelledEdge[]) => {
    const targets = new Set(found.map((e) => e.to));
    return targets.size === 1 ? found[0]! : null;
  };
  const exact = edges.filter((e) => norm(e.label) === message);
  if (exact.length) return pick(exact);
  const contained = edges.filter((e) => norm(e.label).length >= 3 && pattern(norm(e.label)).test(message));
  if (!contained.length) return null;
  const longest = Math.max(...contained.map((e) => norm(e.label).length));
  return pick(contained.filter((e) => norm(e.label).length === longest));
}
