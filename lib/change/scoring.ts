// The scoring rules of an evaluation (guide 19 §4), pure: a reviewer's decision on the value a
// review showed is the label; the candidate's run shows its own value at the same review state and
// visit. approve: agree when the candidate shows the approved value; edit: when it shows the edited
// (corrected) value; reject and request-changes (swiss-army's modify): when it shows something
// else than the rejected value. Every other decision (answer, continue, retry, custom …) is not a
// case. "Equal": deep equality for JSON (keys in any order); for text, token-set similarity ≥ 0.8.
import { compact } from "../engine/draft";
import { sameJson } from "./canonical";

export const TEXT_SIMILARITY = 0.8;
/** how "equal" is decided, as the report says it */
export const EQUALITY = { json: "deep equality (keys in any order)", text: `token-set similarity ≥ ${TEXT_SIMILARITY} (Jaccard of the lower-cased word sets)` };

export type Label = "approve" | "edit" | "reject";

/** The label a decision gives, or null: not a case (answer, continue, retry, custom …). */
export function labelOf(decision: string): Label | null {
  const d = decision.toLowerCase();
  if (d === "approve") return "approve";
  if (d === "edit") return "edit";
  if (d === "reject" || d === "modify" || d === "request_changes") return "reject";
  return null;
}

const tokens = (s: string) => new Set(s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);

/** Jaccard similarity of two texts' word sets (1 when both have none). */
export function tokenSimilarity(a: string, b: string): number {
  const x = tokens(a);
  const y = tokens(b);
  if (x.size === 0 && y.size === 0) return 1;
  let common = 0;
  for (const t of x) if (y.has(t)) common++;
  return common / (x.size + y.size - common);
}

/** Equal as the report defines it. Both sides are compared as stored (long strings cut the same way). */
export function equalValues(a: unknown, b: unknown): boolean {
  const x = compact(a ?? null);
  const y = compact(b ?? null);
  if (typeof x === "string" && typeof y === "string") return tokenSimilarity(x, y) >= TEXT_SIMILARITY;
  return sameJson(x, y);
}

export type Verdict = { agree: true } | { agree: false; reason: "path" | "differs" | "unchanged" };

/**
 * A case's verdict. `shown`: the value the candidate's review showed (undefined: the candidate never
 * reached that review: "path"); `source`: the value the source's review showed; `edited`: the edit.
 */
export function score(label: Label, shown: unknown, source: unknown, edited?: unknown): Verdict {
  if (shown === undefined) return { agree: false, reason: "path" };
  if (label === "approve") return equalValues(shown, source) ? { agree: true } : { agree: false, reason: "differs" };
  if (label === "edit") return equalValues(shown, edited) ? { agree: true } : { agree: false, reason: "differs" };
  return equalValues(shown, source) ? { agree: false, reason: "unchanged" } : { agree: true };
}
