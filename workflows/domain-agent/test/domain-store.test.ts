// The domain-agent's storage (workflows/domain-agent/domains/store.ts): log entries saved idempotently and filtered,
// the global context (profile facts) set / left alone / deleted with validation, and the
// observer's decisions.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateDatabase } from "../../../lib/db/migrations";
import {
  deleteProfileFact,
  getProfile,
  listEntries,
  listObservations,
  listProfile,
  recordObservation,
  saveEntries,
  setProfileFacts,
} from "../domains/store";
import type { ParsedEntry } from "../domains/types";
import { ManualClock } from "../../../lib/engine/clock";
import { isEngineError } from "../../../lib/engine/errors";
import { createRuntime, type Runtime } from "../../../lib/runtime";
import { tempDbUrl } from "../../../test/helpers";

let rt: Runtime;
const T0 = Date.parse("2026-11-23T09:00:00Z");

const entry = (day: string, text: string, domains: string[], metrics: ParsedEntry["metrics"] = []): ParsedEntry => ({ day, text, domains, metrics });

async function expectInvalid(p: Promise<unknown>, text: RegExp) {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e, "expected an InvalidError").not.toBeNull();
  expect(isEngineError(e)).toBe(true);
  expect((e as { status: number }).status).toBe(422);
  expect((e as Error).message).toMatch(text);
}

beforeAll(async () => {
  rt = await createRuntime({ url: tempDbUrl("domain-store"), clock: new ManualClock(T0), env: {} as NodeJS.ProcessEnv, migrate: migrateDatabase, serviceChoresMs: 0, seedGuide: false });
});

afterAll(async () => {
  await rt?.close();
});

describe("log entries", () => {
  it("saves entries with ids per run and position; saving again overwrites, never duplicates", async () => {
    const entries = [
      entry("2026-11-20", "ran 8 km, legs heavy", ["training", "recovery"], [{ name: "distance_km", value: 8, unit: "km", domain: "training" }]),
      entry("2026-11-20", "slept 6 h", ["sleep"], [{ name: "sleep_hours", value: 6, unit: "h", domain: "sleep" }]),
    ];
    const saved = await saveEntries(rt.db, "run-a", entries, [null, "short night"], T0);
    expect(saved.map((e) => e.id)).toEqual(["run-a-e1", "run-a-e2"]);
    expect(saved[1]).toEqual({
      id: "run-a-e2",
      runId: "run-a",
      day: "2026-11-20",
      text: "slept 6 h",
      metrics: [{ name: "sleep_hours", value: 6, unit: "h", domain: "sleep" }],
      domains: ["sleep"],
      significant: "short night",
      createdAt: new Date(T0).toISOString(),
    });

    // a re-run after a crash: same ids, new content, no duplicates
    const again = await saveEntries(rt.db, "run-a", [entries[0]!, { ...entries[1]!, text: "slept 6.5 h" }], [null, null], T0 + 1_000);
    expect(again.map((e) => e.id)).toEqual(["run-a-e1", "run-a-e2"]);
    const stored = await listEntries(rt.db, { runId: "run-a" });
    expect(stored).toHaveLength(2);
    expect(stored.find((e) => e.id === "run-a-e2")).toMatchObject({ text: "slept 6.5 h", significant: null, createdAt: new Date(T0 + 1_000).toISOString() });
    expect(await saveEntries(rt.db, "run-empty", [], [], T0)).toEqual([]);
  });

  it("rejects an entry whose day is not YYYY-MM-DD, and stores none of the batch", async () => {
    await expectInvalid(saveEntries(rt.db, "run-bad", [entry("2026-11-21", "ok", ["mood"]), entry("21/11/2026", "bad", ["mood"])], [null, null], T0), /entry 2: day/);
    await expectInvalid(saveEntries(rt.db, "run-bad", [entry("2026-02-30", "no such day", ["mood"])], [null], T0), /YYYY-MM-DD/);
    expect(await listEntries(rt.db, { runId: "run-bad" })).toEqual([]);
  });

  it("filters by domain and inclusive date bounds, newest day first", async () => {
    await saveEntries(
      rt.db,
      "run-b",
      [
        entry("2026-11-01", "easy 5 km", ["training"]),
        entry("2026-11-05", "slept badly, 5 h", ["sleep"]),
        entry("2026-11-10", "tempo run, slept 7 h", ["training", "sleep"]),
        entry("2026-11-15", "mood low", ["mood"]),
      ],
      [null, null, null, null],
      T0 + 2_000,
    );
    const days = (es: { day: string }[]) => es.map((e) => e.day);
    expect(days(await listEntries(rt.db, { runId: "run-b" }))).toEqual(["2026-11-15", "2026-11-10", "2026-11-05", "2026-11-01"]);
    expect(days(await listEntries(rt.db, { runId: "run-b", domain: "sleep" }))).toEqual(["2026-11-10", "2026-11-05"]);
    expect(days(await listEntries(rt.db, { runId: "run-b", from: "2026-11-05", to: "2026-11-10" }))).toEqual(["2026-11-10", "2026-11-05"]);
    expect(days(await listEntries(rt.db, { runId: "run-b", from: "2026-11-10" }))).toEqual(["2026-11-15", "2026-11-10"]);
    expect(days(await listEntries(rt.db, { runId: "run-b", to: "2026-11-01" }))).toEqual(["2026-11-01"]);
    expect(days(await listEntries(rt.db, { runId: "run-b", domain: "training", from: "2026-11-02" }))).toEqual(["2026-11-10"]);
    expect(await listEntries(rt.db, { domain: "nutrition" })).toEqual([]);
    // a domain whose name is part of another's is not confused with it
    expect(await listEntries(rt.db, { domain: "sle" })).toEqual([]);
    // across runs; limit applies
    expect(await listEntries(rt.db, { limit: 3 })).toHaveLength(3);
    expect((await listEntries(rt.db, {})).length).toBe(6);
  });

  it("orders a run's entries of one day in written order (e2 before e10)", async () => {
    const many = Array.from({ length: 11 }, (_, i) => entry("2026-10-01", `line ${i + 1}`, ["mood"]));
    await saveEntries(rt.db, "run-c", many, many.map(() => null), T0);
    const ids = (await listEntries(rt.db, { runId: "run-c" })).map((e) => e.id);
    expect(ids).toEqual(many.map((_, i) => `run-c-e${i + 1}`));
  });
});

describe("global context (profile facts)", () => {
  it("sets facts, returns only what changed, and leaves unchanged values alone", async () => {
    const first = await setProfileFacts(
      rt.db,
      [
        { key: "body_weight_kg", value: "72", domain: "nutrition" },
        { key: "usual_bedtime", value: " 23:00 ", domain: "sleep" },
      ],
      { source: "observer", reason: "stated in a log", runId: "run-a" },
      T0,
    );
    expect(first).toEqual([
      { key: "body_weight_kg", from: null, to: "72" },
      { key: "usual_bedtime", from: null, to: "23:00" },
    ]);
    expect(await getProfile(rt.db)).toEqual({ body_weight_kg: "72", usual_bedtime: "23:00" });

    // same value: not rewritten (source, reason and time stay), not returned
    const same = await setProfileFacts(rt.db, [{ key: "body_weight_kg", value: "72" }], { source: "user", reason: "edited by the person" }, T0 + 5_000);
    expect(same).toEqual([]);
    const [weight] = await listProfile(rt.db);
    expect(weight).toEqual({ key: "body_weight_kg", value: "72", domain: "nutrition", source: "observer", reason: "stated in a log", runId: "run-a", updatedAt: new Date(T0).toISOString() });

    // a new value: rewritten with the new source and reason; the domain is kept when left out
    const changed = await setProfileFacts(rt.db, [{ key: "body_weight_kg", value: "71.5" }, { key: "usual_bedtime", value: "23:00" }], { source: "user", reason: "edited by the person" }, T0 + 6_000);
    expect(changed).toEqual([{ key: "body_weight_kg", from: "72", to: "71.5" }]);
    expect((await listProfile(rt.db))[0]).toEqual({ key: "body_weight_kg", value: "71.5", domain: "nutrition", source: "user", reason: "edited by the person", runId: null, updatedAt: new Date(T0 + 6_000).toISOString() });
    expect(await setProfileFacts(rt.db, [], { source: "user", reason: "x" }, T0)).toEqual([]);
  });

  it("deletes a fact: true once, then false", async () => {
    await setProfileFacts(rt.db, [{ key: "temp_fact", value: "x" }], { source: "user", reason: "edited by the person" }, T0);
    expect(await deleteProfileFact(rt.db, "temp_fact")).toBe(true);
    expect(await deleteProfileFact(rt.db, "temp_fact")).toBe(false);
    expect((await getProfile(rt.db)).temp_fact).toBeUndefined();
  });

  it("validates keys and values (InvalidError, nothing written)", async () => {
    const meta = { source: "user" as const, reason: "edited by the person" };
    const before = await listProfile(rt.db);
    await expectInvalid(setProfileFacts(rt.db, [{ key: "Body Weight", value: "72" }], meta, T0), /snake_case/);
    await expectInvalid(setProfileFacts(rt.db, [{ key: "1st", value: "72" }], meta, T0), /snake_case/);
    await expectInvalid(setProfileFacts(rt.db, [{ key: "a".repeat(65), value: "72" }], meta, T0), /snake_case/);
    await expectInvalid(setProfileFacts(rt.db, [{ key: "ok_key", value: "x" }, { key: "bad-key", value: "x" }], meta, T0), /snake_case/);
    await expectInvalid(setProfileFacts(rt.db, [{ key: "long_value", value: "v".repeat(501) }], meta, T0), /500/);
    await expectInvalid(setProfileFacts(rt.db, [{ key: "empty_value", value: "   " }], meta, T0), /empty/);
    await expectInvalid(setProfileFacts(rt.db, [{ key: "a_key", value: "x" }], { source: "robot" as never, reason: "" }, T0), /source/);
    await expectInvalid(deleteProfileFact(rt.db, "DROP TABLE"), /snake_case/);
    expect(await listProfile(rt.db)).toEqual(before);
    // the limits themselves are fine
    expect(await setProfileFacts(rt.db, [{ key: "a".repeat(64), value: "v".repeat(500) }], meta, T0)).toHaveLength(1);
    await deleteProfileFact(rt.db, "a".repeat(64));
  });
});

describe("observer decisions", () => {
  it("records observations (upsert by id) and lists them newest first", async () => {
    const o1 = await recordObservation(
      rt.db,
      { id: "run-a-obs1", runId: "run-a", triggers: ["significant_log"], decision: "update", reason: "the person stated their weight", changes: [{ key: "body_weight_kg", from: null, to: "72" }] },
      T0,
    );
    expect(o1).toEqual({
      id: "run-a-obs1",
      runId: "run-a",
      triggers: ["significant_log"],
      decision: "update",
      reason: "the person stated their weight",
      changes: [{ key: "body_weight_kg", from: null, to: "72" }],
      createdAt: new Date(T0).toISOString(),
    });
    await recordObservation(rt.db, { id: "run-b-obs1", runId: "run-b", triggers: ["post_query", "user_correction"], decision: "skip", reason: "nothing new", changes: [] }, T0 + 10_000);
    // re-recorded after a crash: overwritten
    await recordObservation(rt.db, { id: "run-a-obs1", runId: "run-a", triggers: ["significant_log"], decision: "skip", reason: "already known", changes: [] }, T0 + 1);

    const all = await listObservations(rt.db, {});
    expect(all.map((o) => [o.id, o.decision])).toEqual([
      ["run-b-obs1", "skip"],
      ["run-a-obs1", "skip"],
    ]);
    expect(all[0]!.triggers).toEqual(["post_query", "user_correction"]);
    expect((await listObservations(rt.db, { runId: "run-a" })).map((o) => o.reason)).toEqual(["already known"]);
    expect(await listObservations(rt.db, { limit: 1 })).toHaveLength(1);
    await expectInvalid(recordObservation(rt.db, { id: "x", runId: "run-a", triggers: [], decision: "maybe" as never, reason: "", changes: [] }, T0), /decision/);
  });

  it("cuts an overlong reason instead of failing", async () => {
    const o = await recordObservation(rt.db, { id: "run-c-obs1", runId: "run-c", triggers: ["post_query"], decision: "skip", reason: "r".repeat(5_000), changes: [] }, T0);
    expect(o.reason.length).toBe(2_000);
    expect(o.reason.endsWith("…")).toBe(true);
  });
});
