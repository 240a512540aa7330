// `when:` guards on steps: CEL expressions over input, steps.<S>.output and review,
// read in order after the step (a review: after a decision with no on.<decision>), falling back
// to next; checked when the workflow is defined (syntax, names, steps that cannot have run, the
// stage they route to), with line numbers in YAML and JSON; drawn as guarded edges.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deriveGraph } from "../lib/graph/derive";
import { labelLine } from "../lib/graph/layout";
import { flowMachine } from "../lib/flows/machine";
import { saveUserWorkflow } from "../lib/flows/store";
import { checkFlowSource } from "../lib/flows/validate";
import type { RunView } from "../lib/engine/views";
import type { FlowConfig } from "../lib/flows/types";
import { whenHolds, whenInfo } from "../lib/steps/when";
import type { Runtime } from "../lib/runtime";
import type { ManualClock } from "../lib/engine/clock";
import { flush, testRuntime } from "./helpers";

const SCORED = `id: scored-post
initial_stage: SCORE
stages: [SCORE, REVIEW, PUBLISH, FAST, DROP]
transitions: { SCORE: [PUBLISH, REVIEW, DROP], REVIEW: [FAST, PUBLISH, DROP], PUBLISH: [], FAST: [], DROP: [] }
steps:
  SCORE:
    code: { source: "({ score: input.score, words: input.words })" }
    when:
      - { if: "steps.SCORE.output.score >= 0.8 && size(steps.SCORE.output.words) > 1", to: PUBLISH }
      - { if: "steps.SCORE.output.score >= 0.5", to: REVIEW }
    next: DROP
  REVIEW:
    review: { prompt: "Publish?", decisions: [approve, reject] }
    on: { reject: DROP }
    when:
      - { if: 'review.decision == "approve" && review.feedback.contains("urgent")', to: FAST }
    next: PUBLISH
`;

const issues = (format: "yaml" | "json", src: string) => {
  const r = checkFlowSource(format, src);
  return r.ok ? [] : r.issues.map((i) => `${i.line}: ${i.message}`);
};

describe("when: expressions", () => {
  it("are CEL: no eval, no prototype, missing keys are false, matches() refused", () => {
    const scope = { input: { n: 3, t: "abc" }, steps: { A: { output: { score: 0.9, tags: ["x"] } } }, review: null };
    expect(whenHolds("steps.A.output.score >= 0.8 && input.n == 3", scope)).toBe(true);
    expect(whenHolds('"x" in steps.A.output.tags && input.t.startsWith("ab")', scope)).toBe(true);
    expect(whenHolds("steps.A.output.score < 0.8", scope)).toBe(false);
    expect(whenHolds("steps.A.output.missing == 1", scope)).toBe(false);
    expect(whenHolds("has(steps.A.output.missing)", scope)).toBe(false);
    expect(whenHolds("input.t.constructor == input.t.constructor", scope)).toBe(false);
    expect(whenHolds('steps["__proto__"] == steps["__proto__"]', scope)).toBe(false);
    expect(whenHolds("review == null", scope)).toBe(true);
    // JSON numbers are CEL doubles (guide 15): comparisons work across int and double, arithmetic needs a double or int()
    expect(whenHolds("input.n == 3 && input.n > 2 && input.n + 1.0 == 4.0 && int(input.n) % 2 == 1", scope)).toBe(true);
    expect(whenHolds("input.n + 1 == 4", scope)).toBe(false);
    expect(whenInfo('input.t.matches("(a+)+$")').problem).toMatch(/matches\(\) is not available/);
    // one list macro walks its list once; one inside another multiplies (60^5 steps with five): refused, and never evaluated
    expect(whenHolds('steps.A.output.tags.exists(t, t == "x") && steps.A.output.tags.all(t, size(t) == 1)', scope)).toBe(true);
    expect(whenInfo("[[1, 2], [3]].exists(l, l.exists(x, x == 3))").problem).toMatch(/^exists\(\) holds another list macro \(map, filter, all, exists, exists_one\): refused/);
    expect(whenHolds("[[1, 2], [3]].exists(l, l.exists(x, x == 3))", scope)).toBe(false);
    expect(whenInfo("steps.A.output.n + 1").problem).toMatch(/not true or false/);
    expect(whenInfo("nope == 1").problem).toMatch(/Unknown variable: nope/);
    expect(whenInfo('steps.A.output > 1 || steps["B"].output == 2 || !(steps.C.output == 1)').steps).toEqual(["A", "B", "C"]);
  });

  it("are checked with the line they are written on, in YAML and JSON", () => {
    expect(issues("yaml", SCORED)).toEqual([]);
    const bad = SCORED.replace("steps.SCORE.output.score >= 0.5", "steps.SCORE.output.score >=")
      .replace("to: PUBLISH }\n      - { if", "to: NOWHERE }\n      - { if")
      .replace('review.decision == "approve"', 'steps.FAST.output == 1 && review.decision == "approve"')
      .replace("&& size(steps.SCORE", "&& steps.REVIEW.output == 1 && size(steps.SCORE");
    expect(issues("yaml", bad)).toEqual([
      '9: steps.SCORE.when.0.to: unknown stage "NOWHERE"',
      '9: steps.SCORE.when.0.if: "steps.SCORE.output.score >= 0.8 && steps.REVIEW.output == 1 && size(steps.SCORE.output.words) > 1": step REVIEW cannot have run before SCORE',
      '10: steps.SCORE.when.1.if: "steps.SCORE.output.score >=": Unexpected token: EOF',
      `16: steps.REVIEW.when.0.if: "steps.FAST.output == 1 && review.decision == "approve" && review.feedback.contains("urgent")": FAST is not a stage with a step`,
    ]);
    const json = JSON.stringify(
      {
        id: "scored-json",
        initial_stage: "SCORE",
        stages: ["SCORE", "DONE"],
        transitions: { SCORE: ["DONE"], DONE: [] },
        steps: { SCORE: { code: { source: "1" }, when: [{ if: "review.decision == 'x'", to: "DONE" }, { if: "input.a.matches('b')", to: "DONE" }], next: "DONE" } },
      },
      null,
      2,
    );
    expect(issues("json", json)).toEqual([
      `21: steps.SCORE.when.0.if: "review.decision == 'x'": this workflow has no review step`,
      `25: steps.SCORE.when.1.if: "input.a.matches('b')": matches() is not available in when: (a regular expression can take unbounded time); use contains, startsWith or endsWith`,
    ]);
    const allRouted = SCORED.replace("on: { reject: DROP }", "on: { reject: DROP, approve: PUBLISH }");
    expect(issues("yaml", allRouted)).toEqual(["15: steps.REVIEW.when: every decision has its own on route, so when is never read: drop on.<decision> for the decisions when should route"]);
  });

  it("are drawn as guarded edges labelled with their expression", () => {
    const r = checkFlowSource("yaml", SCORED);
    expect(r.ok).toBe(true);
    const graph = deriveGraph(flowMachine((r as { config: FlowConfig }).config));
    const out = graph.transitions.filter((t) => t.source === "SCORE" && t.kind !== "after").map((t) => [t.target, t.guard, t.description]);
    expect(out).toEqual(
      expect.arrayContaining([
        ["PUBLISH", "whenTrue", "when steps.SCORE.output.score >= 0.8 && size(steps.SCORE.output.words) > 1"],
        ["REVIEW", "whenTrue", "when steps.SCORE.output.score >= 0.5"],
        ["DROP", null, "done"],
      ]),
    );
    // the diagram's label is the expression alone (lib/graph/layout.ts), not followed by the guard's name
    const when = graph.transitions.find((t) => t.source === "SCORE" && t.target === "REVIEW")!;
    expect(labelLine(when)).toBe("when steps.SCORE.output.score >= 0.5");
  });
});

describe("when: routes runs", () => {
  let rt: Runtime & { clock: ManualClock };
  beforeAll(async () => {
    rt = await testRuntime();
    await saveUserWorkflow(rt.db, "yaml", SCORED);
  });
  afterAll(async () => {
    await rt?.close();
  });
  const ended = (r: RunView) => r.status !== "running" && r.status !== "waiting";
  const run = async (input: unknown) => (await rt.engine.start("scored-post", input as Record<string, unknown>)).run.id;

  it("the first guard that holds picks the stage; none holding goes to next", async () => {
    const [high, shortHigh, mid, low] = await Promise.all([
      run({ score: 0.9, words: ["a", "b"] }),
      run({ score: 0.9, words: ["a"] }),
      run({ score: 0.6, words: [] }),
      run({ score: 0.1, words: ["a", "b"] }),
    ]);
    expect((await rt.engine.waitFor(high, ended, 30_000)).state).toEqual(["PUBLISH"]);
    expect((await rt.engine.waitFor(low, ended, 30_000)).state).toEqual(["DROP"]);
    // score ≥ 0.8 but one word: the first guard fails, the second holds
    expect((await rt.engine.waitFor(shortHigh, (r) => r.state.includes("REVIEW"), 30_000)).state).toEqual(["REVIEW"]);
    expect((await rt.engine.waitFor(mid, (r) => r.state.includes("REVIEW"), 30_000)).state).toEqual(["REVIEW"]);

    // a review decision with no on.<decision> reads the guards with the new decision and feedback
    await flush();
    const [urgent] = await rt.store.listReviews({ runId: shortHigh, status: "pending" });
    await rt.engine.decide(urgent!.id, { decision: "approve", feedback: "urgent: ship it", reviewer: "ana" });
    expect((await rt.engine.waitFor(shortHigh, ended)).state).toEqual(["FAST"]);
    const [calm] = await rt.store.listReviews({ runId: mid, status: "pending" });
    await rt.engine.decide(calm!.id, { decision: "approve", feedback: "fine", reviewer: "ana" });
    expect((await rt.engine.waitFor(mid, ended)).state).toEqual(["PUBLISH"]);
  }, 60_000);

  it("with several approvers, the guards are read once the last approval is in", async () => {
    await saveUserWorkflow(
      rt.db,
      "yaml",
      `id: two-approvals
initial_stage: ASK
stages: [ASK, FAST, SLOW]
transitions: { ASK: [FAST, SLOW], FAST: [], SLOW: [] }
steps:
  ASK:
    review: { prompt: "Go?", decisions: [approve], approvers: 2 }
    when:
      - { if: 'size(review.approvers) == 2 && review.feedback == "rush"', to: FAST }
    next: SLOW
`,
    );
    const go = async (feedback: string) => {
      const id = (await rt.engine.start("two-approvals", {})).run.id;
      for (const reviewer of ["ana", "ben"]) {
        await flush();
        const [r] = await rt.store.listReviews({ runId: id, status: "pending" });
        const out = await rt.engine.decide(r!.id, { decision: "approve", reviewer, feedback });
        // the first approval only counts, even though the guard's feedback matches
        if (reviewer === "ana") expect(out.run.state).toEqual(["ASK"]);
      }
      return (await rt.engine.waitFor(id, ended)).state;
    };
    const r = checkFlowSource("yaml", (await rt.db.flowDefinition.findFirst({ where: { id: "two-approvals" } }))!.source);
    const labels = deriveGraph(flowMachine((r as { config: FlowConfig }).config)).transitions.filter((t) => t.source === "ASK").map(labelLine);
    expect(labels).toEqual(['when size(review.approvers) == 2 && review.feedback == "rush" (2 approvals)', "2 approvals [approvalsDone]", "approval counted"]);
    expect(await go("rush")).toEqual(["FAST"]);
    expect(await go("calm")).toEqual(["SLOW"]);
  }, 30_000);
});

describe("step validation in JSON carries lines too", () => {
  it("unknown stages in routes, templates naming a step that cannot have run, a decision with no route, an invalid JSON Schema, a URL the egress guard refuses", () => {
    const def = {
      id: "json-pipeline",
      initial_stage: "DRAFT",
      stages: ["DRAFT", "REVIEW", "PUBLISH", "DONE"],
      transitions: { DRAFT: ["REVIEW"], REVIEW: ["DRAFT", "PUBLISH"], PUBLISH: ["DONE"], DONE: [] },
      steps: {
        DRAFT: { llm: { prompt: "About {{input.topic}} {{steps.PUBLISH.output}}", schema: { type: "strin" } }, next: "REVIEW" },
        REVIEW: { review: { prompt: "OK?", decisions: ["approve", "reject", "respond"] }, on: { approve: "PUBLISH", reject: "NOWHERE" } },
        PUBLISH: { http: { url: "http://169.254.169.254/latest", body: { text: "{{steps.DRAFT.output}}" } }, next: "DONE" },
      },
    };
    const text = JSON.stringify(def, null, 2);
    const lineOf = (needle: string) => text.split("\n").findIndex((l) => l.includes(needle)) + 1;
    expect(issues("json", text)).toEqual(
      [
        [lineOf('"prompt": "About'), "steps.DRAFT.llm.prompt: {{steps.PUBLISH.output}}: step PUBLISH cannot have run before DRAFT"],
        [lineOf('"schema"'), "steps.DRAFT.llm.schema: not a valid JSON Schema: Unsupported type: strin"],
        [lineOf('"decisions"'), 'steps.REVIEW.review.decisions: decision "respond" has no route: add on.respond or next'],
        [lineOf('"reject": "NOWHERE"'), 'steps.REVIEW.on.reject: unknown stage "NOWHERE"'],
        [lineOf('"url"'), "steps.PUBLISH.http.url: the egress guard refuses 169.254.169.254: a link-local address (cloud metadata services live there)"],
      ]
        .sort((a, b) => (a[0] as number) - (b[0] as number))
        .map(([l, m]) => `${l}: ${m}`),
    );
  });
});
