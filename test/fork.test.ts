// Snapshots and forks: every commit keeps the run's snapshot; a fork starts a consistent new run
// from the snapshot at any transition (history copied, branch point marked, timers rebased,
// reviews reopened), optionally with edited context; the parent is untouched.
import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../lib/engine/clock";
import { InvalidError, NotFoundError } from "../lib/engine/errors";
import { snapshotFor } from "../lib/engine/fork";
import { FORK_EVENT } from "../lib/engine/views";
import { activeLeaves, restore } from "../lib/engine/step";
import { findWorkflow } from "../lib/machines/registry";
import type { LoopContext } from "./fixtures/workflows/loop/machine";
import type { Runtime } from "../lib/runtime";
import { fromPromise, setup } from "xstate";
import { z } from "zod";
import { Engine } from "../lib/engine/engine";
import { STUCK_CATEGORY } from "../lib/engine/invariant";
import type { WorkflowDefinition } from "../lib/machines/types";
import { hang, inState, loopRuntime, tempDbUrl, workflowRuntime } from "./helpers";
import { sqliteDb } from "./support/databases";

const REQUEST = "Summarise the release notes of the last three versions";
let rts: Runtime[] = [];
afterEach(async () => {
  for (const rt of rts) await rt.close();
  rts = [];
});
async function runtime(opts: Parameters<typeof loopRuntime>[0] = {}) {
  const rt = await loopRuntime(opts);
  rts.push(rt);
  return rt;
}

const strip = (t: { seq: number; from: string[]; to: string[]; event: string; reason: string; at: number; durationMs: number }) => ({
  seq: t.seq,
  from: t.from,
  to: t.to,
  event: t.event,
  reason: t.reason,
  at: t.at,
  durationMs: t.durationMs,
});

describe("snapshots", () => {
  it("keeps one per commit, and each restores to the states the run was in after that commit", async () => {
    const rt = await runtime();
    const states = new Map<number, string[]>();
    rt.engine.bus.subscribe("*", (m) => {
      if (m.type === "run") states.set(m.run.seq, [...m.run.state]);
    });
    const { run } = await rt.engine.start("loop", { request: REQUEST });
    states.set(run.seq, run.state);
    const waiting = await rt.engine.waitFor(run.id, inState("REVIEW"));
    await rt.engine.decide(waiting.reviewId!, { decision: "approve" });
    const machine = findWorkflow("loop")!.machine;
    expect(states.size).toBeGreaterThan(4);
    for (const [seq, state] of states) {
      const snap = await rt.store.snapshotAt(run.id, seq);
      expect(snap?.seq).toBe(seq);
      const { effects: _e, ...persisted } = snap!.snapshot as { effects?: unknown };
      void _e;
      expect(activeLeaves(restore(machine, persisted, snap!.context))).toEqual(state);
    }
    // a seq inside a commit answers with that commit's snapshot (the state it settled in)
    const seqs = [...states.keys()].sort((a, b) => a - b);
    const gap = seqs.findIndex((s, i) => i > 0 && s - seqs[i - 1] > 1);
    if (gap > 0) expect((await rt.store.snapshotAt(run.id, seqs[gap] - 1))?.seq).toBe(seqs[gap]);
  });
});

describe("fork", () => {
  it("starts a new run from REVIEW with the history up to it, a fresh review, and the parent untouched", async () => {
    const rt = await runtime();
    const { run } = await rt.engine.start("loop", { request: REQUEST });
    const parent = await rt.engine.waitFor(run.id, inState("REVIEW"));
    await rt.engine.decide(parent.reviewId!, { decision: "reject", feedback: "no" });
    const after = await rt.engine.getRun(run.id);

    rt.clock.advance(60_000);
    const fork = await rt.engine.fork(run.id, { seq: parent.seq });
    expect(fork.fromSeq).toBe(parent.seq);
    expect(fork.run).toMatchObject({ forkOf: run.id, forkSeq: parent.seq, status: "waiting", state: ["REVIEW"], seq: parent.seq + 1 });
    expect(fork.run.id).not.toBe(run.id);
    expect(fork.transitions).toHaveLength(1);
    expect(fork.transitions[0]).toMatchObject({ seq: parent.seq + 1, event: FORK_EVENT, from: "REVIEW", to: "REVIEW" });
    expect(fork.transitions[0].reason).toBe(`forked from run ${run.id} at seq ${parent.seq}`);

    const mine = await rt.store.transitions(fork.run.id);
    const theirs = await rt.store.transitions(run.id, 0, parent.seq);
    expect(mine.slice(0, parent.seq).map(strip)).toEqual(theirs.map(strip));
    expect(mine.map((t) => t.seq)).toEqual(Array.from({ length: parent.seq + 1 }, (_, i) => i + 1));
    expect(fork.run.context).toEqual(parent.context);

    const [review] = await rt.store.listReviews({ runId: fork.run.id, status: "pending" });
    expect(review).toMatchObject({ state: "REVIEW", seq: parent.seq + 1 });
    expect(review.id).not.toBe(parent.reviewId);
    const decided = await rt.engine.decide(review.id, { decision: "approve" });
    expect((decided.run.context as LoopContext).last?.outcome).toBe("approved");
    // the parent is as it was
    expect(await rt.engine.getRun(run.id)).toMatchObject({ seq: after.seq, version: after.version, state: after.state });
    expect((await rt.engine.getRun(run.id)).context).toEqual(after.context);
  });

  it("a fork's copied history answers with its parent's snapshots: forking a fork there starts from the state then", async () => {
    const rt = await runtime();
    const { run } = await rt.engine.start("loop", { request: REQUEST });
    const parent = await rt.engine.waitFor(run.id, inState("REVIEW"));
    const fork = await rt.engine.fork(run.id, { seq: parent.seq });
    const executing = (await rt.store.transitions(run.id)).find((t) => t.to.includes("WORK"))!.seq;
    // the fork's own snapshots start at its branch point
    expect(await rt.store.snapshotAt(fork.run.id, executing)).toBeNull();
    const then = await snapshotFor(rt.store, fork.run.id, executing);
    expect(then).toEqual(await rt.store.snapshotAt(run.id, executing));
    expect((then!.snapshot as { value: unknown }).value).not.toBe("REVIEW");
    const again = await rt.engine.fork(fork.run.id, { seq: executing });
    expect(again.run).toMatchObject({ forkOf: fork.run.id, forkSeq: then!.seq });
    expect(again.run.state).toEqual([(then!.snapshot as { value: string }).value]);
  });

  it("applies context edits, records them on the branch point, and keeps the rest", async () => {
    const rt = await runtime();
    const { run } = await rt.engine.start("loop", { request: REQUEST });
    const parent = await rt.engine.waitFor(run.id, inState("REVIEW"));
    const before = parent.context as LoopContext;
    const config = { ...before.config, workTimeoutMs: 1_234 };
    const fork = await rt.engine.fork(run.id, { seq: parent.seq, context: { config } });
    const ctx = fork.run.context as LoopContext;
    expect(ctx.config).toEqual(config);
    expect({ ...ctx, config: before.config }).toEqual(before);
    expect(fork.transitions[0].reason).toMatch(/context edited \(config\)/);
    expect((await rt.store.getRun(fork.run.id))!.context).toEqual(ctx);
  });

  it("restarts the in-flight effect under the fork's own key, rebases its timers, and survives a restart", async () => {
    const url = tempDbUrl("fork");
    const clock = new ManualClock();
    const calls: string[] = [];
    const rt = await runtime({ url, clock, actors: { work: (async (_i: never, ctx: { key: string; signal: AbortSignal }) => (calls.push(ctx.key), hang()(_i, ctx as never))) as never } });
    const { run } = await rt.engine.start("loop", { request: REQUEST });
    const executing = await rt.engine.waitFor(run.id, inState("WORK"));
    const [timer] = await rt.store.timers(run.id);
    expect(timer.dueAt - clock.now()).toBe(60_000);
    clock.advance(10_000);
    const fork = await rt.engine.fork(run.id, { seq: executing.seq });
    expect(fork.run.state).toEqual(["WORK"]);
    const [forkTimer] = await rt.store.timers(fork.run.id);
    // the fork's timer keeps the time that was left at the fork point (1 min), not the parent's deadline
    expect(forkTimer.dueAt - clock.now()).toBe(60_000);
    await rt.engine.waitFor(fork.run.id, () => calls.length === 2);
    expect(calls[1].startsWith(`${fork.run.id}:`)).toBe(true);
    expect(calls[0].startsWith(`${run.id}:`)).toBe(true);

    await rt.close();
    rts = [];
    const again = await runtime({ url, clock, actors: { work: hang() } });
    const resumed = await again.engine.getRun(fork.run.id);
    expect(resumed).toMatchObject({ forkOf: run.id, forkSeq: executing.seq, state: ["WORK"] });
    clock.advance(60_000);
    const timedOut = await again.engine.waitFor(fork.run.id, (r) => !r.state.includes("WORK"));
    expect(timedOut.state).not.toContain("WORK");
  });

  it("refuses bad requests with a clear error and writes nothing", async () => {
    const rt = await runtime();
    const { run } = await rt.engine.start("loop", { request: REQUEST });
    const parent = await rt.engine.waitFor(run.id, inState("REVIEW"));
    const count = async () => rt.store.countRuns({});
    const before = await count();
    await expect(rt.engine.fork("nope", { seq: 1 })).rejects.toBeInstanceOf(NotFoundError);
    await expect(rt.engine.fork(run.id, { seq: 0 })).rejects.toBeInstanceOf(InvalidError);
    await expect(rt.engine.fork(run.id, { seq: 2.5 })).rejects.toBeInstanceOf(InvalidError);
    await expect(rt.engine.fork(run.id, { seq: parent.seq + 1 })).rejects.toThrow(/1 to \d+/);
    await expect(rt.engine.fork(run.id, { seq: parent.seq, input: { request: "" } })).rejects.toBeInstanceOf(InvalidError);
    expect(await count()).toBe(before);
  });

  it("forks a finished run from before its end, and refuses its final transition", async () => {
    const greeted: string[] = [];
    const rt = await workflowRuntime("hello", { seedGuide: false, actors: { greet: (async ({ name }: { name: string }, ctx: { key: string }) => (greeted.push(ctx.key), { text: `Hello, ${name}` })) as never } });
    rts.push(rt);
    const { run } = await rt.engine.start("hello", { name: "Ada" });
    const done = await rt.engine.waitFor(run.id, (r) => r.status === "completed");
    await expect(rt.engine.fork(run.id, { seq: done.seq })).rejects.toThrow(/ended \(done\); fork from an earlier transition/);
    const fork = await rt.engine.fork(run.id, { seq: 1 });
    const finished = await rt.engine.waitFor(fork.run.id, (r) => r.status === "completed");
    // same answer; the fork really ran again, under its own keys
    expect(finished.output).toEqual(done.output);
    expect(greeted).toHaveLength(2);
    expect(greeted[1]!.startsWith(`${fork.run.id}:`)).toBe(true);
    const events = (await rt.store.transitions(fork.run.id)).map((t) => t.event);
    expect(events.slice(0, 2)).toEqual(["xstate.init", FORK_EVENT]);
  });
});

describe("fork validation", () => {
  it("refuses context edits that change a member's kind or null one the machine reads; the run is never created", async () => {
    const rt = await runtime();
    const { run } = await rt.engine.start("loop", { request: REQUEST });
    const parent = await rt.engine.waitFor(run.id, inState("REVIEW"));
    const before = await rt.store.countRuns({});
    await expect(rt.engine.fork(run.id, { seq: parent.seq, context: { config: null } })).rejects.toThrow(/context\.config held an object; null would break the machine/);
    await expect(rt.engine.fork(run.id, { seq: parent.seq, context: { config: {} } })).rejects.toThrow(/context\.config\.\w+ held a/);
    await expect(rt.engine.fork(run.id, { seq: parent.seq, context: { config: { ...(parent.context as LoopContext).config, fetchTimeoutMs: "7" } } })).rejects.toThrow(/context\.config\.fetchTimeoutMs held a number; a string/);
    await expect(rt.engine.fork(run.id, { seq: parent.seq, context: { config: null } })).rejects.toBeInstanceOf(InvalidError);
    expect(await rt.store.countRuns({})).toBe(before);
    // a same-kind edit goes through and the fork runs on
    const cfg = (parent.context as LoopContext).config;
    const ok = await rt.engine.fork(run.id, { seq: parent.seq, context: { config: { ...cfg } } });
    const decided = await rt.engine.decide(ok.run.reviewId!, { decision: "approve" });
    expect(decided.run.status).not.toBe("failed");
  });

  it("refuses a crafted snapshot: a state the machine lacks, an invoking state without its effect", async () => {
    const url = tempDbUrl("crafted");
    const rt = await runtime({ url, actors: { work: hang() } });
    const { run } = await rt.engine.start("loop", { request: REQUEST });
    const executing = await rt.engine.waitFor(run.id, inState("WORK"));
    const db = rt.sqlite!.db;
    const stored = db.prepare(`SELECT "seq","snapshot" FROM "Snapshot" WHERE "runId"=? AND "seq">=? ORDER BY "seq" LIMIT 1`).get(run.id, executing.seq) as { seq: number; snapshot: string };
    const craft = (edit: (s: Record<string, unknown>) => void) => {
      const s = JSON.parse(stored.snapshot);
      edit(s);
      db.prepare(`UPDATE "Snapshot" SET "snapshot"=? WHERE "runId"=? AND "seq"=?`).run(JSON.stringify(s), run.id, stored.seq);
    };
    const before = await rt.store.countRuns({});
    craft((s) => (s.value = "NOWHERE"));
    await expect(rt.engine.fork(run.id, { seq: executing.seq })).rejects.toThrow(/state "NOWHERE" is not a state of loop/);
    craft((s) => (s.value = { WORK: "x" }));
    await expect(rt.engine.fork(run.id, { seq: executing.seq })).rejects.toThrow(/not a state|no states of its own/);
    craft((s) => (s.children = {}));
    await expect(rt.engine.fork(run.id, { seq: executing.seq })).rejects.toThrow(/state "WORK" invokes work, but the snapshot has no such effect/);
    expect(await rt.store.countRuns({})).toBe(before);
  });
});

describe("the running-run invariant", () => {
  // a machine that can end up running with nothing to wait for
  const machine = setup({ actors: { work: fromPromise(async () => "done") } }).createMachine({
    id: "dead-end",
    initial: "working",
    states: {
      working: { invoke: { src: "work", onDone: "nowhere" } },
      nowhere: {},
    },
  });
  const def: WorkflowDefinition = { id: "dead-end", title: "Dead end", seed: "-", description: "-", machine, input: z.object({}), events: {} };

  it("fails a run that is running with no effect, timer, review or event it waits for, with a classified error", async () => {
    const db = await sqliteDb();
    const logged: string[] = [];
    const engine = new Engine({ store: db.store, workflows: (id) => (id === "dead-end" ? def : undefined), effects: () => ({ actors: { work: async () => "done" } }), log: (level, m) => level === "error" && logged.push(m) });
    try {
      const { run } = await engine.start("dead-end", {});
      const failed = await engine.waitFor(run.id, (r) => r.status === "failed");
      expect(failed.state).toEqual(["nowhere"]);
      expect(failed.error).toMatchObject({ name: "StuckRunError", category: STUCK_CATEGORY, state: "nowhere" });
      expect((failed.error as { message: string }).message).toMatch(/waits for nothing/);
      expect(logged.some((m) => /waits for nothing/.test(m))).toBe(true);
      const last = (await db.store.transitions(run.id)).at(-1);
      expect(last).toMatchObject({ event: "STUCK", from: ["nowhere"], to: ["nowhere"] });
      // a fork from where it was stuck is refused: it would wait for nothing
      await expect(engine.fork(run.id, { seq: last!.seq - 1 })).rejects.toThrow(/cannot fork run .* the snapshot waits for nothing/);
      // and a run stored stuck (from before the check) is failed when it is resumed
      const stored = (await db.store.getRun(run.id))!;
      await db.store.commit([{ run: { ...stored, id: "stuck-before", status: "running", error: null, failedStates: null, finishedAt: null, version: 1 }, expectVersion: null, transitions: [], timersSet: [], timersClear: [], reviewsOpen: [], reviewsClose: [], artifacts: [], timers: [] }]);
      const again = new Engine({ store: db.store, workflows: (id) => (id === "dead-end" ? def : undefined), effects: () => ({ actors: {} }), log: () => {} });
      await again.resume();
      expect((await again.waitFor("stuck-before", (r) => r.status === "failed")).error).toMatchObject({ category: STUCK_CATEGORY });
      await again.stop();
    } finally {
      await engine.stop();
      await db.close();
    }
  });
});
