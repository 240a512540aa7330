// The knowledge store: chunking, import (md/txt/html), duplicates, bad input that changes
// nothing, BM25 ranking over the shipped guide, delete, hybrid search with a deterministic fake
// embedder, importFolder skipping bad files, and keeping the index in step with the database.
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Db } from "../lib/db/client";
import { chunkText, CHUNK_SIZE, KnowledgeStore, MAX_DOCUMENT_BYTES } from "../lib/knowledge/documents";
import { seedCorpus, workflowGuides } from "../lib/knowledge/seed-corpus";
import type { Runtime } from "../lib/runtime";
import { loopRuntime } from "./helpers";

// ------------------------------------------------------------------ helpers

const words = (s: string) => s.split(/\s+/).filter(Boolean);

/** Deterministic text: numbered sentences of varied length built from a small vocabulary. */
function prose(n: number, topic: string, seed = 1): string {
  const vocab = ["durable", "state", "machine", "review", "queue", "timer", "snapshot", "engine", "transition", "context", "search", "result", "pattern", "decision", "restart"];
  let x = seed;
  const rnd = () => ((x = (x * 1103515245 + 12345) % 2147483648) / 2147483648);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const len = 6 + Math.floor(rnd() * 14);
    const ws = Array.from({ length: len }, () => vocab[Math.floor(rnd() * vocab.length)]);
    out.push(`The ${topic} sentence ${i} explains ${ws.join(" ")}.`);
  }
  return out.join(" ");
}

/** Bag-of-words vectors hashed into 256 dimensions: similar wording → similar vectors. */
function fakeEmbed(texts: string[]): Promise<number[][]> {
  return Promise.resolve(
    texts.map((t) => {
      const v = new Array(256).fill(0);
      for (const w of t.toLowerCase().match(/[a-z0-9]{3,}/g) ?? []) {
        const h = createHash("md5").update(w).digest();
        v[h[0]] += 1;
        v[h[1]] += 0.5;
      }
      return v;
    }),
  );
}

let rt: Runtime;
let store: KnowledgeStore;

beforeAll(async () => {
  rt = await loopRuntime();
  store = new KnowledgeStore(rt.db, { staleCheckMs: 0 });
});

afterAll(async () => {
  await rt?.close();
});

// ------------------------------------------------------------------ chunking

describe("chunkText", () => {
  it("splits at headings; every chunk keeps its nearest heading; heading lines leave the text", () => {
    const md = [
      "# Guide",
      "",
      "Intro paragraph about the guide.",
      "",
      "## Install",
      "",
      "Run the setup command once.",
      "",
      "### Options",
      "",
      "Set PORT to change the port.",
      "",
      "Underlined heading",
      "------------------",
      "",
      "Text under the underlined heading.",
      "",
      "```sh",
      "# a shell comment, not a heading",
      "npm start",
      "```",
    ].join("\n");
    const chunks = chunkText(md, "markdown");
    expect(chunks.map((c) => c.heading)).toEqual(["Guide", "Install", "Options", "Underlined heading"]);
    expect(chunks[3].text).toContain("# a shell comment, not a heading");
    for (const c of chunks) expect(c.text).not.toMatch(/^#{1,6} (Guide|Install|Options)$|^-{3,}$/m);
    expect(chunks.map((c) => c.ord)).toEqual([0, 1, 2, 3]);
  });

  it("packs paragraphs into ≈600–900 characters with ≈100 characters of overlap", () => {
    const paras = Array.from({ length: 12 }, (_, i) => prose(3, `p${i}`, i + 1));
    const md = `## Long section\n\n${paras.join("\n\n")}`;
    const chunks = chunkText(md, "markdown");
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    for (const c of chunks) {
      expect(c.heading).toBe("Long section");
      expect(c.text.length).toBeLessThanOrEqual(CHUNK_SIZE.max);
    }
    for (const c of chunks.slice(0, -1)) expect(c.text.length).toBeGreaterThanOrEqual(CHUNK_SIZE.min - 250);
    for (let i = 1; i < chunks.length; i++) {
      const { overlap, text } = chunks[i];
      expect(overlap).toBeGreaterThanOrEqual(40);
      expect(overlap).toBeLessThanOrEqual(2 * CHUNK_SIZE.overlap);
      expect(chunks[i - 1].text.endsWith(text.slice(0, overlap))).toBe(true);
    }
    expect(chunks[0].overlap).toBe(0);
  });

  it("never cuts inside a word, and every word of every chunk is a word of the source", () => {
    const src = `# Words\n\n${prose(60, "wordy", 7)}\n\n${"supercalifragilistic ".repeat(120)}`;
    const have = new Set(words(src));
    const chunks = chunkText(src, "markdown");
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) for (const w of words(c.text)) expect(have.has(w)).toBe(true);
  });

  it("cuts one huge paragraph at sentence boundaries", () => {
    const para = prose(80, "huge", 3);
    expect(para.length).toBeGreaterThan(5_000);
    const chunks = chunkText(para, "text");
    expect(chunks.length).toBeGreaterThanOrEqual(6);
    for (const c of chunks) {
      expect(c.text.length).toBeLessThanOrEqual(CHUNK_SIZE.max);
      expect(c.text).toMatch(/\.$/); // ends at the end of a sentence
      expect(c.text.slice(c.overlap).trimStart()).toMatch(/^The huge sentence \d+/); // new material starts a sentence
      expect(c.heading).toBe("");
    }
  });

  it("plain text has no headings; HTML headings become chunk headings", () => {
    const txt = chunkText("# not a heading in plain text\n\nsecond paragraph", "text");
    expect(txt).toHaveLength(1);
    expect(txt[0].heading).toBe("");
    expect(txt[0].text).toContain("# not a heading");
    const html = chunkText("<html><body><h1>Top</h1><p>One.</p><h2>Second part</h2><p>Two &amp; more.</p><script>evil()</script></body></html>", "html");
    expect(html.map((c) => [c.heading, c.text])).toEqual([
      ["Top", "One."],
      ["Second part", "Two & more."],
    ]);
  });
});

// ------------------------------------------------------------------ import

describe("importDocument", () => {
  it("imports Markdown, plain text and HTML (string or Buffer), with titles derived from each", async () => {
    const md = await store.importDocument({ source: "notes/runbook.md", content: "# On-call runbook\n\nRestart the worker with care.\n\n## Escalation\n\nPage the lead." });
    expect(md).toMatchObject({ duplicate: false, chunks: 2, embedded: false });
    expect(md.document).toMatchObject({ title: "On-call runbook", type: "markdown", source: "notes/runbook.md", chunkCount: 2 });

    const txt = await store.importDocument({ source: "faq.txt", content: Buffer.from("Frequently asked questions\n\nHow do I reset a password? Ask the admin.") });
    expect(txt.document).toMatchObject({ title: "Frequently asked questions", type: "text" });

    const html = await store.importDocument({
      source: "https://example.test/page.html",
      content: "<html><head><title>Deploy &amp; rollback</title></head><body><nav>menu</nav><h1>Deploying</h1><p>Use blue-green deploys.</p><script>x()</script></body></html>",
    });
    expect(html.document).toMatchObject({ title: "Deploy & rollback", type: "html" });
    const detail = await store.get(html.document.id);
    expect(detail.chunks).toEqual([expect.objectContaining({ ord: 0, heading: "Deploying", text: "Use blue-green deploys.", embedded: false })]);

    const typed = await store.importDocument({ title: "Given title", source: "no-extension", type: "markdown", content: "# Ignored heading\n\nbody text here" });
    expect(typed.document.title).toBe("Given title");
  });

  it("importing the same text again returns the existing document (duplicate: true)", async () => {
    const first = await store.importDocument({ source: "dup.md", content: "# Dup\n\nSame text.\n" });
    const before = await store.stats();
    const again = await store.importDocument({ source: "other-name.md", content: "# Dup\r\n\r\nSame text.   \r\n\r\n\r\n" });
    expect(again.duplicate).toBe(true);
    expect(again.document.id).toBe(first.document.id);
    expect(again.chunks).toBe(first.chunks);
    expect(await store.stats()).toEqual(before);
  });

  it("each bad input is refused with its status and leaves the database unchanged", async () => {
    const before = await store.stats();
    const docsBefore = (await store.list({ limit: 500 })).documents.map((d) => d.id).sort();
    const cases: [Parameters<KnowledgeStore["importDocument"]>[0], number, RegExp][] = [
      [{ source: "a.pdf", content: "text" }, 422, /unsupported file type/],
      [{ source: "noext", content: "text" }, 422, /cannot tell the type/],
      [{ source: "a.md", type: "docx", content: "text" }, 422, /unknown document type/],
      [{ source: "a.md", content: "" }, 422, /empty/],
      [{ source: "a.md", content: "  \n\t\n   " }, 422, /empty/],
      [{ source: "a.html", content: "<html><body><script>only()</script><img src=x></body></html>" }, 422, /empty/],
      [{ source: "a.txt", content: "x".repeat(MAX_DOCUMENT_BYTES + 1) }, 413, /limit is 2 MB/],
      [{ source: "a.txt", content: Buffer.alloc(MAX_DOCUMENT_BYTES + 1, 97) }, 413, /limit is 2 MB/],
      [{ source: "a.txt", content: Buffer.from([104, 105, 0, 1, 2]) }, 422, /binary file/],
      [{ source: "a.txt", content: "nul\u0000inside" }, 422, /binary file/],
      [{ source: "a.txt", content: Buffer.from([0xc3, 0x28, 0x41, 0x42]) }, 422, /binary file: .*UTF-8/],
      [{ source: "a.txt", content: "\u0001\u0002\u0003\u0004\u0005\u0006\u0007\u0008 ok" }, 422, /binary file/],
      [{ source: "", content: "text" }, 422, /source is required/],
    ];
    for (const [input, status, message] of cases) {
      const err = await store.importDocument(input).then(
        () => null,
        (e) => e,
      );
      expect(err, JSON.stringify(input).slice(0, 80)).not.toBeNull();
      expect(err.status).toBe(status);
      expect(err.message).toMatch(message);
    }
    expect(await store.stats()).toEqual(before);
    expect((await store.list({ limit: 500 })).documents.map((d) => d.id).sort()).toEqual(docsBefore);
  });

  it("writes the document and its chunks in one transaction: a failing chunk write stores nothing", async () => {
    const real = rt.db;
    const failing = new Proxy(real, {
      get(target, prop, receiver) {
        if (prop !== "$transaction") return Reflect.get(target, prop, receiver);
        return (fn: (tx: unknown) => Promise<unknown>, opts?: unknown) =>
          target.$transaction(
            (tx) =>
              fn(
                new Proxy(tx, {
                  get(t, p, r) {
                    if (p === "knowledgeChunk") return { createMany: async () => Promise.reject(new Error("disk full")) };
                    return Reflect.get(t, p, r);
                  },
                }),
              ),
            opts as never,
          );
      },
    }) as Db;
    const broken = new KnowledgeStore(failing);
    const before = await store.stats();
    const content = "# Atomic\n\nThis document must not be half-stored.";
    await expect(broken.importDocument({ source: "atomic.md", content })).rejects.toThrow(/disk full/);
    expect(await store.stats()).toEqual(before);
    // nothing left behind: the same text imports normally afterwards
    const ok = await store.importDocument({ source: "atomic.md", content });
    expect(ok.duplicate).toBe(false);
    await store.delete(ok.document.id);
  });

  it("list pages and filters; get and delete answer 404 for unknown ids", async () => {
    const all = await store.list({ limit: 500 });
    expect(all.total).toBe(all.documents.length);
    const page = await store.list({ limit: 2, offset: 1 });
    expect(page.documents).toEqual(all.documents.slice(1, 3));
    expect((await store.list({ q: "runbook" })).documents.map((d) => d.title)).toEqual(["On-call runbook"]);
    await expect(store.get("missing")).rejects.toMatchObject({ status: 404 });
    await expect(store.delete("missing")).rejects.toMatchObject({ status: 404 });
  });
});

// ------------------------------------------------------------------ search over the guide

describe("search", () => {
  // a guide page: docs/guide/<file>, or a workflow's own page (workflows/<id>/guide.md)
  const guideTitle = (file: string) => {
    const text = fs.readFileSync(file.includes("/") ? file : path.join("docs/guide", file), "utf8");
    return text.match(/^# (.+)$/m)![1];
  };

  let fresh: KnowledgeStore;
  beforeAll(async () => {
    const r = await loopRuntime();
    afterAll(() => r.close());
    fresh = new KnowledgeStore(r.db, { staleCheckMs: 0 });
    const seeded = await seedCorpus(fresh);
    expect(seeded.failed).toEqual([]);
    expect(seeded.imported).toBe(fs.readdirSync("docs/guide").filter((f) => f.endsWith(".md")).length + workflowGuides().length);
    expect(workflowGuides()).toContain(path.join("workflows", "swiss-army", "guide.md"));
    expect(await seedCorpus(fresh)).toMatchObject({ seeded: false, imported: 0 });
  });

  it.each([
    ["review decided twice compare-and-set stale", "04-reviewing-results.md"],
    ["SWITCHYARD_DURABILITY synchronous power loss", "08-durability-and-restarts.md"],
    ["log lines body weight clarification decline observer", "workflows/domain-agent/guide.md"],
    ["maintenance switch outbox queued writes", "06-context-manager-degraded-mode.md"],
    ["OPENAI_BASE_URL fallback retries backoff", "09-models-offline-engine-and-endpoints.md"],
    ["chunk overlap heading duplicate sha256", "10-knowledge-store.md"],
    ["port already in use No production build found", "11-troubleshooting.md"],
    ["parseTimeout executionTimeout idleAnalysis", "workflows/swiss-army/guide.md"],
  ])("%s → %s first", async (q, file) => {
    const out = await fresh.searchDetailed(q);
    expect(out.method).toBe("bm25");
    expect(out.hits.length).toBeGreaterThan(0);
    expect(out.hits[0].title).toBe(guideTitle(file));
    expect(out.hits[0].source).toContain(file);
    for (const h of out.hits) {
      expect(h.score).toBeGreaterThanOrEqual(0);
      expect(h.score).toBeLessThanOrEqual(1);
      expect(h.vectorScore).toBeUndefined();
      expect(h.method).toBe("bm25");
    }
    expect(out.hits.map((h) => h.score)).toEqual([...out.hits.map((h) => h.score)].sort((a, b) => b - a));
  });

  it("reports the matched terms, forgives typos and prefixes, filters by document, limits", async () => {
    const [top] = await fresh.search("durability restarts timers");
    expect(top.terms).toEqual(expect.arrayContaining(["durability", "timers"]));
    expect(top.bm25Score).toBeGreaterThan(0);
    expect((await fresh.search("durabilyty"))[0].title).toBe(guideTitle("08-durability-and-restarts.md"));
    expect((await fresh.search("migrat"))[0].terms.some((t) => t.startsWith("migrat"))).toBe(true);
    const doc = top.documentId;
    const scoped = await fresh.search("review", { documentId: doc, limit: 3 });
    expect(scoped.length).toBeGreaterThan(0);
    expect(scoped.length).toBeLessThanOrEqual(3);
    expect(scoped.every((h) => h.documentId === doc)).toBe(true);
    expect(await fresh.search("   ")).toEqual([]);
    expect(await fresh.search("the and of")).toEqual([]);
    expect(await fresh.search("zzqxv")).toEqual([]);
  });

  it("delete removes a document's chunks from results at once", async () => {
    const [top] = await fresh.search("SWITCHYARD_DURABILITY synchronous power loss");
    await fresh.delete(top.documentId);
    const after = await fresh.search("SWITCHYARD_DURABILITY synchronous power loss");
    expect(after.some((h) => h.documentId === top.documentId)).toBe(false);
    await expect(fresh.get(top.documentId)).rejects.toMatchObject({ status: 404 });
    // and a new import is searchable at once
    await fresh.importDocument({ source: "x.md", content: "# Quokka handbook\n\nQuokkas are small marsupials." });
    expect((await fresh.search("quokka"))[0].title).toBe("Quokka handbook");
    expect((await fresh.rebuild()).chunks).toBe((await fresh.stats()).chunks);
    expect((await fresh.search("quokka"))[0].title).toBe("Quokka handbook");
  });

  it("notices documents another process imported (stale check) and rebuilds", async () => {
    const r = await loopRuntime();
    try {
      const a = new KnowledgeStore(r.db, { staleCheckMs: 1 });
      const b = new KnowledgeStore(r.db);
      await a.importDocument({ source: "one.md", content: "# One\n\nAlpha text." });
      expect(await a.search("wombat")).toEqual([]);
      await b.importDocument({ source: "two.md", content: "# Wombats\n\nWombats dig burrows." });
      // a's next search after its 1 ms check interval looks at the database again
      await vi.waitFor(async () => expect((await a.search("wombat"))[0]?.title).toBe("Wombats"));
    } finally {
      await r.close();
    }
  });
});

// ------------------------------------------------------------------ hybrid

describe("hybrid search", () => {
  it("embeds chunks at import and merges vector and BM25 rankings (method hybrid, vectorScore)", async () => {
    const r = await loopRuntime();
    try {
      const calls: number[] = [];
      const hybrid = new KnowledgeStore(r.db, { embed: (t) => (calls.push(t.length), fakeEmbed(t)), embedModel: "fake-256", staleCheckMs: 0 });
      const results = await hybrid.importFolder("docs/guide");
      expect(results.every((x) => x.ok && x.embedded)).toBe(true);
      const stats = await hybrid.stats();
      expect(stats.embeddedChunks).toBe(stats.chunks);
      expect(calls.length).toBeGreaterThan(0);

      const out = await hybrid.searchDetailed("review decided twice compare-and-set stale");
      expect(out.method).toBe("hybrid");
      expect(out.hits[0].title).toMatch(/^Reviewing results/);
      expect(out.hits.every((h) => h.method === "hybrid" && typeof h.vectorScore === "number")).toBe(true);
      expect(out.hits[0].vectorScore!).toBeGreaterThan(0.2);

      // a store without an embedder over the same rows searches with BM25 only
      const plain = new KnowledgeStore(r.db, { staleCheckMs: 0 });
      expect((await plain.searchDetailed("approve reject")).method).toBe("bm25");

      // a query that cannot be embedded falls back to BM25 and says why
      const flaky = new KnowledgeStore(r.db, { embed: async () => Promise.reject(new Error("embeddings endpoint down")), embedModel: "fake-256", staleCheckMs: 0 });
      const fallback = await flaky.searchDetailed("approve reject");
      expect(fallback.method).toBe("bm25");
      expect(fallback.embedError).toMatch(/endpoint down/);
      expect(fallback.hits.length).toBeGreaterThan(0);

      // an import whose embedding fails is stored without embeddings, and says so
      const imported = await flaky.importDocument({ source: "n.md", content: "# Numbat notes\n\nNumbats eat termites." });
      expect(imported).toMatchObject({ duplicate: false, embedded: false, embedError: "embeddings endpoint down" });
      expect((await flaky.get(imported.document.id)).chunks.every((c) => !c.embedded)).toBe(true);
      await hybrid.rebuild(); // written through another store instance
      const numbat = await hybrid.searchDetailed("numbat termites");
      expect(numbat.method).toBe("hybrid");
      expect(numbat.hits[0].title).toBe("Numbat notes");
      expect(numbat.hits[0].vectorScore).toBeUndefined(); // stored without an embedding
    } finally {
      await r.close();
    }
  });
});

// ------------------------------------------------------------------ folders

describe("importFolder", () => {
  it("imports every supported file below a folder and reports bad files instead of stopping", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kb-folder-"));
    const put = (rel: string, content: string | Buffer) => {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), content);
    };
    put("a-good.md", "# Good markdown\n\nHello there.");
    put("nested/deeper/b-good.txt", "Plain notes\n\nSome words.");
    put("nested/c-page.HTM", "<title>Page</title><h1>Page</h1><p>Body text.</p>");
    put("d-empty.html", "<html><body></body></html>");
    put("e-binary.txt", Buffer.from([1, 2, 0, 3]));
    put("f-big.md", "y ".repeat(MAX_DOCUMENT_BYTES));
    put("g-image.png", Buffer.from([137, 80, 78, 71]));
    put(".hidden.md", "# Hidden");
    put("node_modules/x.md", "# Vendored");

    const r = await loopRuntime();
    try {
      const s = new KnowledgeStore(r.db);
      const results = await s.importFolder(dir);
      const byName = Object.fromEntries(results.map((x) => [path.relative(dir, x.file), x]));
      expect(Object.keys(byName).sort()).toEqual(["a-good.md", "d-empty.html", "e-binary.txt", "f-big.md", "nested/c-page.HTM", "nested/deeper/b-good.txt"]);
      expect(byName["a-good.md"]).toMatchObject({ ok: true, chunks: 1, duplicate: false });
      expect(byName["nested/deeper/b-good.txt"]).toMatchObject({ ok: true });
      expect(byName["nested/c-page.HTM"]).toMatchObject({ ok: true, document: expect.objectContaining({ type: "html", title: "Page" }) });
      expect(byName["d-empty.html"]).toMatchObject({ ok: false, status: 422, error: expect.stringMatching(/empty/) });
      expect(byName["e-binary.txt"]).toMatchObject({ ok: false, status: 422, error: expect.stringMatching(/binary/) });
      expect(byName["f-big.md"]).toMatchObject({ ok: false, status: 413 });
      expect((await s.stats()).documents).toBe(3);
      // again: everything that was imported is a duplicate now
      const again = await s.importFolder(dir);
      expect(again.filter((x) => x.ok).every((x) => x.ok && x.duplicate)).toBe(true);
      expect((await s.stats()).documents).toBe(3);
      await expect(s.importFolder(path.join(dir, "missing"))).rejects.toMatchObject({ status: 404 });
    } finally {
      await r.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
