// What every page's script carries. Whatever the root layout's server code imports reaches each
// page: imported there, app/catalog.ts (and through it every workflow's client views, React Flow
// and Markdown) made '/' load 828 KB of script instead of 473 KB. And ELK (1.4 MB) reaches the
// browser only when a layout is made there: lib/graph/layout.ts loads it with a dynamic import on
// first use, since the server lays out what a page first draws.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { importGraph } from "./support/import-graph";

const root = path.resolve(import.meta.dirname, "..");

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

  it("no code a page can bundle imports elkjs statically (types only); lib/graph/layout.ts loads it on use", () => {
    const files = ["app", "components", "lib", "workflows"].flatMap((dir) =>
      fs
        .readdirSync(path.join(root, dir), { recursive: true, encoding: "utf8" })
        .map((f) => `${dir}/${f.split(path.sep).join("/")}`)
        .filter((f) => /\.tsx?$/.test(f) && !f.includes("node_modules/")),
    );
    const staticImport = /^\s*import\s+(?!type\b)[^;]*from\s+["']elkjs(\/[^"']*)?["']/m;
    expect(files.filter((f) => staticImport.test(fs.readFileSync(path.join(root, f), "utf8")))).toEqual([]);
    expect(fs.readFileSync(path.join(root, "lib/graph/layout.ts"), "utf8")).toMatch(/import\(["']elkjs\/lib\/elk\.bundled\.js["']\)/);
  });
});
