// The personal log's API, called through the app's route handler for the workflows' endpoints
// (app/api/[...name]/route.ts, which finds them in the registry): GET /api/entries with its
// filters (and 422 for every bad one), GET/PUT/DELETE /api/profile.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateDatabase } from "../../../lib/db/migrations";
import { recordObservation, saveEntries, setProfileFacts } from "../domains/store";
import type { ParsedEntry } from "../domains/types";
import { tempDbUrl } from "../../../test/helpers";

const url = tempDbUrl("entries-api");
process.env.DATABASE_URL = url;

type Handler = (req: Request) => Promise<Response>;
let entries: { GET: Handler };
let profile: { GET: Handler; PUT: Handler; DELETE: Handler };

const get = (path: string) => new Request(`http://test${path}`);
const put = (body: unknown, type = "application/json") =>
  new Request("http://test/api/profile", { method: "PUT", body: typeof body === "string" ? body : JSON.stringify(body), headers: type ? { "content-type": type } : {} });
const del = (qs: string) => new Request(`http://test/api/profile${qs}`, { method: "DELETE" });

async function expectError(res: Response, status: number, text?: RegExp) {
  expect(res.status).toBe(status);
  const body = await res.json();
  expect(typeof body.error).toBe("string");
  if (text) expect(body.error).toMatch(text);
  return body;
}

const e = (day: string, text: string, domains: string[]): ParsedEntry => ({ day, text, domains, metrics: [] });

beforeAll(async () => {
  await migrateDatabase(url);
  // one module serves both paths: the handler reads the endpoint's name from the request's path
  entries = profile = (await import("../../../app/api/[...name]/route")) as never;
  const { getRuntime } = await import("../../../lib/runtime");
  const rt = await getRuntime();
  const now = Date.parse("2026-11-23T09:00:00Z");
  await saveEntries(
    rt.db,
    "run-1",
    [e("2026-11-10", "ran 8 km, legs heavy", ["training", "recovery"]), e("2026-11-11", "slept 6 h", ["sleep"]), e("2026-11-12", "pasta dinner", ["nutrition"]), e("2026-11-13", "slept 8 h, great", ["sleep", "mood"])],
    [null, null, null, null],
    now,
  );
  await setProfileFacts(rt.db, [{ key: "body_weight_kg", value: "72", domain: "nutrition" }], { source: "observer", reason: "stated in a log", runId: "run-1" }, now);
  await recordObservation(rt.db, { id: "run-1-obs1", runId: "run-1", triggers: ["significant_log"], decision: "update", reason: "weight stated", changes: [{ key: "body_weight_kg", from: null, to: "72" }] }, now);
});

afterAll(async () => {
  const { getRuntime } = await import("../../../lib/runtime");
  await (await getRuntime()).close();
});

describe("GET /api/entries", () => {
  const days = async (res: Response) => {
    expect(res.status).toBe(200);
    return ((await res.json()).entries as { day: string }[]).map((x) => x.day);
  };

  it("lists entries newest day first, as LogEntry objects", async () => {
    const res = await entries.GET(get("/api/entries"));
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.entries.map((x: { day: string }) => x.day)).toEqual(["2026-11-13", "2026-11-12", "2026-11-11", "2026-11-10"]);
    expect(body.entries[3]).toEqual({
      id: "run-1-e1",
      runId: "run-1",
      day: "2026-11-10",
      text: "ran 8 km, legs heavy",
      metrics: [],
      domains: ["training", "recovery"],
      significant: null,
      createdAt: "2026-11-23T09:00:00.000Z",
    });
  });

  it("filters by domain, inclusive from/to, and limit", async () => {
    expect(await days(await entries.GET(get("/api/entries?domain=sleep")))).toEqual(["2026-11-13", "2026-11-11"]);
    expect(await days(await entries.GET(get("/api/entries?from=2026-11-11&to=2026-11-12")))).toEqual(["2026-11-12", "2026-11-11"]);
    expect(await days(await entries.GET(get("/api/entries?from=2026-11-13&to=2026-11-13")))).toEqual(["2026-11-13"]);
    expect(await days(await entries.GET(get("/api/entries?domain=sleep&to=2026-11-12")))).toEqual(["2026-11-11"]);
    expect(await days(await entries.GET(get("/api/entries?limit=1")))).toEqual(["2026-11-13"]);
    expect(await days(await entries.GET(get("/api/entries?domain=training&from=2026-12-01")))).toEqual([]);
  });

  it("422 with a clear message for a bad domain, a bad date, from after to, a bad limit or an unknown parameter", async () => {
    await expectError(await entries.GET(get("/api/entries?domain=cooking")), 422, /domain: unknown domain "cooking": use one of training, recovery, sleep, nutrition, mood/);
    await expectError(await entries.GET(get("/api/entries?domain=")), 422, /domain/);
    await expectError(await entries.GET(get("/api/entries?from=2026-13-01")), 422, /from: not a date: "2026-13-01" \(write YYYY-MM-DD/);
    await expectError(await entries.GET(get("/api/entries?to=yesterday")), 422, /to: not a date/);
    await expectError(await entries.GET(get("/api/entries?from=2026-02-30")), 422, /not a date/);
    await expectError(await entries.GET(get("/api/entries?from=2026-11-12&to=2026-11-11")), 422, /from must be on or before to/);
    await expectError(await entries.GET(get("/api/entries?limit=0")), 422, /limit/);
    await expectError(await entries.GET(get("/api/entries?limit=5001")), 422, /limit/);
    await expectError(await entries.GET(get("/api/entries?limit=abc")), 422, /limit/);
    const unknown = await expectError(await entries.GET(get("/api/entries?runId=run-1")), 422, /runId: unknown parameter \(use domain, from, to, limit\)/);
    expect(unknown.code).toBe("invalid");
  });
});

describe("/api/profile", () => {
  it("GET → facts and the observer's decisions", async () => {
    const res = await profile.GET(get("/api/profile"));
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.facts).toEqual([
      { key: "body_weight_kg", value: "72", domain: "nutrition", source: "observer", reason: "stated in a log", runId: "run-1", updatedAt: "2026-11-23T09:00:00.000Z" },
    ]);
    expect(body.observations).toEqual([expect.objectContaining({ id: "run-1-obs1", decision: "update", triggers: ["significant_log"] })]);
    await expectError(await profile.GET(get("/api/profile?x=1")), 422, /x: unknown parameter/);
  });

  it("PUT sets a fact as the person (200 with the fact); the same value again is unchanged", async () => {
    const res = await profile.PUT(put({ key: "body_weight_kg", value: " 71 " }));
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ changed: true, fact: { key: "body_weight_kg", value: "71", domain: "nutrition", source: "user", reason: "edited by the person", runId: null } });
    const again = await (await profile.PUT(put({ key: "body_weight_kg", value: "71" }))).json();
    expect(again).toMatchObject({ changed: false, fact: { value: "71", updatedAt: body.fact.updatedAt } });
    const created = await (await profile.PUT(put({ key: "goal_race", value: "half marathon in March", domain: "training" }))).json();
    expect(created.fact).toMatchObject({ key: "goal_race", domain: "training", source: "user" });
    const facts = (await (await profile.GET(get("/api/profile"))).json()).facts.map((f: { key: string }) => f.key);
    expect(facts).toEqual(["body_weight_kg", "goal_race"]);
  });

  it("PUT rejects bad bodies: 422 for keys, values, domains and extra fields; 400/415 for malformed ones", async () => {
    await expectError(await profile.PUT(put({ key: "Body Weight", value: "72" })), 422, /key: key must be snake_case/);
    await expectError(await profile.PUT(put({ key: "weight", value: "" })), 422, /value: value must not be empty/);
    await expectError(await profile.PUT(put({ key: "weight", value: "x".repeat(501) })), 422, /at most 500/);
    await expectError(await profile.PUT(put({ key: "weight" })), 422, /value is required/);
    await expectError(await profile.PUT(put({ key: "weight", value: 72 })), 422, /value/);
    await expectError(await profile.PUT(put({ key: "weight", value: "72", domain: "cooking" })), 422, /unknown domain/);
    await expectError(await profile.PUT(put({ key: "weight", value: "72", source: "observer" })), 422, /source/);
    await expectError(await profile.PUT(put("{nope")), 400, /malformed JSON/);
    await expectError(await profile.PUT(put("")), 400, /empty/);
    await expectError(await profile.PUT(put("key=x", "application/x-www-form-urlencoded")), 415);
    const keys = (await (await profile.GET(get("/api/profile"))).json()).facts.map((f: { key: string }) => f.key);
    expect(keys).not.toContain("weight");
  });

  it("DELETE ?key= → 204, then 404; a bad or missing key → 422", async () => {
    const res = await profile.DELETE(del("?key=goal_race"));
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
    await expectError(await profile.DELETE(del("?key=goal_race")), 404, /no profile fact "goal_race"/);
    await expectError(await profile.DELETE(del("?key=Not-A-Key")), 422, /snake_case/);
    await expectError(await profile.DELETE(del("")), 422, /key/);
    await expectError(await profile.DELETE(del("?key=body_weight_kg&force=1")), 422, /force: unknown parameter/);
    expect((await (await profile.GET(get("/api/profile"))).json()).facts.map((f: { key: string }) => f.key)).toEqual(["body_weight_kg"]);
  });
});
