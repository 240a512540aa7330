// Replay correctness: for runs of every built-in workflow, the active states replayed from the
// stored transitions at every committed seq equal the states the engine reported at that commit.
import { afterEach, describe, expect, it } from "vitest";
import type { TransitionView } from "../lib/engine/views";
import { transitionView } from "../lib/engine/views";
import { deriveGraph } from "../lib/graph/derive";
import { findWorkflow } from "../lib/machines/registry";
import type { Runtime } from "../lib/runtime";
import type { ManualClock } from "../lib/engine/clock";
import { activeAt, lanesOf, replayIndex, statusAt, visitsOf } from "../lib/timeline/replay";
import { flush, workflowRuntime } from "./helpers";

let rt: (Runtime & { clock: ManualClock }) | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
});

const TERMINAL = ["completed", "failed", "aborted"];

/** Drive a run: decide each review with its first decision, advance time, until it ends or idles. */
async function drive(workflow: string, input: unknown, events: Record<string, unknown>[] = []) {
  rt = await workflowRuntime(workflow, { seedGuide: workflow !== "swiss-army" });
  const recorded = new Map<number, string[]>();
  rt.engine.bus.subscribe("*", (m) => {
    if (m.type === "run") recorded.set(m.run.seq, [...m.run.state]);
  });
  const { run } = await rt.engine.start(workflow, input);
  recorded.set(run.seq, [...run.state]);
  const pending = [...events];
  for (let i = 0; i < 400; i++) {
    await flush(10);
    const now = await rt.engine.getRun(run.id);
    if (TERMINAL.includes(now.status)) break;
    const [review] = await rt.store.listReviews({ runId: run.id, status: "pending" });
    if (review) {
      const state = deriveGraph(findWorkflow(workflow)!.machine).states.find((s) => s.id === review.state);
      await rt.engine.decide(review.id, { decision: state!.decisions[0]! });
      continue;
    }
    if (pending.length) {
      rt.clock.advance(2_000);
      await rt.engine.send(run.id, pending.shift()!);
      continue;
    }
    if (now.status === "waiting") break;
    rt.clock.advance(1_000);
  }
  const transitions: TransitionView[] = (await rt.store.transitions(run.id, 0, 100_000)).map((t) => transitionView(t, true));
  return { id: run.id, recorded, transitions, final: await rt.engine.getRun(run.id) };
}

const sorted = (a: string[]) => [...a].sort();

const cases: [string, unknown, Record<string, unknown>[]?][] = [
  ["swiss-army", { request: "Write a function that retries a fetch with exponential backoff" }],
  ["domain-agent", { text: "ran 8 km this morning, legs heavy, slept 6 h. why is my recovery worse this week?" }],
  ["processing-modes", { query: "hello there", mode: "CHAT" }],
  ["deep-research", { topic: "How does Switchyard resume runs after a restart?" }],
  ["conversation", { task: "plan the approach" }, [{ type: "TRANSITION", to: "READING" }, { type: "MESSAGE", text: "now implement the fix" }, { type: "TRANSITION", to: "VERIFICATION" }]],
];

describe("replay from stored transitions", () => {
  it.each(cases)("%s: the replayed state at every committed seq equals the recorded one", async (workflow, input, events) => {
    const { recorded, transitions, final } = await drive(workflow, input, events);
    expect(transitions.length).toBeGreaterThan(3);
    expect(transitions.map((t) => t.seq)).toEqual(transitions.map((_, i) => i + 1));
    expect(recorded.size).toBeGreaterThan(1);
    for (const [seq, state] of recorded) expect(sorted(activeAt(transitions, seq)), `${workflow} at seq ${seq}`).toEqual(sorted(state));
    expect(sorted(activeAt(transitions, final.seq))).toEqual(sorted(final.state));
    // the precomputed index (what the page uses) answers exactly like the plain replay, at every seq
    const index = replayIndex(transitions);
    const norm = (s: ReturnType<typeof statusAt>) => ({ ...s, visited: sorted(s.visited), taken: sorted(s.taken), failed: sorted(s.failed), abortedFrom: sorted(s.abortedFrom), active: sorted(s.active) });
    for (let seq = 0; seq <= final.seq; seq++) expect(norm(index.statusAt(seq)), `${workflow} index at ${seq}`).toEqual(norm(statusAt(transitions, seq)));
    // visits: every entered state has a bar; bars of one lane never overlap; open bars are exactly the active states
    const visits = visitsOf(transitions);
    for (const lane of lanesOf(visits)) {
      for (let i = 1; i < lane.visits.length; i++) expect(lane.visits[i]!.start).toBeGreaterThanOrEqual(lane.visits[i - 1]!.end!);
    }
    expect(sorted(visits.filter((v) => v.end === null).map((v) => v.state))).toEqual(sorted(final.state));
  });

  it("statusAt: history up to the cursor only", async () => {
    const { transitions } = await drive("conversation", {}, [{ type: "TRANSITION", to: "READING" }, { type: "TRANSITION", to: "EXECUTION" }]);
    const moves = transitions.filter((t) => t.from !== t.to);
    const first = statusAt(transitions, moves[1]!.seq);
    expect(first.active).toEqual(["READING"]);
    expect(first.visited).not.toContain("EXECUTION");
    expect(statusAt(transitions, transitions.at(-1)!.seq).visited).toContain("EXECUTION");
    expect(activeAt(transitions, 0)).toEqual([]);
  });
});
