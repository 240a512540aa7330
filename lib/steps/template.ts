// Templates in step definitions: `{{input.topic}}`, `{{steps.DRAFT.output}}`, `{{review.feedback}}`.
// A template names a value by a dotted path; nothing is evaluated. A missing value renders as
// the empty string; an object or array renders as JSON. A template that is one reference only
// (`"{{steps.DRAFT.output}}"`) keeps the value's own type where a JSON value is built (http bodies).

const REF = /\{\{\s*([A-Za-z_][\w-]*(?:\.[\w-]+)*)\s*\}\}/g;
const ONLY = /^\{\{\s*([A-Za-z_][\w-]*(?:\.[\w-]+)*)\s*\}\}$/;

/** the roots a template may name */
export const ROOTS = ["input", "steps", "review"] as const;

export interface Scope {
  input: unknown;
  steps: Record<string, { output?: unknown } | undefined>;
  review: { decision?: string; feedback?: string; edited?: unknown } | null;
}

/** Every path a template names ("steps.DRAFT.output", …). */
export function refsOf(template: string): string[] {
  return [...template.matchAll(REF)].map((m) => m[1]!);
}

/** Every template string inside a JSON value (object values and array items). */
export function stringsIn(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value && typeof value === "object") return Object.values(value).flatMap(stringsIn);
  return [];
}

export function lookup(scope: Scope, path: string): unknown {
  let at: unknown = scope;
  for (const part of path.split(".")) {
    if (at === null || typeof at !== "object" || !Object.hasOwn(at, part)) return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}

const text = (v: unknown) => (v === undefined || v === null ? "" : typeof v === "string" ? v : JSON.stringify(v));

/** Render a template; `{{secrets.NAME}}` is kept as written (secrets are allowed in http headers only: see renderHeader). */
export function render(template: string, scope: Scope): string {
  return template.replace(REF, (whole, path: string) => (path.startsWith("secrets.") ? whole : text(lookup(scope, path))));
}

/** A part of an http header value: text, or a secret by name (the effect fills it in when it sends; it is never stored). */
export type HeaderPart = string | { secret: string };

/**
 * Render an http header template in one pass over the definition's own text: a `{{secrets.NAME}}`
 * written there becomes a secret part; whatever a reference inserts (run input, a step's output)
 * is text and is never read for templates again, so `{{secrets.…}}` arriving in it stays text.
 */
export function renderHeader(template: string, scope: Scope): HeaderPart[] {
  const parts: HeaderPart[] = [];
  let buf = "";
  let last = 0;
  for (const m of template.matchAll(REF)) {
    buf += template.slice(last, m.index);
    last = m.index + m[0].length;
    const path = m[1]!;
    if (!path.startsWith("secrets.")) {
      buf += text(lookup(scope, path));
      continue;
    }
    if (buf) parts.push(buf);
    buf = "";
    parts.push({ secret: path.slice("secrets.".length) });
  }
  buf += template.slice(last);
  if (buf || parts.length === 0) parts.push(buf);
  return parts;
}

/** A JSON value with every string rendered; a string that is one reference becomes the value itself. */
export function renderJson(value: unknown, scope: Scope): unknown {
  if (typeof value === "string") {
    const only = ONLY.exec(value);
    if (only) return lookup(scope, only[1]!) ?? null;
    return render(value, scope);
  }
  if (Array.isArray(value)) return value.map((v) => renderJson(v, scope));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderJson(v, scope)]));
  return value;
}

/** the step a template reference names ("steps.DRAFT.output" → DRAFT) */
export function stepNamed(path: string): string | null {
  const m = /^steps\.([^.]+)/.exec(path);
  return m ? m[1]! : null;
}
