// Run export/import: a loop run driven on instance A is exported as one JSON
// document (GET /api/runs/{id}/export) and imported into instance B (POST /api/runs/import) as a
// read-only copy: same history, reviews, timers, artifacts and model calls; never resumed nor
// advanced by B's engine; 409 on a second import; every bad document a 4xx that leaves B unchanged.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateDatabase } from "../lib/db/migrations";
import { ManualClock } from "../lib/engine/clock";
import { exportRun, exportText, importRun, IMPORT_LIMITS, readLargeJson, type RunExport } from "../lib/api/run-export";
import type { Runtime } from "../lib/runtime";
import { flush, inState, loopRuntime, tempDbUrl } from "./helpers";
import { WordModel } from "./support/word-model";
import { instantLoopEffects } from "./fixtures/workflows/loop/effects";
import type { WorkflowEffects } from "../lib/engine/engine";
import { Engine } from "../lib/engine/engine";
import type { ReviewRow, TimerRow, TransitionRow } from "../lib/engine/store/types";
import { findWorkflow } from "../lib/machines/registry";
import { DATABASES, commitItem, modelCall, opened, runRow, type TestDb } from "./support/databases";

const REQUEST = "Summarise the release notes of the last three versions";
const urlB = tempDbUrl("instance-b");
process.env.DATABASE_URL = urlB;

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;
let importRoute: { POST: (req: Request) => Promise<Response> };
let exportRoute: { GET: Handler };
let eventsRoute: { POST: Handler };
let abortRoute: { POST: Handler };
let decisionRoute: { POST: Handler };
let runRoute: { GET: Handler };

let a: Runtime & { clock: ManualClock };
let b: Runtime;
/** run decided on A (waiting in IDLE, with its idle timer), and a run left pending in REVIEW */
let decidedId: string;
let pendingId: string;
let docDecided: RunExport;
let docPending: RunExport;

const BINARY = Buffer.from([0xff, 0xfe, 0x00, 0x41, 0x80]);
const params = (p: Record<string, string>) => ({ params: Promise.resolve(p) });
const post = (path: string, body: unknown, type = "application/json") =>
  new Request(`http://test${path}`, { method: "POST", body: typeof body === "string" ? body : JSON.stringify(body), headers: type ? { "content-type": type } : {} });
const importDoc = (doc: unknown, qs = "") => importRoute.POST(post(`/api/runs/import${qs}`, doc));
const clone = <T>(x: T): T => structuredClone(x);

async function expectError(res: Response, status: number, text?: RegExp) {
  expect(res.status).toBe(status);
  const body = await res.json();
  expect(typeof body.error).toBe("string");
  if (text) expect(body.error).toMatch(text);
  return body;
}

const TABLES = ["Run", "Transition", "Review", "Timer", "Artifact", "ModelCall"] as const;
function counts(rt: Runtime): Record<string, number> {
  return Object.fromEntries(TABLES.map((t) => [t, Number((rt.sqlite!.db.prepare(`SELECT COUNT(*) AS n FROM "${t}"`).get() as { n: number | bigint }).n)]));
}

/** An export with the parts that legitimately differ between instances taken out. */
function normalized(doc: RunExport) {
  return {
    run: { ...doc.run, id: "*", parentId: "*" },
    transitions: doc.transitions.map((t) => ({ ...t, runId: "*" })),
    reviews: doc.reviews.map((r) => ({ ...r, id: "*", runId: "*" })),
    timers: doc.timers.map((t) => ({ ...t, runId: "*" })),
    artifacts: doc.artifacts,
    usage: doc.usage.map((u) => ({ ...u, id: "*", key: "*", runId: "*" })),
    children: doc.children,
  };
}

beforeAll(async () => {
  // instance A: its own database and clock; two loop runs, WORK answered by a model (its usage rows are exported)
  a = await loopRuntime({ url: tempDbUrl("instance-a"), model: new WordModel() });
  const first = await a.engine.start("loop", { request: REQUEST });
  decidedId = first.run.id;
  const review = await a.engine.waitFor(decidedId, inState("REVIEW"));
  await a.engine.decide(review.reviewId!, { decision: "approve", feedback: "looks right", reviewer: "ana" });
  await a.engine.waitFor(decidedId, (r) => r.state.includes("IDLE") && r.status === "waiting");
  const second = await a.engine.start("loop", { request: REQUEST });
  pendingId = second.run.id;
  await a.engine.waitFor(pendingId, inState("REVIEW"));
  // besides its cycle files, give the decided run a text and a binary artifact
  const put = a.sqlite!.db.prepare(`INSERT INTO "Artifact" ("runId","name","content","size","updatedAt") VALUES (?,?,?,?,?)`);
  put.run(decidedId, "notes/summary.md", "# Summary\n\nRetry with backoff — done ✓\n", Buffer.byteLength("# Summary\n\nRetry with backoff — done ✓\n"), "2026-01-01T00:00:01.000+00:00");
  put.run(decidedId, "bin/blob.dat", BINARY, BINARY.length, "2026-01-01T00:00:02.000+00:00");
  docDecided = await exportRun(a, decidedId);
  docPending = await exportRun(a, pendingId);

  // instance B: the process-wide runtime behind the route handlers
  await migrateDatabase(urlB);
  importRoute = (await import("../app/api/runs/import/route")) as never;
  exportRoute = (await import("../app/api/runs/[id]/export/route")) as never;
  eventsRoute = (await import("../app/api/runs/[id]/events/route")) as never;
  abortRoute = (await import("../app/api/runs/[id]/abort/route")) as never;
  decisionRoute = (await import("../app/api/reviews/[id]/decision/route")) as never;
  runRoute = (await import("../app/api/runs/[id]/route")) as never;
  const { getRuntime } = await import("../lib/runtime");
  b = await getRuntime();
});

afterAll(async () => {
  await a?.close();
  await b?.close();
});

describe("export", () => {
  it("is one document: format tag, version, the run with parsed JSON columns, its history, reviews, timers, artifacts, model calls", () => {
    const d = docDecided;
    expect(Object.keys(d)).toEqual(["format", "version", "exportedAt", "run", "transitions", "reviews", "snapshots", "timers", "artifacts", "usage", "children"]);
    expect(d).toMatchObject({ format: "switchyard-run", version: 1, exportedAt: new Date(a.clock.now()).toISOString() });
    expect(Object.keys(d.run)).toEqual(["id", "workflow", "status", "state", "snapshot", "context", "input", "output", "error", "entered", "version", "seq", "parentId", "forkOf", "forkSeq", "createdAt", "updatedAt", "finishedAt", "name"]);
    // one snapshot per commit, the last one the run as it stands
    expect(d.snapshots!.length).toBeGreaterThan(3);
    expect(d.snapshots!.at(-1)).toMatchObject({ seq: d.run.seq, context: d.run.context });
    expect(d.run).toMatchObject({ id: decidedId, workflow: "loop", status: "waiting", state: ["IDLE"], input: { request: REQUEST } });
    expect(typeof d.run.context).toBe("object");
    expect(d.transitions.map((t) => t.seq)).toEqual(d.transitions.map((_, i) => i + 1));
    expect(d.run.seq).toBe(d.transitions.length);
    expect(d.transitions.at(-1)).toMatchObject({ runId: decidedId, from: ["REVIEW"], to: ["IDLE"], reason: "User approves" });
    expect(d.reviews).toHaveLength(1);
    expect(d.reviews[0]).toMatchObject({ runId: decidedId, status: "decided", decision: "approve", feedback: "looks right", reviewer: "ana" });
    expect(d.timers.length).toBeGreaterThan(0); // IDLE's idle-analysis timer
    // the run's own file for its decided cycle (the loop keeps cycles/<n>.md), and the two put by hand
    expect(d.artifacts.map((x) => x.name)).toEqual(["bin/blob.dat", "cycles/1.md", "notes/summary.md"]);
    expect(d.artifacts.find((x) => x.name === "cycles/1.md")!.content).toContain("# Request 1: approved");
    expect(d.artifacts.filter((x) => !x.name.startsWith("cycles/"))).toEqual([
      { name: "bin/blob.dat", encoding: "base64", content: BINARY.toString("base64"), size: 5, updatedAt: "2026-01-01T00:00:02.000Z" },
      { name: "notes/summary.md", encoding: "utf8", content: "# Summary\n\nRetry with backoff — done ✓\n", size: 43, updatedAt: "2026-01-01T00:00:01.000Z" },
    ]);
    expect(d.usage.length).toBe(Number((a.sqlite!.db.prepare(`SELECT COUNT(*) AS n FROM "ModelCall" WHERE "runId" = ?`).get(decidedId) as { n: number | bigint }).n));
    expect(d.usage.length).toBeGreaterThan(0);
    expect(d.usage[0]).toMatchObject({ runId: decidedId, adapter: "word-model @ test", ok: true });
    expect(d.children).toEqual([]);
    expect(docPending.reviews).toMatchObject([{ status: "pending", state: "REVIEW" }]);
  });

  it("404 for an unknown run", async () => {
    await expect(exportRun(a, "no-such-run")).rejects.toMatchObject({ status: 404 });
  });
});

describe("import into another instance", () => {
  let importedId: string;

  it("201 with the new id (imported-<original>), the original id and what was stored", async () => {
    const before = counts(b);
    const res = await importDoc(docDecided);
    expect(res.status).toBe(201);
    const body = await res.json();
    importedId = body.id;
    expect(body).toEqual({
      id: `imported-${decidedId}`,
      originalId: decidedId,
      transitions: docDecided.transitions.length,
      reviews: 1,
      timers: docDecided.timers.length,
      artifacts: 3,
      usage: docDecided.usage.length,
    });
    expect(res.headers.get("location")).toBe(`/api/runs/${importedId}`);
    const after = counts(b);
    expect(after.Run - before.Run).toBe(1);
    expect(after.Transition - before.Transition).toBe(docDecided.transitions.length);
    expect(after.Artifact - before.Artifact).toBe(3);
  });

  it("stores the run as it was: row, context, transitions, reviews, timers, artifacts and model calls equal the original's (except ids)", async () => {
    const [orig, copy] = await Promise.all([a.store.getRun(decidedId), b.store.getRun(importedId)]);
    expect({ ...copy, id: "*" }).toEqual({ ...orig, id: "*" });
    const strip = <T extends { runId: string }>(xs: T[]) => xs.map((x) => ({ ...x, runId: "*" }));
    expect(strip(await b.store.transitions(importedId))).toEqual(strip(await a.store.transitions(decidedId)));
    expect(strip(await b.store.timers(importedId))).toEqual(strip(await a.store.timers(decidedId)));
    const reviews = await b.store.listReviews({ runId: importedId });
    expect(reviews.map((r) => ({ ...r, id: "*", runId: "*" }))).toEqual((await a.store.listReviews({ runId: decidedId })).map((r) => ({ ...r, id: "*", runId: "*" })));
    expect(reviews[0].id).toBe(`${importedId}-review-1`);
    expect(await b.store.artifacts(importedId)).toEqual(await a.store.artifacts(decidedId));
    expect(await b.store.artifact(importedId, "notes/summary.md")).toBe("# Summary\n\nRetry with backoff — done ✓\n");
    const blob = b.sqlite!.db.prepare(`SELECT "content" FROM "Artifact" WHERE "runId" = ? AND "name" = ?`).get(importedId, "bin/blob.dat") as { content: Buffer };
    expect(Buffer.compare(blob.content, BINARY)).toBe(0);
    const usage = b.sqlite!.db.prepare(`SELECT "key" FROM "ModelCall" WHERE "runId" = ?`).all(importedId) as { key: string | null }[];
    expect(usage).toHaveLength(docDecided.usage.length);
    expect(usage.every((u) => u.key === null)).toBe(true); // journal keys dropped: never replayed
  });

  it("an imported run can be forked: the fork is an ordinary run of B, started from the imported snapshot", async () => {
    const seq = docDecided.reviews[0].seq;
    const fork = await b.engine.fork(importedId, { seq });
    expect(fork.run).toMatchObject({ forkOf: importedId, forkSeq: seq, state: ["REVIEW"], status: "waiting" });
    const [review] = await b.store.listReviews({ runId: fork.run.id, status: "pending" });
    const decided = await b.engine.decide(review.id, { decision: "reject", feedback: "try again" });
    expect(decided.run.state).toEqual(["IDLE"]);
    // the imported run itself is unchanged
    expect((await b.store.getRun(importedId))!.seq).toBe(docDecided.run.seq);
    // (stop the fork: the read-only checks below count B's live runs)
    expect((await b.engine.abort(fork.run.id)).run.status).toBe("aborted");
    expect(b.engine.size).toBe(0);
  });

  it("exports again from B (?download=1 as run-<id>.json) to the same document, ids aside", async () => {
    const res = await exportRoute.GET(new Request(`http://test/api/runs/${importedId}/export?download=1`), params({ id: importedId }));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/application\/json/);
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="run-${importedId}.json"`);
    const again = (await res.json()) as RunExport;
    expect(again.run.id).toBe(importedId);
    expect(normalized(again)).toEqual(normalized(docDecided));
    const plain = await exportRoute.GET(new Request(`http://test/api/runs/${importedId}/export`), params({ id: importedId }));
    expect(plain.headers.get("content-disposition")).toBeNull();
    await expectError(await exportRoute.GET(new Request("http://test/api/runs/nope/export"), params({ id: "nope" })), 404, /not found/);
    await expectError(await exportRoute.GET(new Request(`http://test/api/runs/${importedId}/export?x=1`), params({ id: importedId })), 422, /x/);
  });

  it("the export is deterministic: the same run exported twice is the same text", async () => {
    const one = await (await exportRoute.GET(new Request(`http://test/api/runs/${importedId}/export`), params({ id: importedId }))).text();
    const two = await (await exportRoute.GET(new Request(`http://test/api/runs/${importedId}/export`), params({ id: importedId }))).text();
    expect(one.replace(/"exportedAt": "[^"]+"/, "")).toBe(two.replace(/"exportedAt": "[^"]+"/, ""));
  });

  it("is read-only: not resumed by B's engine, nor by a new engine on B's database, even past its timers", async () => {
    expect(b.engine.size).toBe(0);
    const before = await b.store.getRun(importedId);
    const clock = new ManualClock();
    const again = await loopRuntime({ url: urlB, clock });
    try {
      expect(again.engine.size).toBe(0);
      clock.advance(60 * 60_000); // an hour: the idle-analysis timer would have fired
      await flush(10);
      expect(await again.store.getRun(importedId)).toEqual(before);
      expect(await again.store.transitions(importedId)).toHaveLength(docDecided.transitions.length);
    } finally {
      await again.close();
    }
    const view = await (await runRoute.GET(new Request(`http://test/api/runs/${importedId}`), params({ id: importedId }))).json();
    expect(view).toMatchObject({ id: importedId, status: "waiting", accepted: [] });
  });

  it("409 for events, abort and decisions on an imported run (imported runs are read-only)", async () => {
    const res = await eventsRoute.POST(post(`/api/runs/${importedId}/events`, { type: "SUBMIT_REQUEST", request: REQUEST }), params({ id: importedId }));
    await expectError(res, 409, /imported runs are read-only/);
    await expectError(await abortRoute.POST(post(`/api/runs/${importedId}/abort`, {}), params({ id: importedId })), 409, /imported runs are read-only/);
    // the decided review: already decided
    await expectError(await decisionRoute.POST(post(`/api/reviews/${importedId}-review-1/decision`, { decision: "reject" }), params({ id: `${importedId}-review-1` })), 409, /already decided/);
    // a pending review of an imported run is stored as pending, but cannot be decided
    const res2 = await importDoc(docPending);
    expect(res2.status).toBe(201);
    const { id } = await res2.json();
    const [review] = await b.store.listReviews({ runId: id });
    expect(review).toMatchObject({ status: "pending", state: "REVIEW" });
    const before = await b.store.getRun(id);
    await expectError(await decisionRoute.POST(post(`/api/reviews/${review.id}/decision`, { decision: "approve" }), params({ id: review.id })), 409, /imported runs are read-only/);
    await expect(b.engine.decide(review.id, { decision: "approve" })).rejects.toMatchObject({ status: 409 });
    expect(await b.store.getRun(id)).toEqual(before);
    expect((await b.store.getReview(review.id))?.status).toBe("pending");
    expect(b.engine.size).toBe(0);
  });

  it("409 when imported twice; ?as=new imports another copy under imported-<uuid>", async () => {
    const before = counts(b);
    await expectError(await importDoc(docDecided), 409, /already exists.*\?as=new/);
    expect(counts(b)).toEqual(before);
    const res = await importDoc(docDecided, "?as=new");
    expect(res.status).toBe(201);
    const body = await res.json();
    expect(body.id).toMatch(/^imported-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(body.originalId).toBe(decidedId);
    expect((await b.store.transitions(body.id)).map((t) => ({ ...t, runId: "*" }))).toEqual((await a.store.transitions(decidedId)).map((t) => ({ ...t, runId: "*" })));
    expect((await b.store.listReviews({ runId: body.id }))[0].id).toBe(`${body.id}-review-1`);
    await expectError(await eventsRoute.POST(post(`/api/runs/${body.id}/events`, { type: "SUBMIT_REQUEST" }), params({ id: body.id })), 409, /read-only/);
    await expectError(await importDoc(docDecided, "?as=copy"), 422, /as/);
  });

  it("an imported run answers the runs list's filters as the original did: waiting since, retrying, failed in", async () => {
    const ids = async (q: Parameters<Runtime["store"]["listRuns"]>[0]) => (await b.store.listRuns(q)).map((r) => r.id);
    const imported = async (doc: RunExport) => {
      const res = await importDoc(doc, "?as=new");
      expect(res.status).toBe(201);
      return (await res.json()).id as string;
    };
    // waiting for a person: since its pending review opened
    const waiting = await imported(docPending);
    const [orig, copy] = await Promise.all([a.store.getRun(pendingId), b.store.getRun(waiting)]);
    expect(orig!.waitingSince).not.toBeNull();
    expect(copy!.waitingSince).toBe(orig!.waitingSince);
    expect(await ids({ waitingSince: orig!.waitingSince! })).toContain(waiting);
    // a transition whose reason is a retry: counted, so the run is "retrying" while it waits
    const retried = clone(docPending);
    retried.transitions[1] = { ...retried.transitions[1], reason: "retry 1 of 3 after a timeout" };
    const retrying = await imported(retried);
    expect((await b.store.getRun(retrying))!.retries).toBe(1);
    expect(await ids({ retrying: true })).toContain(retrying);
    expect(await ids({ retrying: true })).not.toContain(waiting);
    // failed: where, from the error's state and the states it ended in
    const failed = clone(docDecided);
    failed.run.status = "failed";
    failed.run.error = { message: "the model timed out", category: "critical", state: "WORK" };
    const failedId = await imported(failed);
    expect((await b.store.getRun(failedId))!.failedStates).toBe(`|WORK|${failed.run.state.join("|")}|`);
    expect(await ids({ failedIn: "WORK" })).toEqual([failedId]);
  });
});

describe("a bad document is a 4xx with a message and leaves B unchanged", () => {
  const cases: [string, () => Promise<Response>, number, RegExp][] = [
    [
      "a gap in seq",
      () => {
        const d = clone(docDecided);
        d.transitions.splice(2, 1);
        d.run.seq = d.transitions.length;
        return importDoc(d, "?as=new");
      },
      422,
      /transitions\.2\.seq: expected seq 3, got 4/,
    ],
    [
      "a duplicate seq",
      () => {
        const d = clone(docDecided);
        d.transitions[3] = { ...d.transitions[3], seq: 3 };
        return importDoc(d, "?as=new");
      },
      422,
      /transitions\.3\.seq: expected seq 4, got 3/,
    ],
    [
      "run.seq not matching the transitions",
      () => {
        const d = clone(docDecided);
        d.run.seq += 1;
        return importDoc(d, "?as=new");
      },
      422,
      /run\.seq: is \d+ but the export has \d+ transitions/,
    ],
    [
      "a transition of another run",
      () => {
        const d = clone(docDecided);
        d.transitions[1].runId = "someone-else";
        return importDoc(d, "?as=new");
      },
      422,
      /transitions\.1\.runId: belongs to run "someone-else"/,
    ],
    [
      "a review of another run",
      () => {
        const d = clone(docDecided);
        d.reviews[0].runId = "someone-else";
        return importDoc(d, "?as=new");
      },
      422,
      /reviews\.0\.runId/,
    ],
    [
      "a timer of another run",
      () => {
        const d = clone(docDecided);
        d.timers[0].runId = "someone-else";
        return importDoc(d, "?as=new");
      },
      422,
      /timers\.0\.runId/,
    ],
    ["a wrong format tag", () => importDoc({ ...docDecided, format: "other-tool" }), 422, /not a Switchyard run export: format must be "switchyard-run" \(got "other-tool"\)/],
    ["an unknown version", () => importDoc({ ...docDecided, version: 2 }), 422, /unsupported export version 2/],
    ["an unknown key", () => importDoc({ ...docDecided, extra: true }), 422, /extra/],
    [
      "a string beyond its limit",
      () => {
        const d = clone(docDecided);
        d.transitions[0].reason = "x".repeat(IMPORT_LIMITS.textChars + 1);
        return importDoc(d, "?as=new");
      },
      422,
      /transitions\.0\.reason/,
    ],
    [
      "a bad run id",
      () => {
        const d = clone(docDecided);
        d.run.id = "../../etc";
        return importDoc(d, "?as=new");
      },
      422,
      /run\.id: not a run id/,
    ],
    [
      "a bad date",
      () => {
        const d = clone(docDecided);
        d.run.createdAt = "yesterday";
        return importDoc(d, "?as=new");
      },
      422,
      /run\.createdAt: not an ISO 8601 date-time/,
    ],
    [
      "broken base64",
      () => {
        const d = clone(docDecided);
        d.artifacts[0].content = "not base64!";
        return importDoc(d, "?as=new");
      },
      422,
      /artifacts\.0\.content: is not valid base64/,
    ],
    [
      "duplicate artifact names",
      () => {
        const d = clone(docDecided);
        d.artifacts[1].name = d.artifacts[0].name;
        return importDoc(d, "?as=new");
      },
      422,
      /duplicate artifact name/,
    ],
    ["not JSON", () => importRoute.POST(post("/api/runs/import", "{ this is not json")), 400, /malformed JSON/],
    ["an empty body", () => importRoute.POST(post("/api/runs/import", "")), 400, /empty/],
    ["a JSON array", () => importDoc([docDecided]), 422, /expected a JSON object/],
    ["a non-JSON content type", () => importRoute.POST(post("/api/runs/import", JSON.stringify(docDecided), "text/plain")), 415, /content-type/],
    ["a body over 50 MB", () => importRoute.POST(post("/api/runs/import", " ".repeat(IMPORT_LIMITS.bodyBytes + 1))), 413, /larger than 52428800 bytes/],
  ];

  for (const [what, send, status, message] of cases) {
    it(`${what} → ${status}`, async () => {
      const before = counts(b);
      await expectError(await send(), status, message);
      expect(counts(b)).toEqual(before);
    });
  }

  it("a write that fails half-way rolls the whole import back (one transaction)", async () => {
    const d = clone(docPending);
    d.run.id = "half-way";
    for (const x of [...d.transitions, ...d.reviews, ...d.timers, ...d.usage]) x.runId = "half-way";
    // a review id the import will derive is already taken: the run and transitions are written first, then the review fails
    b.sqlite!.db
      .prepare(`INSERT INTO "Review" ("id","runId","workflow","state","kind","prompt","payload","status","createdAt","seq") VALUES (?,?,?,?,?,?,?,?,?,?)`)
      .run("imported-half-way-review-1", "elsewhere", "loop", "REVIEW", "approval", "p", "{}", "cancelled", "2026-01-01T00:00:00.000+00:00", 1);
    const before = counts(b);
    await expectError(await importDoc(d), 409, /could not be imported/);
    expect(counts(b)).toEqual(before);
    expect(await b.store.getRun("imported-half-way")).toBeNull();
  });

  it("readLargeJson stops reading at its limit", async () => {
    await expect(readLargeJson(post("/x", JSON.stringify({ a: "x".repeat(2_000) })), 1_000)).rejects.toMatchObject({ status: 413 });
    expect(await readLargeJson(post("/x", JSON.stringify({ a: 1 })), 1_000)).toEqual({ a: 1 });
  });

  it("importRun works without HTTP too, and validates the same way", async () => {
    await expect(importRun(b, { ...docDecided, transitions: [] })).rejects.toMatchObject({ status: 422, message: expect.stringMatching(/run\.seq/) });
  });
});

// ---------------------------------------------------------------------------- SQLite and PostgreSQL
// The same run written through each database's run store (every table an export reads, names and
// ids whose order depends on the collation), exported, imported back and exported again: the same
// document on every database, and the same document after the round trip (ids aside).

const E0 = Date.UTC(2026, 10, 2, 8, 30, 0, 250);
const TEXT = "# Summary\n\nRetry with backoff — done ✓\n";
const exports = new Map<string, RunExport>();

async function seedExport(db: TestDb): Promise<void> {
  const tr = (seq: number, from: string[], to: string[], over: Partial<TransitionRow> = {}): TransitionRow => ({ runId: "exp-1", seq, from, to, event: `EV_${seq}`, reason: `step ${seq} ✓`, at: E0 + seq * 1_000, durationMs: seq * 7, payload: { seq, note: "ünï" }, ...over });
  const timer = (id: string, dueAt: number, seq: number): TimerRow => ({ runId: "exp-1", id, dueAt, event: { type: `after.${id}` }, seq });
  const review = (id: string, over: Partial<ReviewRow> = {}): ReviewRow => ({ id, runId: "exp-1", workflow: "loop", state: "REVIEW", kind: "approval", prompt: "Decide ✓", payload: { id }, status: "pending", decision: null, feedback: null, reviewer: null, createdAt: E0 + 3_000, decidedAt: null, seq: 3, ...over });
  const first = runRow("exp-1", E0, { status: "waiting", state: ["REVIEW"], seq: 3, version: 1, updatedAt: E0 + 3_000, context: { answer: 42, text: "ünïcødé ✓", nested: { a: [1, null, "x"] } } });
  const timers = [timer("b-timer", E0 + 60_000, 3), timer("B-timer", E0 + 60_000, 3), timer("_timer", E0 + 90_000, 2)];
  expect(
    await db.store.commit([
      commitItem(first, null, {
        transitions: [tr(1, [], ["IDLE"], { payload: null }), tr(2, ["IDLE"], ["WORK"]), tr(3, ["WORK"], ["REVIEW"])],
        timersSet: timers,
        timers,
        reviewsOpen: [review("rev-B"), review("rev-a"), review("rev-_", { seq: 2, createdAt: E0 + 2_000 })],
        artifacts: [
          { name: "notes/summary.md", content: TEXT, mode: "put" },
          { name: "logs/run.log", content: "one\n", mode: "append" },
          { name: "B.md", content: "B", mode: "put" },
          { name: "_a.md", content: "_", mode: "put" },
          { name: "a b.md", content: "", mode: "put" },
        ],
      }),
    ]),
  ).toEqual(["ok"]);
  const done = { ...first, status: "completed" as const, state: ["DONE"], seq: 4, version: 2, updatedAt: E0 + 4_000, finishedAt: E0 + 4_000, output: { text: "the answer ✓" } };
  expect(
    await db.store.commit([
      commitItem(done, 1, {
        transitions: [tr(4, ["REVIEW"], ["DONE"], { reason: "User approves" })],
        reviewsClose: [{ id: "rev-B", status: "decided", decision: "approve", feedback: "looks right", reviewer: "ana", decidedAt: E0 + 3_500 }, { id: "rev-a", status: "cancelled", decision: null, feedback: null, reviewer: null, decidedAt: E0 + 4_000 }],
        timersClear: ["_timer"],
        timers: timers.slice(0, 2),
        artifacts: [{ name: "logs/run.log", content: "two\n", mode: "append" }],
      }),
      commitItem(runRow("exp-child-B", E0 + 5_000, { parentId: "exp-1" }), null),
      commitItem(runRow("exp-child-a", E0 + 5_000, { parentId: "exp-1" }), null),
      commitItem(runRow("exp-child-_", E0 + 4_500, { parentId: "exp-1" }), null),
    ]),
  ).toEqual(["ok", "ok", "ok", "ok"]);
  await modelCall(db, { id: "mc-B", runId: "exp-1", state: "WORK", key: "k-1:execute", prompt: 120, completion: 30, at: E0 + 2_500, latencyMs: 17 });
  await modelCall(db, { id: "mc-a", runId: "exp-1", state: "WORK", ok: false, errorCategory: "TIMEOUT", at: E0 + 2_500 });
  await modelCall(db, { id: "mc-_", runId: "exp-1", state: null, prompt: 3, at: E0 + 1_500 });
  await modelCall(db, { id: "mc-other", runId: "exp-child-a", prompt: 1, at: E0 });
}

for (const database of DATABASES) {
  describe(`export and import on ${database.name}`, () => {
    const h = opened(database, "run export");
    const clock = new ManualClock(E0 + 86_400_000);
    let ports: { store: TestDb["store"]; clock: ManualClock };
    beforeAll(async () => {
      const db = await h.open();
      if (!db) return;
      ports = { store: db.store, clock };
      await seedExport(db);
    }, 60_000);
    afterAll(() => h.close());

    h.it("exports every table of the run, text sorted by bytes", async () => {
      const d = await exportRun(ports, "exp-1");
      exports.set(database.name, d);
      expect(d).toMatchObject({ format: "switchyard-run", version: 1, exportedAt: new Date(clock.now()).toISOString() });
      expect(d.run).toEqual({
        id: "exp-1",
        workflow: "loop",
        status: "completed",
        state: ["DONE"],
        snapshot: { value: "WORK", status: "active" },
        context: { answer: 42, text: "ünïcødé ✓", nested: { a: [1, null, "x"] } },
        input: { request: "input of exp-1" },
        output: { text: "the answer ✓" },
        error: null,
        entered: { WORK: E0 },
        version: 2,
        seq: 4,
        parentId: null,
        forkOf: null,
        forkSeq: null,
        createdAt: new Date(E0).toISOString(),
        updatedAt: new Date(E0 + 4_000).toISOString(),
        finishedAt: new Date(E0 + 4_000).toISOString(),
        name: null,
      });
      expect(d.transitions.map((t) => [t.seq, t.from, t.to, t.at, t.durationMs, t.payload])).toEqual([
        [1, [], ["IDLE"], new Date(E0 + 1_000).toISOString(), 7, null],
        [2, ["IDLE"], ["WORK"], new Date(E0 + 2_000).toISOString(), 14, { seq: 2, note: "ünï" }],
        [3, ["WORK"], ["REVIEW"], new Date(E0 + 3_000).toISOString(), 21, { seq: 3, note: "ünï" }],
        [4, ["REVIEW"], ["DONE"], new Date(E0 + 4_000).toISOString(), 28, { seq: 4, note: "ünï" }],
      ]);
      expect(d.reviews.map((r) => [r.id, r.status, r.decision, r.feedback, r.reviewer, r.decidedAt])).toEqual([
        ["rev-_", "pending", null, null, null, null],
        ["rev-B", "decided", "approve", "looks right", "ana", new Date(E0 + 3_500).toISOString()],
        ["rev-a", "cancelled", null, null, null, new Date(E0 + 4_000).toISOString()],
      ]);
      expect(d.snapshots!.map((x) => [x.seq, x.first, x.at, x.timers.map((t) => t.id)])).toEqual([
        [3, 1, new Date(E0 + 3_000).toISOString(), ["b-timer", "B-timer", "_timer"]],
        [4, 4, new Date(E0 + 4_000).toISOString(), ["b-timer", "B-timer"]],
      ]);
      expect(d.timers).toEqual([
        { runId: "exp-1", id: "B-timer", dueAt: new Date(E0 + 60_000).toISOString(), event: { type: "after.B-timer" }, seq: 3 },
        { runId: "exp-1", id: "b-timer", dueAt: new Date(E0 + 60_000).toISOString(), event: { type: "after.b-timer" }, seq: 3 },
      ]);
      expect(d.artifacts).toEqual([
        { name: "B.md", encoding: "utf8", content: "B", size: 1, updatedAt: new Date(E0 + 3_000).toISOString() },
        { name: "_a.md", encoding: "utf8", content: "_", size: 1, updatedAt: new Date(E0 + 3_000).toISOString() },
        { name: "a b.md", encoding: "utf8", content: "", size: 0, updatedAt: new Date(E0 + 3_000).toISOString() },
        { name: "logs/run.log", encoding: "utf8", content: "one\ntwo\n", size: 8, updatedAt: new Date(E0 + 4_000).toISOString() },
        { name: "notes/summary.md", encoding: "utf8", content: TEXT, size: Buffer.byteLength(TEXT), updatedAt: new Date(E0 + 3_000).toISOString() },
      ]);
      expect(d.usage.map((u) => [u.id, u.key, u.state, u.promptTokens, u.completionTokens, u.estimated, u.latencyMs, u.ok, u.errorCategory, u.output, u.createdAt])).toEqual([
        ["mc-_", null, null, 3, 0, false, 5, true, null, "the reply", new Date(E0 + 1_500).toISOString()],
        ["mc-B", "k-1:execute", "WORK", 120, 30, false, 17, true, null, "the reply", new Date(E0 + 2_500).toISOString()],
        ["mc-a", null, "WORK", 0, 0, false, 5, false, "TIMEOUT", null, new Date(E0 + 2_500).toISOString()],
      ]);
      expect(d.children).toEqual(["exp-child-_", "exp-child-B", "exp-child-a"]);
      await expect(exportRun(ports, "no-such-run")).rejects.toMatchObject({ status: 404 });
    });

    h.it("imports back, read-only rows equal to the original's, and exports the same document again (ids aside)", async (db) => {
      const doc = exports.get(database.name)!;
      const before = await Promise.all(["Run", "Transition", "Review", "Snapshot", "Timer", "Artifact", "ModelCall"].map((t) => db.count(t)));
      const out = await importRun(ports, doc);
      expect(out).toEqual({ id: "imported-exp-1", originalId: "exp-1", transitions: 4, reviews: 3, timers: 2, artifacts: 5, usage: 3 });
      const after = await Promise.all(["Run", "Transition", "Review", "Snapshot", "Timer", "Artifact", "ModelCall"].map((t) => db.count(t)));
      expect(after.map((n, i) => n - before[i])).toEqual([1, 4, 3, 2, 2, 5, 3]);
      const [orig, copy] = await Promise.all([db.store.getRun("exp-1"), db.store.getRun(out.id)]);
      expect({ ...copy, id: "*" }).toEqual({ ...orig, id: "*" });
      const strip = <T extends { runId: string }>(xs: T[]) => xs.map((x) => ({ ...x, runId: "*" }));
      expect(strip(await db.store.transitions(out.id))).toEqual(strip(await db.store.transitions("exp-1")));
      // (the store orders timers by dueAt only: two due at once come in either order)
      const byId = <T extends { id: string }>(xs: T[]) => [...xs].sort((a, b) => (a.id < b.id ? -1 : 1));
      expect(byId(strip(await db.store.timers(out.id)))).toEqual(byId(strip(await db.store.timers("exp-1"))));
      expect(await db.store.snapshotAt(out.id, 2)).toMatchObject({ seq: 3, first: 1 });
      expect(await db.store.artifacts(out.id)).toEqual(await db.store.artifacts("exp-1"));
      expect(await db.store.artifact(out.id, "logs/run.log")).toBe("one\ntwo\n");
      expect((await db.store.listReviews({ runId: out.id })).map((r) => r.id).sort()).toEqual(["imported-exp-1-review-1", "imported-exp-1-review-2", "imported-exp-1-review-3"]);
      expect((await db.sql(`SELECT "key" FROM "ModelCall" WHERE "runId" = ?`, [out.id])).rows.every((r) => r.key === null)).toBe(true);
      const again = await exportRun(ports, out.id);
      expect(again.run.id).toBe(out.id);
      expect(normalized(again)).toEqual({ ...normalized(doc), children: [] });
      expect(again.snapshots).toEqual(doc.snapshots);
    });

    h.it("409 when imported twice (nothing written); ?as=new imports another copy", async (db) => {
      const doc = exports.get(database.name)!;
      const before = await db.count("Transition");
      await expect(importRun(ports, doc)).rejects.toMatchObject({ status: 409, message: expect.stringMatching(/already exists.*\?as=new/) });
      expect(await db.count("Transition")).toBe(before);
      const copy = await importRun(ports, doc, { asNew: true });
      expect(copy.id).toMatch(/^imported-[0-9a-f-]{36}$/);
      expect(normalized(await exportRun(ports, copy.id))).toEqual({ ...normalized(doc), children: [] });
    });

    h.it("a write that fails half-way rolls the whole import back (one transaction)", async (db) => {
      const d = clone(exports.get(database.name)!);
      d.run.id = "half-way";
      for (const x of [...d.transitions, ...d.reviews, ...d.timers, ...d.usage]) x.runId = "half-way";
      await db.sql(`INSERT INTO "Review" ("id","runId","workflow","state","kind","prompt","payload","status","createdAt","seq") VALUES (?,?,?,?,?,?,?,?,?,?)`, [
        "imported-half-way-review-2", "elsewhere", "loop", "REVIEW", "approval", "p", "{}", "cancelled", db.date(E0), 1,
      ]);
      const tables = ["Run", "Transition", "Review", "Snapshot", "Timer", "Artifact", "ModelCall"];
      const before = await Promise.all(tables.map((t) => db.count(t)));
      await expect(importRun(ports, d)).rejects.toMatchObject({ status: 409, message: expect.stringMatching(/could not be imported/) });
      expect(await Promise.all(tables.map((t) => db.count(t)))).toEqual(before);
      expect(await db.store.getRun("imported-half-way")).toBeNull();
    });

    h.it("binary artifacts: bytes on SQLite; on PostgreSQL (text) UTF-8 bytes as text, other bytes refused with 422", async (db) => {
      const d = clone(exports.get(database.name)!);
      d.artifacts = [
        { name: "bin/blob.dat", encoding: "base64", content: BINARY.toString("base64"), size: BINARY.length, updatedAt: d.run.updatedAt },
        { name: "text-as-base64.md", encoding: "base64", content: Buffer.from(TEXT).toString("base64"), size: 0, updatedAt: d.run.updatedAt },
      ];
      if (db.dialect === "sqlite") {
        const out = await importRun(ports, d, { asNew: true });
        expect((await exportRun(ports, out.id)).artifacts.map((a) => [a.name, a.encoding, a.content, a.size])).toEqual([
          ["bin/blob.dat", "base64", BINARY.toString("base64"), BINARY.length],
          ["text-as-base64.md", "utf8", TEXT, Buffer.byteLength(TEXT)],
        ]);
        return;
      }
      const before = await db.count("Run");
      await expect(importRun(ports, d, { asNew: true })).rejects.toMatchObject({ status: 422, message: expect.stringMatching(/artifacts\.0\.content: binary content .*PostgreSQL.*bin\/blob\.dat/) });
      expect(await db.count("Run")).toBe(before);
      d.artifacts = d.artifacts.slice(1);
      const out = await importRun(ports, d, { asNew: true });
      expect(await db.store.artifact(out.id, "text-as-base64.md")).toBe(TEXT);
      expect((await exportRun(ports, out.id)).artifacts).toEqual([{ name: "text-as-base64.md", encoding: "utf8", content: TEXT, size: Buffer.byteLength(TEXT), updatedAt: d.run.updatedAt }]);
      // NUL characters: PostgreSQL keeps none in text
      const nul = clone(exports.get(database.name)!);
      nul.transitions[0].reason = "a\u0000b";
      await expect(importRun(ports, nul, { asNew: true })).rejects.toMatchObject({ status: 422 });
      expect(await db.count("Run")).toBe(before + 1);
    });

    h.it("a loop run driven by the engine on this database round-trips", async (db) => {
      const engine = new Engine({ store: db.store, clock: new ManualClock(E0), workflows: findWorkflow, effects: () => instantLoopEffects() as WorkflowEffects, log: () => {} });
      try {
        const { run } = await engine.start("loop", { request: "Write a retry helper" });
        const waiting = await engine.waitFor(run.id, (r) => r.state.includes("REVIEW") && !!r.reviewId);
        await engine.decide(waiting.reviewId!, { decision: "approve", feedback: "ok", reviewer: "ana" });
        await engine.waitFor(run.id, (r) => r.state.includes("IDLE") && r.status === "waiting");
        const doc = await exportRun(ports, run.id);
        expect(doc.transitions.length).toBe(5); // start, REQUEST, FETCH and WORK done, APPROVE
        expect(doc.snapshots!.at(-1)).toMatchObject({ seq: doc.run.seq, context: doc.run.context });
        expect(doc.timers.length).toBeGreaterThan(0);
        const out = await importRun(ports, doc);
        const again = await exportRun(ports, out.id);
        expect(normalized(again)).toEqual(normalized(doc));
        expect(again.snapshots).toEqual(doc.snapshots);
        expect(engine.size).toBe(1); // the imported copy is not running
      } finally {
        await engine.stop();
      }
    });
  });
}

describe("export: SQLite and PostgreSQL agree", () => {
  for (const { name } of DATABASES.slice(1)) {
    it(`the same rows export to the same document on SQLite and ${name}`, (ctx) => {
      if (!exports.has(name)) return ctx.skip();
      expect(exports.get(name)).toEqual(exports.get("SQLite"));
      expect(exportText(exports.get(name)!)).toBe(exportText(exports.get("SQLite")!));
    });
  }

});
