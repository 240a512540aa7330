// What every page's script carries. Whatever the root layout's server code imports reaches each
// page: imported there, app/catalog.ts (and through it every workflow's client views, React Flow
// and Markdown) made '/' load 828 KB of script instead of 473 KB. And ELK (1.4 MB) reaches the
// browser only when a layout is made there: lib/graph/layout.ts loads it with a dynamic import on
// first use, since the server lays out what a page first draws.
import { describe, expect, it } from "vitest";
import { importGraph, importsOf } from "./support/import-graph";
import { sourceFiles } from "./support/source-files";

/** files reachable from `from` by value imports (static; dynamic imports load on use, type imports never) */
function reach(from: string): Set<string> {
  const out = new Map<string, string[]>();
  for (const e of importGraph()) if (e.kind === "value") out.set(e.from, [...(out.get(e.from) ?? []), e.to]);
  const seen = new Set([from]);
  const todo = [from];
  while (todo.length) for (const next of out.get(todo.pop()!) ?? []) if (!seen.has(next)) seen.add(next), todo.push(next);
  return seen;
}

describe("what every page's script carries", () => {
  it("the root layout reaches neither app/catalog.ts nor any workflow's folder", () => {
    const reached = reach("app/layout.tsx");
    // the walk is real: the layout's nav and the catalog it reads
    expect(reached).toContain("components/nav.tsx");
    expect(reached).toContain("lib/machines/registry.ts");
    expect([...reached].filter((f) => f === "app/catalog.ts" || f.startsWith("workflows/"))).toEqual([]);
  });

  it("no code a page can bundle imports elkjs as a value (types only); lib/graph/layout.ts loads it on use", () => {
    const files = sourceFiles(["app", "components", "lib", "workflows"], [".ts", ".tsx"]);
    expect(files).toContain("lib/graph/layout.ts");
    const elk = (f: string) => importsOf(f).filter((i) => i.spec === "elkjs" || i.spec.startsWith("elkjs/"));
    expect(files.filter((f) => elk(f).some((i) => i.kind === "value"))).toEqual([]);
    expect(elk("lib/graph/layout.ts")).toContainEqual({ spec: "elkjs/lib/elk.bundled.js", kind: "dynamic" });
  });
});
