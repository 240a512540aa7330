// An llm step's JSON Schema. A `pattern` is matched by RE2 (re2js, linear
// time), never by a backtracking RegExp, and one RE2 cannot compile (backreferences, lookaround)
// is refused when the definition is saved, naming its path. What a schema may ask for is bounded
// when it is saved (depth ≤ 8, minItems / maxItems ≤ 1,000, minLength / maxLength ≤ 100,000, the
// smallest answer ≤ 100,000 values), and the offline engine's sample is bounded the same way.
//
// vitest: shared — its spies (RegExp.prototype) are restored after each test of the block that sets them.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { checkFlowSource } from "../lib/flows/validate";
import { flowWorkflow } from "../lib/flows/machine";
import { saveUserWorkflow } from "../lib/flows/store";
import { registerUserWorkflow } from "../lib/machines/registry";
import { SCHEMA_LIMITS, outputValidator, sampleFor } from "../lib/steps/json-schema";
import type { FlowConfig } from "../lib/flows/types";
import type { Runtime } from "../lib/runtime";
import type { ManualClock } from "../lib/engine/clock";
import type { RunView } from "../lib/engine/views";
import { testRuntime } from "./helpers";

const flow = (id: string, schema: unknown) => `id: ${id}
initial_stage: CHECK
stages: [CHECK, DONE, FAILED]
transitions: { CHECK: [DONE, FAILED], DONE: [], FAILED: [] }
steps:
  CHECK:
    llm: { prompt: "{{input.text}}", schema: ${JSON.stringify(schema)} }
    next: DONE
    on_error: FAILED
`;
const issuesOf = (schema: unknown) => {
  const r = checkFlowSource("yaml", flow("schema-check", schema));
  return r.ok ? [] : r.issues.map((i) => i.message);
};
const EVIL = "^(a+)+$";
const codeSchema = (pattern: string) => ({ type: "object", properties: { code: { type: "string", pattern } }, required: ["code"] });
/** a schema nested `n` levels below its root (an object property at each level) */
const nested = (n: number): Record<string, unknown> => (n === 0 ? { type: "string" } : { type: "object", properties: { x: nested(n - 1) } });

describe("pattern: RE2 only", () => {
  it("refuses at save a pattern RE2 cannot compile, naming its path", () => {
    expect(issuesOf(codeSchema("(a)\\1"))).toEqual([expect.stringMatching(/^steps\.CHECK\.llm\.schema\.properties\.code\.pattern: RE2 cannot compile "\(a\)\\\\1" \(.*invalid escape sequence.*\); patterns are matched in linear time, without backreferences or lookaround$/)]);
    expect(issuesOf(codeSchema("(?=a)b"))[0]).toMatch(/^steps\.CHECK\.llm\.schema\.properties\.code\.pattern: RE2 cannot compile/);
    expect(issuesOf({ type: "array", items: { type: "string", pattern: "(?<!x)y" } })[0]).toMatch(/^steps\.CHECK\.llm\.schema\.items\.pattern: RE2 cannot compile/);
    // where a pattern could not be checked without deciding between alternatives, and key patterns
    expect(issuesOf({ anyOf: [{ type: "string", pattern: "^a" }, { type: "number" }] })).toEqual(["steps.CHECK.llm.schema.anyOf.0.pattern: a pattern is checked in properties, items, prefixItems, additionalProperties, allOf and $defs, not under anyOf"]);
    expect(issuesOf({ type: "object", patternProperties: { "^x": { type: "string" } } })).toEqual(["steps.CHECK.llm.schema.patternProperties: patternProperties is not supported: name the keys in properties"]);
    // the issue's pattern compiles in RE2, where it runs in linear time: kept
    expect(issuesOf(codeSchema(EVIL))).toEqual([]);
  });

  it("checks a pattern with RE2: 100,000 characters against ^(a+)+$ answer at once", () => {
    const v = outputValidator(codeSchema(EVIL));
    const r = v.safeParse({ code: `${"a".repeat(100_000)}!` });
    expect(r.success).toBe(false);
    expect(r.error!.issues).toEqual([expect.objectContaining({ path: ["code"], message: `does not match the pattern ${EVIL}` })]);
    expect(v.safeParse({ code: "aaa" }).success).toBe(true);
    // patterns in items, additionalProperties, allOf and $refs are checked too; zod still checks the rest
    const deep = outputValidator({
      type: "object",
      properties: { tags: { type: "array", items: { type: "string", pattern: "^#" } }, id: { $ref: "#/$defs/id" } },
      additionalProperties: { type: "string", allOf: [{ pattern: "^x" }] },
      $defs: { id: { type: "string", pattern: "^[0-9]+$" } },
    });
    expect(deep.safeParse({ tags: ["#a", "#b"], id: "42", extra: "xyz" }).success).toBe(true);
    expect(deep.safeParse({ tags: ["#a", "b"], id: "4x", extra: "y" }).error!.issues.map((i) => i.path)).toEqual([["tags", 1], ["id"], ["extra"]]);
    expect(deep.safeParse({ tags: "#a", id: "42" }).success).toBe(false);
  });

  describe("in a run", () => {
    let rt: Runtime & { clock: ManualClock };
    beforeAll(async () => {
      rt = await testRuntime();
      await saveUserWorkflow(rt.db, "yaml", flow("redos", codeSchema(EVIL)));
    });
    afterAll(async () => rt?.close());
    afterEach(() => vi.restoreAllMocks());

    it("the issue's prompt is refused by the pattern, and no RegExp from the definition ever runs", async () => {
      const test = vi.spyOn(RegExp.prototype, "test");
      const exec = vi.spyOn(RegExp.prototype, "exec");
      // the offline engine answers with the prompt: 20 × a and "!" (a backtracking engine takes 2^n steps)
      const { run } = await rt.engine.start("redos", { text: `${"a".repeat(20)}!` });
      const end: RunView = await rt.engine.waitFor(run.id, (r) => r.state.includes("DONE") || r.state.includes("FAILED"), 20_000);
      expect(end.state).toEqual(["FAILED"]);
      expect((end.context as { steps: Record<string, { error?: { message: string } }> }).steps.CHECK!.error!.message).toContain(`does not match the pattern ${EVIL}`);
      const sources = [...test.mock.contexts, ...exec.mock.contexts].map((re) => (re as RegExp).source);
      expect(sources).not.toContain(EVIL);
      const ok = await rt.engine.start("redos", { text: "aaaa" });
      expect((await rt.engine.waitFor(ok.run.id, (r) => r.state.includes("DONE") || r.state.includes("FAILED"), 20_000)).state).toEqual(["DONE"]);
    });
  });
});

describe("what a schema may ask for", () => {
  it("bounds depth, item counts and lengths at save, naming the path", () => {
    expect(issuesOf(nested(SCHEMA_LIMITS.depth))).toEqual([]);
    expect(issuesOf(nested(SCHEMA_LIMITS.depth + 1))).toEqual([`steps.CHECK.llm.schema.${"properties.x.".repeat(SCHEMA_LIMITS.depth + 1).slice(0, -1)}: nested more than 8 levels deep (at most 8)`]);
    expect(issuesOf({ type: "array", minItems: 1_000, items: { type: "string" } })).toEqual([]);
    expect(issuesOf({ type: "array", minItems: 1_001, items: { type: "string" } })).toEqual(["steps.CHECK.llm.schema.minItems: 1001 is more than 1,000 (the most a schema may ask for)"]);
    expect(issuesOf({ type: "object", properties: { list: { type: "array", maxItems: 5_000 } } })).toEqual(["steps.CHECK.llm.schema.properties.list.maxItems: 5000 is more than 1,000 (the most a schema may ask for)"]);
    expect(issuesOf({ type: "string", minLength: 100_001 })).toEqual(["steps.CHECK.llm.schema.minLength: 100001 is more than 100,000 (the most a schema may ask for)"]);
    expect(issuesOf({ type: "string", maxLength: 100_000 })).toEqual([]);
    // the issue's 3000³: each level is refused; 1000 × 1000 is within each bound but not together
    const cube = (n: number) => ({ type: "array", minItems: n, items: { type: "array", minItems: n, items: { type: "array", minItems: n, items: { type: "string" } } } });
    expect(issuesOf(cube(3_000))).toHaveLength(3);
    expect(issuesOf(cube(1_000))).toEqual(["steps.CHECK.llm.schema: the smallest answer it allows holds more than 100,000 values (nested minItems multiply)"]);
  });

  it("bounds the offline sample the same way", () => {
    // a schema saved before the bounds (its effect input is what the engine runs)
    expect(sampleFor({ type: "array", minItems: 200_000, items: { type: "string" } }, "t")).toHaveLength(SCHEMA_LIMITS.items);
    expect(sampleFor({ type: "string", minLength: 5, maxLength: 8 }, "a long prompt")).toBe("a long p");
    expect(sampleFor({ type: "string", minLength: 5 }, "ab")).toBe("ababa");
    expect(String(sampleFor({ type: "string", minLength: 900_000 }, "ab")).length).toBe(SCHEMA_LIMITS.length);
    let deepest: unknown = sampleFor(nested(20), "t");
    let levels = 0;
    while (deepest && typeof deepest === "object" && "x" in deepest) (deepest = (deepest as { x: unknown }).x), levels++;
    expect(levels).toBe(SCHEMA_LIMITS.depth);
    expect(() => sampleFor({ type: "array", minItems: 3_000, items: { type: "array", minItems: 3_000, items: { type: "array", minItems: 3_000, items: { type: "string" } } } }, "t")).toThrow(/the offline answer to this schema would hold more than 100,000 values/);
  });

  describe("in a run", () => {
    let rt: Runtime & { clock: ManualClock };
    beforeAll(async () => {
      rt = await testRuntime();
    });
    afterAll(async () => rt?.close());

    it("a stored definition asking for 3000³ items fails its step with RESOURCE_LIMIT instead of running the heap out", async () => {
      const huge = { type: "object", properties: { rows: { type: "array", minItems: 3_000, items: { type: "array", minItems: 3_000, items: { type: "array", minItems: 3_000, items: { type: "string" } } } } }, required: ["rows"] };
      const config = { id: "cube", stages: ["CHECK", "DONE", "FAILED"], initial_stage: "CHECK", transitions: { CHECK: ["DONE", "FAILED"], DONE: [], FAILED: [] }, steps: { CHECK: { llm: { prompt: "{{input.text}}", schema: huge }, next: "DONE", on_error: "FAILED" } } } as unknown as FlowConfig;
      // registered as a definition stored before this check existed would be
      registerUserWorkflow(flowWorkflow(config, { version: 1 }), 1);
      const { run } = await rt.engine.start("cube", { text: "x" });
      const end = await rt.engine.waitFor(run.id, (r) => r.state.includes("DONE") || r.state.includes("FAILED"), 20_000);
      expect(end.state).toEqual(["FAILED"]);
      expect((end.context as { steps: Record<string, { error?: unknown }> }).steps.CHECK!.error).toMatchObject({ category: "RESOURCE_LIMIT", message: expect.stringContaining("would hold more than 100,000 values") });
    });
  });
});
