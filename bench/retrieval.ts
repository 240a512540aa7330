// npm run bench:retrieval (tsx bench/retrieval.ts) — knowledge-store retrieval at 10,000 chunks.
//
// Corpus: generated deterministically (seeded PRNG) from the shipped guide (docs/guide): its
// sentences recombined into documents with headings and paragraphs, and about one word in eight
// replaced by a synthetic word from a Zipf-distributed vocabulary, so that the index has the
// large, long-tailed vocabulary of a real corpus rather than the guide's few thousand words.
//
// Path: the real one. Documents are imported through KnowledgeStore.importDocument into a fresh
// SQLite database (chunking, hashing, one transaction per document), then the in-memory index is
// rebuilt from the database with rebuild(), which reports the database read and the MiniSearch
// build separately. Queries run against that store (warm: after 100 warm-up queries).
//
// Printed: import time, index build time (load + index), BM25 query latency p50/p95/p99/max over
// BENCH_QUERIES (default 1,000) queries, and whether p95 ≤ 20 ms; then the same for hybrid search
// (BM25 + cosine over 256-dimensional hashed bag-of-words embeddings) unless BENCH_HYBRID=0.
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { migrateDatabase } from "../lib/db/migrations";
import { KnowledgeStore, queryTerms } from "../lib/knowledge/documents";
import { createRuntime } from "../lib/runtime";
import { provideWorkflows } from "../lib/machines/registry";
import * as workflows from "../workflows/registry";

provideWorkflows(workflows);

const TARGET_CHUNKS = Number(process.env.BENCH_CHUNKS ?? 10_000);
const QUERIES = Math.max(500, Number(process.env.BENCH_QUERIES ?? 1_000));
const WARMUP = 100;
const HYBRID = process.env.BENCH_HYBRID !== "0";
const DIMS = 256;
const P95_TARGET_MS = 20;

// ------------------------------------------------------------------ deterministic text

function mulberry32(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rnd = mulberry32(20261123);
const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)];
const between = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));

function guideSentences(): { sentences: string[]; headings: string[] } {
  const dir = path.resolve("docs/guide");
  const sentences: string[] = [];
  const headings: string[] = [];
  for (const f of fs.readdirSync(dir).filter((x) => x.endsWith(".md")).sort()) {
    let fence = false;
    for (const line of fs.readFileSync(path.join(dir, f), "utf8").split("\n")) {
      if (line.startsWith("```")) fence = !fence;
      if (fence || line.startsWith("|") || !line.trim()) continue;
      const h = line.match(/^#{1,6}\s+(.+)$/);
      if (h) {
        headings.push(h[1]);
        continue;
      }
      for (const s of line.replace(/^[-*]\s+|^\d+\.\s+/, "").split(/(?<=[.!?])\s+(?=[A-Z`"(])/)) {
        if (s.length >= 30 && /[.!?:]$/.test(s)) sentences.push(s.trim());
      }
    }
  }
  return { sentences, headings };
}

const SYLLABLES = "ka lo mi ra ven tor sil qua pex dri mon zel fa gru tin bor lek sha nor vi pol cre dan um ix ost rel ban tri gel".split(" ");
/** A long-tailed vocabulary of synthetic words (product names, components, identifiers). */
function syntheticVocabulary(n: number): string[] {
  const out = new Set<string>();
  while (out.size < n) {
    const k = between(2, 4);
    let w = "";
    for (let i = 0; i < k; i++) w += pick(SYLLABLES);
    if (rnd() < 0.15) w += `-${between(2, 999)}`;
    out.add(w);
  }
  return [...out];
}
/** Zipf rank sampler (s ≈ 1.1) over n items. */
function zipf(n: number, s = 1.1) {
  const cdf: number[] = [];
  let sum = 0;
  for (let i = 1; i <= n; i++) cdf.push((sum += 1 / i ** s));
  return () => {
    const x = rnd() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

const { sentences, headings } = guideSentences();
const vocab = syntheticVocabulary(30_000);
const rank = zipf(vocab.length);

function mutate(sentence: string): string {
  return sentence.replace(/\b[a-z]{5,}\b/g, (w) => (rnd() < 0.12 ? vocab[rank()] : w));
}
function paragraph(): string {
  return Array.from({ length: between(2, 6) }, () => mutate(pick(sentences))).join(" ");
}
function documentText(i: number): { title: string; text: string } {
  const title = `${pick(headings)} — ${vocab[rank()]} ${i}`;
  const parts = [`# ${title}`];
  for (let s = between(3, 7); s > 0; s--) {
    parts.push(`## ${mutate(pick(headings))}`);
    for (let p = between(2, 5); p > 0; p--) parts.push(paragraph());
  }
  return { title, text: parts.join("\n\n") };
}

/** Bag-of-words hashed into DIMS dimensions: cheap, deterministic stand-in for an embeddings endpoint. */
async function fakeEmbed(texts: string[]): Promise<number[][]> {
  return texts.map((t) => {
    const v = new Array(DIMS).fill(0);
    for (const w of t.toLowerCase().match(/[a-z0-9]{3,}/g) ?? []) {
      const h = createHash("md5").update(w).digest();
      v[h[0]] += 1;
      v[h[1] % DIMS] += 0.5;
    }
    return v;
  });
}

// ------------------------------------------------------------------ queries

function makeQueries(samples: string[], n: number): string[] {
  const out: string[] = [];
  const typo = (w: string) => {
    const i = between(1, w.length - 2);
    return w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2);
  };
  while (out.length < n) {
    const terms = queryTerms(pick(samples)).filter((t) => t.length >= 4);
    if (terms.length < 3) continue;
    const k = between(2, 5);
    const start = between(0, Math.max(0, terms.length - k));
    const words = terms.slice(start, start + k);
    const kind = out.length % 5;
    if (kind === 1 && words[0].length >= 6) words[0] = typo(words[0]); // a typo
    if (kind === 2) words[words.length - 1] = words[words.length - 1].slice(0, Math.max(3, words[words.length - 1].length - 3)); // as you type
    if (kind === 3) words.push(vocab[rank()]); // a synthetic term
    if (kind === 4) words.unshift(pick(["how", "why", "what"]), "does", "the"); // a question
    out.push(words.join(" "));
  }
  return out;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function measure(store: KnowledgeStore, queries: string[]) {
  for (const q of queries.slice(0, WARMUP)) await store.search(q);
  const times: number[] = [];
  const byKind: number[][] = [[], [], [], [], []];
  let hits = 0;
  let method = "";
  for (const [i, q] of queries.entries()) {
    const t0 = performance.now();
    const out = await store.searchDetailed(q, { limit: 8 });
    const t = performance.now() - t0;
    times.push(t);
    byKind[i % 5].push(t);
    if (out.hits.length) hits++;
    method = out.method;
  }
  times.sort((a, b) => a - b);
  const kinds = ["plain", "typo", "prefix", "rare term", "question"].map((k, i) => {
    const t = byKind[i].sort((a, b) => a - b);
    return `${k} ${percentile(t, 50).toFixed(1)}/${percentile(t, 95).toFixed(1)}`;
  });
  return { method, p50: percentile(times, 50), p95: percentile(times, 95), p99: percentile(times, 99), max: times.at(-1)!, hitRate: hits / queries.length, kinds: kinds.join(" · ") };
}

const ms = (x: number) => `${x.toFixed(2)} ms`;

// ------------------------------------------------------------------ run

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-retrieval-"));
const url = `file:${path.join(dir, "bench.db")}`;
const rt = await createRuntime({ url, migrate: migrateDatabase, resume: false, serviceChoresMs: 0, alerts: { start: false }, env: {} as NodeJS.ProcessEnv });
try {
  console.log(`corpus: ${sentences.length} guide sentences, ${headings.length} headings, ${vocab.length} synthetic words (Zipf)`);
  const importer = new KnowledgeStore(rt.db, HYBRID ? { embed: fakeEmbed, embedModel: `hashed-bow-${DIMS}`, staleCheckMs: 0 } : { staleCheckMs: 0 });
  const samples: string[] = [];
  let chunks = 0;
  let docs = 0;
  let bytes = 0;
  const t0 = performance.now();
  while (chunks < TARGET_CHUNKS) {
    const { title, text } = documentText(docs);
    const r = await importer.importDocument({ title, source: `bench/doc-${docs}.md`, content: text });
    if (!r.duplicate) chunks += r.chunks;
    docs++;
    bytes += Buffer.byteLength(text);
    if (samples.length < 2_000 && rnd() < 0.5) samples.push(text.split("\n\n").filter((p) => !p.startsWith("#")).join(" ").slice(0, 2_000));
  }
  const importMs = performance.now() - t0;
  console.log(
    `import: ${docs} documents (${(bytes / 1024 / 1024).toFixed(1)} MB) → ${chunks} chunks via importDocument into SQLite${HYBRID ? `, with ${DIMS}-d embeddings` : ""}: ${(importMs / 1000).toFixed(1)} s`,
  );

  const queries = makeQueries(samples, QUERIES + WARMUP);

  // BM25: a store without an embedder (the offline default)
  const bm25 = new KnowledgeStore(rt.db, { staleCheckMs: 0 });
  const builds = [];
  for (let i = 0; i < 3; i++) builds.push(await bm25.rebuild());
  builds.sort((a, b) => a.loadMs + a.indexMs - (b.loadMs + b.indexMs));
  const b = builds[1];
  console.log(`index build (BM25, median of 3): ${b.chunks} chunks — load from SQLite ${ms(b.loadMs)} + MiniSearch ${ms(b.indexMs)} = ${ms(b.loadMs + b.indexMs)}`);
  const r1 = await measure(bm25, queries);
  console.log(
    `query latency (bm25, ${QUERIES} warm queries, limit 8): p50 ${ms(r1.p50)} · p95 ${ms(r1.p95)} · p99 ${ms(r1.p99)} · max ${ms(r1.max)} · ${(r1.hitRate * 100).toFixed(0)}% with hits`,
  );
  console.log(`  p50/p95 by query kind (ms): ${r1.kinds}`);
  console.log(`p95 ≤ ${P95_TARGET_MS} ms: ${r1.p95 <= P95_TARGET_MS ? "yes" : "NO"}`);

  if (HYBRID) {
    const hybrid = new KnowledgeStore(rt.db, { embed: fakeEmbed, embedModel: `hashed-bow-${DIMS}`, staleCheckMs: 0 });
    const h = await hybrid.rebuild();
    console.log(`index build (hybrid): load from SQLite ${ms(h.loadMs)} + parse embeddings and MiniSearch ${ms(h.indexMs)}`);
    const r2 = await measure(hybrid, queries);
    console.log(
      `query latency (${r2.method}, ${QUERIES} warm queries, query embedding local): p50 ${ms(r2.p50)} · p95 ${ms(r2.p95)} · p99 ${ms(r2.p99)} · max ${ms(r2.max)}`,
    );
    console.log(`  p50/p95 by query kind (ms): ${r2.kinds}`);
    console.log(`p95 ≤ ${P95_TARGET_MS} ms (hybrid, excluding a remote embeddings call): ${r2.p95 <= P95_TARGET_MS ? "yes" : "NO"}`);
  }
} finally {
  await rt.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
