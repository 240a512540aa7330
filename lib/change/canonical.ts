// Canonical JSON (object keys sorted, at every depth) and its SHA-256: two values are "equal input"
// when their canonical texts are, whatever order their keys were written in.
import { createHash } from "node:crypto";

export function canonical(value: unknown): string {
  return JSON.stringify(sorted(value)) ?? "null";
}

function sorted(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sorted);
  if (v && typeof v === "object" && !(v instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v as Record<string, unknown>).sort()) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined && typeof x !== "function") out[k] = sorted(x);
    }
    return out;
  }
  return v;
}

export const hashOf = (value: unknown): string => createHash("sha256").update(canonical(value)).digest("hex");

/** Deep equality for JSON values, keys in any order. */
export const sameJson = (a: unknown, b: unknown): boolean => canonical(a) === canonical(b);

/** A run's input without the engine's version pin (input.definitionVersion): what "the same input" compares. */
export function unpinned(input: unknown): unknown {
  if (!input || typeof input !== "object" || Array.isArray(input)) return input;
  const { definitionVersion: _v, ...rest } = input as Record<string, unknown>;
  void _v;
  return rest;
}
