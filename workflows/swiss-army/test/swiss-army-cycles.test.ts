// A decided swiss-army cycle stays readable: its whole output is kept as cycles/<n>.md, written in
// the commit that ended the cycle, and the context's history names each cycle by its own number.
import { afterEach, describe, expect, it } from "vitest";
import type { SwissContext } from "../types";
import { inState } from "../../../test/helpers";
import { swissRuntime } from "./support";

let rt: Awaited<ReturnType<typeof swissRuntime>> | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
});

describe("swiss-army cycle history", () => {
  it("keeps each decided cycle's output with its decision, numbered by its own cycle", async () => {
    rt = await swissRuntime();
    const { run } = await rt.engine.start("swiss-army", { request: "Write a TypeScript function that retries a fetch with exponential backoff" });
    const first = await rt.engine.waitFor(run.id, inState("HUMAN_REVIEW"));
    const output1 = (first.context as SwissContext).output;
    expect(output1.length).toBeGreaterThan(0);
    await rt.engine.decide(first.reviewId!, { decision: "reject", feedback: "not what I meant" });
    const idle = await rt.engine.waitFor(run.id, inState("IDLE"));
    expect((idle.context as SwissContext).last).toMatchObject({ cycle: 1, outcome: "rejected" });

    const file1 = await rt.store.artifact(run.id, "cycles/1.md");
    expect(file1).toContain("# Request 1: rejected");
    expect(file1).toContain("not what I meant");
    expect(file1).toContain(output1);

    await rt.engine.send(run.id, { type: "REQUEST", request: "Explain keyset pagination in PostgreSQL" });
    const second = await rt.engine.waitFor(run.id, inState("HUMAN_REVIEW"));
    const c2 = second.context as SwissContext;
    // while #2 waits, the outcome on record is still #1's, and says so
    expect(c2.cycle).toBe(2);
    expect(c2.last?.cycle).toBe(1);
    await rt.engine.decide(second.reviewId!, { decision: "approve" });
    const done = await rt.engine.waitFor(run.id, inState("IDLE"));
    const c = done.context as SwissContext;
    expect(c.history.map((h) => [h.cycle, h.outcome])).toEqual([[2, "approved"], [1, "rejected"]]);
    expect(await rt.store.artifact(run.id, "cycles/2.md")).toContain(c2.output);
    // the first cycle's file is not rewritten by later commits
    expect(await rt.store.artifact(run.id, "cycles/1.md")).toBe(file1);
  });
});
