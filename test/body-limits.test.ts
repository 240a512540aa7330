// The documented body limits hold at the route handlers, just under and just over each: a run
// import takes 50 MiB (README, SECURITY.md), a knowledge upload 25 MiB in all. (That Next.js
// itself no longer cuts API bodies at 10 MB — proxy.ts does not run on /api — is
// test/proxy.test.ts and e2e/body-limits.spec.ts.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_UPLOAD_BYTES } from "../lib/api/knowledge";
import { IMPORT_LIMITS } from "../lib/api/run-export";
import { migrateDatabase } from "../lib/db/migrations";
import { tempDbUrl } from "./helpers";

const url = tempDbUrl("body-limits");
const saved = process.env.DATABASE_URL;
process.env.DATABASE_URL = url;
type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;
let importRoute: { POST: Handler };
let knowledge: { POST: Handler };
const ctx = { params: Promise.resolve({}) };

beforeAll(async () => {
  await migrateDatabase(url);
  importRoute = (await import("../app/api/runs/import/route")) as never;
  knowledge = (await import("../app/api/knowledge/route")) as never;
});
afterAll(async () => {
  const { getRuntime } = await import("../lib/runtime");
  await (await getRuntime()).close();
  process.env.DATABASE_URL = saved;
});

/** valid JSON of exactly `bytes` bytes (an object that is not a run export) */
function jsonOf(bytes: number): Buffer {
  const head = '{"padding":"';
  const tail = '"}';
  return Buffer.from(head + "x".repeat(bytes - head.length - tail.length) + tail);
}

/** a body without Content-Length (streamed), as a chunked upload arrives */
function streamed(body: Buffer): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(c) {
      if (at >= body.length) return c.close();
      c.enqueue(body.subarray(at, at + (1 << 20)));
      at += 1 << 20;
    },
  });
}

const post = (path: string, body: BodyInit | Buffer, headers: Record<string, string> = {}) =>
  new Request(`http://localhost:3000${path}`, { method: "POST", body: body as BodyInit, headers, duplex: "half" } as RequestInit);

describe("documented body limits", () => {
  it(`run import: a body of 50 MiB is read whole and parsed (422: not an export); one byte more is 413`, async () => {
    const limit = IMPORT_LIMITS.bodyBytes;
    expect(limit).toBe(50 * 1024 * 1024);
    const under = await importRoute.POST(post("/api/runs/import", jsonOf(limit), { "content-type": "application/json" }), ctx);
    expect(under.status).toBe(422); // parsed (not "malformed JSON", not 413), then refused as an invalid export
    expect((await under.json()).error).not.toMatch(/malformed JSON/);
    const over = jsonOf(limit + 1);
    const declared = await importRoute.POST(post("/api/runs/import", over, { "content-type": "application/json", "content-length": String(over.length) }), ctx);
    expect(declared.status).toBe(413);
    const chunked = await importRoute.POST(post("/api/runs/import", streamed(over), { "content-type": "application/json" }), ctx);
    expect(chunked.status).toBe(413);
  }, 60_000);

  it("knowledge upload: 25 MiB in all is read whole (each file judged); one byte more is 413", async () => {
    expect(MAX_UPLOAD_BYTES).toBe(25 * 1024 * 1024);
    const files = 13; // each under the 2 MiB per-file limit
    const form = (total: number) => {
      const f = new FormData();
      const each = Math.floor(total / files);
      for (let i = 0; i < files; i++) f.append("file", new Blob([Buffer.alloc(i === files - 1 ? total - each * (files - 1) : each, 0x61)]), `part-${i}.unknown-type`);
      return f;
    };
    const under = await knowledge.POST(post("/api/knowledge", form(MAX_UPLOAD_BYTES)), ctx);
    const body = await under.json();
    // every file arrived and was judged on its own (this type is not importable), not a cut body (400)
    expect(under.status, JSON.stringify(body).slice(0, 300)).not.toBe(400);
    expect(body.results).toHaveLength(files);
    expect(body.results.every((r: { error?: string }) => /type|extension/i.test(r.error ?? ""))).toBe(true);
    const over = await knowledge.POST(post("/api/knowledge", form(MAX_UPLOAD_BYTES + 1)), ctx);
    expect(over.status).toBe(413);
    expect((await over.json()).error).toMatch(/larger than 25 MB/);
  }, 60_000);
});
