// What a reviewer's `edit` may replace, and with what. An edit replaces the value the review
// shows, so it is offered only where that value has a known place and type: `show` is one
// `{{steps.X.output}}` (the edit becomes X's output) or a literal value (no templates). The edited
// value must then be what it replaces: it matches X's llm `schema` when X has one, else the shape
// of the value shown (its JSON type and, nested, an object's keys and an array's items).
import { own, type FlowConfig } from "../flows/types";
import { an, shapeMismatch } from "../engine/shape";
import { outputValidator } from "./json-schema";
import type { StepSpec } from "./schema";

const ONLY_OUTPUT = /^\{\{\s*steps\.([^.}\s]+)\.output\s*\}\}$/;

/** Where an edit of this review goes: X's output, or the literal shown; null when an edit is not offered. */
export function editTarget(spec: StepSpec): { step: string } | { literal: true } | null {
  const show = spec.review?.show;
  if (show === undefined) return null;
  const only = ONLY_OUTPUT.exec(show);
  if (only) return { step: only[1]! };
  return show.includes("{{") ? null : { literal: true };
}

/** The decisions a review offers: `edit` only where editTarget has a place for it. */
export const offeredDecisions = (spec: StepSpec): string[] => (spec.review?.decisions ?? []).filter((d) => d !== "edit" || editTarget(spec) !== null);

/** Why `value` does not have the shape of `was` (path first), or null. */
export function shapeProblem(path: string, was: unknown, value: unknown): string | null {
  const m = shapeMismatch(path, was, value, { maxDepth: 32, exactKeys: true });
  if (!m) return null;
  if ("missing" in m) return `${m.path}: missing (the value it replaces has it)`;
  if ("extra" in m) return `${m.path}: not a key of the value it replaces (${m.keys.join(", ") || "none"})`;
  return `${m.path}: expected ${an(m.was)} (the value it replaces is ${an(m.was)}), got ${an(m.got)}`;
}

/** Why `edited` cannot replace what the review of `stage` shows now (`shown`), or null. */
export function editProblem(c: FlowConfig, stage: string, spec: StepSpec, shown: unknown, edited: unknown): string | null {
  const target = editTarget(spec);
  if (!target) return `${stage} does not offer edit: its show is not one {{steps.<STAGE>.output}} or a literal value`;
  if (edited === undefined) return null; // the decision's schema asks for it
  const schema = "step" in target ? own(c.steps, target.step)?.llm?.schema : undefined;
  if (schema) {
    let check: ReturnType<ReturnType<typeof outputValidator>["safeParse"]>;
    try {
      check = outputValidator(schema).safeParse(edited);
    } catch (e) {
      return `edited: ${(e as Error).message}`;
    }
    if (!check.success) return check.error.issues.map((i) => `${["edited", ...i.path.map(String)].join(".")}: ${i.message} (${"step" in target ? `${target.step}'s llm schema` : "schema"})`).join("; ");
    return null;
  }
  return shapeProblem("edited", shown, edited);
}
