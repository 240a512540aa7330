// deep-research over the REST API: a run's input is { topic }, its plan review is decided through
// /api/reviews/{id}/decision, and its files are listed and served by /api/runs/{id}/artifacts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateDatabase } from "../../../lib/db/migrations";
import type { RunView } from "../../../lib/engine/views";
import { tempDbUrl } from "../../../test/helpers";

const url = tempDbUrl("research-api");
process.env.DATABASE_URL = url;

type Handler = (req: Request, ctx: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>;
let runs: { POST: Handler };
let decision: { POST: Handler };
let list: { GET: Handler };
let file: { GET: Handler };

const ctx = (params: Record<string, string | string[]> = {}) => ({ params: Promise.resolve(params) });
const post = (path: string, body: unknown) => new Request(`http://test${path}`, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } });
const get = (path: string) => new Request(`http://test${path}`);

beforeAll(async () => {
  await migrateDatabase(url);
  runs = (await import("../../../app/api/runs/route")) as never;
  decision = (await import("../../../app/api/reviews/[id]/decision/route")) as never;
  list = (await import("../../../app/api/runs/[id]/artifacts/route")) as never;
  file = (await import("../../../app/api/runs/[id]/artifacts/[...path]/route")) as never;
});

afterAll(async () => {
  const { getRuntime } = await import("../../../lib/runtime");
  await (await getRuntime()).close();
});

async function settle(id: string): Promise<RunView> {
  const { getRuntime } = await import("../../../lib/runtime");
  return (await getRuntime()).engine.waitFor(id, (r) => r.status !== "running", 30_000);
}

describe("deep-research through the API", () => {
  it("validates the input: { topic } only", async () => {
    for (const input of [{}, { topic: "ab" }, { topic: 5 }, { topic: "a real topic", extra: true }, { topic: "a real topic", config: { concurrency: 0 } }]) {
      const res = await runs.POST(post("/api/runs", { workflow: "deep-research", input }), ctx());
      expect(res.status).toBe(422);
      expect(typeof (await res.json()).error).toBe("string");
    }
  });

  it("topic → plan review → approve → report.md, with every artifact listed and served", async () => {
    const created = await runs.POST(post("/api/runs", { workflow: "deep-research", input: { topic: "How are review decisions applied exactly once?", config: { checkinEvery: 0 } } }), ctx());
    expect(created.status).toBe(201);
    const { id } = await created.json();
    const waiting = await settle(id);
    expect(waiting.state).toEqual(["PLANNING.approval"]);

    const bad = await decision.POST(post(`/api/reviews/${waiting.reviewId}/decision`, { decision: "modify", data: { plan: { topic: "" } } }), ctx({ id: waiting.reviewId! }));
    expect(bad.status).toBe(422);
    const ok = await decision.POST(post(`/api/reviews/${waiting.reviewId}/decision`, { decision: "approve", feedback: "go" }), ctx({ id: waiting.reviewId! }));
    expect(ok.status).toBe(200);
    expect((await settle(id)).state).toEqual(["COMPLETED"]);

    const res = await list.GET(get(`/api/runs/${id}/artifacts`), ctx({ id }));
    expect(res.status).toBe(200);
    const files = (await res.json()) as { name: string; size: number; updatedAt: string }[];
    const names = files.map((f) => f.name);
    expect(names).toEqual(expect.arrayContaining(["task.md", "report.md", "logs/orchestrator.log", "orchestrator.md"]));
    for (const f of files) {
      expect(f.size).toBeGreaterThan(0);
      expect(Number.isNaN(Date.parse(f.updatedAt))).toBe(false);
    }

    const report = await file.GET(get(`/api/runs/${id}/artifacts/report.md`), ctx({ id, path: ["report.md"] }));
    expect(report.status).toBe(200);
    expect(report.headers.get("content-type")).toMatch(/^text\/markdown/);
    const text = await report.text();
    expect(text).toContain("# How are review decisions applied exactly once?");
    expect(text).toMatch(/\[S\d{2}\]/);
    expect(Buffer.byteLength(text)).toBe(files.find((f) => f.name === "report.md")!.size);

    const log = await file.GET(get(`/api/runs/${id}/artifacts/logs/orchestrator.log?download=1`), ctx({ id, path: ["logs", "orchestrator.log"] }));
    expect(log.headers.get("content-disposition")).toBe('attachment; filename="orchestrator.log"');
    expect(await log.text()).toMatch(/APPROVAL response=approve feedback="go"/);
    // the slash encoded: one segment, decoded by Next.js ("logs/orchestrator.log") or not ("logs%2Forchestrator.log")
    for (const one of ["logs/orchestrator.log", "logs%2Forchestrator.log", "logs%2forchestrator.log"]) {
      const same = await file.GET(get(`/api/runs/${id}/artifacts/logs%2Forchestrator.log`), ctx({ id, path: [one] }));
      expect(same.status, one).toBe(200);
      expect(await same.text()).toMatch(/APPROVAL response=approve feedback="go"/);
    }
    const dots = await file.GET(get(`/api/runs/${id}/artifacts/logs%2F..%2Fx`), ctx({ id, path: ["logs%2F..%2Fx"] }));
    expect(dots.status).toBe(422);

    const missing = await file.GET(get(`/api/runs/${id}/artifacts/nope.md`), ctx({ id, path: ["nope.md"] }));
    expect(missing.status).toBe(404);
    const evil = await file.GET(get(`/api/runs/${id}/artifacts/../x`), ctx({ id, path: ["..", "x"] }));
    expect(evil.status).toBe(422);
    const other = await list.GET(get(`/api/runs/none/artifacts`), ctx({ id: "none" }));
    expect(other.status).toBe(404);
  });
});
