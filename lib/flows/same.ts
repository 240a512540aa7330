// Whether two definitions are the same workflow (re-importing an unchanged export is not
// a new version): compared as JSON with object keys in order (a map written in another order is
// the same map), empty optional parts left out, and a title equal to the id taken as no title
// (the id is what the workflow is called without one, and what an export writes as its title).
import type { FlowConfig } from "./types";

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (!v || typeof v !== "object") return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) {
    const x = (v as Record<string, unknown>)[k];
    if (x === undefined) continue;
    out[k] = canonical(x);
  }
  return out;
}

const EMPTY_OK = ["parents", "initials", "ends", "choices", "forks", "joins", "labels", "notes", "steps", "stage_tools", "keywords", "validators"] as const;

export function definitionKey(c: FlowConfig): string {
  const copy: Record<string, unknown> = { ...c };
  if (copy.title === c.id) delete copy.title;
  for (const k of EMPTY_OK) {
    const x = copy[k];
    if (x !== undefined && (Array.isArray(x) ? x.length === 0 : typeof x === "object" && x !== null && Object.keys(x).length === 0)) delete copy[k];
  }
  return JSON.stringify(canonical(copy));
}

export const sameDefinition = (a: FlowConfig, b: FlowConfig) => definitionKey(a) === definitionKey(b);
