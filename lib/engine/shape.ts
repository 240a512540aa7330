// Does a value have the shape of the one it replaces? Its JSON type, and nested, an object's
// members and an array's items (checked against the first item it had: a list holds one kind of
// item). What a fork's context edit is checked with (lib/engine/fork-check.ts) and a reviewer's
// edit (lib/steps/edit-shape.ts); each words the answer its own way.

export type Kind = "null" | "array" | "object" | "string" | "number" | "boolean" | "other";

export function kindOf(v: unknown): Kind {
  if (v === null || v === undefined) return "null";
  if (Array.isArray(v)) return "array";
  const t = typeof v;
  return t === "object" || t === "string" || t === "number" || t === "boolean" ? (t as Kind) : "other";
}

/** "an object", "a string", "null" */
export const an = (k: Kind) => (k === "null" ? "null" : k === "array" || k === "object" ? `an ${k}` : `a ${k}`);

/** Where the shapes part first: a value of another kind, or (exact keys) a member missing or one too many. */
export type ShapeMismatch = { path: string; was: Kind; got: Kind } | { path: string; missing: true } | { path: string; extra: true; keys: string[] };

/**
 * The first place (path first) where `value` does not have the shape of `was`, or null. Where
 * `was` is null anything may stand. `exactKeys`: an object must have the members it replaces and
 * no others (else a missing member is a null, which a member that held a value refuses).
 * Nothing deeper than `maxDepth` levels is checked.
 */
export function shapeMismatch(path: string, was: unknown, value: unknown, opts: { maxDepth: number; exactKeys: boolean }, depth = 0): ShapeMismatch | null {
  const k = kindOf(was);
  if (k === "null") return null; // nothing was there: any value
  const v = kindOf(value);
  if (v !== k) return { path, was: k, got: v };
  if (depth >= opts.maxDepth) return null;
  if (k === "object") {
    const w = was as Record<string, unknown>;
    const n = value as Record<string, unknown>;
    if (opts.exactKeys) {
      for (const key of Object.keys(w)) if (!Object.hasOwn(n, key)) return { path: `${path}.${key}`, missing: true };
      for (const key of Object.keys(n)) if (!Object.hasOwn(w, key)) return { path: `${path}.${key}`, extra: true, keys: Object.keys(w) };
    }
    for (const key of Object.keys(w)) {
      const why = shapeMismatch(`${path}.${key}`, w[key], n[key], opts, depth + 1);
      if (why) return why;
    }
  } else if (k === "array") {
    const first = (was as unknown[])[0];
    if (first !== undefined) {
      const arr = value as unknown[];
      for (let i = 0; i < arr.length; i++) {
        const why = shapeMismatch(`${path}[${i}]`, first, arr[i], opts, depth + 1);
        if (why) return why;
      }
    }
  }
  return null;
}
