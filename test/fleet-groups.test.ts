// A group's (compound or parallel state's) visits in the fleet: the run records when each active
// group was entered (Run.entered, beside its leaves), a group left or entered again ends a visit,
// and the fleet's dwellMs for the group is read from those visits — equal to the lengths counted
// by hand along the run's path. SQLite always, PostgreSQL when reachable.
import { createMachine } from "xstate";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { pgReachable } from "../lib/db/pg-scratch";
import { readAll } from "../lib/db/sql";
import { ManualClock } from "../lib/engine/clock";
import { Engine } from "../lib/engine/engine";
import type { WorkflowDefinition } from "../lib/machines/types";
import { bucketFloor, dwellBucket } from "../lib/fleet/buckets";
import { ALL_TIME } from "../lib/fleet/counters";
import { assemble } from "../lib/fleet/fleet";
import { deriveGraph } from "../lib/graph/derive";
import { PG_URL, postgresDb, sqliteDb, type TestDb } from "./support/databases";

const machine = createMachine({
  id: "groups",
  initial: "A",
  states: {
    A: { on: { IN: "G" } },
    G: { initial: "x", on: { OUT: "B", RESET: "G" }, states: { x: { on: { NEXT: "y" } }, y: {} } },
    B: { on: { PAR: "P" } },
    P: {
      type: "parallel",
      on: { DONE: "END" },
      states: { l: { initial: "a", states: { a: { on: { L: "b" } }, b: {} } }, r: { initial: "c", states: { c: {} } } },
    },
    END: { type: "final" },
  },
});
const events = Object.fromEntries(["IN", "NEXT", "RESET", "OUT", "PAR", "L", "DONE"].map((e) => [e, z.object({ type: z.literal(e) })]));
const def: WorkflowDefinition = { id: "groups", title: "Groups", seed: "-", description: "-", machine, input: z.object({}), events };
const T0 = Date.UTC(2026, 10, 27, 10, 0, 0);
const asBucket = (ms: number) => bucketFloor(dwellBucket(ms));

const databases: [string, () => Promise<TestDb | null>][] = [
  ["SQLite", () => sqliteDb("fleet-groups")],
  ["PostgreSQL", async () => ((await pgReachable(PG_URL)) ? null : postgresDb("sy_fgroups"))],
];

for (const [name, open] of databases) {
  describe(`group visits in the fleet (${name})`, () => {
    let db: TestDb | null = null;
    afterAll(async () => {
      await db?.close();
    });

    it("a group's time is kept while it stays, renewed when it is entered again, and its visits' lengths are its dwell", async (ctx) => {
      db = await open();
      if (!db) {
        console.log(`[fleet-groups] PostgreSQL skipped: not reachable at ${PG_URL}`);
        return ctx.skip();
      }
      const clock = new ManualClock(T0);
      const engine = new Engine({ store: db.store, clock, workflows: (id) => (id === "groups" ? def : undefined), effects: () => ({ actors: {} }), log: () => {} });
      const { run } = await engine.start("groups", {});
      const entered = async () => (await db!.store.getRun(run.id))!.entered;
      const send = async (ms: number, type: string) => {
        clock.advance(ms);
        await engine.send(run.id, { type });
      };
      await send(1_000, "IN");
      expect(await entered()).toEqual({ G: T0 + 1_000, "G.x": T0 + 1_000 });
      await send(500, "NEXT"); // inside G: G stays
      expect(await entered()).toEqual({ G: T0 + 1_000, "G.y": T0 + 1_500 });
      await send(2_000, "RESET"); // G entered again: its first visit lasted 2,500 ms
      expect(await entered()).toEqual({ G: T0 + 3_500, "G.x": T0 + 3_500 });
      await send(700, "OUT"); // the second, 700 ms
      expect(await entered()).toEqual({ B: T0 + 4_200 });
      await send(100, "PAR");
      expect(await entered()).toEqual({ P: T0 + 4_300, "P.l": T0 + 4_300, "P.r": T0 + 4_300, "P.l.a": T0 + 4_300, "P.r.c": T0 + 4_300 });
      await send(300, "L"); // one region moves: the parallel state and both regions stay
      expect(await entered()).toEqual({ P: T0 + 4_300, "P.l": T0 + 4_300, "P.r": T0 + 4_300, "P.l.b": T0 + 4_600, "P.r.c": T0 + 4_300 });
      await send(900, "DONE"); // all of P left after 1,200 ms
      expect((await db.store.getRun(run.id))!.status).toBe("completed");

      const [counts] = await readAll(db.ports, [{ sql: `SELECT "kind", "key", "bucket", SUM("n") AS "n" FROM "FleetCount" WHERE "workflow" = ? AND "hour" = ? GROUP BY "kind", "key", "bucket"`, args: ["groups", ALL_TIME] }]);
      const fleet = assemble({ workflow: "groups", version: null, window: "all", now: clock.now(), graph: deriveGraph(machine), counts: counts!.map((r) => ({ kind: String(r.kind), key: String(r.key), bucket: Number(r.bucket), n: Number(r.n) })), live: [], stuck: [] });
      expect(fleet.states.G).toMatchObject({ entered: 2, dwellMs: { p50: asBucket(700), p95: asBucket(2_500) } });
      for (const s of ["P", "P.l", "P.r"]) expect(fleet.states[s]).toMatchObject({ entered: 1, dwellMs: { p50: asBucket(1_200), p95: asBucket(1_200) } });
      // the leaves as before: G.x twice (500 and 700 ms), P.l.a 300 ms
      expect(fleet.states["G.x"]).toMatchObject({ entered: 2, dwellMs: { p50: asBucket(500), p95: asBucket(700) } });
      expect(fleet.states["P.l.a"]!.dwellMs).toEqual({ p50: asBucket(300), p95: asBucket(300) });
      await engine.stop();
    });
  });
}
