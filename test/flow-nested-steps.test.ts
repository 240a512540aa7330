// Steps at any depth: inside composite stages (a review loop inside WRITE, whose end
// moves the run on), in the branches of a <<fork>> (each branch's step runs, the join waits for
// both and reads their outputs), and on a join. What cannot work is refused with a reason: a step
// on a composite or on a fork, two reviews that could wait at the same time in parallel branches,
// a template naming a step of a parallel branch.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveUserWorkflow } from "../lib/flows/store";
import { checkFlowSource } from "../lib/flows/validate";
import type { RunView } from "../lib/engine/views";
import type { Runtime } from "../lib/runtime";
import type { ManualClock } from "../lib/engine/clock";
import { flush, testRuntime } from "./helpers";

const NESTED = `id: nested-steps
initial_stage: WRITE
stages: [WRITE, DRAFT, CHECK, WRITTEN, PUBLISH, DONE]
parents: { DRAFT: WRITE, CHECK: WRITE, WRITTEN: WRITE }
initials: { WRITE: [DRAFT] }
ends: [WRITTEN]
transitions: { WRITE: [PUBLISH], DRAFT: [CHECK], CHECK: [DRAFT, WRITTEN], WRITTEN: [], PUBLISH: [DONE], DONE: [] }
steps:
  DRAFT:
    llm: { prompt: "Draft about {{input.topic}}. {{review.feedback}}" }
    next: CHECK
  CHECK:
    review: { prompt: "Good?", show: "{{steps.DRAFT.output}}", decisions: [approve, reject] }
    on: { approve: WRITTEN, reject: DRAFT }
  PUBLISH:
    code: { source: "({ words: String(steps.DRAFT.output).split(' ').length })" }
    next: DONE
`;

const FORKED = `id: forked-steps
initial_stage: START
stages: [START, SPLIT, LEFT, RIGHT, JOIN, DONE]
forks: [SPLIT]
joins: [JOIN]
transitions: { START: [SPLIT], SPLIT: [LEFT, RIGHT], LEFT: [JOIN], RIGHT: [JOIN], JOIN: [DONE], DONE: [] }
steps:
  START:
    wait: { after_s: 1 }
    next: SPLIT
  LEFT:
    code: { source: "({ n: input.n * 2 })" }
    next: JOIN
  RIGHT:
    llm: { prompt: "Name {{input.n}}" }
    next: JOIN
  JOIN:
    llm: { prompt: "Left {{steps.LEFT.output.n}}, right {{steps.RIGHT.output}}" }
    when:
      - { if: "steps.LEFT.output.n > 10", to: DONE }
    next: DONE
`;

// a composite with two starts: two regions at once, each with a step, done when both end
const REGIONS = `id: region-steps
initial_stage: BOTH
stages: [BOTH, COUNT, COUNTED, NAME, NAMED, DONE]
parents: { COUNT: BOTH, COUNTED: BOTH, NAME: BOTH, NAMED: BOTH }
initials: { BOTH: [COUNT, NAME] }
ends: [COUNTED, NAMED]
transitions: { BOTH: [DONE], COUNT: [COUNTED], NAME: [NAMED], COUNTED: [], NAMED: [], DONE: [] }
steps:
  COUNT:
    code: { source: "({ n: input.items.length })" }
    next: COUNTED
  NAME:
    review: { prompt: "Name it", decisions: [respond] }
    next: NAMED
`;

const issues = (src: string) => {
  const r = checkFlowSource("yaml", src);
  return r.ok ? [] : r.issues.map((i) => `${i.line}: ${i.message}`);
};

describe("steps inside composites and forks: validation", () => {
  it("accepts steps on stages at any depth, on a join, and refuses what cannot run", () => {
    expect(issues(NESTED)).toEqual([]);
    expect(issues(FORKED)).toEqual([]);
    const onComposite = NESTED.replace("  PUBLISH:\n    code", "  WRITE:\n    code");
    expect(issues(onComposite)).toEqual(["15: steps.WRITE: a composite stage holds stages, not a step: put the step on a stage inside it"]);
    const onFork = FORKED.replace("  START:\n    wait: { after_s: 1 }\n    next: SPLIT\n", "  SPLIT:\n    wait: { after_s: 1 }\n    next: LEFT\n");
    expect(issues(onFork)).toEqual(["8: steps.SPLIT: a <<fork>> only starts its branches: put the step on a stage of a branch, or on the join"]);
    const twoReviews = FORKED.replace('    code: { source: "({ n: input.n * 2 })" }\n', '    review: { prompt: "Left?" }\n').replace('    llm: { prompt: "Name {{input.n}}" }\n', '    review: { prompt: "Right?" }\n').replace("{{steps.LEFT.output.n}}", "").replace("steps.LEFT.output.n > 10", "true");
    expect(issues(twoReviews)).toEqual([
      "12: steps.LEFT.review: LEFT and RIGHT are reviews in two branches of <<fork>> SPLIT, which run at the same time: a decision would reach both. Keep one review per parallel state",
      "15: steps.RIGHT.review: RIGHT and LEFT are reviews in two branches of <<fork>> SPLIT, which run at the same time: a decision would reach both. Keep one review per parallel state",
    ]);
    const crossBranch = FORKED.replace('"Name {{input.n}}"', '"Name {{steps.LEFT.output.n}}"');
    expect(issues(crossBranch)).toEqual(["15: steps.RIGHT.llm.prompt: {{steps.LEFT.output.n}}: step LEFT cannot have run before RIGHT"]);
    expect(issues(REGIONS)).toEqual([]);
    expect(issues(REGIONS.replace('code: { source: "({ n: input.items.length })" }', 'review: { prompt: "Count?" }'))).toEqual([
      "10: steps.COUNT.review: COUNT and NAME are reviews in two branches of composite BOTH, which run at the same time: a decision would reach both. Keep one review per parallel state",
      "13: steps.NAME.review: NAME and COUNT are reviews in two branches of composite BOTH, which run at the same time: a decision would reach both. Keep one review per parallel state",
    ]);
    // a nested stage may route only where its transitions allow
    expect(issues(NESTED.replace("on: { approve: WRITTEN", "on: { approve: PUBLISH"))).toEqual(["14: steps.CHECK.on.approve: CHECK -> PUBLISH is not in transitions.CHECK (DRAFT, WRITTEN)"]);
  });
});

describe("steps inside composites and forks: runs", () => {
  let rt: Runtime & { clock: ManualClock };
  beforeAll(async () => {
    rt = await testRuntime();
    await saveUserWorkflow(rt.db, "yaml", NESTED);
    await saveUserWorkflow(rt.db, "yaml", FORKED);
    await saveUserWorkflow(rt.db, "yaml", REGIONS);
  });
  afterAll(async () => {
    await rt?.close();
  });
  const steps = (r: RunView) => (r.context as { steps: Record<string, { output?: unknown; prompt?: string }> }).steps;

  it("a review loop inside a composite; the composite's end moves the run on to the next step", async () => {
    const { run } = await rt.engine.start("nested-steps", { topic: "owls" });
    const checking = await rt.engine.waitFor(run.id, (r) => r.state.some((s) => s.endsWith("CHECK")));
    expect(checking.state).toEqual(["WRITE.CHECK"]);
    await flush();
    let [review] = await rt.store.listReviews({ runId: run.id, status: "pending" });
    expect(review!.prompt).toBe("Good?");
    await rt.engine.decide(review!.id, { decision: "reject", feedback: "Shorter." });
    const again = await rt.engine.waitFor(run.id, (r) => r.state.includes("WRITE.CHECK") && (r.context as { visits: Record<string, number> }).visits.DRAFT === 2);
    expect(steps(again).DRAFT!.prompt).toBe("Draft about owls. Shorter.");
    await flush();
    [review] = await rt.store.listReviews({ runId: run.id, status: "pending" });
    await rt.engine.decide(review!.id, { decision: "approve" });
    const done = await rt.engine.waitFor(run.id, (r) => r.status === "completed", 30_000);
    expect(done.state).toEqual(["DONE"]);
    expect(steps(done).PUBLISH!.output).toEqual({ words: String(steps(done).DRAFT!.output).split(" ").length });
  }, 40_000);

  it("each fork branch runs its step; the join waits for both and reads their outputs", async () => {
    const { run } = await rt.engine.start("forked-steps", { n: 21 });
    await flush();
    rt.clock.advance(1_000);
    const done = await rt.engine.waitFor(run.id, (r) => r.status === "completed", 30_000);
    expect(done.state).toEqual(["DONE"]);
    expect(steps(done).LEFT!.output).toEqual({ n: 42 });
    expect(steps(done).RIGHT!.prompt).toBe("Name 21");
    expect(steps(done).JOIN!.prompt).toBe(`Left 42, right ${steps(done).RIGHT!.output}`);
    const path = (await rt.store.transitions(run.id)).flatMap((t) => t.to);
    expect(path.at(-1)).toBe("DONE");
    expect(path).toContain("JOIN");
  }, 40_000);

  it("parallel regions of a composite each run their step; the composite ends when both have", async () => {
    const { run } = await rt.engine.start("region-steps", { items: [1, 2, 3] });
    const waiting = await rt.engine.waitFor(run.id, (r) => r.state.some((s) => s.endsWith("COUNTED")) && r.state.some((s) => s.endsWith("NAME")), 30_000);
    expect(steps(waiting).COUNT!.output).toEqual({ n: 3 });
    await flush();
    const [review] = await rt.store.listReviews({ runId: run.id, status: "pending" });
    await rt.engine.decide(review!.id, { decision: "respond", feedback: "Trio" });
    const done = await rt.engine.waitFor(run.id, (r) => r.status === "completed");
    expect(done.state).toEqual(["DONE"]);
    expect((done.context as { review: unknown }).review).toMatchObject({ stage: "NAME", decision: "respond", feedback: "Trio" });
  }, 40_000);
});
