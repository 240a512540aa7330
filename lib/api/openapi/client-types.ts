// The answer types of the TypeScript client (clients/typescript/src/api-types.ts), written from
// the same zod schemas that describe the API (responses.ts, checked against real answers by
// test/openapi.test.ts): the client declares no answer shape by hand. `npm run client:types`
// writes the file; test/client-types.test.ts fails while it differs from what this gives.
// The schemas go through zod's JSON Schema (output side), then to TypeScript, for the subset
// zod writes: objects, records, arrays, unions, enums, literals, nullables, references.
import { z } from "zod";
import * as R from "./responses";

/** What the client exports, by name: the schema that describes it. */
export const CLIENT_TYPES: Record<string, z.core.$ZodType> = {
  Run: R.Run,
  RunList: R.RunList,
  Transition: R.Transition,
  EventResult: R.RunStep,
  ReviewRecord: R.ReviewRecord,
  Review: R.Review,
  DecisionResult: R.DecisionResult,
  Task: R.Task,
  HeartbeatResult: R.Heartbeat,
  CompleteResult: R.Completed,
  FailResult: R.Failed,
  WorkflowCheck: R.WorkflowCheck,
  Schedule: R.Schedule,
};

type Json = { [k: string]: unknown };

const HEADER = `// Written by \`npm run client:types\` from the server's response schemas (lib/api/openapi/responses.ts,
// through lib/api/openapi/client-types.ts): do not edit. test/client-types.test.ts keeps it current.
// Objects are open: the server may add fields.
`;

/** The client's answer types as TypeScript source. */
export function clientTypesText(): string {
  const defs = new Map<string, Json>();
  /** a $defs id → the name the client knows it by (its own id when it has none) */
  const names = new Map<string, string>();
  const roots: [string, Json][] = [];
  for (const [name, schema] of Object.entries(CLIENT_TYPES)) {
    const js = z.toJSONSchema(schema, { io: "output", unrepresentable: "any" }) as Json;
    for (const [id, def] of Object.entries((js.$defs ?? {}) as Record<string, Json>)) defs.set(id, def);
    const ref = typeof js.$ref === "string" ? js.$ref.replace("#/$defs/", "") : null;
    if (ref) names.set(ref, name);
    else {
      const { $schema: _s, $defs: _d, ...root } = js;
      roots.push([name, root]);
    }
  }
  for (const id of defs.keys()) if (!names.has(id)) names.set(id, id);
  const emit = new TypeEmitter((id) => names.get(id) ?? id);
  const all: [string, Json][] = [...[...defs].map(([id, def]): [string, Json] => [names.get(id)!, def]), ...roots];
  const blocks = all.sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, def]) => emit.declaration(name, def, baseOf(name, def, all)));
  return `${HEADER}\n${blocks.join("\n\n")}\n`;
}

const propsOf = (def: Json) => (def.type === "object" ? ((def.properties ?? {}) as Record<string, Json>) : {});

/**
 * The largest other type whose every field this one has, the same (a schema made with `.extend`
 * or `.omit` of another): this one is declared as extending it, with its own fields only.
 */
function baseOf(name: string, def: Json, all: [string, Json][]): [string, Json] | null {
  const mine = propsOf(def);
  const required = new Set((def.required ?? []) as string[]);
  let best: [string, Json] | null = null;
  for (const [other, o] of all) {
    const theirs = Object.entries(propsOf(o));
    if (other === name || theirs.length === 0 || theirs.length >= Object.keys(mine).length) continue;
    const theirsRequired = new Set((o.required ?? []) as string[]);
    const same = theirs.every(([k, p]) => k in mine && JSON.stringify(mine[k]) === JSON.stringify(p) && required.has(k) === theirsRequired.has(k));
    if (same && theirs.length > Object.keys(propsOf(best?.[1] ?? {})).length) best = [other, o];
  }
  return best;
}

class TypeEmitter {
  constructor(private refName: (id: string) => string) {}

  declaration(name: string, def: Json, base: [string, Json] | null = null): string {
    const doc = docComment(def.description, "");
    const props = def.properties as Record<string, Json> | undefined;
    if (def.type !== "object" || !props || !Object.keys(props).length) return `${doc}export type ${name} = ${this.type(def, "")};`;
    if (!base) return `${doc}export interface ${name} ${this.object(def, "")}`;
    const inherited = propsOf(base[1]);
    const own = Object.fromEntries(Object.entries(props).filter(([k]) => !(k in inherited)));
    return `${doc}export interface ${name} extends ${base[0]} ${this.object({ ...def, properties: own }, "")}`;
  }

  private type(s: Json, indent: string): string {
    if (typeof s.$ref === "string") return this.refName(s.$ref.replace("#/$defs/", ""));
    const union = (s.anyOf ?? s.oneOf) as Json[] | undefined;
    if (union) return [...new Set(union.map((u) => this.type(u, indent)))].join(" | ");
    if ("const" in s) return JSON.stringify(s.const);
    if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(" | ");
    if (Array.isArray(s.type)) return s.type.map((t) => this.type({ ...s, type: t }, indent)).join(" | ");
    switch (s.type) {
      case "string":
        return "string";
      case "number":
      case "integer":
        return "number";
      case "boolean":
        return "boolean";
      case "null":
        return "null";
      case "array": {
        const item = s.items ? this.type(s.items as Json, indent) : "unknown";
        return /[|&]/.test(item) ? `(${item})[]` : `${item}[]`;
      }
      case "object":
        return this.object(s, indent);
      default:
        return "unknown";
    }
  }

  private object(s: Json, indent: string): string {
    const props = (s.properties ?? {}) as Record<string, Json>;
    const extra = s.additionalProperties as Json | boolean | undefined;
    if (!Object.keys(props).length) return `Record<string, ${extra && typeof extra === "object" ? this.type(extra, indent) : "unknown"}>`;
    const required = new Set((s.required ?? []) as string[]);
    const inner = `${indent}  `;
    const lines = Object.entries(props).map(([k, p]) => `${docComment(p.description, inner)}${inner}${/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k)}${required.has(k) ? "" : "?"}: ${this.type(p, inner)};`);
    return `{\n${lines.join("\n")}\n${indent}}`;
  }
}

function docComment(text: unknown, indent: string): string {
  return typeof text === "string" && text ? `${indent}/** ${text.replace(/\*\//g, "*\\/")} */\n` : "";
}
