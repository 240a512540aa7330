// The knowledge store: documents imported from Markdown, plain text and HTML, cut into
// overlapping chunks that keep their nearest heading, stored with Prisma, and ranked with BM25
// (MiniSearch) — plus cosine similarity over stored embeddings when an embedder is configured,
// merged by reciprocal rank fusion. The index lives in memory: built lazily from the database
// on the first search and kept current on every import and delete.
import { randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import MiniSearch, { type SearchResult } from "minisearch";
import type { Db } from "../db/client";
import type { Provider } from "../db/url";
import { EngineError, InvalidError, NotFoundError, isEngineError } from "../engine/errors";
import { EXTENSION_TYPES, isType, MAX_DOCUMENT_BYTES, prepareDocument, resolveType, type DocType, type ImportInput } from "./prepare";

export { CHUNK_SIZE, chunkText, DOC_TYPES, EXTENSION_TYPES, htmlToText, MAX_DOCUMENT_BYTES, normalizeText, prepareDocument, resolveType } from "./prepare";
export type { DocType, ImportInput, TextChunk } from "./prepare";

// ------------------------------------------------------------------ types

export interface DocumentSummary {
  id: string;
  title: string;
  source: string;
  type: DocType;
  bytes: number;
  sha256: string;
  /** ISO time */
  importedAt: string;
  chunkCount: number;
}

export interface ChunkView {
  id: string;
  ord: number;
  heading: string;
  text: string;
  embedded: boolean;
}

export interface DocumentDetail extends DocumentSummary {
  chunks: ChunkView[];
}

export interface ImportResult {
  document: DocumentSummary;
  /** chunks stored for the document (for a duplicate: the existing document's) */
  chunks: number;
  duplicate: boolean;
  /** true when every chunk was stored with an embedding */
  embedded: boolean;
  /** why the chunks were stored without embeddings although an embedder is configured */
  embedError?: string;
}

export type FileImportResult =
  | ({ file: string; ok: true } & ImportResult)
  | { file: string; ok: false; error: string; status: number; code: string };

export type SearchMethod = "bm25" | "hybrid";

export interface Hit {
  chunkId: string;
  documentId: string;
  title: string;
  heading: string;
  /** the document's type */
  type: DocType;
  source: string;
  ord: number;
  text: string;
  /** 0..1, for display: the fused rank relative to the best hit, blended with the share of query terms matched */
  score: number;
  /** raw BM25 score (0 when only the vector search found it) */
  bm25Score: number;
  /** cosine similarity to the query (hybrid searches, chunks with an embedding) */
  vectorScore?: number;
  /** the words of the chunk that matched (lower case; prefix and fuzzy matches included) */
  terms: string[];
  method: SearchMethod;
}

/** A hit's display title: the document's title and, when it adds something, the chunk's heading. */
export function hitTitle(h: Pick<Hit, "title" | "heading">): string {
  return h.heading && h.heading !== h.title ? `${h.title} — ${h.heading}` : h.title;
}

export interface SearchOptions {
  limit?: number;
  documentId?: string;
}

export interface SearchOutcome {
  query: string;
  method: SearchMethod;
  hits: Hit[];
  tookMs: number;
  /** set when the query could not be embedded and the search fell back to BM25 */
  embedError?: string;
}

export interface KnowledgeStats {
  documents: number;
  chunks: number;
  embeddedChunks: number;
}

export interface KnowledgeStoreOptions {
  /** embeddings for the given texts, one vector per text (e.g. the model port's `embed`) */
  embed?: (texts: string[]) => Promise<number[][]>;
  /** recorded with each embedding; vectors of another model are not compared with the query's */
  embedModel?: string;
  /**
   * How often (ms) a search checks whether another process changed the documents (e.g. the
   * import CLI while the server runs) and rebuilds the index if so; 0 = never. Default 10 s.
   */
  staleCheckMs?: number;
  /** the database under `db`: PostgreSQL compares text case-sensitively unless asked not to (SQLite's LIKE does not) */
  dialect?: Provider;
}


// ------------------------------------------------------------------ the store

const STOP_WORDS = new Set(
  (
    "a about after all also an and any are as at be because been but by can could did do does for from had has have he her his how " +
    "i if in into is it its just more most much my no not of on once only or other our out over she should so some such than that the " +
    "their them then there these they this those through to too under until up very was we were what when where which while who whom " +
    "why will with would you your"
  ).split(" "),
);

/** Index and query terms: lower case, stop words and one-letter tokens dropped. */
function processTerm(term: string): string | null {
  const t = term.toLowerCase();
  if (t.length < 2 || STOP_WORDS.has(t)) return null;
  return t;
}

/** Words: split at whitespace, punctuation and symbols (so `code spans`, **bold** and OPENAI_BASE_URL split into words). */
const SEPARATORS = /[\n\r\p{Z}\p{P}\p{S}]+/u;
const tokenize = (text: string): string[] => text.split(SEPARATORS).filter(Boolean);

/** The distinct terms a query is made of, as the index sees them. */
export function queryTerms(query: string): string[] {
  const seen = new Set<string>();
  for (const tok of tokenize(query)) {
    const t = processTerm(tok);
    if (t) seen.add(t);
  }
  return [...seen];
}

interface IndexedChunk {
  id: string;
  documentId: string;
  ord: number;
  title: string;
  heading: string;
  type: DocType;
  source: string;
  text: string;
  /** unit-length embedding */
  vector: Float32Array | null;
  embedModel: string | null;
}

const RRF_K = 60;
const MAX_QUERY_TERMS = 32;
const MAX_QUERY_CHARS = 1_000;
const EMBED_BATCH = 64;

function unit(v: ArrayLike<number>): Float32Array | null {
  let norm = 0;
  for (let i = 0; i < v.length; i++) norm += v[i] * v[i];
  if (!(norm > 0) || !Number.isFinite(norm)) return null;
  const inv = 1 / Math.sqrt(norm);
  const out = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i] * inv;
  return out;
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

function parseVector(json: string | null): Float32Array | null {
  if (!json) return null;
  try {
    const arr = JSON.parse(json);
    return Array.isArray(arr) && arr.every((x) => typeof x === "number" && Number.isFinite(x)) ? unit(arr) : null;
  } catch {
    return null;
  }
}

function isUniqueViolation(e: unknown): boolean {
  const err = e as { code?: unknown; message?: unknown };
  return err?.code === "P2002" || /unique constraint/i.test(String(err?.message ?? ""));
}

type DocRow = { id: string; title: string; source: string; type: string; bytes: number; sha256: string; importedAt: Date };

function summary(row: DocRow, chunkCount: number): DocumentSummary {
  return {
    id: row.id,
    title: row.title,
    source: row.source,
    type: isType(row.type) ? row.type : "text",
    bytes: Number(row.bytes),
    sha256: row.sha256,
    importedAt: new Date(row.importedAt).toISOString(),
    chunkCount,
  };
}

export class KnowledgeStore {
  private index: MiniSearch<IndexedChunk> | null = null;
  private building: Promise<MiniSearch<IndexedChunk>> | null = null;
  private chunks = new Map<string, IndexedChunk>();
  /** every term ever indexed: a query term found here is not fuzzy-matched (typos only) */
  private vocabulary = new Set<string>();
  private queryVectors = new Map<string, Float32Array>();
  /** what the index reflects: document count and latest import time, to notice other writers */
  private known: { documents: number; latest: number } | null = null;
  private checkedAt = 0;
  private matrix: { dims: number; ids: string[]; data: Float32Array } | null = null;

  constructor(
    private db: Db,
    private opts: KnowledgeStoreOptions = {},
  ) {}

  /** True when an embedder is configured. */
  get embeds(): boolean {
    return typeof this.opts.embed === "function";
  }

  // ---------------------------------------------------------------- import

  async importDocument(input: ImportInput): Promise<ImportResult> {
    const prepared = prepareDocument(input);
    const existing = await this.findBySha(prepared.sha256);
    if (existing) return existing;

    // embeddings first: nothing is written while a slow endpoint answers
    let vectors: number[][] | null = null;
    let embedError: string | undefined;
    if (this.opts.embed) {
      try {
        vectors = await this.embedAll(prepared.chunks.map((c) => embedText(prepared.title, c.heading, c.text)));
      } catch (e) {
        embedError = e instanceof Error ? e.message : String(e);
      }
    }

    const id = randomUUID();
    const importedAt = new Date();
    const source = input.source.trim();
    const rows = prepared.chunks.map((c, i) => ({
      id: randomUUID(),
      documentId: id,
      ord: c.ord,
      heading: c.heading,
      text: c.text,
      embedding: vectors ? JSON.stringify(vectors[i]) : null,
      embedModel: vectors ? (this.opts.embedModel ?? null) : null,
    }));
    try {
      await this.db.$transaction(async (tx) => {
        await tx.knowledgeDocument.create({
          data: { id, title: prepared.title, source, type: prepared.type, bytes: prepared.bytes, sha256: prepared.sha256, importedAt },
        });
        await tx.knowledgeChunk.createMany({ data: rows });
      }, { maxWait: 15_000, timeout: 60_000 });
    } catch (e) {
      // the same text imported concurrently: the other import won
      if (isUniqueViolation(e)) {
        const dup = await this.findBySha(prepared.sha256);
        if (dup) return dup;
      }
      throw e;
    }

    const indexed: IndexedChunk[] = rows.map((r) => ({
      id: r.id,
      documentId: id,
      ord: r.ord,
      title: prepared.title,
      heading: r.heading,
      type: prepared.type,
      source,
      text: r.text,
      vector: vectors ? unit(vectors[r.ord]) : null,
      embedModel: r.embedModel,
    }));
    await this.whenIndexed((index) => {
      for (const c of indexed) this.put(index, c);
      if (this.known) this.known = { documents: this.known.documents + 1, latest: Math.max(this.known.latest, importedAt.getTime()) };
    });

    return {
      document: summary({ id, title: prepared.title, source, type: prepared.type, bytes: prepared.bytes, sha256: prepared.sha256, importedAt }, rows.length),
      chunks: rows.length,
      duplicate: false,
      embedded: vectors !== null,
      ...(embedError !== undefined ? { embedError } : {}),
    };
  }

  /** Import one file from disk (type from its extension). */
  async importFile(file: string, source = file): Promise<ImportResult> {
    let stat;
    try {
      stat = await fs.stat(file);
    } catch {
      throw new NotFoundError(`no such file: ${file}`);
    }
    if (!stat.isFile()) throw new InvalidError(`not a file: ${file}`);
    resolveType(file);
    if (stat.size > MAX_DOCUMENT_BYTES) {
      throw new EngineError(`file is ${(stat.size / 1024 / 1024).toFixed(1)} MB; the limit is ${MAX_DOCUMENT_BYTES / 1024 / 1024} MB`, 413, "too_large");
    }
    return this.importDocument({ source, content: await fs.readFile(file) });
  }

  /**
   * Import every .md/.markdown/.txt/.text/.html/.htm file below `dir` (recursively, in path
   * order, skipping hidden entries and node_modules). A bad file is reported and skipped.
   */
  async importFolder(dir: string): Promise<FileImportResult[]> {
    let stat;
    try {
      stat = await fs.stat(dir);
    } catch {
      throw new NotFoundError(`no such folder: ${dir}`);
    }
    if (!stat.isDirectory()) throw new InvalidError(`not a folder: ${dir}`);
    const files = await listFiles(dir);
    const results: FileImportResult[] = [];
    for (const file of files) results.push(await this.importFileResult(file));
    return results;
  }

  /** `importFile` that reports a bad file instead of throwing (database failures still throw). */
  async importFileResult(file: string): Promise<FileImportResult> {
    try {
      return { file, ok: true, ...(await this.importFile(file)) };
    } catch (e) {
      if (isEngineError(e)) {
        const err = e;
        return { file, ok: false, error: err.message, status: err.status, code: err.code };
      }
      throw e;
    }
  }

  private async findBySha(sha256: string): Promise<ImportResult | null> {
    const row = await this.db.knowledgeDocument.findUnique({ where: { sha256 }, include: { _count: { select: { chunks: true } } } });
    if (!row) return null;
    const embedded = await this.db.knowledgeChunk.count({ where: { documentId: row.id, embedding: { not: null } } });
    const count = row._count.chunks;
    return { document: summary(row, count), chunks: count, duplicate: true, embedded: count > 0 && embedded === count };
  }

  private async embedAll(texts: string[]): Promise<number[][]> {
    const out: number[][] = [];
    for (let i = 0; i < texts.length; i += EMBED_BATCH) {
      const batch = texts.slice(i, i + EMBED_BATCH);
      const vectors = await this.opts.embed!(batch);
      if (!Array.isArray(vectors) || vectors.length !== batch.length) {
        throw new Error(`the embedder returned ${Array.isArray(vectors) ? vectors.length : "no"} vectors for ${batch.length} texts`);
      }
      out.push(...vectors);
    }
    const dims = out[0]?.length ?? 0;
    for (const v of out) {
      if (!Array.isArray(v) || v.length !== dims || dims === 0 || !v.every((x) => typeof x === "number" && Number.isFinite(x))) {
        throw new Error("the embedder returned malformed vectors (empty, non-numeric or of different lengths)");
      }
    }
    return out;
  }

  // ---------------------------------------------------------------- read and delete

  async list(q: { limit?: number; offset?: number; q?: string } = {}): Promise<{ documents: DocumentSummary[]; total: number }> {
    const limit = Math.max(1, Math.min(500, q.limit ?? 50));
    const offset = Math.max(0, q.offset ?? 0);
    const filter = q.q?.trim();
    // "Runbook" finds "On-call runbook" on either database (the SQLite client's types know no `mode`)
    const match = (this.opts.dialect === "postgres" ? { contains: filter, mode: "insensitive" } : { contains: filter }) as { contains: string };
    const where = filter ? { OR: [{ title: match }, { source: match }] } : {};
    const [rows, total] = await Promise.all([
      this.db.knowledgeDocument.findMany({ where, orderBy: [{ importedAt: "desc" }, { id: "asc" }], take: limit, skip: offset, include: { _count: { select: { chunks: true } } } }),
      this.db.knowledgeDocument.count({ where }),
    ]);
    return { documents: rows.map((r) => summary(r, r._count.chunks)), total };
  }

  async get(id: string): Promise<DocumentDetail> {
    const row = await this.db.knowledgeDocument.findUnique({ where: { id }, include: { chunks: { orderBy: { ord: "asc" } } } });
    if (!row) throw new NotFoundError(`document ${id} not found`);
    return {
      ...summary(row, row.chunks.length),
      chunks: row.chunks.map((c) => ({ id: c.id, ord: c.ord, heading: c.heading, text: c.text, embedded: c.embedding !== null })),
    };
  }

  async delete(id: string): Promise<void> {
    const chunkIds = await this.db.$transaction(async (tx) => {
      const doc = await tx.knowledgeDocument.findUnique({ where: { id }, select: { id: true } });
      if (!doc) throw new NotFoundError(`document ${id} not found`);
      const chunks = await tx.knowledgeChunk.findMany({ where: { documentId: id }, select: { id: true } });
      await tx.knowledgeChunk.deleteMany({ where: { documentId: id } });
      await tx.knowledgeDocument.delete({ where: { id } });
      return chunks.map((c) => c.id);
    }, { maxWait: 15_000, timeout: 60_000 });
    await this.whenIndexed((index) => {
      for (const cid of chunkIds) this.drop(index, cid);
      // chunks the index knows by document (e.g. added by a concurrent build)
      for (const c of [...this.chunks.values()]) if (c.documentId === id) this.drop(index, c.id);
      if (this.known) this.known = { ...this.known, documents: this.known.documents - 1 };
    });
  }

  async stats(): Promise<KnowledgeStats> {
    const [documents, chunks, embeddedChunks] = await Promise.all([
      this.db.knowledgeDocument.count(),
      this.db.knowledgeChunk.count(),
      this.db.knowledgeChunk.count({ where: { embedding: { not: null } } }),
    ]);
    return { documents, chunks, embeddedChunks };
  }

  // ---------------------------------------------------------------- index

  private newIndex(): MiniSearch<IndexedChunk> {
    const vocabulary = this.vocabulary;
    return new MiniSearch<IndexedChunk>({
      fields: ["title", "heading", "text"],
      storeFields: [],
      tokenize,
      processTerm: (term) => {
        const t = processTerm(term);
        if (t) vocabulary.add(t);
        return t;
      },
      searchOptions: {
        processTerm,
        boost: { heading: 2, title: 1.5 },
        combineWith: "OR",
        // prefix for terms of 3+ letters; fuzzy (one edit, two from 9 letters) only for words the index has never seen
        prefix: (term) => term.length >= 3,
        fuzzy: (term) => (term.length >= 4 && !vocabulary.has(term) ? (term.length >= 9 ? 2 : 1) : false),
        maxFuzzy: 2,
      },
    });
  }

  private put(index: MiniSearch<IndexedChunk>, c: IndexedChunk) {
    if (index.has(c.id)) index.discard(c.id);
    this.chunks.set(c.id, c);
    index.add(c);
    if (c.vector) this.matrix = null;
  }

  private drop(index: MiniSearch<IndexedChunk>, id: string) {
    if (index.has(id)) index.discard(id);
    if (this.chunks.get(id)?.vector) this.matrix = null;
    this.chunks.delete(id);
  }

  /** The embeddings comparable with a query vector of `dims` dimensions, packed row by row for a fast scan. */
  private vectorMatrix(dims: number): { ids: string[]; data: Float32Array } {
    if (this.matrix && this.matrix.dims === dims) return this.matrix;
    const rows: IndexedChunk[] = [];
    for (const c of this.chunks.values()) {
      if (c.vector && c.vector.length === dims && (!this.opts.embedModel || !c.embedModel || c.embedModel === this.opts.embedModel)) rows.push(c);
    }
    const data = new Float32Array(rows.length * dims);
    rows.forEach((c, i) => data.set(c.vector!, i * dims));
    this.matrix = { dims, ids: rows.map((c) => c.id), data };
    return this.matrix;
  }

  /** Apply a change to the index if it is built or being built; otherwise the next build reads it from the database. */
  private async whenIndexed(fn: (index: MiniSearch<IndexedChunk>) => void): Promise<void> {
    if (this.index) return fn(this.index);
    if (this.building) {
      const index = await this.building.catch(() => null);
      if (index) fn(index);
    }
  }

  private ensureIndex(): Promise<MiniSearch<IndexedChunk>> {
    if (this.index) return Promise.resolve(this.index);
    this.building ??= this.build()
      .then((r) => r.index)
      .finally(() => (this.building = null));
    return this.building;
  }

  private async build(): Promise<{ index: MiniSearch<IndexedChunk>; loadMs: number; indexMs: number }> {
    const t0 = performance.now();
    const known = await this.documentMark();
    const rows = await this.db.knowledgeChunk.findMany({
      // embeddings are parsed only when queries can be embedded to compare with them
      select: { id: true, documentId: true, ord: true, heading: true, text: true, embedding: !!this.opts.embed, embedModel: true, document: { select: { title: true, source: true, type: true } } },
    });
    const t1 = performance.now();
    const chunks = new Map<string, IndexedChunk>();
    for (const r of rows) {
      chunks.set(r.id, {
        id: r.id,
        documentId: r.documentId,
        ord: r.ord,
        title: r.document.title,
        heading: r.heading,
        type: isType(r.document.type) ? r.document.type : "text",
        source: r.document.source,
        text: r.text,
        vector: parseVector((r as { embedding?: string | null }).embedding ?? null),
        embedModel: r.embedModel,
      });
    }
    this.vocabulary.clear();
    const index = this.newIndex();
    index.addAll([...chunks.values()]);
    this.chunks = chunks;
    this.index = index;
    this.matrix = null;
    this.known = known;
    this.checkedAt = Date.now();
    return { index, loadMs: t1 - t0, indexMs: performance.now() - t1 };
  }

  private async documentMark(): Promise<{ documents: number; latest: number }> {
    const agg = await this.db.knowledgeDocument.aggregate({ _count: { _all: true }, _max: { importedAt: true } });
    return { documents: agg._count._all, latest: agg._max.importedAt ? new Date(agg._max.importedAt).getTime() : 0 };
  }

  /** Rebuild when another process imported or deleted documents since the index was built (checked at most every staleCheckMs). */
  private async refreshIfStale(): Promise<void> {
    const every = this.opts.staleCheckMs ?? 10_000;
    if (!this.index || !this.known || every <= 0 || this.building || Date.now() - this.checkedAt < every) return;
    this.checkedAt = Date.now();
    const mark = await this.documentMark();
    if (mark.documents !== this.known.documents || mark.latest !== this.known.latest) await this.rebuild();
  }

  /** Rebuild the index from the database (e.g. after writes by another process). */
  async rebuild(): Promise<{ chunks: number; loadMs: number; indexMs: number }> {
    if (this.building) await this.building.catch(() => null);
    this.index = null;
    const p = this.build();
    this.building = p.then((r) => r.index).finally(() => (this.building = null));
    const r = await p;
    return { chunks: this.chunks.size, loadMs: Math.round(r.loadMs * 10) / 10, indexMs: Math.round(r.indexMs * 10) / 10 };
  }

  // ---------------------------------------------------------------- search

  async search(query: string, opts: SearchOptions = {}): Promise<Hit[]> {
    return (await this.searchDetailed(query, opts)).hits;
  }

  /** Ranked hits plus which method ran, how long it took, and why vectors were not used if they failed. */
  async searchDetailed(query: string, opts: SearchOptions = {}): Promise<SearchOutcome> {
    const started = performance.now();
    const q = String(query ?? "").slice(0, MAX_QUERY_CHARS).trim();
    const limit = Math.max(1, Math.min(100, Math.floor(opts.limit ?? 8)));
    const terms = queryTerms(q).slice(0, MAX_QUERY_TERMS);
    await this.refreshIfStale();
    const index = await this.ensureIndex();
    const done = (method: SearchMethod, hits: Hit[], embedError?: string): SearchOutcome => ({
      query: q,
      method,
      hits,
      tookMs: Math.round((performance.now() - started) * 100) / 100,
      ...(embedError !== undefined ? { embedError } : {}),
    });
    if (!q) return done("bm25", []);

    const inScope = (c: IndexedChunk | undefined): c is IndexedChunk => !!c && (!opts.documentId || c.documentId === opts.documentId);
    const pool = Math.max(limit * 5, 50);

    // BM25
    let bm25: SearchResult[] = [];
    if (terms.length) {
      const filter = opts.documentId ? (r: SearchResult) => inScope(this.chunks.get(r.id as string)) : undefined;
      bm25 = index.search(terms.join(" "), filter ? { filter } : {}).slice(0, pool);
    }

    // vectors, when the store has comparable embeddings and the query can be embedded
    let qv: Float32Array | null = null;
    let embedError: string | undefined;
    if (this.opts.embed && this.hasVectors()) {
      try {
        qv = await this.queryVector(q);
      } catch (e) {
        embedError = e instanceof Error ? e.message : String(e);
      }
    }
    const comparable = (c: IndexedChunk) => !!qv && !!c.vector && c.vector.length === qv.length && (!this.opts.embedModel || !c.embedModel || c.embedModel === this.opts.embedModel);

    const fused = new Map<string, { rrf: number; bm25: number; cos?: number; terms: string[]; queryTerms: string[] }>();
    bm25.forEach((r, rank) => {
      fused.set(r.id as string, { rrf: 1 / (RRF_K + rank + 1), bm25: r.score, terms: r.terms, queryTerms: r.queryTerms });
    });
    let method: SearchMethod = "bm25";
    if (qv) {
      method = "hybrid";
      const vectorPool = Math.max(limit * 3, 20);
      const scored = this.nearest(qv, vectorPool, opts.documentId);
      scored.forEach((s, rank) => {
        if (s.cos <= 0) return;
        const f = fused.get(s.id) ?? { rrf: 0, bm25: 0, terms: [], queryTerms: [] };
        f.rrf += 1 / (RRF_K + rank + 1);
        f.cos = s.cos;
        fused.set(s.id, f);
      });
      for (const [id, f] of fused) {
        if (f.cos === undefined) {
          const c = this.chunks.get(id);
          if (c && comparable(c)) f.cos = dot(qv, c.vector!);
        }
      }
    }
    if (fused.size === 0) return done(method, [], embedError);

    const top = Math.max(...[...fused.values()].map((f) => f.rrf));
    const hits: Hit[] = [];
    for (const [id, f] of fused) {
      const c = this.chunks.get(id);
      if (!c) continue;
      const coverage = terms.length ? Math.min(1, f.queryTerms.length / terms.length) : 0;
      const score = 0.7 * (f.rrf / top) + 0.3 * coverage;
      hits.push({
        chunkId: id,
        documentId: c.documentId,
        title: c.title,
        heading: c.heading,
        type: c.type,
        source: c.source,
        ord: c.ord,
        text: c.text,
        score: Math.round(score * 1000) / 1000,
        bm25Score: Math.round(f.bm25 * 1000) / 1000,
        ...(f.cos !== undefined ? { vectorScore: Math.round(f.cos * 10_000) / 10_000 } : {}),
        terms: [...new Set(f.terms)],
        method,
      });
    }
    hits.sort((a, b) => b.score - a.score || (fused.get(b.chunkId)!.rrf - fused.get(a.chunkId)!.rrf) || a.chunkId.localeCompare(b.chunkId));
    return done(method, hits.slice(0, limit), embedError);
  }

  /** The `k` chunks most similar to the unit vector `qv` (cosine, best first), optionally within one document. */
  private nearest(qv: Float32Array, k: number, documentId?: string): { id: string; cos: number }[] {
    const { ids, data } = this.vectorMatrix(qv.length);
    const dims = qv.length;
    const topIds: number[] = [];
    const topCos: number[] = [];
    for (let row = 0, off = 0; row < ids.length; row++, off += dims) {
      let s = 0;
      for (let j = 0; j < dims; j++) s += qv[j] * data[off + j];
      if (topCos.length === k && s <= topCos[k - 1]) continue;
      if (documentId && this.chunks.get(ids[row])?.documentId !== documentId) continue;
      let i = topCos.length < k ? topCos.length : k - 1;
      while (i > 0 && topCos[i - 1] < s) {
        if (i < k) {
          topCos[i] = topCos[i - 1];
          topIds[i] = topIds[i - 1];
        }
        i--;
      }
      topCos[i] = s;
      topIds[i] = row;
      if (topCos.length > k) {
        topCos.length = k;
        topIds.length = k;
      }
    }
    return topIds.map((row, i) => ({ id: ids[row], cos: topCos[i] }));
  }

  private hasVectors(): boolean {
    for (const c of this.chunks.values()) if (c.vector) return true;
    return false;
  }

  private async queryVector(q: string): Promise<Float32Array> {
    const cached = this.queryVectors.get(q);
    if (cached) return cached;
    const [v] = await this.opts.embed!([q]);
    const u = Array.isArray(v) && v.every((x) => typeof x === "number" && Number.isFinite(x)) ? unit(v) : null;
    if (!u) throw new Error("the embedder returned no usable vector for the query");
    this.queryVectors.set(q, u);
    if (this.queryVectors.size > 200) this.queryVectors.delete(this.queryVectors.keys().next().value!);
    return u;
  }
}

/** What is embedded for a chunk: its document title and heading give the passage its context. */
function embedText(title: string, heading: string, text: string): string {
  return [title, heading && heading !== title ? heading : "", text].filter(Boolean).join("\n");
}

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string) => {
    const entries = await fs.readdir(d, { withFileTypes: true });
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const e of entries) {
      if (e.name.startsWith(".") || e.name === "node_modules") continue;
      const p = path.join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.isFile() && EXTENSION_TYPES[path.extname(e.name).toLowerCase()]) out.push(p);
    }
  };
  await walk(dir);
  return out;
}
