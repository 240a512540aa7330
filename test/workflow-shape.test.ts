// A workflow is one folder plus one registry line (docs/guide/17-add-a-workflow.md): its effects
// are typed against its machine, every folder is registered once, no workflow id is written
// outside its folder, and lib/ imports nothing under workflows/ (it is given its catalog) nor React.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Engine } from "../lib/engine/engine";
import { builtIn, type BuiltInWorkflow, type EffectPorts } from "../lib/machines/built-in";
import { pageOf } from "../app/catalog";
import { apiOf, builtInEntries, builtInWorkflows } from "../lib/machines/registry";
import * as fixtures from "./fixtures/workflows/registry";
import { hello } from "./fixtures/workflows/hello/machine";
import type { EffectsOf } from "../lib/machines/effects-of";
import { swissArmyMachine } from "../workflows/swiss-army/machine";
import { sqliteDb } from "./support/databases";

const ROOT = path.resolve(import.meta.dirname, "..");

/** Compile-time checks: tsc (npm test) fails if any of these lines stops being an error. */
export function effectTypeChecks() {
  // @ts-expect-error the machine's "shout" effect is missing
  builtIn({ definition: hello, effects: () => ({ actors: { greet: async ({ name }: { name: string }) => ({ text: name }) } }) });
  builtIn({
    definition: hello,
    // @ts-expect-error "shout" must resolve to { text, length }
    effects: () => ({
      actors: {
        greet: async () => ({ text: "hi" }),
        shout: async () => ({ text: "HI" }),
      },
    }),
  });
  builtIn({
    definition: hello,
    // @ts-expect-error "greet" takes { name: string }, not a number
    effects: () => ({
      actors: {
        greet: async (input: number) => ({ text: String(input) }),
        shout: async ({ text }) => ({ text, length: text.length }),
      },
    }),
  });
  // post-commit actions: only ones the machine names in setup({ actions })
  const misspelt: EffectsOf<typeof swissArmyMachine>["actions"] = {
    // @ts-expect-error "logDecison" is not an action the machine names
    logDecison: () => {},
  };
  const named: EffectsOf<typeof swissArmyMachine>["actions"] = { logDecision: () => {}, recordAbort: () => {} };
  void [misspelt, named];
  // what compiles: every effect, with the machine's input and output types
  return builtIn({ definition: hello, effects: () => ({ actors: { greet: async ({ name }) => ({ text: name }), shout: async ({ text }) => ({ text, length: text.length }) } }) });
}

function files(dir: string, exts = [".ts", ".tsx"]): string[] {
  const abs = path.join(ROOT, dir);
  if (!fs.existsSync(abs)) return [];
  return fs.readdirSync(abs, { recursive: true, encoding: "utf8" }).filter((f) => exts.some((e) => f.endsWith(e)) && !f.includes("generated")).map((f) => path.join(dir, f));
}

describe("a workflow is one folder plus one registry line", () => {
  it("the fixture workflow, added as the guide says, runs on the engine with its own effects", async () => {
    const entries = Object.values(fixtures) as BuiltInWorkflow[];
    expect(entries.map((e) => e.definition.id)).toEqual(["hello"]);
    const entry = entries[0];
    const effects = entry.effects!({ env: { HELLO_SALUTATION: "Good morning" } } as unknown as EffectPorts, {});
    const db = await sqliteDb();
    const engine = new Engine({ store: db.store, workflows: (id) => (id === entry.definition.id ? entry.definition : undefined), effects: () => effects, log: () => {} });
    try {
      const { run } = await engine.start("hello", { name: "Ada" });
      const done = await engine.waitFor(run.id, (r) => r.status === "completed");
      expect(done.context).toMatchObject({ greeting: "GOOD MORNING, ADA!" });
      expect(done.output).toBe("GOOD MORNING, ADA!");
      // its views load lazily (a client module the pages hand to the browser)
      const views = (await entry.views!()).default as { tabs: (c: unknown) => { id: string }[] };
      expect(views.tabs(done.context).map((t) => t.id)).toEqual(["greeting"]);
    } finally {
      await engine.stop();
      await db.close();
    }
    expect(effectTypeChecks().definition.id).toBe("hello");
  });

  it("every folder under workflows/ is registered by exactly one line, and nothing else is", () => {
    const folders = fs.readdirSync(path.join(ROOT, "workflows"), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
    const registry = fs.readFileSync(path.join(ROOT, "workflows/registry.ts"), "utf8").split("\n");
    for (const f of folders) {
      expect(fs.existsSync(path.join(ROOT, "workflows", f, "index.ts")), `workflows/${f}/index.ts`).toBe(true);
      expect(registry.filter((l) => l.includes(`"./${f}"`)), `registry lines naming ./${f}`).toHaveLength(1);
    }
    expect(builtInEntries().map((e) => e.definition.id).sort()).toEqual(folders);
    expect(builtInWorkflows().map((w) => w.id)).toEqual(builtInEntries().map((e) => e.definition.id));
  });

  it("no workflow id is written outside its own folder (app, components, lib, scripts)", () => {
    const ids = builtInWorkflows().map((w) => w.id);
    const hits: string[] = [];
    for (const file of ["app", "components", "lib", "scripts"].flatMap((d) => files(d))) {
      const lines = fs.readFileSync(path.join(ROOT, file), "utf8").split("\n");
      lines.forEach((line, i) => {
        if (/^\s*(\/\/|\*|\/\*)/.test(line)) return; // comments may mention a workflow
        for (const id of ids) if (new RegExp(`["'\`]${id}["'\`]`).test(line)) hits.push(`${file}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(hits).toEqual([]);
  });

  it("no import path names a workflow folder outside it (but workflows/registry.ts, test/, e2e/, bench/)", () => {
    const folders = new Set(fs.readdirSync(path.join(ROOT, "workflows"), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name));
    const skip = new Set(["node_modules", "test", "e2e", "bench", "test-results", "data"]);
    const top = fs.readdirSync(ROOT, { withFileTypes: true }).filter((d) => !d.name.startsWith(".") && !skip.has(d.name));
    const sources = top.flatMap((d) => (d.isDirectory() ? files(d.name, [".ts", ".tsx", ".mts", ".mjs", ".js"]) : /\.(ts|tsx|mts|mjs)$/.test(d.name) ? [d.name] : []));
    expect(sources).toContain(path.join("app", "[page]", "page.tsx"));
    const bad: string[] = [];
    for (const file of sources) {
      if (file === path.join("workflows", "registry.ts")) continue;
      const own = file.split(path.sep)[0] === "workflows" ? file.split(path.sep)[1] : null;
      const src = fs.readFileSync(path.join(ROOT, file), "utf8");
      for (const m of src.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)["']([^"']+)["']/g)) {
        const spec = m[1]!;
        const abs = spec.startsWith("@/") ? path.join(ROOT, spec.slice(2)) : spec.startsWith(".") ? path.resolve(ROOT, path.dirname(file), spec) : null;
        if (!abs) continue;
        const [head, folder] = path.relative(ROOT, abs).split(path.sep);
        if (head === "workflows" && folder && folders.has(folder) && folder !== own) bad.push(`${file}: imports ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it("a workflow's app-level endpoints and pages are found by name, not by its folder", async () => {
    // /api/metrics/modes and /log keep their URLs; one route file and one page file ask the registry
    const api = apiOf("metrics/modes");
    expect(api, "some workflow serves /api/metrics/modes").not.toBeNull();
    expect(builtInEntries().filter((e) => e.api?.["metrics/modes"]).map((e) => e.definition.id)).toEqual([api!.workflow]);
    const route = await import("../app/api/[...name]/route");
    // a database holding no requests: the handler reads it (with the since filter) and summarises
    const asked: unknown[] = [];
    const db = { modeRequest: { findMany: async (q: unknown) => (asked.push(q), []) } } as unknown as EffectPorts["db"];
    const get = api!.endpoint.GET!;
    const body = (await get.handle({ query: get.query!.parse({ since: "2026-11-23T00:00:00Z" }), body: undefined, req: new Request("http://x/api/metrics/modes") }, { db, clock: { now: () => 0, setTimeout: () => 0, clearTimeout: () => {} } })) as { modes: { requests: number }[] };
    expect(body.modes.length).toBeGreaterThan(0);
    expect(body.modes.every((m) => m.requests === 0)).toBe(true);
    expect(JSON.stringify(asked)).toContain("2026-11-23T00:00:00.000Z");
    // the route validates with the endpoint's own schema before the handler runs (422), and knows the names it serves
    const bad = await route.GET(new Request("http://x/api/metrics/modes?since=yesterday"));
    expect(bad.status).toBe(422);
    expect((await bad.json()).error).toMatch(/since must be an ISO date-time/);
    const unknown = await route.GET(new Request("http://x/api/no/such/endpoint"));
    expect([unknown.status, (await unknown.json()).code]).toEqual([404, "not_found"]);
    const wrongMethod = await route.POST(new Request("http://x/api/metrics/modes", { method: "POST", body: "{}", headers: { "content-type": "application/json" } }));
    expect([wrongMethod.status, (await wrongMethod.json()).details]).toEqual([405, { allowed: ["GET"] }]);
    expect(apiOf("no/such/endpoint")).toBeNull();
    expect(typeof (await pageOf("log"))).toBe("function");
    expect(await pageOf("no-such-page")).toBeNull();
    expect(await pageOf("constructor")).toBeNull();
    for (const file of ["app/api/[...name]/route.ts", "app/[page]/page.tsx"]) expect(fs.readFileSync(path.join(ROOT, file), "utf8")).toMatch(/workflowApiRoute\(|pageOf\(/);
  });

  it("lib/ imports nothing under workflows/ (it is given its catalog), and no React", () => {
    const bad: string[] = [];
    for (const file of files("lib")) {
      if (file.endsWith(".tsx")) bad.push(`${file}: a React file in lib`);
      const src = fs.readFileSync(path.join(ROOT, file), "utf8");
      if (/from\s+["']react["']/.test(src)) bad.push(`${file}: imports react`);
      if (/(from\s+|import\s*\(\s*)["'](\.\.\/)+workflows\//.test(src)) bad.push(`${file}: imports from workflows/`);
    }
    expect(bad).toEqual([]);
  });

  it("the built-in workflows' effects carry no casts", () => {
    const casts = files("workflows").filter((f) => /[\\/]effects[\\/]|effects\.ts$/.test(f)).flatMap((f) => (fs.readFileSync(path.join(ROOT, f), "utf8").match(/as never/g) ?? []).map(() => f));
    expect(casts).toEqual([]);
  });
});
