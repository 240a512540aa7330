// Poison pills: an effect in flight during 2 crashes in a row is not started a third time; its
// run fails with a PoisonPillError (category POISON_PILL) that offers a retry (a fork at the step
// that invoked it). Real crashes: a child process SIGKILLs itself from inside the effect.
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Engine, type Dispatcher, type EffectJob } from "../lib/engine/engine";
import { POISON_CATEGORY, POISON_CRASHES } from "../lib/engine/poison";
import { findWorkflow } from "../lib/machines/registry";
import type { Runtime } from "../lib/runtime";
import { hang, inState, loopRuntime, tempDbUrl } from "./helpers";
import { DATABASES, opened } from "./support/databases";

const run = promisify(execFile);
const CHILD = path.join(__dirname, "support", "poison-child.ts");

/** one server life as a process of its own: resolves with how it ended and what it printed */
async function life(url: string, startId = "-"): Promise<{ killed: boolean; out: string }> {
  try {
    const { stdout } = await run(process.execPath, ["--import", "tsx", CHILD, url, startId], { timeout: 60_000, env: { ...process.env, SWITCHYARD_LOG: "" } });
    return { killed: false, out: stdout };
  } catch (e) {
    const err = e as { signal?: string; stdout?: string; stderr?: string };
    if (err.signal === "SIGKILL") return { killed: true, out: err.stdout ?? "" };
    throw new Error(`child failed: ${err.stderr ?? String(e)}`);
  }
}

const open: Runtime[] = [];
afterEach(async () => {
  for (const rt of open.splice(0)) await rt.close().catch(() => {});
});

describe("poison pills: real crashes (SQLite)", () => {
  it(`an effect that kills the process is started at most ${POISON_CRASHES} times; the run fails with a classified error and a retry`, async () => {
    const url = tempDbUrl();
    const id = randomUUID();
    // life 1 starts the run; its first effect kills the process (crash 1)
    expect((await life(url, id)).killed).toBe(true);
    // life 2 starts it again at boot: it kills the process again (crash 2)
    expect((await life(url)).killed).toBe(true);
    // life 3 (in this process: it has nothing left to kill, and without the crash hook a third
    // start would not kill it but let the run go on, which the checks below refuse) does not start
    // it: the run fails, and the server keeps serving other runs
    const rt = await loopRuntime({ url });
    open.push(rt);
    const failed = await rt.engine.waitFor(id, (r) => r.status === "failed" || r.status === "completed", 10_000);
    const other = await rt.engine.start("loop", { request: "Summarise the release notes" });
    expect((await rt.engine.waitFor(other.run.id, (r) => r.state.includes("REVIEW"), 10_000)).status).toBe("waiting");
    expect(failed.status).toBe("failed");
    const error = failed.error as { message: string; retry: { fork: { seq: number } } };
    expect(error).toMatchObject({ name: "PoisonPillError", category: POISON_CATEGORY, state: "FETCH", effect: "fetch", crashes: 2 });
    expect(error.message).toMatch(/^step FETCH \(effect fetch\) was in flight during 2 crashes in a row; not started again/);

    // the retry a person is offered: fork at the step that invoked the effect (here with the cause gone)
    const seq = error.retry.fork.seq;
    const ts = await rt.store.transitions(id);
    expect(ts.at(-1)).toMatchObject({ event: "POISON_PILL", from: ["FETCH"], to: ["FETCH"] });
    const fork = await rt.engine.fork(id, { seq });
    const retried = await rt.engine.waitFor(fork.run.id, inState("REVIEW"));
    expect(retried.status).toBe("waiting");
  }, 180_000);

  it("a clean stop breaks the row: an effect in flight across clean restarts is started again", async () => {
    const url = tempDbUrl();
    let starts = 0;
    const counting = () => {
      const h = hang();
      return (input: never, ctx: Parameters<typeof h>[1]) => {
        starts++;
        return h(input, ctx);
      };
    };
    let rt = await loopRuntime({ url, actors: { fetch: counting() } });
    const { run } = await rt.engine.start("loop", { request: "Summarise the release notes" });
    for (let i = 0; i < 4; i++) {
      await rt.close();
      rt = await loopRuntime({ url, actors: { fetch: counting() } });
    }
    open.push(rt);
    expect(starts).toBe(5);
    expect((await rt.engine.getRun(run.id)).status).toBe("running");
  });
});

describe("poison pills: cluster mode (an effect job that comes back after its worker died)", () => {
  it("counts each lost attempt and fails the run at the second", async () => {
    const { sqliteDb } = await import("./support/databases");
    const db = await sqliteDb();
    const jobs: EffectJob[] = [];
    const dispatch: Dispatcher = { effect: async (j) => void jobs.push(j), timer: async () => {}, cancelTimer: async () => {} };
    const engine = new Engine({ store: db.store, workflows: (w) => findWorkflow(w), effects: () => ({ actors: { fetch: hang() } }), dispatch, log: () => {} });
    try {
      const { run } = await engine.start("loop", { request: "Summarise the release notes" });
      const job = await vi.waitFor(() => {
        const j = jobs.find((x) => x.runId === run.id);
        expect(j).toBeDefined();
        return j!;
      });
      void engine.runEffect(job, { lost: true }); // crash 1 behind it: started again (hangs)
      // the lost attempt is counted before the effect starts again
      await vi.waitFor(async () => expect(await db.count("EffectCrash")).toBe(1));
      expect((await engine.getRun(run.id)).status).toBe("running");
      expect(await engine.runEffect(job, { lost: true })).toBe("done"); // crash 2: not started a third time
      const failed = await db.store.getRun(run.id);
      expect(failed?.status).toBe("failed");
      expect(failed?.error).toMatchObject({ category: POISON_CATEGORY, key: job.key, crashes: 2 });
    } finally {
      await engine.stop();
      await db.close();
    }
  });
});

for (const database of DATABASES.slice(0, 2)) {
  describe(`crash ledger: ${database.name}`, () => {
    const h = opened(database, "poison");
    it("opens", async () => {
      await h.open();
    });
    h.it("counts crashes in a row at boot, forgets effects no longer in flight, and a clean stop resets", async (db) => {
      const ledger = db.store.crashLedger!();
      const a = { key: "r1:parse:1", runId: "r1" };
      const b = { key: "r2:exec:4", runId: "r2" };
      expect([...(await ledger.boot([a, b], 1))]).toEqual([[a.key, 0], [b.key, 0]]); // first boot: no crash before it
      expect([...(await ledger.boot([a, b], 2))]).toEqual([[a.key, 1], [b.key, 1]]); // the process died
      expect([...(await ledger.boot([a], 3))]).toEqual([[a.key, 2]]);
      expect([...(await ledger.boot([a, b], 4))]).toEqual([[a.key, 3], [b.key, 1]]); // b was not in flight at the last crash
      await ledger.clean();
      expect([...(await ledger.boot([a, b], 5))]).toEqual([[a.key, 0], [b.key, 0]]);
      await ledger.clean();
      expect(await ledger.bump(b, 6)).toBe(1);
      expect(await ledger.bump(b, 7)).toBe(2);
    });
    it("closes", async () => {
      await h.close();
    });
  });
}
