// Guide 16 lists what each built-in effect sent to an external worker must return. The table is
// prose, so this holds it to the schemas in workflows/<id>/outputs.ts: one row per effect that
// has a schema, and each row's output naming the schema's top-level fields (optional ones with ?).
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { builtInOutputs } from "../lib/machines/registry";
import * as fixtures from "./fixtures/workflows/registry";

/** the product's workflows' outputs: the test fixtures are provided to every test but are not in the guide */
function productOutputs(): [string, Record<string, z.core.$ZodType>][] {
  const fixtureIds = new Set(Object.values(fixtures).map((f) => f.definition.id));
  return Object.entries(builtInOutputs()).filter(([wf]) => !fixtureIds.has(wf));
}

/** `{ a, b?, c: { … } }` → ["a", "b?", "c"]: the names at the top level of the first braces */
function topLevelNames(cell: string): string[] {
  const start = cell.indexOf("{");
  const names: string[] = [];
  let depth = 0;
  let part = "";
  for (const ch of cell.slice(start)) {
    if (ch === "{" || ch === "[" || ch === "(") depth++;
    if (ch === "}" || ch === "]" || ch === ")") depth--;
    if (depth === 0) break;
    if (depth === 1 && ch === ",") {
      names.push(part);
      part = "";
    } else part += ch;
  }
  names.push(part);
  return names.map((p) => p.replace(/^\{/, "").trim().split(/[:\s]/)[0]!).filter(Boolean);
}

describe("guide 16's table of effect outputs", () => {
  const rows = new Map<string, string>();
  for (const line of fs.readFileSync("docs/guide/16-external-workers.md", "utf8").split("\n")) {
    const m = /^\| `([\w-]+\.\w+)` \|/.exec(line);
    // | effect | input | output | or | effect | output |: the output is the last cell
    if (m) rows.set(m[1]!, line.split("|").slice(1, -1).at(-1)!);
  }

  it("has a row for every effect with an output schema, and none for others", () => {
    const named = productOutputs().flatMap(([wf, outputs]) => Object.keys(outputs).map((e) => `${wf}.${e}`));
    expect([...rows.keys()].sort()).toEqual(named.sort());
  });

  it("names each schema's top-level fields, optional ones with ?", () => {
    for (const [wf, outputs] of productOutputs())
      for (const [effect, schema] of Object.entries(outputs)) {
        if (!(schema instanceof z.ZodObject)) continue;
        const shape = (schema as z.ZodObject).shape as Record<string, z.core.$ZodType>;
        const want = Object.entries(shape).map(([k, v]) => (z.safeParse(v, undefined).success ? `${k}?` : k)).sort();
        expect(topLevelNames(rows.get(`${wf}.${effect}`)!).sort(), `${wf}.${effect}`).toEqual(want);
      }
  });
});
