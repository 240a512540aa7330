// Schedules (lib/schedules): a workflow started at each fire time of a cron pattern, on the
// injected clock. One run per (schedule, fire time), whatever crashes and however many processes
// fire; overlap and catchup as documented; kept across a restart. PostgreSQL: two runtimes firing
// one schedule (skipped with a reason when PostgreSQL is unreachable).
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../lib/engine/clock";
import { migrateDatabase } from "../lib/db/migrations";
import { pgReachable, scratchSchema, type ScratchSchema } from "../lib/db/pg-scratch";
import { saveUserWorkflow } from "../lib/flows/store";
import { createRuntime, type Runtime } from "../lib/runtime";
import { fireKey } from "../lib/schedules/scheduler";
import { createSchedule, updateSchedule } from "../lib/api/schedules";
import { listRuns, sendEvent } from "../lib/api/runs";
import { flush, tempDbUrl } from "./helpers";

// a stage machine without steps: a run waits in OPEN until it is moved to DONE
const FLOW = `id: sched-flow
initial_stage: OPEN
stages: [OPEN, DONE]
transitions: { OPEN: [DONE], DONE: [] }
`;

const T0 = Date.parse("2026-03-02T08:00:30Z");
const MIN = 60_000;
const open: Runtime[] = [];

async function runtime(url: string, clock: ManualClock, extra: Partial<Parameters<typeof createRuntime>[0]> = {}): Promise<Runtime> {
  const rt = await createRuntime({ url, clock, env: {} as NodeJS.ProcessEnv, migrate: migrateDatabase, serviceChoresMs: 0, seedGuide: false, alerts: { start: false }, webhooks: { start: false }, schedules: { start: false }, ...extra });
  open.push(rt);
  return rt;
}

async function fresh(clock = new ManualClock(T0)) {
  const url = tempDbUrl("sched");
  const rt = await runtime(url, clock);
  await saveUserWorkflow(rt.db, "yaml", FLOW);
  return { rt, url, clock };
}

const every5 = { workflow: "sched-flow", cron: "*/5 * * * *", input: { task: "digest" }, overlap: "allow" as const, catchup: "none" as const };

async function runsOf(rt: Runtime, scheduleId: string) {
  return (await listRuns(rt, { scheduleId, limit: 500 })).runs;
}

/** move the clock to `ms` and let the scheduler take what is due */
async function at(rt: Runtime, clock: ManualClock, ms: number) {
  clock.advance(ms - clock.now());
  await rt.schedules.tick();
  await flush();
}

afterEach(async () => {
  while (open.length) await open.pop()!.close().catch(() => {});
});

describe("schedules on SQLite", () => {
  it("starts one run per fire time, with the schedule's id, and only when due", async () => {
    const { rt, clock } = await fresh();
    const { schedule } = await createSchedule(rt, { ...every5, name: "Digest" }, "ops");
    expect(schedule.nextFireAt).toBe("2026-03-02T08:05:00.000Z");
    expect(schedule.nextFires).toEqual(["2026-03-02T08:05:00.000Z", "2026-03-02T08:10:00.000Z", "2026-03-02T08:15:00.000Z"]);
    await at(rt, clock, Date.parse("2026-03-02T08:04:59Z"));
    expect(await runsOf(rt, schedule.id)).toHaveLength(0);
    await at(rt, clock, Date.parse("2026-03-02T08:05:01Z"));
    await rt.schedules.tick(); // a second tick in the same interval takes nothing
    await at(rt, clock, Date.parse("2026-03-02T08:10:00Z"));
    const runs = await runsOf(rt, schedule.id);
    expect(runs).toHaveLength(2);
    expect(runs.every((r) => r.scheduleId === schedule.id && (r.input as { task: string }).task === "digest")).toBe(true);
    // each named "<schedule name> · <fire time in its zone>"
    expect(runs.map((r) => r.name)).toEqual(["Digest · 2026-03-02 08:10", "Digest · 2026-03-02 08:05"]);
    const s = await rt.schedules.get(schedule.id);
    expect(new Date(s.lastFireAt!).toISOString()).toBe("2026-03-02T08:10:00.000Z");
    expect(s.lastRunId).toBe(runs[0]!.id);
    // other runs are not in the schedule's list
    await rt.engine.start("sched-flow", {});
    expect(await runsOf(rt, schedule.id)).toHaveLength(2);
  });

  it("reads the pattern in the schedule's time zone", async () => {
    const { rt } = await fresh();
    const { schedule } = await createSchedule(rt, { ...every5, cron: "0 9 * * *", timezone: "Europe/Berlin" }, null);
    // 09:00 in Berlin is 08:00 UTC in March (before the switch to summer time) and 07:00 UTC after it
    expect(schedule.nextFires).toEqual(["2026-03-03T08:00:00.000Z", "2026-03-04T08:00:00.000Z", "2026-03-05T08:00:00.000Z"]);
    const six = await createSchedule(rt, { ...every5, cron: "*/20 * * * * *" }, null);
    expect(six.schedule.nextFireAt).toBe("2026-03-02T08:00:40.000Z");
  });

  it("overlap skip drops a fire while the previous run is open; allow starts it anyway", async () => {
    const { rt, clock } = await fresh();
    const skip = (await createSchedule(rt, { ...every5, overlap: "skip" }, null)).schedule;
    const allow = (await createSchedule(rt, { ...every5, overlap: "allow" }, null)).schedule;
    await at(rt, clock, Date.parse("2026-03-02T08:05:00Z"));
    await at(rt, clock, Date.parse("2026-03-02T08:10:00Z"));
    expect(await runsOf(rt, skip.id)).toHaveLength(1);
    expect(await runsOf(rt, allow.id)).toHaveLength(2);
    const s = await rt.schedules.get(skip.id);
    expect(s.lastSkip).toMatch(/previous run was still open/);
    expect(new Date(s.lastSkipAt!).toISOString()).toBe("2026-03-02T08:10:00.000Z");
    // once the run ends, the next fire starts again
    const [first] = await runsOf(rt, skip.id);
    await sendEvent(rt, first!.id, { type: "TRANSITION", to: "DONE" });
    await flush();
    await at(rt, clock, Date.parse("2026-03-02T08:15:00Z"));
    expect(await runsOf(rt, skip.id)).toHaveLength(2);
  });

  it("overlap queue-one keeps one fire until the open run ends, then starts it", async () => {
    const { rt, clock } = await fresh();
    const { schedule } = await createSchedule(rt, { ...every5, overlap: "queue-one" }, null);
    await at(rt, clock, Date.parse("2026-03-02T08:05:00Z"));
    await at(rt, clock, Date.parse("2026-03-02T08:10:00Z"));
    await at(rt, clock, Date.parse("2026-03-02T08:15:00Z"));
    expect(await runsOf(rt, schedule.id)).toHaveLength(1);
    expect(new Date((await rt.schedules.get(schedule.id)).queuedFireAt!).toISOString()).toBe("2026-03-02T08:15:00.000Z");
    const [first] = await runsOf(rt, schedule.id);
    await sendEvent(rt, first!.id, { type: "TRANSITION", to: "DONE" });
    await flush();
    await at(rt, clock, Date.parse("2026-03-02T08:16:00Z"));
    const runs = await runsOf(rt, schedule.id);
    expect(runs).toHaveLength(2); // one queued fire, not the two that passed
    const s = await rt.schedules.get(schedule.id);
    expect(s.queuedFireAt).toBeNull();
    expect(new Date(s.lastFireAt!).toISOString()).toBe("2026-03-02T08:15:00.000Z");
  });

  it("after downtime, catchup latest starts the latest missed fire once and none starts nothing", async () => {
    const clock = new ManualClock(T0);
    const { rt, url } = await fresh(clock);
    const none = (await createSchedule(rt, { ...every5, catchup: "none" }, null)).schedule;
    const latest = (await createSchedule(rt, { ...every5, catchup: "latest" }, null)).schedule;
    await rt.close();
    open.length = 0;
    clock.advance(62 * MIN); // down for an hour: twelve fire times pass
    const back = await runtime(url, clock);
    await back.schedules.tick();
    await flush();
    expect(await runsOf(back, none.id)).toHaveLength(0);
    const caught = await runsOf(back, latest.id);
    expect(caught).toHaveLength(1);
    const s = await back.schedules.get(latest.id);
    expect(new Date(s.lastFireAt!).toISOString()).toBe("2026-03-02T09:00:00.000Z");
    expect(new Date(s.nextFireAt!).toISOString()).toBe("2026-03-02T09:05:00.000Z");
    expect((await back.schedules.get(none.id)).lastSkip).toMatch(/missed/);
    // both go on at the next fire time
    await at(back, clock, Date.parse("2026-03-02T09:05:00Z"));
    expect(await runsOf(back, none.id)).toHaveLength(1);
    expect(await runsOf(back, latest.id)).toHaveLength(2);
  });

  it("a fire taken but not started before a crash starts after the restart, once", async () => {
    const clock = new ManualClock(T0);
    const { rt, url } = await fresh(clock);
    const { schedule } = await createSchedule(rt, every5, null);
    const fire = Date.parse("2026-03-02T08:05:00Z");
    // what a crash between the claim and the run's start leaves: nextFireAt moved on, firingAt set, no run
    await rt.db.schedule.update({ where: { id: schedule.id }, data: { nextFireAt: new Date(fire + 5 * MIN), firingAt: new Date(fire), updatedAt: new Date(fire) } });
    await rt.close();
    open.length = 0;
    clock.advance(fire + 20_000 - clock.now());
    const back = await runtime(url, clock);
    await back.schedules.tick();
    await back.schedules.tick();
    await flush();
    const runs = await runsOf(back, schedule.id);
    expect(runs).toHaveLength(1);
    const s = await back.schedules.get(schedule.id);
    expect(s.firingAt).toBeNull();
    expect(s.lastRunId).toBe(runs[0]!.id);
    // the key of that fire names the run: a second start of the same fire finds it, not a new run
    const { scope, key } = fireKey(schedule.id, fire);
    expect(await back.schedules.rows.runOfKey(scope, key)).toBe(runs[0]!.id);
    await back.db.schedule.update({ where: { id: schedule.id }, data: { firingAt: new Date(fire), updatedAt: new Date(fire) } });
    await back.schedules.tick();
    await flush();
    expect(await runsOf(back, schedule.id)).toHaveLength(1);
    expect((await back.schedules.get(schedule.id)).firingAt).toBeNull();
  });

  it("pause stops fires, resume counts from now (no catch-up of the pause), run now starts one at once", async () => {
    const { rt, clock } = await fresh();
    const { schedule } = await createSchedule(rt, { ...every5, name: "Sweep", runName: "{{schedule.name}} for {{input.task}} at {{fire.time}}" }, null);
    const paused = await updateSchedule(rt, schedule.id, { paused: true });
    expect(paused.schedule.nextFireAt).toBeNull();
    expect(paused.schedule.nextFires).toEqual([]);
    await at(rt, clock, Date.parse("2026-03-02T08:31:00Z"));
    expect(await runsOf(rt, schedule.id)).toHaveLength(0);
    const resumed = await updateSchedule(rt, schedule.id, { paused: false });
    expect(resumed.schedule.nextFireAt).toBe("2026-03-02T08:35:00.000Z");
    await rt.schedules.tick();
    expect(await runsOf(rt, schedule.id)).toHaveLength(0);
    const now = await rt.schedules.trigger(schedule.id);
    const runs = await runsOf(rt, schedule.id);
    expect(runs.map((r) => r.id)).toEqual([now.runId]);
    expect(runs[0]!.name).toBe("Sweep for digest at 2026-03-02 08:31");
  });

  it("ticks on its own at the next fire time when started", async () => {
    const { rt, clock } = await fresh();
    rt.schedules.start();
    const { schedule } = await createSchedule(rt, every5, null);
    const fire = Date.parse("2026-03-02T08:05:00Z");
    // the scheduler arms its timer after a database read: each poll moves the clock to the fire
    // time (or fires what has fallen due since), so a timer armed late still fires, by the clock
    await expect
      .poll(async () => {
        clock.advance(Math.max(0, fire - clock.now()));
        return (await runsOf(rt, schedule.id)).length;
      }, { timeout: 20_000 })
      .toBe(1);
    expect(clock.now()).toBe(fire);
  });

  it("refuses what could never start a run, naming the field", async () => {
    const { rt } = await fresh();
    const bad = async (body: Record<string, unknown>) => {
      const e = await createSchedule(rt, { ...every5, ...body } as never, null).then(
        () => null,
        (err: { status?: number; message: string }) => err,
      );
      expect(e?.status).toBe(422);
      return e!.message;
    };
    expect(await bad({ cron: "61 * * * *" })).toMatch(/^cron: .*minute/);
    expect(await bad({ cron: "* * *" })).toMatch(/^cron: .*5 fields/);
    expect(await bad({ timezone: "Mars/Olympus" })).toMatch(/^timezone: /);
    expect(await bad({ workflow: "nope" })).toMatch(/^workflow: unknown workflow/);
    expect(await bad({ version: 7 })).toMatch(/^version: sched-flow has no version 7/);
    expect(await bad({ runName: "{{secrets.X}}" })).toMatch(/^runName: unknown placeholder/);
    expect(await rt.schedules.list()).toHaveLength(0);
  });
});

describe("schedules on PostgreSQL, two runtimes", () => {
  const PG_URL = process.env.POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
  let skip: string | null = null;
  let scratch: ScratchSchema | null = null;

  beforeAll(async () => {
    skip = await pgReachable(PG_URL);
    if (skip) return console.log(`[schedules] PostgreSQL cases skipped: not reachable at ${PG_URL} (${skip})`);
    scratch = await scratchSchema(PG_URL, "sy_sched");
  }, 60_000);

  afterAll(async () => {
    await scratch?.drop();
  }, 60_000);

  it("both fire every tick at once; each fire time starts exactly one run, across a restart of one", async (ctx) => {
    if (skip) return ctx.skip();
    const url = `${PG_URL}?schema=${scratch!.schema}`;
    const clock = new ManualClock(T0);
    const queue = { schema: scratch!.schema, expireSeconds: 30, maintenanceSeconds: 5 };
    const a = await runtime(url, clock, { queue, worker: { pollMs: 200 } });
    let b = await runtime(url, clock, { queue, worker: { pollMs: 200 } });
    await saveUserWorkflow(a.db, "yaml", FLOW);
    const { schedule } = await createSchedule(a, { ...every5, cron: "* * * * *" }, null);
    for (let i = 1; i <= 8; i++) {
      clock.advance(MIN);
      await Promise.all([a.schedules.tick(), b.schedules.tick(), a.schedules.tick()]);
      if (i === 4) {
        await b.close();
        open.splice(open.indexOf(b), 1);
        b = await runtime(url, clock, { queue, worker: { pollMs: 200 } });
      }
    }
    const runs = await a.db.run.findMany({ where: { scheduleId: schedule.id }, select: { id: true } });
    expect(runs).toHaveLength(8);
    const keys = await a.db.idempotencyKey.findMany({ where: { scope: `schedule ${schedule.id}` }, select: { key: true, runId: true } });
    expect(new Set(keys.map((k) => k.key)).size).toBe(8);
    expect(new Set(keys.map((k) => k.runId))).toEqual(new Set(runs.map((r) => r.id)));
  }, 120_000);
});
