// Retention: old finished runs are pruned (archived first when asked) by a scheduled job, live
// runs are never touched, and a database that keeps taking runs stays bounded.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { importRun } from "../lib/api/run-export";
import { pruneRuns, retentionFromEnv } from "../lib/retention/prune";
import type { Runtime } from "../lib/runtime";
import type { ManualClock } from "../lib/engine/clock";
import { inState, workflowRuntime } from "./helpers";

const DAY = 86_400_000;
let rt: (Runtime & { clock: ManualClock }) | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
});

const count = (table: string, runId?: string) =>
  Number((rt!.sqlite.db.prepare(`SELECT COUNT(*) AS n FROM "${table}"${runId ? ` WHERE "runId" = ?` : ""}`).get(...(runId ? [runId] : [])) as { n: number | bigint }).n);

async function finishedChat(query = "hello there") {
  const { run } = await rt!.engine.start("processing-modes", { query, mode: "CHAT" });
  return rt!.engine.waitFor(run.id, (r) => r.status === "completed");
}

describe("retention", () => {
  it("prunes finished runs older than the age with everything they own, archives them first, and leaves live and recent runs alone", async () => {
    rt = await workflowRuntime("processing-modes", { seedGuide: false, retention: null });
    const old = await finishedChat("the first question");
    const live = (await rt.engine.start("swiss-army", { request: "Write a retry helper" })).run;
    await rt.engine.waitFor(live.id, inState("HUMAN_REVIEW"));
    rt.clock.advance(40 * DAY);
    const recent = await finishedChat("a later question");
    expect(count("Transition", old.id)).toBeGreaterThan(3);
    expect(count("Snapshot", old.id)).toBeGreaterThan(0);
    expect(count("ModelCall", old.id)).toBeGreaterThan(0);
    const liveBefore = await rt.store.getRun(live.id);

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-archive-"));
    const out = await pruneRuns(rt, { olderThanMs: 30 * DAY, archiveDir: dir });
    expect(out).toMatchObject({ runs: 1, archived: 1 });
    expect(await rt.store.getRun(old.id)).toBeNull();
    for (const t of ["Transition", "Snapshot", "Review", "Timer", "Artifact", "ModelCall"]) expect(count(t, old.id)).toBe(0);
    expect(await rt.store.getRun(recent.id)).not.toBeNull();
    // the live run (waiting 40 days) keeps its row, history and latest snapshot
    const liveAfter = await rt.store.getRun(live.id);
    expect(liveAfter).toEqual(liveBefore);
    expect(count("Transition", live.id)).toBe(liveBefore!.seq);
    expect((await rt.store.snapshotAt(live.id, liveBefore!.seq))?.seq).toBe(liveBefore!.seq);
    // …but not its snapshots older than the age: a fork from there is refused, not answered with a later state
    expect(out.snapshots).toBeGreaterThan(0);
    expect(await rt.store.snapshotAt(live.id, 1)).toBeNull();
    await expect(rt.engine.fork(live.id, { seq: 1 })).rejects.toThrow(/no snapshot at seq 1/);

    // the archive is an ordinary export: it imports back
    const file = path.join(dir, `run-${old.id}.json`);
    const doc = JSON.parse(fs.readFileSync(file, "utf8"));
    expect(doc).toMatchObject({ format: "switchyard-run", run: { id: old.id, status: "completed" } });
    const back = await importRun(rt, doc);
    expect(back.transitions).toBe(doc.transitions.length);

    // the imported copy is as old as its original: the next pass takes it, and then nothing is left to do
    expect((await pruneRuns(rt, { olderThanMs: 30 * DAY })).runs).toBe(1);
    expect(await rt.store.getRun(back.id)).toBeNull();
    expect((await pruneRuns(rt, { olderThanMs: 30 * DAY })).runs).toBe(0);
  });

  it("runs on a schedule (SWITCHYARD_RETENTION_DAYS) and keeps a busy database bounded", async () => {
    const env = { SWITCHYARD_RETENTION_DAYS: "2", SWITCHYARD_RETENTION_INTERVAL_MS: String(DAY) } as unknown as NodeJS.ProcessEnv;
    const settings = retentionFromEnv(env)!;
    expect(settings).toEqual({ olderThanMs: 2 * DAY, archiveDir: null, intervalMs: DAY });
    rt = await workflowRuntime("processing-modes", { seedGuide: false, retention: settings });
    const sizes: number[] = [];
    for (let day = 0; day < 8; day++) {
      for (let i = 0; i < 3; i++) await finishedChat(`question ${day}.${i}`);
      rt.clock.advance(DAY);
      // the job's pass (on the simulated clock) runs, then re-arms
      for (let i = 0; i < 50 && !rt.retention!.last; i++) await new Promise((r) => setImmediate(r));
      await new Promise((r) => setTimeout(r, 20));
      sizes.push(count("Run"));
    }
    // three runs a day, kept for two days: never more than 9 (three days' worth at the moment of a pass)
    expect(Math.max(...sizes.slice(3))).toBeLessThanOrEqual(9);
    expect(sizes.at(-1)).toBeLessThan(8 * 3);
    expect(count("Transition")).toBeLessThan(8 * 3 * 5);
    expect(rt.retention!.lastError).toBeNull();
  });

  it("rejects bad settings with a clear message", () => {
    expect(retentionFromEnv({} as unknown as NodeJS.ProcessEnv)).toBeNull();
    expect(retentionFromEnv({ SWITCHYARD_RETENTION_DAYS: "0" } as unknown as NodeJS.ProcessEnv)).toBeNull();
    expect(() => retentionFromEnv({ SWITCHYARD_RETENTION_DAYS: "soon" } as unknown as NodeJS.ProcessEnv)).toThrow(/positive number of days/);
    expect(() => retentionFromEnv({ SWITCHYARD_RETENTION_DAYS: "3", SWITCHYARD_RETENTION_INTERVAL_MS: "-1" } as unknown as NodeJS.ProcessEnv)).toThrow(/INTERVAL_MS/);
  });
});
