// A workflow's declared inputs: `inputs:` is a JSON Schema when it has `type` or
// `properties` at its top, else the short form `{ topic: string, urgent?: boolean }` (types
// string, number, boolean, object, array; a `?` after the name makes it optional). Declared
// inputs are enforced when a run starts (a required one missing: 422 naming it) and make the
// New run form. Without `inputs:`, the form offers the `input.*` names the definition's templates
// and guards read, as optional fields.
import { z } from "zod";
import { jsonSchemaProblems } from "../steps/check";
import { refsOf } from "../steps/template";
import { own, type FlowConfig } from "./types";

export const INPUT_TYPES = ["string", "number", "boolean", "object", "array"] as const;
export type InputType = (typeof INPUT_TYPES)[number];

/** One field of the New run form. */
export interface InputField {
  name: string;
  type: InputType;
  required: boolean;
  description?: string;
  /** choices (a JSON Schema enum) */
  options?: string[];
}

type Schema = Record<string, unknown>;

/** `inputs:` is a JSON Schema (rather than the short form) when it has `type` or `properties` at its top. */
export const isJsonSchema = (inputs: Record<string, unknown>) => Object.hasOwn(inputs, "type") || Object.hasOwn(inputs, "properties");

const NAME = /^[A-Za-z_][\w-]{0,62}$/;

/** The JSON Schema of declared inputs, or the problems of the declaration (path relative to `inputs`). */
export function inputsSchema(inputs: Record<string, unknown>): { schema: Schema | null; problems: { path: string; message: string }[] } {
  if (isJsonSchema(inputs)) {
    // the bounds and RE2 patterns every schema a definition carries is held to (lib/steps/check.ts)
    const problems = jsonSchemaProblems(inputs);
    if (problems.length) return { schema: null, problems: problems.map((p) => ({ path: p.path.replace(/\.$/, ""), message: p.message })) };
    if (inputs.type !== undefined && inputs.type !== "object") return { schema: null, problems: [{ path: "type", message: `a run's input is an object: type must be object (got ${JSON.stringify(inputs.type)})` }] };
    return { schema: inputs, problems: [] };
  }
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  const problems: { path: string; message: string }[] = [];
  for (const [key, type] of Object.entries(inputs)) {
    const optional = key.endsWith("?");
    const name = optional ? key.slice(0, -1) : key;
    if (!NAME.test(name)) problems.push({ path: key, message: `"${key}" is not an input name: letters, digits, _ and - (a ? at its end makes it optional)` });
    else if (typeof type !== "string" || !(INPUT_TYPES as readonly string[]).includes(type)) problems.push({ path: key, message: `the type of ${name} must be one of ${INPUT_TYPES.join(", ")} (got ${JSON.stringify(type)})` });
    else {
      properties[name] = { type };
      if (!optional) required.push(name);
    }
  }
  if (problems.length) return { schema: null, problems };
  return { schema: { type: "object", properties, ...(required.length ? { required } : {}) }, problems: [] };
}

const typeOf = (s: Schema | undefined): InputType => {
  const t = Array.isArray(s?.type) ? s!.type[0] : s?.type;
  if (t === "integer") return "number";
  return (INPUT_TYPES as readonly string[]).includes(t as string) ? (t as InputType) : "string";
};

/** `input.X` (or input["X"]) in a template or a CEL expression */
function inputNames(text: string): string[] {
  const out: string[] = [];
  for (const ref of refsOf(text)) if (ref.startsWith("input.")) out.push(ref.split(".")[1]!);
  for (const m of text.matchAll(/\binput\s*(?:\.\s*([A-Za-z_][\w]*)|\[\s*["']([^"']+)["']\s*\])/g)) out.push((m[1] ?? m[2])!);
  return out;
}

/** Every input name the definition reads (templates, guards, run_name, result), in order of first use. */
export function usedInputs(c: Pick<FlowConfig, "steps" | "run_name" | "result">): string[] {
  const texts: string[] = [];
  if (c.run_name) texts.push(c.run_name);
  for (const spec of Object.values(c.steps ?? {})) {
    texts.push(JSON.stringify(spec));
    for (const w of spec.when ?? []) texts.push(w.if);
  }
  if (c.result) texts.push(c.result);
  return [...new Set(texts.flatMap(inputNames))].filter((n) => n !== "task");
}

/** The New run form's fields: the declared inputs, else the names the definition reads (all optional). */
export function inputFields(c: Pick<FlowConfig, "inputs" | "steps" | "run_name" | "result">): InputField[] {
  if (c.inputs) {
    const { schema } = inputsSchema(c.inputs);
    if (!schema) return [];
    const props = (schema.properties ?? {}) as Record<string, Schema>;
    const required = new Set((schema.required as string[] | undefined) ?? []);
    return Object.entries(props).map(([name, s]) => ({
      name,
      type: typeOf(s),
      required: required.has(name),
      ...(typeof s.description === "string" ? { description: s.description } : {}),
      ...(Array.isArray(s.enum) && s.enum.every((x) => typeof x === "string") ? { options: s.enum as string[] } : {}),
    }));
  }
  return usedInputs(c).map((name) => ({ name, type: "string" as const, required: false }));
}

/** The validator of a run's input against declared inputs: each problem names the input ("topic: required (string)"). */
export function declaredInputs(c: Pick<FlowConfig, "inputs">): z.core.$ZodType | null {
  if (!c.inputs) return null;
  const { schema } = inputsSchema(c.inputs);
  if (!schema) return null;
  const zs = z.fromJSONSchema(schema as never);
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  return z.unknown().superRefine((value, ctx) => {
    const r = zs.safeParse(value);
    if (r.success) return;
    for (const i of r.error.issues) {
      const name = String(i.path[0] ?? "input");
      const missing = i.code === "invalid_type" && i.path.length === 1 && (value as Record<string, unknown> | null)?.[name] === undefined;
      const type = own(props, name) ? typeOf(props[name]) : null;
      ctx.addIssue({ code: "custom", path: i.path, message: missing ? `required${type ? ` (${type})` : ""}` : i.message });
    }
  });
}

/**
 * The meaning of `inputs`, `run_name` and `result`, each problem on its line: a declaration that
 * is not a schema, a run name reading anything but the input (it is made when the run starts),
 * a result template naming an unknown root or a stage without a step.
 */
export function checkRunKeys(c: FlowConfig, lines: Record<string, number>): { message: string; line?: number; path?: string }[] {
  const out: { message: string; line?: number; path?: string }[] = [];
  if (c.inputs) {
    for (const p of inputsSchema(c.inputs).problems) {
      const path = p.path ? `inputs.${p.path}` : "inputs";
      out.push({ message: `${path}: ${p.message}`, line: own(lines, path) ?? own(lines, "inputs"), path });
    }
  }
  if (c.run_name !== undefined) {
    for (const ref of refsOf(c.run_name)) {
      if (!ref.startsWith("input.")) out.push({ message: `run_name: {{${ref}}}: a run's name is made when it starts, from its input: use {{input.<name>}}`, line: own(lines, "run_name"), path: "run_name" });
    }
  }
  if (c.result !== undefined) {
    for (const ref of refsOf(c.result)) {
      const [root, stage] = ref.split(".");
      if (root === "steps" && (!stage || !own(c.steps, stage))) out.push({ message: `result: {{${ref}}}: ${stage ?? "(none)"} is not a stage with a step`, line: own(lines, "result"), path: "result" });
      else if (root !== "input" && root !== "steps" && root !== "review") out.push({ message: `result: {{${ref}}}: a template names input.…, steps.<STAGE>.output or review.decision / feedback / edited`, line: own(lines, "result"), path: "result" });
    }
  }
  return out;
}
