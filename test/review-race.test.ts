// 50 racers approve a quorum review (`approvers: 5`): thirteen people, each under up to four
// spellings ("person3", "PERSON3", " person3 ", full-width "ｐｅｒｓｏｎ３"). Whatever the
// interleaving, exactly five decisions are applied, by five distinct people (names compared
// normalised), the run moves on once, and every other decision is refused with 409. On SQLite with
// one runtime; on PostgreSQL with two runtimes (cluster mode) deciding side by side.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../lib/engine/clock";
import { migrateDatabase } from "../lib/db/migrations";
import { pgReachable, scratchSchema, type ScratchSchema } from "../lib/db/pg-scratch";
import type { Engine } from "../lib/engine/engine";
import type { RunStore } from "../lib/engine/store/types";
import { saveUserWorkflow } from "../lib/flows/store";
import { foldName } from "../lib/machines/reviewer";
import { createRuntime, type Runtime } from "../lib/runtime";
import { tempDbUrl } from "./helpers";

const N = 5;
const RACERS = 50;
const FLOW = `id: race-quorum
initial_stage: REVIEW
stages: [REVIEW, DONE, REDO]
transitions: { REVIEW: [DONE, REDO], DONE: [], REDO: [] }
steps:
  REVIEW:
    review: { prompt: "Ship the release notes?", show: "the release notes", decisions: [approve, reject], approvers: ${N} }
    on: { approve: DONE, reject: REDO }
`;

const open: Runtime[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close().catch(() => {});
});

async function runtime(url: string, clock: ManualClock, extra: Partial<Parameters<typeof createRuntime>[0]> = {}): Promise<Runtime> {
  const rt = await createRuntime({ url, clock, env: {} as NodeJS.ProcessEnv, migrate: migrateDatabase, serviceChoresMs: 0, seedGuide: false, alerts: { start: false }, webhooks: { start: false }, schedules: { start: false }, ...extra });
  open.push(rt);
  return rt;
}

const fullWidth = (s: string) => s.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0));
/** racer i's spelling of person ⌊i / 4⌋: one person's four spellings race side by side */
function nameOf(i: number): string {
  const base = `person${Math.floor(i / 4)}`;
  return [base, base.toUpperCase(), ` ${base} `, fullWidth(base)][i % 4]!;
}

type Outcome = "approved" | "already approved" | "late";

/** Approve the run's pending review until it is applied, refused for this person, or the run has moved on. */
async function racer(engine: Engine, store: RunStore, runId: string, name: string): Promise<Outcome> {
  for (let tries = 0; tries < 500; tries++) {
    const [pending] = await store.listReviews({ runId, status: "pending" });
    if (!pending) return "late";
    try {
      await engine.decide(pending.id, { decision: "approve", reviewer: name });
      return "approved";
    } catch (e) {
      const err = e as { status?: number; message: string };
      if (err.status !== 409) throw e;
      if (/has already approved/.test(err.message)) return "already approved";
      // another decision came first (the review was decided, or the run changed under us): read again
    }
  }
  throw new Error(`${name}: no answer after 500 tries`);
}

async function race(engines: Engine[], store: RunStore) {
  const { run } = await engines[0]!.start("race-quorum", {});
  const outcomes = await Promise.all(Array.from({ length: RACERS }, (_, i) => racer(engines[i % engines.length]!, store, run.id, nameOf(i))));
  const approved = outcomes.flatMap((o, i) => (o === "approved" ? [nameOf(i)] : []));
  const row = (await store.getRun(run.id))!;
  const reviews = await store.listReviews({ runId: run.id });
  const transitions = await store.transitions(run.id);
  return { row, outcomes, approved, reviews, transitions };
}

function expectQuorum({ row, outcomes, approved, reviews, transitions }: Awaited<ReturnType<typeof race>>) {
  expect(row.status).toBe("completed");
  expect(row.state).toEqual(["DONE"]);
  // exactly N decisions applied, by N distinct people
  expect(approved).toHaveLength(N);
  expect(new Set(approved.map(foldName)).size).toBe(N);
  expect(outcomes.filter((o) => o === "approved")).toHaveLength(N);
  const decided = reviews.filter((r) => r.status === "decided");
  expect(decided).toHaveLength(N);
  expect(decided.every((r) => r.decision === "approve")).toBe(true);
  expect(new Set(decided.map((r) => foldName(r.reviewer!))).size).toBe(N);
  expect(reviews.filter((r) => r.status === "pending")).toHaveLength(0);
  const review = (row.context as { review: { decision: string; approvers: string[] } }).review;
  expect(review.decision).toBe("approve");
  expect(review.approvers).toHaveLength(N);
  expect(new Set(review.approvers.map(foldName))).toEqual(new Set(decided.map((r) => foldName(r.reviewer!))));
  expect(new Set(review.approvers.map(foldName))).toEqual(new Set(approved.map(foldName)));
  // the run moved on once; the seqs have no gap
  expect(transitions.filter((t) => t.to.includes("DONE"))).toHaveLength(1);
  expect(transitions.map((t) => t.seq)).toEqual(transitions.map((_, i) => i + 1));
}

describe("50 racing approvals on a quorum of 5", () => {
  it("SQLite: exactly five distinct people are counted", async () => {
    const rt = await runtime(tempDbUrl("race"), new ManualClock());
    await saveUserWorkflow(rt.db, "yaml", FLOW);
    expectQuorum(await race([rt.engine], rt.store));
  }, 120_000);

  describe("PostgreSQL, two runtimes", () => {
    const PG_URL = process.env.POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
    let skip: string | null = null;
    let scratch: ScratchSchema | null = null;

    beforeAll(async () => {
      skip = await pgReachable(PG_URL);
      if (skip) return console.log(`[review-race] PostgreSQL skipped: not reachable at ${PG_URL} (${skip})`);
      scratch = await scratchSchema(PG_URL, "sy_race");
    }, 60_000);
    afterAll(async () => {
      while (open.length) await open.pop()!.close().catch(() => {});
      await scratch?.drop();
    }, 60_000);

    it("exactly five distinct people are counted, whichever process decides", async (ctx) => {
      if (skip) return ctx.skip();
      const url = `${PG_URL}?schema=${scratch!.schema}`;
      const clock = new ManualClock();
      const queue = { schema: scratch!.schema, expireSeconds: 30, maintenanceSeconds: 5 };
      const a = await runtime(url, clock, { queue, worker: { pollMs: 200 } });
      const b = await runtime(url, clock, { queue, worker: { pollMs: 200 } });
      await saveUserWorkflow(a.db, "yaml", FLOW);
      expectQuorum(await race([a.engine, b.engine], a.store));
    }, 180_000);
  });
});
