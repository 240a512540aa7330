// What a run is about, in one clipped line, for the runs list, the review queue and the run page:
// the workflow's own runName when it has one, else the first text its input carries.
import { clip } from "../format";
import type { WorkflowDefinition } from "./types";

/** input fields that usually say what a run is about, tried in this order before any other text field */
const LIKELY = ["request", "topic", "query", "question", "text", "message", "prompt", "title", "name", "goal", "task"];

function firstText(value: unknown, depth = 0): string | null {
  if (typeof value === "string") return value.trim() ? value : null;
  if (!value || typeof value !== "object" || depth > 2) return null;
  if (Array.isArray(value)) {
    for (const v of value) {
      const t = firstText(v, depth + 1);
      if (t) return t;
    }
    return null;
  }
  const rec = value as Record<string, unknown>;
  for (const k of LIKELY) if (Object.hasOwn(rec, k) && typeof rec[k] === "string" && (rec[k] as string).trim()) return rec[k] as string;
  for (const v of Object.values(rec)) {
    const t = firstText(v, depth + 1);
    if (t) return t;
  }
  return null;
}

export function runName(def: Pick<WorkflowDefinition, "runName"> | undefined, run: { input: unknown; context?: unknown }, max = 80): string | null {
  let own: string | null | undefined = null;
  try {
    own = def?.runName?.(run.input, run.context);
  } catch {
    own = null; // a stored context of an older shape: fall back to the input
  }
  const text = own?.trim() ? own : firstText(run.input);
  return text ? clip(text, max) : null;
}
