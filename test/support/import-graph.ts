// The project's import graph, read from the TypeScript syntax tree of each file (no bundler, no
// type checker): which file imports which, and how — a value import (`import { x }`, `export …
// from`, `require`), a type-only one (`import type`, `import { type X }`, `typeof import()`), or
// a dynamic `import()`. test/architecture-cycles.test.ts holds the loops of it to account.
//
//   npx tsx test/support/import-graph.ts    prints the strongly connected components
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { ROOT, sourceFiles } from "./source-files";

export type ImportKind = "value" | "type" | "dynamic";

export interface Edge {
  from: string;
  to: string;
  kind: ImportKind;
}

/** The folders whose files are the graph's nodes: the product, its scripts and its benchmarks (tests import them; nothing imports a test). */
export const GRAPH_DIRS = ["app", "bench", "clients/typescript/src", "components", "lib", "scripts", "workflows"];
const TOP_FILES = ["instrumentation.ts", "proxy.ts"];
const EXTS = [".ts", ".tsx", ".mts", ".mjs", ".js"];

function resolve(from: string, spec: string): string | null {
  let base: string;
  if (spec.startsWith("@/")) base = spec.slice(2);
  else if (spec.startsWith(".")) base = path.posix.join(path.posix.dirname(from), spec);
  else return null;
  const stem = base.replace(/\.(js|mjs|ts|tsx)$/, "");
  for (const candidate of [base, ...EXTS.map((e) => stem + e), ...EXTS.map((e) => `${base}/index${e}`)]) {
    const abs = path.join(ROOT, candidate);
    if (fs.existsSync(abs) && fs.statSync(abs).isFile()) return candidate;
  }
  return null;
}

function typeOnlyImport(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return false; // `import "x"` runs the module
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  const bindings = clause.namedBindings;
  if (!bindings) return false;
  if (ts.isNamespaceImport(bindings)) return false;
  return bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly);
}

function typeOnlyExport(node: ts.ExportDeclaration): boolean {
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  return !!clause && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly);
}

/** The imports one file makes, each with its kind. */
export function importsOf(file: string): { spec: string; kind: ImportKind }[] {
  const text = fs.readFileSync(path.join(ROOT, file), "utf8");
  const kind = file.endsWith(".tsx") ? ts.ScriptKind.TSX : file.endsWith(".ts") || file.endsWith(".mts") ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, kind);
  const out: { spec: string; kind: ImportKind }[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      out.push({ spec: node.moduleSpecifier.text, kind: typeOnlyImport(node) ? "type" : "value" });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      out.push({ spec: node.moduleSpecifier.text, kind: typeOnlyExport(node) ? "type" : "value" });
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      out.push({ spec: node.moduleReference.expression.text, kind: node.isTypeOnly ? "type" : "value" });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      out.push({ spec: node.argument.literal.text, kind: "type" });
    } else if (ts.isCallExpression(node) && node.arguments.length >= 1 && ts.isStringLiteralLike(node.arguments[0])) {
      const spec = node.arguments[0].text;
      if (node.expression.kind === ts.SyntaxKind.ImportKeyword) out.push({ spec, kind: "dynamic" });
      else if (ts.isIdentifier(node.expression) && node.expression.text === "require") out.push({ spec, kind: "value" });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** a test file (a workflow's own tests sit in workflows/<id>/test/): tests are not nodes */
const TEST_FILE = /\.test\.tsx?$|^workflows\/[^/]+\/test\//;

export function graphFiles(): string[] {
  return [...sourceFiles(GRAPH_DIRS, EXTS), ...TOP_FILES.filter((f) => fs.existsSync(path.join(ROOT, f)))].filter((f) => !f.endsWith(".d.ts") && !TEST_FILE.test(f));
}

export function importGraph(files = graphFiles()): Edge[] {
  const known = new Set(files);
  const edges: Edge[] = [];
  for (const from of files) {
    for (const { spec, kind } of importsOf(from)) {
      const to = resolve(from, spec);
      if (to && known.has(to) && to !== from) edges.push({ from, to, kind });
    }
  }
  return edges;
}

/** Strongly connected components with more than one file (Tarjan), largest first; each sorted. */
export function cycles(edges: Edge[], kinds: ImportKind[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) {
    if (!kinds.includes(e.kind)) continue;
    if (!next.has(e.from)) next.set(e.from, []);
    next.get(e.from)!.push(e.to);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const out: string[][] = [];
  let counter = 0;
  const strong = (v: string) => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) out.push(component.sort());
    }
  };
  for (const v of next.keys()) if (!index.has(v)) strong(v);
  return out.sort((a, b) => b.length - a.length);
}

/** The edges of `edges` that run inside one component (what ties it), for a message. */
export function inside(component: string[], edges: Edge[], kinds: ImportKind[]): string[] {
  const set = new Set(component);
  return edges.filter((e) => kinds.includes(e.kind) && set.has(e.from) && set.has(e.to)).map((e) => `${e.from} -> ${e.to}${e.kind === "value" ? "" : ` (${e.kind})`}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const edges = importGraph();
  for (const [label, kinds] of [["value imports", ["value"]], ["all imports (value, type, dynamic)", ["value", "type", "dynamic"]]] as [string, ImportKind[]][]) {
    const found = cycles(edges, kinds);
    console.log(`${label}: ${found.length} cycle(s), largest ${found[0]?.length ?? 0} file(s)`);
    for (const c of found) {
      console.log(`  ${c.length}: ${c.join(", ")}`);
      if (process.argv.includes("--edges")) for (const e of inside(c, edges, kinds)) console.log(`      ${e}`);
    }
  }
}
