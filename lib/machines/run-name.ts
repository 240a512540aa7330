// What a run is called: one name, the same in the runs list, the run page, the browser tab, the
// review queue and the timeline. It is set when the run starts and kept with it
// (Run.name): the name given (`POST /api/runs { name }`), else the workflow's own rule (a user
// workflow's `run_name:` template over the input; a built-in's runName), else the input's
// request, topic, query … field. A later cycle's request is a subtitle, not the name.
import { clip } from "../format";
import type { WorkflowDefinition } from "./types";

/** the longest name kept */
export const NAME_MAX = 200;

/** input fields that say what a run is about, tried in this order */
const LIKELY = ["request", "topic", "query", "question", "text", "message", "prompt", "title", "subject", "name", "goal", "task"];

function likelyText(value: unknown): string | null {
  if (!value || typeof value !== "object" || Array.isArray(value)) return null;
  const rec = value as Record<string, unknown>;
  for (const k of LIKELY) if (Object.hasOwn(rec, k) && typeof rec[k] === "string" && (rec[k] as string).trim()) return rec[k] as string;
  return null;
}

function ownRule(def: Pick<WorkflowDefinition, "runName"> | undefined, input: unknown, context: unknown): string | null {
  try {
    const own = def?.runName?.(input, context);
    return own?.trim() ? own : null;
  } catch {
    return null; // a stored context of an older shape: fall back to the input
  }
}

/** The name a run gets when it starts: the one given, else the workflow's rule, else the input's likely field; null when none. */
export function startName(def: Pick<WorkflowDefinition, "runName"> | undefined, input: unknown, given?: string | null): string | null {
  const text = given?.trim() || ownRule(def, input, null) || likelyText(input);
  return text ? clip(text, NAME_MAX) : null;
}

/** A run's name for lists and titles, clipped to `max`: the stored one, else (older runs) as it would have been named. */
export function runName(def: Pick<WorkflowDefinition, "runName"> | undefined, run: { input: unknown; context?: unknown; name?: string | null }, max = 80): string | null {
  const text = run.name?.trim() || ownRule(def, run.input, run.context ?? null) || likelyText(run.input);
  return text ? clip(text, max) : null;
}

/** What the run works on now when that is not its name (a later cycle's request): a subtitle; null otherwise. */
export function runSubtitle(def: Pick<WorkflowDefinition, "runSubtitle"> | undefined, run: { context?: unknown }, name: string | null, max = 120): string | null {
  let text: string | null | undefined = null;
  try {
    text = def?.runSubtitle?.(run.context ?? null);
  } catch {
    text = null;
  }
  if (!text?.trim()) return null;
  const clipped = clip(text, max);
  return name && clip(name, max) === clipped ? null : clipped;
}
