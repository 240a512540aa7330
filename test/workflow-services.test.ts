// A workflow's own services (builtIn({ services }), lib/machines/services.ts), on the fixture
// workflow: the runtime creates them once, starts them at boot, hands that one instance to the
// workflow's effects, runs their chores on an interval (in cluster mode as queue chores a worker
// runs), reports their health, and waits for them at shutdown.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { migrateDatabase } from "../lib/db/migrations";
import { pgReachable, scratchSchema, type ScratchSchema } from "../lib/db/pg-scratch";
import { ManualClock } from "../lib/engine/clock";
import { builtIn } from "../lib/machines/built-in";
import { provideWorkflows } from "../lib/machines/registry";
import { Services, type ServicePorts } from "../lib/machines/services";
import { createRuntime, type Runtime, type RuntimeOptions } from "../lib/runtime";
import * as workflows from "../workflows/registry";
import { hello } from "./fixtures/workflows/hello/machine";
import { PG_URL } from "./support/databases";
import { tempDbUrl } from "./helpers";

/** what the fixture's service did, in order */
let log: string[] = [];
/** resolves the next time the chore runs */
let choreRan: () => void = () => {};

const CHORE_MS = 60_000;

/** the fixture's service: counts greetings; its chore and lifecycle write to `log` */
function tally(ports: ServicePorts) {
  let greeted = 0;
  return {
    dialect: ports.dialect,
    greet(name: string) {
      greeted++;
      return `Hello, ${name} (#${greeted})`;
    },
    start: async () => void log.push("start"),
    chores: {
      count: {
        everyMs: CHORE_MS,
        run: async () => {
          log.push(`count ${greeted}`);
          choreRan();
        },
      },
    },
    health: async () => ({ tally: { greeted } }),
    idle: async () => void log.push("idle"),
  };
}

const entry = builtIn({
  definition: hello,
  services: tally,
  // the effects receive the instance the factory returned, with its own type
  effects: (_ports, s) => ({
    actors: {
      greet: async ({ name }) => ({ text: s.greet(name) }),
      shout: async ({ text }) => ({ text: `${text.toUpperCase()}!`, length: text.length + 1 }),
    },
  }),
});

const open: Runtime[] = [];
beforeAll(() => provideWorkflows([entry]));
afterAll(() => provideWorkflows(workflows));
beforeEach(() => {
  log = [];
});
afterEach(async () => {
  vi.useRealTimers();
  for (const rt of open.splice(0)) await rt.close();
});

async function runtime(extra: Partial<RuntimeOptions> = {}): Promise<Runtime> {
  const rt = await createRuntime({
    url: tempDbUrl("services"),
    clock: new ManualClock(),
    env: {} as NodeJS.ProcessEnv,
    migrate: migrateDatabase,
    seedGuide: false,
    alerts: { start: false },
    webhooks: { start: false },
    schedules: { start: false },
    retention: null,
    ...extra,
  });
  open.push(rt);
  return rt;
}

describe("Services", () => {
  it("names each chore <workflow>.<chore>, runs one by that name, merges health, and tells a workflow without services", async () => {
    const ports = { dialect: "sqlite" } as ServicePorts;
    const services = await Services.start([{ definition: { id: "plain" } }, { definition: { id: "hello" }, services: tally }], ports);
    expect(log).toEqual(["start"]);
    expect(services.chores().map((c) => [c.name, c.chore.everyMs])).toEqual([["hello.count", CHORE_MS]]);
    await services.runChore("hello.count");
    expect(services.runChore("hello.nothing")).toBeNull();
    expect(services.runChore("count")).toBeNull();
    expect(await services.health()).toEqual({ tally: { greeted: 0 } });
    expect(services.forWorkflow("plain")).toBeUndefined();
    expect(() => services.of("plain")).toThrow("workflow plain declares no services");
    expect(services.of<ReturnType<typeof tally>>("hello").dialect).toBe("sqlite");
    await services.idle();
    expect(log).toEqual(["start", "count 0", "idle"]);
  });
});

describe("a runtime's workflow services", () => {
  it("are created and started once at boot, shared by every run's effects, and idled once at shutdown", async () => {
    const rt = await runtime({ serviceChoresMs: 0 });
    expect(log).toEqual(["start"]);
    const outputs: unknown[] = [];
    for (const name of ["Ada", "Grace"]) {
      const { run } = await rt.engine.start("hello", { name });
      outputs.push((await rt.engine.waitFor(run.id, (r) => r.status === "completed")).output);
    }
    expect(outputs).toEqual(["HELLO, ADA (#1)!", "HELLO, GRACE (#2)!"]);
    expect(await rt.services.health()).toEqual({ tally: { greeted: 2 } });
    await rt.close();
    await rt.close();
    expect(log).toEqual(["start", "idle"]);
  });

  it("runs a chore on its own interval in a single process, never with serviceChoresMs 0, and not after close", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    // (the runtime's other intervals fire too, such as the task sweep: their messages are not the point)
    const quiet = { log: () => {} };
    const rt = await runtime(quiet);
    vi.advanceTimersByTime(CHORE_MS - 1);
    expect(log).toEqual(["start"]);
    vi.advanceTimersByTime(1);
    vi.advanceTimersByTime(CHORE_MS);
    expect(log).toEqual(["start", "count 0", "count 0"]);
    await rt.close();
    vi.advanceTimersByTime(5 * CHORE_MS);
    expect(log).toEqual(["start", "count 0", "count 0", "idle"]);

    log = [];
    const off = await runtime({ ...quiet, serviceChoresMs: 0 });
    vi.advanceTimersByTime(10 * CHORE_MS);
    expect(log).toEqual(["start"]);
    await off.close();

    log = [];
    const every = await runtime({ ...quiet, serviceChoresMs: 1_000 });
    vi.advanceTimersByTime(3_000);
    expect(log).toEqual(["start", "count 0", "count 0", "count 0"]);
    await every.close();
  });
});

describe("cluster mode (PostgreSQL)", () => {
  let skip: string | null = null;
  let scratch: ScratchSchema | null = null;
  beforeAll(async () => {
    skip = await pgReachable(PG_URL);
    if (skip) console.log(`[workflow-services] cluster part skipped: PostgreSQL not reachable at ${PG_URL} (${skip})`);
    else scratch = await scratchSchema(PG_URL, "sy_services");
  }, 60_000);
  afterAll(async () => {
    await scratch?.drop();
  });

  it("a worker runs the chore from the queue under its cluster-wide name, with no interval of its own", async (ctx) => {
    if (skip) return ctx.skip();
    const ran = new Promise<void>((resolve) => (choreRan = resolve));
    const rt = await runtime({
      url: `${PG_URL}?schema=${scratch!.schema}`,
      role: "all",
      queue: { schema: scratch!.schema, expireSeconds: 30, maintenanceSeconds: 5 },
      worker: { concurrency: 4, pollMs: 100 },
      log: () => {},
    });
    expect(rt.cluster?.worker).toBeTruthy();
    // proposed at boot; the chore's own interval (a minute) is longer than this test may take
    await ran;
    expect(log).toEqual(["start", "count 0"]);
  }, 60_000);
});
