// ROUTE, offline: split the input into question, log and correction segments, classify it as
// QUERY, LOG or BOTH, and select the domains its words point at.
import { domainScores, selectDomains } from "../domains/context";
import type { Correction, RouteResult } from "../types";

const QUESTION_START = /^(why|what|what's|whats|how|when|where|which|who|should|is|am|are|do|does|did|can|could|would|will|was|were|have|has|tell me|show me|compare|explain|any idea)\b/i;
const LB_PER_KG = 2.20462;

/** Lines, then sentences (a decimal point is not a sentence end: it has no space after it). */
export function segments(text: string): string[] {
  return text
    .split(/\r?\n/)
    .flatMap((line) => line.split(/(?<=[.!?])\s+/))
    .map((s) => s.replace(/^\s*(?:[-*•]|\d+[.)])\s+/, "").trim())
    .filter((s) => /[a-z0-9]/i.test(s));
}

export function isQuestion(segment: string): boolean {
  return /\?\s*$/.test(segment) || QUESTION_START.test(segment);
}

const PROFILE_FACTS: { key: string; pattern: RegExp; value: (m: RegExpMatchArray) => string }[] = [
  { key: "max_hr", pattern: /\bmy max(?:imum)?\s*(?:hr|heart rate)\s*(?:is|=|:)\s*(?:now\s+)?(\d{3})\b/i, value: (m) => m[1]! },
  { key: "resting_hr_baseline", pattern: /\bmy (?:normal |usual |baseline )?(?:resting (?:hr|heart rate)|rhr)\s*(?:baseline\s*)?(?:is|=|:)\s*(?:usually\s+|now\s+|about\s+|around\s+)?(\d{2,3})\b/i, value: (m) => m[1]! },
  { key: "hrv_baseline", pattern: /\bmy (?:normal |usual |baseline )?hrv\s*(?:baseline\s*)?(?:is|=|:)\s*(?:usually\s+|now\s+|about\s+|around\s+)?(\d{1,3})\b/i, value: (m) => m[1]! },
  {
    key: "body_weight_kg",
    pattern: /\b(?:my (?:body )?weight is|i weigh)\s*(?:now\s+|about\s+|around\s+)?(\d{2,3}(?:\.\d)?)\s*(kg|kgs|kilos?|lbs?|pounds?)?\b/i,
    value: (m) => (/^(lb|pound)/i.test(m[2] ?? "") ? (Number(m[1]) / LB_PER_KG).toFixed(1) : m[1]!),
  },
  { key: "goal_race", pattern: /\bmy (?:goal |next |target )race is\s+(.{3,80}?)[.!]?$/i, value: (m) => m[1]!.trim() },
  { key: "diet", pattern: /\bi(?:'m| am) (?:now |no longer |not )?(vegetarian|vegan|pescatarian|omnivore)\b/i, value: (m) => (/no longer|not/i.test(m[0]) ? `not ${m[1]!.toLowerCase()}` : m[1]!.toLowerCase()) },
];

/** Statements about the person that set or correct a global-context fact. */
export function corrections(segment: string): Correction[] {
  const out: Correction[] = [];
  for (const f of PROFILE_FACTS) {
    const m = segment.match(f.pattern);
    if (m) out.push({ key: f.key, value: f.value(m), text: segment });
  }
  return out;
}

export function offlineRoute(text: string, today: string): Omit<RouteResult, "adapter"> {
  const parts = segments(text);
  const query: string[] = [];
  const log: string[] = [];
  const fixes: Correction[] = [];
  for (const s of parts) {
    const found = isQuestion(s) ? [] : corrections(s);
    if (found.length) fixes.push(...found);
    else if (isQuestion(s)) query.push(s);
    else log.push(s);
  }
  const queryText = query.join(" ");
  const logText = log.join("\n");
  const inputType = query.length && log.length ? "BOTH" : query.length ? "QUERY" : "LOG";
  const domains = selectDomains(`${queryText}\n${logText}`);
  const scores = domainScores(`${queryText}\n${logText}`);
  // confident when every segment fell clearly on one side (a question mark, or a log line with numbers)
  const clear = parts.filter((s) => /\?\s*$/.test(s) || (!isQuestion(s) && /\d/.test(s))).length;
  const confidence = parts.length ? Math.round((0.5 + (0.5 * clear) / parts.length) * 100) / 100 : 0;
  const reason = [
    query.length ? `${query.length} question(s)` : "",
    log.length ? `${log.length} log line(s)` : "",
    fixes.length ? `${fixes.length} correction(s) of the global context (${fixes.map((c) => c.key).join(", ")})` : "",
    domains.length ? `domains: ${domains.map((d) => `${d} (${scores[d]})`).join(", ")}` : "no domain vocabulary found",
  ]
    .filter(Boolean)
    .join("; ");
  return { inputType, domains, confidence, scores, logText, queryText, corrections: fixes, today, reason };
}
