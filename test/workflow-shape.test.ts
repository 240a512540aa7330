// A workflow is one folder plus one registry line (docs/guide/17-add-a-workflow.md): its effects
// are typed against its machine, every folder is registered once, no workflow id is written
// outside its folder, and lib/ imports nothing under workflows/ (it is given its catalog) nor React.
import fs from "node:fs";
import { z } from "zod";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Engine } from "../lib/engine/engine";
import { builtIn, type BuiltInWorkflow, type EffectPorts } from "../lib/machines/built-in";
import { pageOf } from "../app/catalog";
import { apiOf, builtInEntries, catalogOrder } from "../lib/machines/registry";
import * as products from "../workflows/registry";
import * as fixtures from "./fixtures/workflows/registry";
import { hello } from "./fixtures/workflows/hello/machine";
import type { EffectsOf } from "../lib/machines/effects-of";
import { loopMachine } from "./fixtures/workflows/loop/machine";
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
  const misspelt: EffectsOf<typeof loopMachine>["actions"] = {
    // @ts-expect-error "logDecison" is not an action the machine names
    logDecison: () => {},
  };
  const named: EffectsOf<typeof loopMachine>["actions"] = { logDecision: () => {} };
  void [misspelt, named];
  // what compiles: every effect, with the machine's input and output types
  return builtIn({ definition: hello, effects: () => ({ actors: { greet: async ({ name }) => ({ text: name }), shout: async ({ text }) => ({ text, length: text.length }) } }) });
}

/**
 * Test files outside a workflow's folder that name workflows, and why: suites about all the
 * workflows at once, and tests that move into a workflow's folder with the code they test.
 */
const CROSS_WORKFLOW: Record<string, string> = {
  "test/active-states-migration.test.ts": "the migration's backfill on rows written before it, whose workflow ids are data",
  "test/architecture-folders.test.ts": "checks where each workflow's code lives, naming the folders it checks",
  "test/store-conformance.test.ts": "the store's conformance on rows whose workflow id is data (a workflow's own rows in an export)",
  "test/fuzz-api.test.ts": "fuzzes every API route with valid and broken bodies: the workflows' own routes and inputs are part of the API",
  "test/model-faults.test.ts": "the chaos run: every product workflow under model faults settles where it should",
  "test/replay.test.ts": "every product workflow, driven then replayed on the code now running, takes the same steps",
  "test/knowledge-store.test.ts": "ranks the shipped corpus, of which the workflows' guide pages are part",
  // swiss-army's Context Manager and domain-agent's domains: their tests move with that code
  "test/outbox.test.ts": "the Context Manager's outbox (of swiss-army): moves into its workflow's folder with it",
  "test/support/outbox-crash.ts": "the outbox test's child process: moves with it",
};

function files(dir: string, exts = [".ts", ".tsx"]): string[] {
  const abs = path.join(ROOT, dir);
  if (!fs.existsSync(abs)) return [];
  return fs.readdirSync(abs, { recursive: true, encoding: "utf8" }).filter((f) => exts.some((e) => f.endsWith(e)) && !f.includes("generated")).map((f) => path.join(dir, f));
}

describe("a workflow is one folder plus one registry line", () => {
  it("the fixture workflow, added as the guide says, runs on the engine with its own effects", async () => {
    const entry = (Object.values(fixtures) as BuiltInWorkflow[]).find((e) => e.definition.id === "hello")!;
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
    const entries = catalogOrder(products);
    expect(entries.map((e) => e.definition.id).sort()).toEqual(folders);
    // the tests' catalog: the product workflows, then the fixtures (test/support/provide-workflows.ts)
    expect(builtInEntries().map((e) => e.definition.id)).toEqual([...entries, ...catalogOrder(fixtures)].map((e) => e.definition.id));
  });

  it("no workflow id is written outside its own folder (app, components, lib, scripts)", () => {
    const ids = catalogOrder(products).map((e) => e.definition.id);
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

  it("a test outside a workflow's folder does not name that workflow (but the cross-workflow suites listed)", () => {
    const ids = catalogOrder(products).map((e) => e.definition.id);
    const named = new Map<string, Set<string>>();
    const tests = [...files("test"), ...files("workflows").filter((f) => f.split(path.sep)[2] === "test")];
    expect(tests).toContain(path.join("test", "workflow-shape.test.ts"));
    for (const file of tests) {
      const own = file.split(path.sep)[0] === "workflows" ? file.split(path.sep)[1] : null;
      fs.readFileSync(path.join(ROOT, file), "utf8")
        .split("\n")
        .forEach((line) => {
          if (/^\s*(\/\/|\*|\/\*)/.test(line)) return; // comments may mention a workflow
          for (const id of ids) if (id !== own && new RegExp(`["'\`]${id}["'\`]|workflows/${id}\\b`).test(line)) named.set(file, (named.get(file) ?? new Set()).add(id));
        });
    }
    const unexpected = [...named].filter(([file]) => !Object.hasOwn(CROSS_WORKFLOW, file.split(path.sep).join("/"))).map(([file, which]) => `${file}: ${[...which].join(", ")}`);
    expect(unexpected, "engine and infrastructure tests run on test/fixtures/workflows; a workflow's own tests live in workflows/<id>/test").toEqual([]);
    // an entry of the list that names none any more goes
    expect(Object.keys(CROSS_WORKFLOW).filter((f) => !named.has(f.split("/").join(path.sep)))).toEqual([]);
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
    const body = (await get.handle({ query: z.parse(get.query!, { since: "2026-11-23T00:00:00Z" }), body: undefined, req: new Request("http://x/api/metrics/modes") }, { db, clock: { now: () => 0, setTimeout: () => 0, clearTimeout: () => {} } })) as { modes: { requests: number }[] };
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
