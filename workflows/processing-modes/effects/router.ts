// DefaultRouter, offline: keyword and pattern cues per mode (lib/llm/classify), plus the
// knowledge store's own opinion: a request its documents answer well leans to KNOWLEDGE.
import { classify, type Cue } from "../../../lib/llm/classify";
import type { Mode } from "../types";

const CUES: Record<Mode, Cue[]> = {
  CODE: [{ cue: /```/, weight: 4 }, { cue: "run this", weight: 2 }, { cue: "execute", weight: 2 }, "code", "script", "function", "javascript", "python", "compute", "calculate", "algorithm", "program"],
  DEEP_RESEARCH: [{ cue: "deep research", weight: 3 }, { cue: "research", weight: 2 }, { cue: "deep dive", weight: 2 }, { cue: "comprehensive report", weight: 2 }, { cue: "report on", weight: 2 }, "investigate", "literature", "in-depth", "survey"],
  SEARCH: [{ cue: "search", weight: 2 }, { cue: "latest", weight: 2 }, { cue: "news", weight: 2 }, { cue: "look up", weight: 2 }, "find", "current", "online", "web", "recent"],
  THINKING: [{ cue: "step by step", weight: 2 }, { cue: "pros and cons", weight: 2 }, { cue: /trade-?offs?/, weight: 2 }, { cue: "dilemma", weight: 2 }, { cue: "prove", weight: 2 }, "think", "reason", "reasoning", "should", "weigh", "decide", "analyze", "compare"],
  KNOWLEDGE: [{ cue: "switchyard", weight: 2 }, { cue: "documentation", weight: 2 }, { cue: "according to", weight: 2 }, "docs", "guide", "manual", "workflow", "review", "runs"],
  CHAT: ["hello", "hi", "hey", "thanks", "thank", "joke", "chat", "morning", "how are you"],
};

/** The classified mode with its confidence; `knowledgeScore` is the best BM25 score of the request in the knowledge store. */
export function classifyMode(query: string, knowledgeScore: number): { mode: Mode; confidence: number; scores: Record<Mode, number>; reason: string } {
  const cues: Record<Mode, Cue[]> = { ...CUES, KNOWLEDGE: [...CUES.KNOWLEDGE, ...(knowledgeScore >= 8 ? [{ cue: /./, weight: 2 }] : [])] };
  const c = classify<Mode>(query, cues, "CHAT");
  const reason =
    c.matched.length > 0
      ? `${c.label}: matched ${c.matched.map((m) => (m === "." ? "the knowledge store (strong match)" : m)).join(", ")}`
      : `no mode's cues matched: ${c.label} (the default)`;
  return { mode: c.label, confidence: c.matched.length ? c.confidence : 0.5, scores: c.scores, reason };
}
