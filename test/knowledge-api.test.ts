// The knowledge API, called directly: JSON and multipart imports, search, documents, delete,
// and every kind of bad input answered with a 4xx and a message (never a 500).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateDatabase } from "../lib/db/migrations";
import { MAX_DOCUMENT_BYTES } from "../lib/knowledge/documents";
import { tempDbUrl } from "./helpers";

const url = tempDbUrl("knowledge-api");
process.env.DATABASE_URL = url;

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;
let kb: { GET: Handler; POST: Handler };
let doc: { GET: Handler; DELETE: Handler };

const ctx = (params: Record<string, string> = {}) => ({ params: Promise.resolve(params) });
const get = (path: string) => new Request(`http://test${path}`);
const postJson = (body: unknown, type = "application/json") =>
  new Request("http://test/api/knowledge", { method: "POST", body: typeof body === "string" ? body : JSON.stringify(body), headers: type ? { "content-type": type } : {} });
const postFiles = (files: [string, string | Uint8Array][]) => {
  const form = new FormData();
  for (const [name, content] of files) form.append("file", new File([content as BlobPart], name));
  return new Request("http://test/api/knowledge", { method: "POST", body: form });
};

async function expectError(res: Response, status: number, text?: RegExp) {
  expect(res.status).toBe(status);
  const body = await res.json();
  expect(typeof body.error).toBe("string");
  if (text) expect(body.error).toMatch(text);
  return body;
}

beforeAll(async () => {
  await migrateDatabase(url);
  kb = (await import("../app/api/knowledge/route")) as never;
  doc = (await import("../app/api/knowledge/[id]/route")) as never;
});

afterAll(async () => {
  const { getRuntime } = await import("../lib/runtime");
  await (await getRuntime()).close();
});

describe("knowledge API", () => {
  it("GET /api/knowledge lists documents (the guide is seeded into an empty store on first use)", async () => {
    const res = await kb.GET(get("/api/knowledge?limit=50"), ctx());
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.total).toBeGreaterThanOrEqual(8);
    expect(body.documents[0]).toEqual(
      expect.objectContaining({ id: expect.any(String), title: expect.any(String), type: "markdown", source: expect.stringMatching(/^(docs\/guide\/|workflows\/[^/]+\/guide\.md$)/), chunkCount: expect.any(Number), importedAt: expect.any(String) }),
    );
  });

  it("POST JSON → 201 with the document; the same text again → 201 duplicate", async () => {
    const res = await kb.POST(postJson({ title: "Kiwi care", content: "# Kiwi\n\nKiwis are flightless birds that forage at night." }), ctx());
    expect(res.status).toBe(201);
    const body = await res.json();
    expect(body).toMatchObject({ duplicate: false, chunks: 1, embedded: false, document: { title: "Kiwi care", type: "markdown", source: "pasted: Kiwi care", chunkCount: 1 } });
    expect(res.headers.get("location")).toBe(`/api/knowledge/${body.document.id}`);
    const again = await kb.POST(postJson({ content: "# Kiwi\n\nKiwis are flightless birds that forage at night.", source: "kiwi.md" }), ctx());
    expect(again.status).toBe(201);
    expect(await again.json()).toMatchObject({ duplicate: true, document: { id: body.document.id } });
    const typed = await kb.POST(postJson({ source: "https://example.test/x", type: "html", content: "<title>Tui</title><p>Tui sing.</p>" }), ctx());
    expect(typed.status).toBe(201);
    expect((await typed.json()).document).toMatchObject({ title: "Tui", type: "html" });
  });

  it("POST multipart → 201 with a result per file; bad files are reported, not fatal", async () => {
    const res = await kb.POST(
      postFiles([
        ["weka.md", "# Weka\n\nWekas are curious rails."],
        ["takahe.txt", "Takahe notes\n\nTakahe were thought extinct."],
        ["photo.png", new Uint8Array([137, 80, 78, 71])],
        ["blob.txt", new Uint8Array([1, 0, 2])],
      ]),
      ctx(),
    );
    expect(res.status).toBe(201);
    const body = await res.json();
    expect(body).toMatchObject({ imported: 2, failed: 2 });
    expect(body.results.map((r: { file: string; ok: boolean }) => [r.file, r.ok])).toEqual([
      ["weka.md", true],
      ["takahe.txt", true],
      ["photo.png", false],
      ["blob.txt", false],
    ]);
    expect(body.results[0]).toMatchObject({ chunks: 1, duplicate: false, document: { title: "Weka", type: "markdown" } });
    expect(body.results[2]).toMatchObject({ status: 422, error: expect.stringMatching(/unsupported file type/) });
    expect(body.results[3]).toMatchObject({ status: 422, error: expect.stringMatching(/binary file/) });
  });

  it("GET ?q= ranks chunks (method, score, matched terms); limit and documentId apply", async () => {
    const res = await kb.GET(get("/api/knowledge?q=flightless+kiwi+birds&limit=3"), ctx());
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ query: "flightless kiwi birds", method: "bm25" });
    expect(body.hits.length).toBeGreaterThan(0);
    expect(body.hits.length).toBeLessThanOrEqual(3);
    expect(body.hits[0]).toMatchObject({ title: "Kiwi care", heading: "Kiwi", terms: expect.arrayContaining(["kiwis", "flightless", "birds"]) });
    expect(body.hits[0].score).toBeGreaterThan(0);
    expect(body.hits[0].score).toBeLessThanOrEqual(1);
    const guide = await (await kb.GET(get("/api/knowledge?q=SWITCHYARD_DURABILITY+power+loss"), ctx())).json();
    expect(guide.hits[0].title).toBe("Durability and restarts");
    const scoped = await (await kb.GET(get(`/api/knowledge?q=durability&documentId=${guide.hits[0].documentId}`), ctx())).json();
    expect(scoped.hits.every((h: { documentId: string }) => h.documentId === guide.hits[0].documentId)).toBe(true);
  });

  it("GET /api/knowledge/{id} → the document with its chunks; DELETE → 204, then 404 and gone from search", async () => {
    const created = await (await kb.POST(postJson({ title: "Kakapo", content: "# Kakapo\n\nThe kakapo is a nocturnal parrot.\n\n## Diet\n\nKakapo eat rimu fruit." }), ctx())).json();
    const id = created.document.id;
    const res = await doc.GET(get(`/api/knowledge/${id}`), ctx({ id }));
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ id, title: "Kakapo", chunkCount: 2 });
    expect(body.chunks.map((c: { ord: number; heading: string }) => [c.ord, c.heading])).toEqual([
      [0, "Kakapo"],
      [1, "Diet"],
    ]);
    expect((await (await kb.GET(get("/api/knowledge?q=kakapo+parrot"), ctx())).json()).hits[0].documentId).toBe(id);

    const del = await doc.DELETE(new Request(`http://test/api/knowledge/${id}`, { method: "DELETE" }), ctx({ id }));
    expect(del.status).toBe(204);
    expect(await del.text()).toBe("");
    await expectError(await doc.GET(get(`/api/knowledge/${id}`), ctx({ id })), 404, /not found/);
    await expectError(await doc.DELETE(new Request(`http://test/api/knowledge/${id}`, { method: "DELETE" }), ctx({ id })), 404);
    const after = await (await kb.GET(get("/api/knowledge?q=kakapo+parrot"), ctx())).json();
    expect(after.hits.some((h: { documentId: string }) => h.documentId === id)).toBe(false);
  });

  it("bad input → 400/404/413/415/422 with a message, and nothing is stored", async () => {
    const total = async () => (await (await kb.GET(get("/api/knowledge?limit=1"), ctx())).json()).total;
    const before = await total();

    // 400: malformed or empty bodies
    await expectError(await kb.POST(postJson("{nope"), ctx()), 400, /malformed JSON/);
    await expectError(await kb.POST(postJson(""), ctx()), 400, /empty/);
    // 415: neither JSON nor multipart
    await expectError(await kb.POST(postJson("content=x", "application/x-www-form-urlencoded"), ctx()), 415, /content-type/);
    await expectError(await kb.POST(postJson("hello", "text/plain"), ctx()), 415);
    // 422: schema and content problems
    await expectError(await kb.POST(postJson({}), ctx()), 422, /content/);
    await expectError(await kb.POST(postJson([]), ctx()), 422);
    await expectError(await kb.POST(postJson({ content: 5 }), ctx()), 422, /content/);
    await expectError(await kb.POST(postJson({ content: "x", extra: 1 }), ctx()), 422);
    await expectError(await kb.POST(postJson({ content: "x", type: "pdf" }), ctx()), 422, /type/);
    await expectError(await kb.POST(postJson({ content: "   \n " }), ctx()), 422, /empty/);
    await expectError(await kb.POST(postJson({ content: "text", source: "report.pdf" }), ctx()), 422, /unsupported file type/);
    await expectError(await kb.POST(postJson({ content: "nul\u0000byte" }), ctx()), 422, /binary/);
    // 413: a document over 2 MB, and a body over the JSON limit
    await expectError(await kb.POST(postJson({ content: "a".repeat(MAX_DOCUMENT_BYTES + 10) }), ctx()), 413, /2 MB/);
    await expectError(await kb.POST(postJson({ content: "a".repeat(3 * MAX_DOCUMENT_BYTES + 10) }), ctx()), 413, /larger than/);
    // multipart: no files, text in a file field, a single file that is too large or of the wrong kind
    const form = new FormData();
    form.append("title", "no files here");
    await expectError(await kb.POST(new Request("http://test/api/knowledge", { method: "POST", body: form }), ctx()), 422, /no file/);
    const textField = new FormData();
    textField.append("file", "just a string");
    await expectError(await kb.POST(new Request("http://test/api/knowledge", { method: "POST", body: textField }), ctx()), 422, /file upload/);
    const big = await expectError(await kb.POST(postFiles([["big.md", "b".repeat(MAX_DOCUMENT_BYTES + 1)]]), ctx()), 413, /no file was imported/);
    expect(big.results).toEqual([expect.objectContaining({ file: "big.md", ok: false, status: 413 })]);
    await expectError(await kb.POST(postFiles([["a.exe", "MZ"], ["b.docx", "PK"]]), ctx()), 422, /unsupported file type/);
    // queries and ids
    await expectError(await kb.GET(get("/api/knowledge?limit=0"), ctx()), 422);
    await expectError(await kb.GET(get("/api/knowledge?limit=abc"), ctx()), 422);
    await expectError(await kb.GET(get("/api/knowledge?bogus=1"), ctx()), 422);
    await expectError(await kb.GET(get(`/api/knowledge?q=${"x".repeat(1_001)}`), ctx()), 422, /1,000/);
    await expectError(await doc.GET(get("/api/knowledge/../../etc"), ctx({ id: "../../etc" })), 422, /not a document id/);
    await expectError(await doc.GET(get("/api/knowledge/missing"), ctx({ id: "missing" })), 404);

    expect(await total()).toBe(before);
  });
});
