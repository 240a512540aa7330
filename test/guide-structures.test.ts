// The guide page on composites, parallel regions, forks and joins: every example on
// docs/guide/18-composites-regions-forks-joins.md is read as written. Each workflow is there in
// YAML, JSON and Mermaid; the three are the same definition (saving one and importing the others
// changes nothing); none draws a warning; and each runs to the end the page says.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveUserWorkflow } from "../lib/flows/store";
import { checkFlowSource, type FlowFormat } from "../lib/flows/validate";
import { sameDefinition } from "../lib/flows/same";
import { findWorkflow } from "../lib/machines/registry";
import type { FlowConfig } from "../lib/flows/types";
import type { Runtime } from "../lib/runtime";
import { testRuntime } from "./helpers";
import { guideExamples, STRUCTURES_GUIDE } from "./support/guide-examples";

const examples = guideExamples(STRUCTURES_GUIDE);
const byId = new Map<string, { format: FlowFormat; source: string; config: FlowConfig }[]>();
for (const e of examples) {
  const r = checkFlowSource(e.format, e.source);
  if (!r.ok) throw new Error(`${STRUCTURES_GUIDE}, block at line ${e.line}: ${r.issues.map((i) => `line ${i.line}: ${i.message}`).join("; ")}`);
  expect(r.warnings, `block at line ${e.line}`).toEqual([]);
  byId.set(r.config.id, [...(byId.get(r.config.id) ?? []), { format: e.format, source: e.source, config: r.config }]);
}

/** what each example is run with, where it ends, and what it produced */
const RUNS: Record<string, { input: Record<string, unknown>; end: string; output: { stage: string; value: unknown }; result?: string }> = {
  onboarding: { input: { name: "Ada" }, end: "DONE", output: { stage: "WELCOME", value: "Welcome, Ada (laptop ready for ada)" } },
  "release-check": { input: { version: "1.4.0" }, end: "SHIPPED", output: { stage: "SHIP", value: "shipped 1.4.0: 42 tests, 18 pages" } },
  quote: { input: { item: "kettle", qty: 3 }, end: "SENT", output: { stage: "QUOTE", value: "3 x kettle at 12.5, in stock" }, result: "3 x kettle at 12.5, in stock" },
};

let rt: Runtime;
beforeAll(async () => {
  rt = await testRuntime();
});
afterAll(async () => {
  await rt?.close();
});

describe(`${STRUCTURES_GUIDE}`, () => {
  it("has a composite, parallel regions and a fork with its join, each in YAML, JSON and Mermaid", () => {
    expect([...byId.keys()]).toEqual(["onboarding", "release-check", "quote"]);
    for (const [id, list] of byId) expect(list.map((x) => x.format), id).toEqual(["yaml", "json", "mermaid"]);
    expect(byId.get("onboarding")![0]!.config).toMatchObject({ parents: { ACCOUNT: "SETUP" }, initials: { SETUP: ["ACCOUNT"] } });
    expect(byId.get("release-check")![0]!.config.initials).toEqual({ CHECKS: ["TESTS", "DOCS"] });
    expect(byId.get("quote")![0]!.config).toMatchObject({ forks: ["SPLIT"], joins: ["QUOTE"] });
  });

  it.each([...byId.keys()])("%s: the three formats are one workflow (importing the others after one changes nothing)", async (id) => {
    const [first, ...others] = byId.get(id)!;
    for (const o of others) expect(sameDefinition(first!.config, o.config), `${id}: ${o.format}`).toBe(true);
    const saved = await saveUserWorkflow(rt.db, first!.format, first!.source);
    for (const o of others) expect(await saveUserWorkflow(rt.db, o.format, o.source)).toMatchObject({ id, version: saved.version, created: false });
  });

  it.each([...byId.keys()])("%s: runs to its end", async (id) => {
    const want = RUNS[id]!;
    const { run } = await rt.engine.start(id, want.input);
    const done = await rt.engine.waitFor(run.id, (r) => r.status !== "running" && r.status !== "waiting", 60_000);
    expect(done.status).toBe("completed");
    expect(done.state).toEqual([want.end]);
    const steps = (done.context as { steps: Record<string, { output: unknown }> }).steps;
    expect(steps[want.output.stage]!.output).toEqual(want.output.value);
    if (want.result) expect(findWorkflow(id)!.result!(done.context)!.text).toBe(want.result);
  }, 90_000);
});
