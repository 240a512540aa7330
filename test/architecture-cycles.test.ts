// Layers one way: no import cycle among the project's files (read from each file's syntax tree by
// test/support/import-graph.ts). The core is given its workflows (lib/machines/registry.ts
// provideWorkflows) rather than importing workflows/, and nothing in lib/ imports the module that
// builds the runtime, so the app's actions, its components, lib/api and the workflows' panels do
// not close a loop through lib/runtime.ts.
import { describe, expect, it } from "vitest";
import { cycles, importGraph, importsOf, inside, type Edge } from "./support/import-graph";
import { sourceFiles } from "./support/source-files";

/** The largest loop allowed when type-only imports count too (the client SDK's client.ts ⇄ worker.ts, a type import back). */
const LARGEST_WITH_TYPES = 2;

let graph: Edge[] | null = null;
const edges = () => (graph ??= importGraph());
/** lib/ holds well over a hundred source files: fewer means the scan missed most of it */
const LIB_FILES_AT_LEAST = 100;

function explain(found: string[][], kinds: Edge["kind"][]): string {
  return found.map((c) => `${c.length} files:\n  ${inside(c, edges(), kinds).join("\n  ")}`).join("\n");
}

describe("import cycles", () => {
  it("the graph is read: lib/runtime.ts imports the engine, app pages import lib", () => {
    expect(edges().some((e) => e.from === "lib/runtime.ts" && e.to === "lib/engine/engine.ts" && e.kind === "value")).toBe(true);
    expect(edges().filter((e) => e.from.startsWith("app/") && e.to.startsWith("lib/")).length).toBeGreaterThan(50);
    // a dynamic import and a type-only import are told apart from a value import
    expect(importsOf("instrumentation.ts").map((i) => i.kind)).toContain("dynamic");
    expect(edges().some((e) => e.from === "lib/api/runs.ts" && e.to === "lib/runtime-types.ts" && e.kind === "type")).toBe(true);
  });

  it("finds a cycle when there is one", () => {
    const loop: Edge[] = [
      { from: "a.ts", to: "b.ts", kind: "value" },
      { from: "b.ts", to: "c.ts", kind: "type" },
      { from: "c.ts", to: "a.ts", kind: "dynamic" },
      { from: "c.ts", to: "d.ts", kind: "value" },
    ];
    expect(cycles(loop, ["value"])).toEqual([]);
    expect(cycles(loop, ["value", "type", "dynamic"])).toEqual([["a.ts", "b.ts", "c.ts"]]);
  });

  it("no cycle among value imports, nor with dynamic import() counted", () => {
    const kinds: Edge["kind"][] = ["value", "dynamic"];
    const found = cycles(edges(), kinds);
    expect(found, explain(found, kinds)).toEqual([]);
  });

  it(`with type-only imports counted too, no loop spans more than ${LARGEST_WITH_TYPES} files`, () => {
    const kinds: Edge["kind"][] = ["value", "type", "dynamic"];
    const found = cycles(edges(), kinds).filter((c) => c.length > LARGEST_WITH_TYPES);
    expect(found, explain(found, kinds)).toEqual([]);
  });

  it("lib/ never imports workflows/, and nothing under lib/ imports lib/runtime.ts", () => {
    const bad = edges().filter((e) => e.from.startsWith("lib/") && (e.to.startsWith("workflows/") || e.to === "lib/runtime.ts"));
    // (the Runtime type is in lib/runtime-types.ts; the built-ins come through lib/machines/registry.ts)
    expect(bad.map((e) => `${e.from} -> ${e.to} (${e.kind})`), "import type { Runtime } from lib/runtime-types.ts instead").toEqual([]);
    // the graph's files are the project's own sources
    expect(sourceFiles(["lib"]).length).toBeGreaterThan(LIB_FILES_AT_LEAST);
  });
});
