// The JSON Schema of an llm step (`llm.schema`): what a definition may ask for, checked when it is
// saved (lib/steps/check.ts), and the validator a model's answer is checked with (lib/steps/
// effects.ts). Bounds: schemas nest at most SCHEMA_LIMITS.depth levels, minItems / maxItems and
// minLength / maxLength stay under their caps, and the smallest answer allowed holds at most
// SCHEMA_LIMITS.values values (nested minItems multiply). A `pattern` is matched by RE2 (re2js:
// linear time, no backreferences or lookaround), never by JavaScript's backtracking RegExp: zod
// checks the schema without its patterns, then the patterns are checked here.
import { RE2JS } from "re2js";
import { z } from "zod";
import { StepError } from "./errors";

export const SCHEMA_LIMITS = {
  /** levels of schemas inside schemas (a property's or an item's schema is one level below its parent) */
  depth: 8,
  /** minItems and maxItems */
  items: 1_000,
  /** minLength and maxLength */
  length: 100_000,
  /** values in the smallest answer the schema allows, and in the offline engine's sample */
  values: 100_000,
} as const;

type Schema = Record<string, unknown>;
const isSchema = (v: unknown): v is Schema => !!v && typeof v === "object" && !Array.isArray(v);

/** keywords holding one subschema, a list of them, or a map of them */
const ONE = ["additionalProperties", "items", "additionalItems", "contains", "propertyNames", "not", "if", "then", "else", "unevaluatedItems", "unevaluatedProperties", "contentSchema"];
const LIST = ["prefixItems", "items", "anyOf", "oneOf", "allOf"];
const MAP = ["properties", "$defs", "definitions", "dependentSchemas", "patternProperties"];
/** where a pattern is checked: places whose value is known without deciding between alternatives */
const CHECKED = new Set(["properties", "additionalProperties", "items", "prefixItems", "additionalItems", "allOf", "$defs", "definitions"]);

interface Node {
  schema: Schema;
  /** its path in the schema ("properties.code") */
  path: string;
  depth: number;
  /** the keyword under which a pattern would not be checked ("anyOf"), or null */
  unchecked: string | null;
}

/** Every schema inside `schema` (itself first), with its path and depth. */
function* nodes(schema: Schema, path = "", depth = 0, unchecked: string | null = null): Generator<Node> {
  yield { schema, path, depth, unchecked };
  const at = (k: string) => (path ? `${path}.${k}` : k);
  const under = (k: string) => unchecked ?? (CHECKED.has(k) ? null : k);
  for (const k of ONE) if (isSchema(schema[k])) yield* nodes(schema[k] as Schema, at(k), depth + 1, under(k));
  for (const k of LIST) if (Array.isArray(schema[k])) for (const [i, s] of (schema[k] as unknown[]).entries()) if (isSchema(s)) yield* nodes(s, at(`${k}.${i}`), depth + 1, under(k));
  for (const k of MAP) if (isSchema(schema[k])) for (const [name, s] of Object.entries(schema[k] as Schema)) if (isSchema(s)) yield* nodes(s, at(`${k}.${name}`), k === "$defs" || k === "definitions" ? depth : depth + 1, under(k));
}

function compile(pattern: string): RE2JS {
  return RE2JS.compile(pattern);
}

/** Why RE2 cannot compile `pattern`, or null. */
function patternProblem(pattern: unknown): string | null {
  if (typeof pattern !== "string") return "a pattern is text";
  try {
    compile(pattern);
    return null;
  } catch (e) {
    return `RE2 cannot compile ${JSON.stringify(pattern)} (${(e as Error).message}); patterns are matched in linear time, without backreferences or lookaround`;
  }
}

/** How many values the smallest answer to `schema` holds (required properties, minItems items), up to `cap`. */
function smallest(schema: unknown, depth: number, cap: number): number {
  if (!isSchema(schema) || depth > SCHEMA_LIMITS.depth) return 1;
  let n = 1;
  const props = isSchema(schema.properties) ? (schema.properties as Schema) : {};
  for (const k of Array.isArray(schema.required) ? schema.required : []) if (typeof k === "string" && Object.hasOwn(props, k)) n += smallest(props[k], depth + 1, cap);
  const min = typeof schema.minItems === "number" ? schema.minItems : 0;
  if (min > 0) n += Math.min(min, SCHEMA_LIMITS.items) * smallest(isSchema(schema.items) ? schema.items : {}, depth + 1, cap);
  return Math.min(n, cap + 1);
}

/** Problems of a schema an llm step names, each with its path inside the schema ("properties.code.pattern"). */
export function schemaProblems(schema: Schema): { path: string; message: string }[] {
  const out: { path: string; message: string }[] = [];
  const add = (path: string, k: string, message: string) => out.push({ path: path ? `${path}.${k}` : k, message });
  for (const n of nodes(schema)) {
    if (out.length >= 20) break;
    const s = n.schema;
    if (n.depth > SCHEMA_LIMITS.depth) {
      out.push({ path: n.path, message: `nested more than ${SCHEMA_LIMITS.depth} levels deep (at most ${SCHEMA_LIMITS.depth})` });
      continue;
    }
    for (const [k, cap] of [["minItems", SCHEMA_LIMITS.items], ["maxItems", SCHEMA_LIMITS.items], ["minLength", SCHEMA_LIMITS.length], ["maxLength", SCHEMA_LIMITS.length]] as const) {
      if (typeof s[k] === "number" && (s[k] as number) > cap) add(n.path, k, `${s[k]} is more than ${cap.toLocaleString("en-US")} (the most a schema may ask for)`);
    }
    if (s.pattern !== undefined) {
      const why = patternProblem(s.pattern);
      if (why) add(n.path, "pattern", why);
      else if (n.unchecked) add(n.path, "pattern", `a pattern is checked in properties, items, prefixItems, additionalProperties, allOf and $defs, not under ${n.unchecked}`);
    }
    if (s.patternProperties !== undefined) add(n.path, "patternProperties", "patternProperties is not supported: name the keys in properties");
  }
  const least = smallest(schema, 0, SCHEMA_LIMITS.values);
  if (!out.length && least > SCHEMA_LIMITS.values) out.push({ path: "", message: `the smallest answer it allows holds more than ${SCHEMA_LIMITS.values.toLocaleString("en-US")} values (nested minItems multiply)` });
  return out;
}

/** The schema without its patterns (zod would compile them to backtracking RegExps). */
function withoutPatterns(schema: Schema): Schema {
  const copy = (s: unknown): unknown => {
    if (!isSchema(s)) return s;
    const out: Schema = {};
    for (const [k, v] of Object.entries(s)) {
      if (k === "pattern" || k === "patternProperties") continue;
      if (ONE.includes(k)) out[k] = copy(v);
      else if (LIST.includes(k) && Array.isArray(v)) out[k] = v.map(copy);
      else if (MAP.includes(k) && isSchema(v)) out[k] = Object.fromEntries(Object.entries(v).map(([name, x]) => [name, copy(x)]));
      else out[k] = v;
    }
    return out;
  };
  return copy(schema) as Schema;
}

/** A local `$ref` ("#", "#/$defs/X", "#/definitions/X") in `root`. */
function resolve(root: Schema, ref: string): Schema | null {
  if (ref === "#") return root;
  const m = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
  const defs = m ? root[m[1]!] : undefined;
  const name = m ? m[2]!.replace(/~1/g, "/").replace(/~0/g, "~") : "";
  return isSchema(defs) && Object.hasOwn(defs, name) && isSchema(defs[name]) ? (defs[name] as Schema) : null;
}

/**
 * The validator of a model's answer to `schema`: zod's, built from the schema without its
 * patterns, then every pattern checked with RE2. Throws when the schema has a pattern RE2 cannot
 * compile or one where it is not checked (a definition saved before these were refused).
 */
export function outputValidator(schema: Schema): z.ZodType<unknown> {
  const problems = schemaProblems(schema).filter((p) => /pattern/i.test(p.path));
  if (problems.length) throw new Error(`llm.schema.${problems[0]!.path}: ${problems[0]!.message}`);
  const compiled = new Map<string, RE2JS>();
  const re = (p: string) => compiled.get(p) ?? compiled.set(p, compile(p)).get(p)!;
  const base = z.fromJSONSchema(withoutPatterns(schema) as never) as z.ZodType<unknown>;
  const check = (s: unknown, value: unknown, path: (string | number)[], hops: number, ctx: z.RefinementCtx) => {
    if (!isSchema(s)) return;
    if (typeof s.$ref === "string" && hops < 32) check(resolve(schema, s.$ref), value, path, hops + 1, ctx);
    if (typeof s.pattern === "string" && typeof value === "string" && !re(s.pattern).test(value)) ctx.addIssue({ code: "custom", path, message: `does not match the pattern ${s.pattern}` });
    if (Array.isArray(s.allOf)) for (const sub of s.allOf) check(sub, value, path, hops, ctx);
    if (Array.isArray(value)) {
      const prefix = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : [];
      const rest = Array.isArray(s.prefixItems) ? s.items : Array.isArray(s.items) ? s.additionalItems : s.items;
      value.forEach((v, i) => check(i < prefix.length ? prefix[i] : rest, v, [...path, i], 0, ctx));
    } else if (value && typeof value === "object") {
      const props = isSchema(s.properties) ? s.properties : {};
      for (const [k, v] of Object.entries(value)) check(Object.hasOwn(props, k) ? props[k] : s.additionalProperties, v, [...path, k], 0, ctx);
    }
  };
  return base.superRefine((value, ctx) => check(schema, value, [], 0, ctx));
}

/**
 * A deterministic answer to `schema` (the offline engine's answer to a structured llm step):
 * defaults, the first enum value, minimum numbers, `text` for strings (cut or repeated to the
 * length bounds), minItems items. Bounded as saving bounds a schema: SCHEMA_LIMITS.depth levels,
 * SCHEMA_LIMITS.items items per list, SCHEMA_LIMITS.length characters per string, and at most
 * SCHEMA_LIMITS.values values and 10,000,000 characters in all (past them: an error).
 */
export function sampleFor(schema: Schema, text: string): unknown {
  const budget = { values: SCHEMA_LIMITS.values, chars: 10_000_000 };
  const spend = (values: number, chars = 0) => {
    budget.values -= values;
    budget.chars -= chars;
    if (budget.values < 0 || budget.chars < 0) throw new StepError(`the offline answer to this schema would hold more than ${SCHEMA_LIMITS.values.toLocaleString("en-US")} values or 10,000,000 characters`, "RESOURCE_LIMIT", false);
  };
  const build = (s: Schema, depth: number): unknown => {
    spend(1);
    if (s.default !== undefined) return s.default;
    if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
    const type = Array.isArray(s.type) ? s.type[0] : s.type;
    if (depth >= SCHEMA_LIMITS.depth && (type === "object" || type === "array" || s.properties)) return type === "array" ? [] : {};
    if (type === "object" || s.properties) return Object.fromEntries(Object.entries(isSchema(s.properties) ? s.properties : {}).map(([k, v]) => [k, build(isSchema(v) ? v : {}, depth + 1)]));
    if (type === "array") return Array.from({ length: Math.min(typeof s.minItems === "number" ? s.minItems : 0, SCHEMA_LIMITS.items) }, () => build(isSchema(s.items) ? s.items : {}, depth + 1));
    if (type === "number" || type === "integer") return typeof s.minimum === "number" ? s.minimum : 0;
    if (type === "boolean") return false;
    if (type === "null") return null;
    const max = Math.min(typeof s.maxLength === "number" ? s.maxLength : Infinity, SCHEMA_LIMITS.length);
    const min = Math.min(typeof s.minLength === "number" ? s.minLength : 0, max);
    let out = text.length > max ? text.slice(0, max) : text;
    if (out.length < min) out = (out || "x").repeat(Math.ceil(min / Math.max(1, out.length || 1))).slice(0, min);
    spend(0, out.length);
    return out;
  };
  return build(schema, 0);
}
