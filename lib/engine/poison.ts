// Poison pills: an effect that kills the process (a fatal out-of-memory, a native crash) would be
// started again by every restart and kill it again. The ledger counts, per invocation key, the
// crashes in a row an effect was in flight for; one that was in flight during POISON_CRASHES of
// them is not started again: its run fails with a PoisonPillError that says so, and a person can
// retry it by forking the run at the step that invoked the effect.
//
// Cheap by design: nothing is written when an effect starts or finishes. Single mode writes once
// at boot (one transaction: the keys in flight, each +1 when the previous process crashed) and
// once at a clean stop (the marker row "*" goes, so the next boot does not count a crash). Cluster
// mode counts when an effect's job comes back after it expired on a worker that died.
import type Database from "better-sqlite3";
import type pg from "pg";
import { pgTransaction } from "../db/sql";
import type { EffectContext, WorkflowEffects } from "./effects";

/** crashes in a row an effect may be in flight for; at this many it is not started again */
export const POISON_CRASHES = 2;
export const POISON_CATEGORY = "POISON_PILL";
const MARKER = "*";

export interface InFlight {
  key: string;
  runId: string;
}

export interface CrashLedger {
  /**
   * Boot (single mode): `inflight` are the effects about to be started again. When the previous
   * process did not stop cleanly, each was in flight during that crash: its count goes up by one;
   * otherwise every count starts again at 0. Marks this process as running. Returns key → crashes.
   */
  boot(inflight: InFlight[], now: number): Promise<Map<string, number>>;
  /** A clean stop: the next boot is not after a crash. */
  clean(): Promise<void>;
  /** Cluster mode: the effect's job came back after its worker died mid-effect. Returns its crashes in a row. */
  bump(f: InFlight, now: number): Promise<number>;
}

/** The error a poisoned effect's run fails with. */
export function poisonError(state: string, src: string, key: string, crashes: number, retrySeq: number): Record<string, unknown> {
  return {
    name: "PoisonPillError",
    category: POISON_CATEGORY,
    state,
    message: `step ${state} (effect ${src}) was in flight during ${crashes} crashes in a row; not started again. Retry it by forking the run at seq ${retrySeq}`,
    effect: src,
    key,
    crashes,
    retry: { fork: { seq: retrySeq } },
  };
}

export class SqliteCrashLedger implements CrashLedger {
  constructor(private db: Database.Database) {}

  async boot(inflight: InFlight[], now: number): Promise<Map<string, number>> {
    return this.db.transaction(() => {
      const rows = this.db.prepare(`SELECT "key","crashes" FROM "EffectCrash"`).safeIntegers(false).all() as { key: string; crashes: number }[];
      const out = counts(rows, inflight);
      this.db.prepare(`DELETE FROM "EffectCrash"`).run();
      const ins = this.db.prepare(`INSERT INTO "EffectCrash" ("key","runId","crashes","at") VALUES (?,?,?,?)`);
      ins.run(MARKER, "", 0, now);
      for (const f of inflight) if (out.get(f.key)) ins.run(f.key, f.runId, out.get(f.key), now);
      return out;
    }).immediate();
  }

  async clean(): Promise<void> {
    this.db.prepare(`DELETE FROM "EffectCrash"`).run();
  }

  async bump(f: InFlight, now: number): Promise<number> {
    const r = this.db
      .prepare(`INSERT INTO "EffectCrash" ("key","runId","crashes","at") VALUES (?,?,1,?) ON CONFLICT ("key") DO UPDATE SET "crashes" = "crashes" + 1, "at" = excluded."at" RETURNING "crashes"`)
      .safeIntegers(false)
      .get(f.key, f.runId, now) as { crashes: number };
    return r.crashes;
  }
}

export class PostgresCrashLedger implements CrashLedger {
  constructor(private pool: pg.Pool) {}

  async boot(inflight: InFlight[], now: number): Promise<Map<string, number>> {
    return pgTransaction(this.pool, "BEGIN", async (c) => {
      await c.query(`LOCK TABLE "EffectCrash" IN EXCLUSIVE MODE`);
      const rows = (await c.query(`SELECT "key","crashes" FROM "EffectCrash"`)).rows as { key: string; crashes: number }[];
      const out = counts(rows, inflight);
      await c.query(`DELETE FROM "EffectCrash"`);
      const keep = [{ key: MARKER, runId: "", crashes: 0 }, ...inflight.filter((f) => out.get(f.key)).map((f) => ({ ...f, crashes: out.get(f.key)! }))];
      await c.query(`INSERT INTO "EffectCrash" ("key","runId","crashes","at") SELECT k, r, n, $4 FROM unnest($1::text[], $2::text[], $3::int[]) AS t(k, r, n)`, [
        keep.map((k) => k.key),
        keep.map((k) => k.runId),
        keep.map((k) => k.crashes),
        now,
      ]);
      return out;
    });
  }

  async clean(): Promise<void> {
    await this.pool.query(`DELETE FROM "EffectCrash"`);
  }

  async bump(f: InFlight, now: number): Promise<number> {
    const r = await this.pool.query(
      `INSERT INTO "EffectCrash" ("key","runId","crashes","at") VALUES ($1,$2,1,$3) ON CONFLICT ("key") DO UPDATE SET "crashes" = "EffectCrash"."crashes" + 1, "at" = excluded."at" RETURNING "crashes"`,
      [f.key, f.runId, now],
    );
    return Number(r.rows[0].crashes);
  }
}

/** key → crashes in a row, for the effects in flight now (a stored count goes on only after a crash). */
function counts(rows: { key: string; crashes: number }[], inflight: InFlight[]): Map<string, number> {
  const crashed = rows.some((r) => r.key === MARKER);
  const before = new Map(rows.map((r) => [r.key, Number(r.crashes)]));
  return new Map(inflight.map((f) => [f.key, crashed ? (before.get(f.key) ?? 0) + 1 : 0]));
}

/**
 * TEST ONLY (npm run chaos, test/poison.test.ts): SWITCHYARD_TEST_CRASH_EFFECT=<marker> (8+
 * characters) makes every effect whose input contains the marker kill its own process with
 * SIGKILL before it runs — a stand-in for guest code that takes the server down. Never set it in
 * production; unset, nothing is wrapped.
 */
export function crashHook(marker: string | undefined): ((fx: WorkflowEffects) => WorkflowEffects) | null {
  const m = marker?.trim();
  if (!m) return null;
  if (m.length < 8) throw new Error(`SWITCHYARD_TEST_CRASH_EFFECT must be 8 or more characters (a marker no real input contains); got "${m}"`);
  console.error(`[switchyard] SWITCHYARD_TEST_CRASH_EFFECT is set: an effect whose input contains "${m}" kills this process (test only)`);
  const seen = new WeakMap<WorkflowEffects, WorkflowEffects>();
  return (fx) => {
    let out = seen.get(fx);
    if (!out) {
      const actors: WorkflowEffects["actors"] = {};
      for (const [name, fn] of Object.entries(fx.actors)) {
        const run = fn as (input: unknown, ctx: EffectContext) => Promise<unknown>;
        // Object.assign keeps the effect's own marks (waitingOutside)
        actors[name] = Object.assign(async (input: unknown, ctx: EffectContext) => {
          if (JSON.stringify(input ?? null).includes(m)) process.kill(process.pid, "SIGKILL");
          return run(input, ctx);
        }, fn) as WorkflowEffects["actors"][string];
      }
      out = { ...fx, actors };
      seen.set(fx, out);
    }
    return out;
  };
}
