// A decision is applied once: double clicks, stale tabs and concurrent reviewers get 409.
import { afterEach, describe, expect, it } from "vitest";
import type { Runtime } from "../lib/runtime";
import { inState, loopRuntime, tempDbUrl } from "./helpers";

const open: Runtime[] = [];
afterEach(async () => {
  for (const rt of open.splice(0)) await rt.close().catch(() => {});
});

describe("review decisions", () => {
  it("applies exactly one of 20 concurrent decisions", async () => {
    const rt = await loopRuntime();
    open.push(rt);
    const { run } = await rt.engine.start("loop", { request: "Rename the photos by date" });
    const r = await rt.engine.waitFor(run.id, inState("REVIEW"));
    const decisions = ["approve", "reject", "modify"];
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => rt.engine.decide(r.reviewId!, { decision: decisions[i % 3], feedback: `reviewer ${i}`, reviewer: `r${i}` })),
    );
    const ok = results.filter((x) => x.status === "fulfilled");
    const rejected = results.filter((x) => x.status === "rejected") as PromiseRejectedResult[];
    expect(ok).toHaveLength(1);
    expect(rejected).toHaveLength(19);
    for (const x of rejected) expect(x.reason).toMatchObject({ status: 409 });
    const review = await rt.store.getReview(r.reviewId!);
    expect(review!.status).toBe("decided");
    const transitions = await rt.store.transitions(run.id);
    expect(transitions.filter((t) => t.from.includes("REVIEW"))).toHaveLength(1);
  });

  it("refuses a decision from a second engine on the same database (compare-and-set)", async () => {
    const url = tempDbUrl();
    const a = await loopRuntime({ url });
    open.push(a);
    const { run } = await a.engine.start("loop", { request: "Rename the photos by date" });
    const r = await a.engine.waitFor(run.id, inState("REVIEW"));
    const b = await loopRuntime({ url }); // resumes the same run: two writers
    open.push(b);
    const first = await a.engine.decide(r.reviewId!, { decision: "approve" });
    expect(first.run.state).toEqual(["IDLE"]);
    // b still holds the old snapshot: its commit fails the version compare-and-set
    await expect(b.engine.decide(r.reviewId!, { decision: "reject" })).rejects.toMatchObject({ status: 409 });
    expect((await b.store.getReview(r.reviewId!))!.decision).toBe("approve");
    // having lost, b reloads the run: the next valid event applies on top of a's decision
    const next = await b.engine.send(run.id, { type: "REQUEST", request: "And now the videos" });
    expect(next.run.state).toEqual(["FETCH"]);
    const seqs = (await a.store.transitions(run.id)).map((t) => t.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect((await a.store.transitions(run.id)).filter((t) => t.from.includes("REVIEW"))).toHaveLength(1);
  });

  it("rejects a decision the review does not offer", async () => {
    const rt = await loopRuntime();
    open.push(rt);
    const { run } = await rt.engine.start("loop", { request: "Rename the photos by date" });
    const r = await rt.engine.waitFor(run.id, inState("REVIEW"));
    await expect(rt.engine.decide(r.reviewId!, { decision: "escalate" })).rejects.toMatchObject({ status: 422 });
    await expect(rt.engine.decide("no-such-review", { decision: "approve" })).rejects.toMatchObject({ status: 404 });
  });
});
