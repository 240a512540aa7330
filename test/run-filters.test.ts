// Searching runs across the system: free text over inputs and outputs, dates, waiting for a
// person longer than N minutes, retrying, failed in state X — and bad filters rejected.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listRuns } from "../lib/api/runs";
import { RunListQuery } from "../lib/api/schemas";
import { SqliteRunStore } from "../lib/engine/store/sqlite";
import type { ManualClock } from "../lib/engine/clock";
import type { Runtime } from "../lib/runtime";
import { flush, workflowRuntime } from "./helpers";

let rt: Runtime & { clock: ManualClock };
const ids: Record<string, string> = {};

async function until(id: string, test: (r: { state: string[]; status: string }) => boolean) {
  for (let i = 0; i < 200; i++) {
    const r = await rt.engine.getRun(id);
    if (test(r)) return r;
    await flush(10);
  }
  throw new Error(`run ${id} never got there`);
}

beforeAll(async () => {
  rt = await workflowRuntime("nest", { seedGuide: false, actors: { draft: async () => Promise.reject(new Error("database gone")) } });
  const t0 = rt.clock.now();
  // day 1: a run that waits for review
  ids.review = (await rt.engine.start("loop", { request: "Write a needle-in-haystack helper in TypeScript" })).run.id;
  await until(ids.review, (r) => r.state[0] === "REVIEW");
  rt.clock.advance(86_400_000);
  // day 2: a run that fails in PLAN.drafting, and a finished one
  ids.failed = (await rt.engine.start("nest", { topic: "How did I sleep this week?" })).run.id;
  await until(ids.failed, (r) => r.status === "failed");
  ids.talk = (await rt.engine.start("hello", { name: "100% sure_about this" })).run.id;
  // a retrying run: one with a transition row that retried (as a step's backoff writes it)
  ids.retry = (await rt.engine.start("loop", {})).run.id;
  const seq = (await rt.engine.getRun(ids.retry)).seq;
  rt.sqlite!.db
    .prepare(`INSERT INTO "Transition" ("runId","seq","from","to","event","reason","at","durationMs","payload") VALUES (?,?,?,?,?,?,?,?,?)`)
    .run(ids.retry, seq + 1, '["IDLE"]', '["IDLE"]', "RETRY", "retry 1 of 2 after a network error", new Date(rt.clock.now()).toISOString().replace("Z", "+00:00"), 0, "{}");
  // …and the count the engine keeps on the run as it commits such a row
  rt.sqlite!.db.prepare(`UPDATE "Run" SET "retries" = "retries" + 1, "seq" = ? WHERE "id" = ?`).run(seq + 1, ids.retry);
  void t0;
});
afterAll(async () => {
  await rt?.close();
});

const find = async (q: Parameters<typeof listRuns>[1]) => (await listRuns(rt, q)).runs.map((r) => r.id).sort();

describe("run filters", () => {
  it("free text comes from the trigram index, rebuilt when it does not cover every run", async () => {
    rt.sqlite!.db.exec(`DELETE FROM "RunText"`);
    expect(await find({ q: "needle-in-haystack" })).toEqual([]);
    new SqliteRunStore(rt.sqlite!); // opening a store checks the index
    expect(await find({ q: "needle-in-haystack" })).toEqual([ids.review]);
    // two characters: too short for trigrams, answered by a scan
    expect(await find({ q: "% " })).toEqual([ids.talk]);
  });

  it("free text over inputs and outputs; % and _ are literal", async () => {
    expect(await find({ q: "needle-in-haystack" })).toEqual([ids.review]);
    expect(await find({ q: "NEEDLE" })).toEqual([ids.review]);
    expect(await find({ q: "100% sure_about" })).toEqual([ids.talk]);
    expect(await find({ q: "%" })).toEqual([ids.talk]);
    expect(await find({ q: "nothing like this anywhere" })).toEqual([]);
  });

  it("dates: from (inclusive) and to (exclusive)", async () => {
    const day1 = Date.UTC(2026, 0, 1);
    const day2 = day1 + 86_400_000;
    expect(await find({ from: day1, to: day2 })).toEqual([ids.review]);
    expect(await find({ from: day2 })).toEqual([ids.failed, ids.retry, ids.talk].sort());
  });

  it("waiting for a person longer than N minutes, on the runtime's clock", async () => {
    expect(await find({ waitingLongerThan: 60 * 23 })).toEqual([ids.review]);
    expect(await find({ waitingLongerThan: 60 * 25 })).toEqual([]);
  });

  it("retrying and failed in state X (by path or name)", async () => {
    expect(await find({ retrying: true })).toEqual([ids.retry]);
    expect(await find({ failedIn: "PLAN.drafting" })).toEqual([ids.failed]);
    expect(await find({ failedIn: "drafting" })).toEqual([ids.failed]);
    expect(await find({ failedIn: "FAILED" })).toEqual([ids.failed]);
    expect(await find({ failedIn: "WORK" })).toEqual([]);
  });

  it("filters combine with workflow and status; totals follow the filters", async () => {
    const out = await listRuns(rt, { workflow: "hello", q: "sure" });
    expect(out.runs.map((r) => r.id)).toEqual([ids.talk]);
    expect(out.total).toBe(1);
  });

  it("bad filters are rejected with a message", () => {
    for (const bad of [{ from: "yesterday" }, { to: "2026-13-45" }, { waitingLongerThan: "-1" }, { retrying: "maybe" }, { q: "x".repeat(201) }, { failedIn: "" }]) {
      const r = RunListQuery.safeParse(bad);
      expect(r.success, JSON.stringify(bad)).toBe(false);
    }
    expect(RunListQuery.parse({ from: "2026-01-02", to: "2026-01-03T12:00:00Z" })).toMatchObject({ from: Date.UTC(2026, 0, 2), to: Date.UTC(2026, 0, 3, 12) });
  });
});
