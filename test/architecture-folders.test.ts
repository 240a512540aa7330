// Where feature code lives: each built-in workflow's code is in its folder (workflows/<id>/), not
// only its id. Read from the project's import graph (test/support/import-graph.ts) and its files:
// - no product file outside a workflow's folder imports from it, but workflows/registry.ts;
// - no file outside the workflows' folders serves one workflow alone (imported, directly or
//   through such files, by that workflow's files only): a store, a schema module, a route or a
//   component that belongs in the folder;
// - the app has no route file, page or link of a workflow's own: its endpoints, pages and
//   navigation links are declared in its entry (`api`, `pages`, `nav`) and served by the app's
//   generic files (app/api/[...name]/route.ts, app/[page]/page.tsx), whose paths no file under
//   lib/, app/ or components/ writes out;
// - no database model that one workflow alone uses is defined outside its folder: its tables are
//   in workflows/<id>/schema.prisma, the core's in prisma/core.prisma (scripts/schemas.mjs
//   assembles prisma/schema.prisma from them; test/schema-files.test.ts keeps it up to date).
// docs/guide/17-add-a-workflow.md describes the mechanism.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { builtInEntries } from "../lib/machines/registry";
import { CORE_SCHEMA, workflowSchemas } from "../scripts/schemas.mjs";
import { importGraph, type Edge } from "./support/import-graph";
import { ROOT, read, sourceFiles } from "./support/source-files";

/** the workflow folder a file is in (null: none) */
const folderOf = (file: string) => /^workflows\/([^/]+)\//.exec(file)?.[1] ?? null;

/**
 * The files outside every workflow folder that serve one workflow alone: each one's importers are
 * all in that workflow's folder, or are themselves such files of the same workflow (a fixpoint).
 * A file nobody imports (an entry point, a route, a page Next.js loads) belongs to no workflow.
 */
export function ownedOutside(edges: Edge[], files: string[]): Map<string, string> {
  const importers = new Map<string, Set<string>>();
  for (const e of edges) (importers.get(e.to) ?? importers.set(e.to, new Set()).get(e.to)!).add(e.from);
  const owner = new Map<string, string>();
  for (let changed = true; changed; ) {
    changed = false;
    for (const f of files) {
      if (folderOf(f) || owner.has(f) || f === "workflows/registry.ts") continue;
      const by = [...(importers.get(f) ?? [])];
      const owners = new Set(by.map((g) => folderOf(g) ?? owner.get(g) ?? "*"));
      if (by.length && owners.size === 1 && !owners.has("*")) {
        owner.set(f, [...owners][0]!);
        changed = true;
      }
    }
  }
  return owner;
}

/** a path written as a string's start: "/log", `/log?…`, "/log/…" (not "/login") */
export const quotedPath = (url: string) => new RegExp(`["'\`]${url.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}(?=["'\`?#/])`);

let graph: Edge[] | null = null;
const edges = () => (graph ??= importGraph());
/** lib/ holds well over a hundred source files: fewer means the graph missed most of it */
const LIB_FILES_AT_LEAST = 100;

const workflowFolders = () =>
  fs
    .readdirSync(path.join(ROOT, "workflows"), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();

/** the lines of a file that are not comments (comments may mention a workflow's URL as an example) */
const codeLines = (file: string) =>
  read(file)
    .split("\n")
    .map((line, i) => ({ line, n: i + 1 }))
    .filter(({ line }) => !/^\s*(\/\/|\*|\/\*)/.test(line));

/** the models a schema file defines */
export const modelsIn = (schema: string) => [...schema.matchAll(/^model\s+(\w+)\s*\{/gm)].map((m) => m[1]!);

const DELEGATE_CALLS = "findMany|findFirst|findFirstOrThrow|findUnique|findUniqueOrThrow|create|createMany|createManyAndReturn|update|updateMany|updateManyAndReturn|upsert|delete|deleteMany|count|aggregate|groupBy";
/** code that reads or writes a model's table: a Prisma call (`db.cmResult.findMany(`) or its name quoted in SQL (`FROM "CmResult"`) */
export function usesModel(model: string, code: string): boolean {
  const delegate = model[0]!.toLowerCase() + model.slice(1);
  return new RegExp(`\\.${delegate}\\s*\\.\\s*(?:${DELEGATE_CALLS})\\s*\\(|"${model}"`).test(code);
}

/**
 * The models defined in the wrong place. `defined`: model → "core" or the workflow whose folder
 * defines it; `users`: model → who reads or writes it ("core" or workflow ids). A model that one
 * workflow alone uses belongs in that workflow's folder; a model in a workflow's folder is that
 * workflow's alone (the core and the other workflows reach it through the workflow, never by name).
 */
export function misplacedModels(defined: Map<string, string>, users: Map<string, Set<string>>): string[] {
  const bad: string[] = [];
  for (const [model, where] of defined) {
    const by = [...(users.get(model) ?? [])].sort();
    if (where === "core") {
      if (by.length === 1 && by[0] !== "core") bad.push(`${model}: only ${by[0]} uses it (move it to workflows/${by[0]}/schema.prisma)`);
    } else if (by.length !== 1 || by[0] !== where) {
      bad.push(`${model}: defined in workflows/${where}/ but used by ${by.join(", ") || "nothing"}`);
    }
  }
  return bad;
}

describe("each workflow's code is in its folder", () => {
  it("the ownership rule finds a file that serves one workflow alone (it can fail)", () => {
    const files = ["lib/a.ts", "lib/b.ts", "lib/shared.ts", "lib/api/route-helper.ts", "app/x/route.ts", "workflows/w1/index.ts", "workflows/w2/index.ts", "workflows/registry.ts"];
    const e = (from: string, to: string): Edge => ({ from, to, kind: "value" });
    const owned = ownedOutside(
      [
        e("workflows/w1/index.ts", "lib/a.ts"), // w1's alone
        e("lib/a.ts", "lib/b.ts"), // through a file of w1's: w1's too
        e("workflows/w1/index.ts", "lib/shared.ts"),
        e("workflows/w2/index.ts", "lib/shared.ts"), // two workflows: shared
        e("app/x/route.ts", "lib/api/route-helper.ts"), // the app's
        e("workflows/registry.ts", "workflows/w1/index.ts"),
      ],
      files,
    );
    expect([...owned].sort()).toEqual([
      ["lib/a.ts", "w1"],
      ["lib/b.ts", "w1"],
    ]);
  });

  it("no product file outside a workflow's folder imports from it, but workflows/registry.ts", () => {
    const folders = workflowFolders();
    expect(folders).toContain("domain-agent");
    // bench/ measures the engine on the product workflows, as the tests do: neither is product code
    const bad = edges()
      .filter((e) => {
        const to = folderOf(e.to);
        return to && folderOf(e.from) !== to && e.from !== "workflows/registry.ts" && !e.from.startsWith("bench/");
      })
      .map((e) => `${e.from} -> ${e.to}${e.kind === "value" ? "" : ` (${e.kind})`}`);
    expect(bad).toEqual([]);
    // the graph does see the registry's imports of each folder
    for (const f of folders) expect(edges().some((e) => e.from === "workflows/registry.ts" && folderOf(e.to) === f), f).toBe(true);
  });

  it("no file outside the workflows' folders serves one workflow alone (lib/, app/, components/, scripts/)", () => {
    const files = [...new Set(edges().flatMap((e) => [e.from, e.to]))];
    // the graph reaches the whole of lib/ (well over a hundred files), not a part of it
    expect(files.filter((f) => f.startsWith("lib/")).length).toBeGreaterThan(LIB_FILES_AT_LEAST);
    const owned = [...ownedOutside(edges(), files)].map(([f, w]) => `${f}: only ${w} uses it (move it to workflows/${w}/)`);
    expect(owned).toEqual([]);
  });

  it("the app has no route file, page or link of a workflow's own: its entry declares them, the generic files serve them", () => {
    const entries = builtInEntries();
    const apis = entries.flatMap((w) => Object.keys(w.api ?? {}).map((name) => ({ w: w.definition.id, name })));
    const pages = entries.flatMap((w) => Object.keys(w.pages ?? {}).map((name) => ({ w: w.definition.id, name })));
    const links = entries.flatMap((w) => (w.nav ?? []).map((l) => ({ w: w.definition.id, href: l.href })));
    // what domain-agent brings: its endpoints, its page and its link
    expect(apis.filter((a) => a.w === "domain-agent").map((a) => a.name)).toEqual(["entries", "profile"]);
    expect(pages.filter((p) => p.w === "domain-agent").map((p) => p.name)).toEqual(["log"]);
    expect(links.filter((l) => l.w === "domain-agent").map((l) => l.href)).toEqual(["/log"]);
    expect(fs.existsSync(path.join(ROOT, "app/api/[...name]/route.ts"))).toBe(true);
    expect(fs.existsSync(path.join(ROOT, "app/[page]/page.tsx"))).toBe(true);

    const own: string[] = [];
    for (const { w, name } of apis) if (fs.existsSync(path.join(ROOT, "app/api", name))) own.push(`app/api/${name}/: ${w}'s endpoint /api/${name} has a folder of its own in the app`);
    for (const { w, name } of pages) if (fs.existsSync(path.join(ROOT, "app", name))) own.push(`app/${name}/: ${w}'s page /${name} has a folder of its own in the app`);
    // the URLs a workflow serves are written out in its folder only (comments may cite them)
    const urls = [...apis.map((a) => ({ w: a.w, url: `/api/${a.name}` })), ...pages.map((p) => ({ w: p.w, url: `/${p.name}` })), ...links.map((l) => ({ w: l.w, url: l.href }))];
    for (const file of sourceFiles(["app", "components", "lib"], [".ts", ".tsx"])) {
      for (const { line, n } of codeLines(file)) for (const { w, url } of urls) if (quotedPath(url).test(line)) own.push(`${file}:${n}: writes ${w}'s ${url}: ${line.trim().slice(0, 120)}`);
    }
    expect(own).toEqual([]);
  });

  it("the URL check can fail: it sees a quoted path and leaves a longer one alone", () => {
    expect(quotedPath("/log").test(`{ href: "/log", label: "Log" }`)).toBe(true);
    expect(quotedPath("/log").test("fetch(`/log?x=1`)")).toBe(true);
    expect(quotedPath("/log").test(`redirect("/login")`)).toBe(false);
    expect(quotedPath("/api/metrics/modes").test(`get("/api/metrics/modes/x")`)).toBe(true);
    expect(quotedPath("/api/metrics/modes").test(`get("/api/metrics")`)).toBe(false);
  });

  it("the model rule finds a workflow's table outside its folder, and another's use of one inside (it can fail)", () => {
    expect(usesModel("CmResult", "await this.db.cmResult.findMany({ where })")).toBe(true);
    expect(usesModel("CmResult", "await tx.cmResult\n  .count()")).toBe(true);
    expect(usesModel("CmResult", 'SELECT * FROM "CmResult" WHERE "runId" = ?')).toBe(true);
    expect(usesModel("CmResult", "const cmResult = results.cmResult; // a CmResult")).toBe(false);
    const defined = new Map([
      ["Run", "core"],
      ["Shared", "core"],
      ["Mine", "core"], // w1's alone, defined in the core
      ["Own", "w1"],
      ["Borrowed", "w1"], // w1's, used by w2 too
      ["Unused", "w2"],
    ]);
    const users = new Map([
      ["Run", new Set(["core", "w1"])],
      ["Shared", new Set(["w1", "w2"])],
      ["Mine", new Set(["w1"])],
      ["Own", new Set(["w1"])],
      ["Borrowed", new Set(["w1", "w2"])],
    ]);
    expect(misplacedModels(defined, users)).toEqual([
      "Mine: only w1 uses it (move it to workflows/w1/schema.prisma)",
      "Borrowed: defined in workflows/w1/ but used by w1, w2",
      "Unused: defined in workflows/w2/ but used by nothing",
    ]);
  });

  it("no model that one workflow alone uses is defined outside its folder, and a workflow's models are its own", () => {
    const defined = new Map<string, string>();
    const define = (file: string, where: string) => {
      for (const m of modelsIn(read(file))) {
        expect(defined.has(m), `${m} is defined twice`).toBe(false);
        defined.set(m, where);
      }
    };
    define(CORE_SCHEMA, "core");
    const own = workflowSchemas(ROOT);
    for (const { id, file } of own) define(file, id);
    // the product's code: the core (lib/, app/, components/) and each workflow's folder, without the
    // tests; test/, scripts/, bench/ and e2e/ are harnesses that may look into any workflow's tables
    // (the chaos run counts swiss-army's CmDecision rows), as they may import any workflow
    const code = sourceFiles(["lib", "app", "components", "workflows"], [".ts", ".tsx", ".mjs"]).filter((f) => !/(^|\/)test\/|\.test\.tsx?$/.test(f));
    expect(code.filter((f) => f.startsWith("lib/")).length).toBeGreaterThan(LIB_FILES_AT_LEAST);
    const users = new Map<string, Set<string>>();
    for (const file of code) {
      const text = read(file);
      for (const m of defined.keys()) if (usesModel(m, text)) (users.get(m) ?? users.set(m, new Set()).get(m)!).add(folderOf(file) ?? "core");
    }
    expect(misplacedModels(defined, users)).toEqual([]);
    // the workflows that keep tables of their own, and the core's part: most of the schema
    expect(own.map((w) => w.id)).toEqual(["domain-agent", "processing-modes", "swiss-army"]);
    expect([...defined.values()].filter((w) => w === "core").length).toBeGreaterThan(20);
  });
});
