// Imported runs are history, not live work: their pending reviews stay out of the
// review queue and its counts; a run recorded as running or waiting is counted as `imported`, not as
// running or waiting (run counts, /api/health, the Prometheus gauge); an export naming a workflow
// this instance does not have is refused with a 400 that names it. SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportRun, importRun } from "../lib/api/run-export";
import { listReviews } from "../lib/api/reviews";
import { listRuns } from "../lib/api/runs";
import { prometheusText } from "../lib/metrics/prometheus";
import type { Runtime } from "../lib/runtime";
import type { ManualClock } from "../lib/engine/clock";
import { inState, swissRuntime, tempDbUrl } from "./helpers";
import { DATABASES, commitItem, opened, runRow } from "./support/databases";

const REQUEST = "Write a TypeScript function that retries a fetch with exponential backoff and jitter";
const HOLDER = Symbol.for("switchyard.runtime");

describe("imported runs on an instance (SQLite)", () => {
  let a: Runtime & { clock: ManualClock };
  let b: Runtime & { clock: ManualClock };
  let liveId: string;
  let importedId: string;
  let doc: Awaited<ReturnType<typeof exportRun>>;

  beforeAll(async () => {
    a = await swissRuntime({ url: tempDbUrl("export-from") });
    const started = await a.engine.start("swiss-army", { request: REQUEST });
    await a.engine.waitFor(started.run.id, inState("HUMAN_REVIEW"), 20_000);
    doc = await exportRun(a, started.run.id);
    expect(doc.run.status).toBe("waiting");
    expect(doc.reviews.filter((r) => r.status === "pending")).toHaveLength(1);
    b = await swissRuntime({ url: tempDbUrl("import-into") });
    // one live run waiting for its review on B, and the imported one
    const live = await b.engine.start("swiss-army", { request: REQUEST });
    liveId = live.run.id;
    await b.engine.waitFor(liveId, inState("HUMAN_REVIEW"), 20_000);
    importedId = (await importRun(b, doc)).id;
    // and an import of the same run recorded as running
    await importRun(b, { ...doc, run: { ...doc.run, status: "running" } }, { asNew: true });
  }, 60_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it("the review queue holds the live run's review only; the imported pending review is still kept (history)", async () => {
    const queue = await listReviews(b, { status: "pending" });
    expect(queue.map((r) => r.runId)).toEqual([liveId]);
    const kept = await listReviews(b, { runId: importedId });
    expect(kept.map((r) => r.status)).toEqual(["pending"]);
    // the runs list does not point the imported run at a review to decide
    const list = await listRuns(b, {});
    expect(list.runs.find((r) => r.id === importedId)).toMatchObject({ status: "waiting", reviewId: null });
    expect(list.runs.find((r) => r.id === liveId)?.reviewId).toBe(queue[0].id);
  });

  it("imported runs recorded as running or waiting are counted as imported, not as running or waiting", async () => {
    const counts = await b.store.countByStatus();
    expect(counts).toMatchObject({ running: 0, waiting: 1, imported: 2 });
    expect((await listRuns(b, {})).counts).toMatchObject({ waiting: 1, imported: 2 });
    const text = await prometheusText(b);
    expect(text).toContain('switchyard_runs{workflow="swiss-army",status="waiting"} 1');
    expect(text).toContain('switchyard_runs{workflow="swiss-army",status="running"} 0');
    expect(text).toContain('switchyard_runs{workflow="swiss-army",status="imported"} 2');
    expect(text).toMatch(/switchyard_reviews_pending\{workflow="swiss-army"\} 1\n/);
  });

  it("a waiting-time alert counts the live run's review only", async () => {
    const rule = await b.alerts.createRule({ workflow: "swiss-army", state: "HUMAN_REVIEW", metric: "waiting", threshold: 10 * 60_000 });
    b.clock.advance(11 * 60_000);
    await b.alerts.evaluateOnce();
    const opened = (await b.alerts.listAlerts({ status: "open" })).filter((x) => x.ruleId === rule.id);
    expect(opened).toHaveLength(1);
    expect(opened[0]!.message).toContain(`run ${liveId.slice(0, 8)} has waited`);
    expect(opened[0]!.message).not.toMatch(/more waiting/);
  });

  it("GET /api/health counts them apart too", async () => {
    (globalThis as Record<symbol, unknown>)[HOLDER] = Promise.resolve(b);
    const health = (await import("../app/api/health/route")) as { GET: (req: Request) => Promise<Response> };
    const res = await health.GET(new Request("http://test/api/health"));
    const body = await res.json();
    expect(body.runs).toMatchObject({ running: 0, waiting: 1, imported: 2 });
  });

  it("an export naming a workflow this instance does not have is refused with a 400 naming it, and nothing is written", async () => {
    (globalThis as Record<symbol, unknown>)[HOLDER] = Promise.resolve(b);
    const route = (await import("../app/api/runs/import/route")) as { POST: (req: Request) => Promise<Response> };
    const before = (await b.store.countRuns({}));
    const bad = { ...doc, run: { ...doc.run, workflow: "tax-returns" } };
    const res = await route.POST(new Request("http://test/api/runs/import?as=new", { method: "POST", body: JSON.stringify(bad), headers: { "content-type": "application/json" } }));
    const body = await res.json();
    expect(res.status, body.error).toBe(400);
    expect(body.error).toMatch(/unknown workflow "tax-returns"/);
    expect(body.code).toBe("unknown_workflow");
    expect(await b.store.countRuns({})).toBe(before);
  });
});

for (const database of DATABASES.slice(0, 2)) {
  describe(`imported runs in the store: ${database.name}`, () => {
    const h = opened(database, "imported runs");
    beforeAll(() => h.open(), 60_000);
    afterAll(() => h.close());
    const T0 = Date.parse("2026-11-26T11:00:00Z");
    const review = (runId: string) => ({ id: `${runId}-review-1`, runId, workflow: "swiss-army", state: "HUMAN_REVIEW", kind: "approval", prompt: "Decide", payload: {}, status: "pending" as const, decision: null, feedback: null, reviewer: null, createdAt: T0, decidedAt: null, seq: 1 });

    h.it("pending reviews leave imported runs out; counts put open imported runs apart", async (db) => {
      const out = await db.store.commit([
        commitItem(runRow("live-1", T0, { status: "waiting" }), null, { reviewsOpen: [review("live-1")] }),
        commitItem(runRow("imported-1", T0, { status: "waiting" }), null, { reviewsOpen: [review("imported-1")] }),
        commitItem(runRow("imported-2", T0, { status: "running" }), null),
        commitItem(runRow("imported-3", T0, { status: "completed", finishedAt: T0 }), null),
        commitItem(runRow("IMPORTED-4", T0, { status: "running" }), null), // not the prefix: a live run
      ]);
      expect(out).toEqual(["ok", "ok", "ok", "ok", "ok"]);
      expect((await db.store.listReviews({ status: "pending" })).map((r) => r.runId)).toEqual(["live-1"]);
      expect((await db.store.listReviews({ runId: "imported-1" })).map((r) => r.status)).toEqual(["pending"]);
      expect(await db.store.countByStatus()).toEqual({ running: 1, waiting: 1, completed: 1, failed: 0, aborted: 0, imported: 2, replay: 0 });
      expect(await db.store.countByStatus("swiss-army")).toEqual({ running: 1, waiting: 1, completed: 1, failed: 0, aborted: 0, imported: 2, replay: 0 });
      expect(await prometheusText(db)).toContain('switchyard_runs{workflow="swiss-army",status="imported"} 2');
    });
  });
}
