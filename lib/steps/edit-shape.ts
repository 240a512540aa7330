// What a reviewer's `edit` may replace, and with what. An edit replaces the value the review
// shows, so it is offered only where that value has a known place and type: `show` is one
// `{{steps.X.output}}` (the edit becomes X's output) or a literal value (no templates). The edited
// value must then be what it replaces: it matches X's llm `schema` when X has one, else the shape
// of the value shown (its JSON type and, nested, an object's keys and an array's items).
import { own, type FlowConfig } from "../flows/types";
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

type Kind = "null" | "array" | "object" | "string" | "number" | "boolean";

const kind = (v: unknown): Kind => (v === null || v === undefined ? "null" : Array.isArray(v) ? "array" : (typeof v as Kind));
const an = (k: Kind) => (k === "null" ? "null" : k === "array" || k === "object" ? `an ${k}` : `a ${k}`);

/** Why `value` does not have the shape of `was` (path first), or null. */
export function shapeProblem(path: string, was: unknown, value: unknown, depth = 0): string | null {
  const k = kind(was);
  if (k === "null") return null; // nothing was there: any value
  const v = kind(value);
  if (v !== k) return `${path}: expected ${an(k)} (the value it replaces is ${an(k)}), got ${an(v)}`;
  if (depth >= 32) return null;
  if (k === "object") {
    const w = was as Record<string, unknown>;
    const n = value as Record<string, unknown>;
    for (const key of Object.keys(w)) if (!Object.hasOwn(n, key)) return `${path}.${key}: missing (the value it replaces has it)`;
    for (const key of Object.keys(n)) if (!Object.hasOwn(w, key)) return `${path}.${key}: not a key of the value it replaces (${Object.keys(w).join(", ") || "none"})`;
    for (const key of Object.keys(w)) {
      const why = shapeProblem(`${path}.${key}`, w[key], n[key], depth + 1);
      if (why) return why;
    }
  } else if (k === "array") {
    // items are checked against the first item it had (a list holds one kind of item)
    const first = (was as unknown[])[0];
    if (first !== undefined) {
      const arr = value as unknown[];
      for (let i = 0; i < arr.length; i++) {
        const why = shapeProblem(`${path}[${i}]`, first, arr[i], depth + 1);
        if (why) return why;
      }
    }
  }
  return null;
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
