// Per-step usage: a model call made in one branch of a parallel split is
// recorded under that branch's own state, not under every state the run is in
// ("SPLIT.SPLIT_b1.SENTIMENT,SPLIT.SPLIT_b2.LOOKUP"); the Steps view lists steps in the order
// they started, both branches before the join.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveUserWorkflow } from "../lib/flows/store";
import { findWorkflow } from "../lib/machines/registry";
import { reviewView, transitionView } from "../lib/engine/views";
import { runSteps } from "../lib/steps/run-steps";
import { runUsage } from "../lib/metrics/model-usage";
import type { FlowConfig } from "../lib/flows/types";
import type { Runtime } from "../lib/runtime";
import type { ManualClock } from "../lib/engine/clock";
import { testRuntime } from "./helpers";

export const TRIAGE = `id: triage-split
initial_stage: INTAKE
stages: [INTAKE, SPLIT, SENTIMENT, LOOKUP, JOIN, DONE]
forks: [SPLIT]
joins: [JOIN]
transitions: { INTAKE: [SPLIT], SPLIT: [SENTIMENT, LOOKUP], SENTIMENT: [JOIN], LOOKUP: [JOIN], JOIN: [DONE], DONE: [] }
steps:
  INTAKE:
    code: { source: "({ ticket: input.ticket })" }
    next: SPLIT
  SENTIMENT:
    llm: { prompt: "How does this customer feel? {{input.ticket}}" }
    next: JOIN
  LOOKUP:
    llm: { prompt: "Which product is this about? {{input.ticket}}" }
    next: JOIN
  JOIN:
    llm: { prompt: "Answer: {{steps.SENTIMENT.output}} / {{steps.LOOKUP.output}}" }
    next: DONE
`;

describe("per-step usage and order in parallel branches", () => {
  let rt: Runtime & { clock: ManualClock };
  beforeAll(async () => {
    rt = await testRuntime();
    await saveUserWorkflow(rt.db, "yaml", TRIAGE);
  });
  afterAll(async () => {
    await rt?.close();
  });

  it("each branch's model call is recorded under its own state; steps are listed in start order", async () => {
    const { run } = await rt.engine.start("triage-split", { ticket: "My invoice is wrong and I am annoyed" });
    const done = await rt.engine.waitFor(run.id, (r) => r.status === "completed", 30_000);
    const usage = await runUsage(rt.db, run.id);
    const states = usage.calls.map((c) => c.state).sort();
    expect(states).toEqual(["JOIN", "SPLIT.SPLIT_b1.SENTIMENT", "SPLIT.SPLIT_b2.LOOKUP"]);
    expect(usage.byState.map((s) => s.state).sort()).toEqual(["JOIN", "SPLIT.SPLIT_b1.SENTIMENT", "SPLIT.SPLIT_b2.LOOKUP"]);

    const flow = findWorkflow(done.workflow, done.input)!.flow as FlowConfig;
    const transitions = (await rt.store.transitions(run.id)).map((t) => transitionView(t));
    const reviews = (await rt.store.listReviews({ runId: run.id })).map(reviewView);
    const rows = runSteps({ flow, context: done.context, active: done.state, transitions, reviews });
    expect(rows.map((r) => r.stage)).toEqual(["INTAKE", "SENTIMENT", "LOOKUP", "JOIN"]);
  }, 40_000);
});
