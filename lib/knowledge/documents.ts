// The knowledge store: documents imported from Markdown, plain text and HTML, cut into
// overlapping chunks that keep their nearest heading, stored with Prisma, and ranked with BM25
// (MiniSearch) — plus cosine similarity over stored embeddings when an embedder is configured,
// merged by reciprocal rank fusion. The index lives in memory: built lazily from the database
// on the first search and kept current on every import and delete.
import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { convert, type FormatCallback } from "html-to-text";
import MiniSearch, { type SearchResult } from "minisearch";
import type { Db } from "../db/client";
import { EngineError, InvalidError, NotFoundError, isEngineError } from "../engine/errors";

// ------------------------------------------------------------------ types and limits

export const DOC_TYPES = ["text", "markdown", "html"] as const;
export type DocType = (typeof DOC_TYPES)[number];

/** Largest document accepted (bytes of the content as given). */
export const MAX_DOCUMENT_BYTES = 2 * 1024 * 1024;

/** File extensions `importFolder` picks up, and the type each implies. */
export const EXTENSION_TYPES: Readonly<Record<string, DocType>> = {
  ".txt": "text",
  ".text": "text",
  ".md": "markdown",
  ".markdown": "markdown",
  ".html": "html",
  ".htm": "html",
};

/** Chunk sizes in characters: chunks aim for min..max, consecutive chunks of a section share ≈ overlap. */
export const CHUNK_SIZE = { min: 600, max: 900, overlap: 100 } as const;

export interface ImportInput {
  title?: string;
  /** file path, file name or URL it came from (its extension decides the type when none is given) */
  source: string;
  type?: DocType | string;
  content: string | Buffer;
}

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
}

// ------------------------------------------------------------------ text extraction

const isType = (t: unknown): t is DocType => typeof t === "string" && (DOC_TYPES as readonly string[]).includes(t);

/** The document type: the one given, else the source's extension. Unknown → InvalidError. */
export function resolveType(source: string, type?: string): DocType {
  if (type !== undefined && type !== "") {
    const t = type.toLowerCase();
    if (isType(t)) return t;
    if (t === "md") return "markdown";
    if (t === "txt") return "text";
    if (t === "htm") return "html";
    throw new InvalidError(`unknown document type "${type}": use text, markdown or html`);
  }
  const ext = extensionOf(source);
  const fromExt = ext ? EXTENSION_TYPES[ext] : undefined;
  if (!fromExt) {
    throw new InvalidError(
      ext ? `unsupported file type "${ext}": import .md, .markdown, .txt, .text, .html or .htm files` : `cannot tell the type of "${source}": give a type (text, markdown or html) or a file name with an extension`,
    );
  }
  return fromExt;
}

function extensionOf(source: string): string {
  const clean = source.split(/[?#]/)[0];
  return path.extname(clean).toLowerCase();
}

const NFC = (s: string) => s.normalize("NFC");

/** Line endings, Unicode form, trailing blanks, runs of blank lines: what makes two copies of a text "the same". */
export function normalizeText(text: string): string {
  return NFC(text)
    .replace(/^\uFEFF/, "")
    .replace(/\r\n?/g, "\n")
    .replace(/[\u000B\u000C\u0085\u2028\u2029]/g, "\n")
    .replace(/[\u0001-\u0008\u000E-\u001F\u007F]/g, "")
    .replace(/[ \t]+$/gm, "")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

const mdHeading: FormatCallback = (elem, walk, builder, options) => {
  const level = Math.min(6, Math.max(1, Number((options as { level?: number }).level) || 1));
  builder.openBlock({ leadingLineBreaks: 2 });
  builder.addLiteral(`${"#".repeat(level)} `);
  walk(elem.children, builder);
  builder.closeBlock({ trailingLineBreaks: 2 });
};

/** HTML → text, headings kept as Markdown headings so that chunks know their section. */
export function htmlToText(html: string): string {
  return convert(html, {
    wordwrap: false,
    formatters: { mdHeading },
    selectors: [
      ...[1, 2, 3, 4, 5, 6].map((level) => ({ selector: `h${level}`, format: "mdHeading", options: { level } as never })),
      { selector: "a", options: { ignoreHref: true } },
      { selector: "img", format: "skip" },
      { selector: "nav", format: "skip" },
      { selector: "script", format: "skip" },
      { selector: "style", format: "skip" },
      { selector: "noscript", format: "skip" },
      { selector: "svg", format: "skip" },
      { selector: "table", format: "dataTable" },
    ],
  });
}

function htmlTitle(html: string): string | null {
  const m = html.match(/<title[^>]*>([\s\S]*?)<\/title>/i);
  if (!m) return null;
  const t = convert(`<p>${m[1]}</p>`, { wordwrap: false }).replace(/\s+/g, " ").trim();
  return t || null;
}

/** Markdown front matter (--- … ---) at the very start: its title, and the text without it. */
function splitFrontMatter(text: string): { title: string | null; body: string } {
  const m = text.match(/^---\n([\s\S]*?)\n(?:---|\.\.\.)\n?/);
  if (!m) return { title: null, body: text };
  const t = m[1].match(/^title:\s*(.+?)\s*$/m);
  const title = t ? t[1].replace(/^["']|["']$/g, "").trim() || null : null;
  return { title, body: text.slice(m[0].length) };
}

function cleanInline(s: string): string {
  return s
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/`([^`]+)`/g, "$1")
    .replace(/(\*\*|__)(.+?)\1/g, "$2")
    .replace(/(^|\W)[*_](\S(?:.*?\S)?)[*_](?=\W|$)/g, "$1$2")
    .replace(/\s+/g, " ")
    .trim();
}

function truncateWords(s: string, max: number): string {
  if (s.length <= max) return s;
  const cut = s.slice(0, max + 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max * 0.5 ? cut.slice(0, space) : s.slice(0, max)).trim()}…`;
}

function fileTitle(source: string): string {
  const base = path.basename(source.split(/[?#]/)[0]);
  const ext = path.extname(base);
  return (ext ? base.slice(0, -ext.length) : base).trim();
}

function firstLine(text: string): string | null {
  for (const raw of text.split("\n")) {
    const line = cleanInline(raw.replace(/^\s*(#{1,6}\s+|[-*+>]\s+|\d+[.)]\s+)/, ""));
    if (/[\p{L}\p{N}]/u.test(line)) return line;
  }
  return null;
}

// ------------------------------------------------------------------ chunking

export interface TextChunk {
  ord: number;
  /** the nearest heading above the chunk ("" before the first heading, and in plain text) */
  heading: string;
  text: string;
  /** characters at the start repeated from the end of the previous chunk */
  overlap: number;
}

interface Section {
  heading: string;
  body: string;
}

const ATX = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
const LIST_ITEM = /^\s*([-*+]|\d+[.)])\s/;

/** Markdown → sections at ATX (#) and setext headings, ignoring "headings" inside fenced code. */
function splitSections(text: string): Section[] {
  const sections: Section[] = [];
  let heading = "";
  let lines: string[] = [];
  let fence: string | null = null;
  const push = () => {
    const body = lines.join("\n").trim();
    if (body) sections.push({ heading, body });
    lines = [];
  };
  for (const line of text.split("\n")) {
    const f = line.match(FENCE);
    if (fence) {
      lines.push(line);
      if (f && f[1][0] === fence[0] && f[1].length >= fence.length && line.trim() === f[1]) fence = null;
      continue;
    }
    if (f) {
      fence = f[1];
      lines.push(line);
      continue;
    }
    const atx = line.match(ATX);
    if (atx) {
      push();
      heading = cleanInline(atx[2]);
      continue;
    }
    const prev = lines.at(-1);
    const beforePrev = lines.length >= 2 ? lines[lines.length - 2] : "";
    if (SETEXT.test(line) && prev !== undefined && prev.trim() !== "" && beforePrev.trim() === "" && !LIST_ITEM.test(prev) && !FENCE.test(prev)) {
      lines.pop();
      push();
      heading = cleanInline(prev);
      continue;
    }
    lines.push(line);
  }
  push();
  return sections;
}

/** Paragraphs (blank-line separated), keeping fenced code blocks whole. */
function paragraphs(body: string): string[] {
  const out: string[] = [];
  let cur: string[] = [];
  let fence: string | null = null;
  const push = () => {
    const p = cur.join("\n").trim();
    if (p) out.push(p);
    cur = [];
  };
  for (const line of body.split("\n")) {
    const f = line.match(FENCE);
    if (fence) {
      cur.push(line);
      if (f && f[1][0] === fence[0] && line.trim() === f[1]) fence = null;
      continue;
    }
    if (f) fence = f[1];
    if (line.trim() === "" && !fence) push();
    else cur.push(line);
  }
  push();
  return out;
}

/** Sentences of a line, each keeping its punctuation; splits only at whitespace after . ! ? (or …). */
function sentencesOf(line: string): string[] {
  return line
    .split(/(?<=[.!?…]["'’”)\]]*)\s+(?=\S)/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Cut a too-long run of text at whitespace into pieces of at most `max` characters (a single longer word is cut hard). */
function byWords(text: string, max: number): string[] {
  const words = text.split(/\s+/).filter(Boolean);
  const out: string[] = [];
  let cur = "";
  for (const w of words) {
    if (w.length > max) {
      if (cur) out.push(cur);
      cur = "";
      for (let i = 0; i < w.length; i += max) out.push(w.slice(i, i + max));
      continue;
    }
    if (cur && cur.length + 1 + w.length > max) {
      out.push(cur);
      cur = w;
    } else cur = cur ? `${cur} ${w}` : w;
  }
  if (cur) out.push(cur);
  return out;
}

interface Unit {
  text: string;
  /** what joins it to the unit before it: a paragraph break, a line break or a space */
  sep: "\n\n" | "\n" | " ";
}

const UNIT_MAX = CHUNK_SIZE.max - 2 * CHUNK_SIZE.overlap;

/** A paragraph as finer units: its lines, and lines too long for a chunk as sentences (then words). */
function pieces(para: string, limit: number): Unit[] {
  const out: Unit[] = [];
  let first = true;
  for (const line of para.split("\n")) {
    if (!line.trim()) continue;
    let firstOfLine = true;
    const parts = line.length <= limit ? [line] : sentencesOf(line).flatMap((s) => (s.length <= UNIT_MAX ? [s] : byWords(s, UNIT_MAX)));
    for (const p of parts) {
      out.push({ text: p, sep: first ? "\n\n" : firstOfLine ? "\n" : " " });
      first = false;
      firstOfLine = false;
    }
  }
  return out;
}

function units(body: string): Unit[] {
  return paragraphs(body).flatMap((para) => (para.length <= UNIT_MAX ? [{ text: para, sep: "\n\n" as const }] : pieces(para, UNIT_MAX)));
}

/** ≈ `overlap` characters from the end of a chunk, starting at a sentence start if one is near, else at a word start. */
function tailOf(text: string): string {
  const { overlap } = CHUNK_SIZE;
  if (text.length < overlap * 1.6) return "";
  const target = text.length - overlap;
  let best = -1;
  // prefer a sentence start within 60..160 characters of the end
  for (let i = text.length - 160; i <= text.length - 60; i++) {
    if (i <= 0) continue;
    if (/\s/.test(text[i - 1]) && !/\s/.test(text[i]) && /[.!?…]["'’”)\]]*\s*$/.test(text.slice(Math.max(0, i - 4), i))) {
      if (best < 0 || Math.abs(i - target) < Math.abs(best - target)) best = i;
    }
  }
  if (best < 0) {
    for (let i = text.length - 140; i <= text.length - 60; i++) {
      if (i <= 0) continue;
      if (/\s/.test(text[i - 1]) && !/\s/.test(text[i]) && (best < 0 || Math.abs(i - target) < Math.abs(best - target))) best = i;
    }
  }
  return best < 0 ? "" : text.slice(best);
}

function pack(body: string): { text: string; overlap: number }[] {
  const { min, max } = CHUNK_SIZE;
  const out: { text: string; overlap: number }[] = [];
  let cur = "";
  let overlap = 0;
  let fresh = false;
  const flush = () => {
    if (!fresh) return;
    out.push({ text: cur, overlap });
    const tail = tailOf(cur);
    cur = tail;
    overlap = tail.length;
    fresh = false;
  };
  const queue = units(body);
  for (let i = 0; i < queue.length; i++) {
    const u = queue[i];
    const overflow = cur.length + u.sep.length + u.text.length > max;
    if (fresh && overflow && cur.length < min && u.sep === "\n\n") {
      // a short chunk and a paragraph that does not fit: fill the chunk with the paragraph's first sentences
      const finer = pieces(u.text, 0);
      if (finer.length > 1) {
        queue.splice(i, 1, ...finer);
        i--;
        continue;
      }
    }
    if (fresh && (overflow || (u.sep === "\n\n" && cur.length >= min))) flush();
    cur = cur ? `${cur}${u.sep}${u.text}` : u.text;
    fresh = true;
  }
  flush();
  return out;
}

/** Markdown text (already extracted from HTML) or plain text → chunks. */
function chunkExtracted(text: string, markdown: boolean): TextChunk[] {
  const sections = markdown ? splitSections(text) : [{ heading: "", body: text }];
  const out: TextChunk[] = [];
  for (const s of sections) for (const c of pack(s.body)) out.push({ ord: out.length, heading: s.heading, text: c.text, overlap: c.overlap });
  return out;
}

/**
 * Split a document into chunks of ≈ 600–900 characters: at Markdown headings (a chunk never
 * spans two sections and keeps its nearest heading), then at blank lines; a paragraph too long
 * for one chunk is cut at sentence boundaries, a sentence too long at spaces — never inside a
 * word. Consecutive chunks of a section overlap by ≈ 100 characters. Pure and deterministic.
 */
export function chunkText(text: string, type: DocType): TextChunk[] {
  if (type === "html") return chunkExtracted(normalizeText(htmlToText(text)), true);
  const normalized = normalizeText(text);
  if (type === "markdown") return chunkExtracted(splitFrontMatter(normalized).body, true);
  return chunkExtracted(normalized, false);
}

// ------------------------------------------------------------------ decoding and validation

function decode(content: string | Buffer): string {
  if (typeof content === "string") {
    if (content.includes("\u0000")) throw new InvalidError("binary file: the content contains NUL bytes");
    return content;
  }
  if (content.includes(0)) throw new InvalidError("binary file: the content contains NUL bytes");
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(content);
  } catch {
    throw new InvalidError("binary file: the content is not valid UTF-8 text");
  }
}

function looksBinary(text: string): boolean {
  const sample = text.slice(0, 8_192);
  if (!sample) return false;
  let control = 0;
  for (let i = 0; i < sample.length; i++) {
    const c = sample.charCodeAt(i);
    if ((c < 32 && c !== 9 && c !== 10 && c !== 13 && c !== 12) || c === 0xfffd) control++;
  }
  return control / sample.length > 0.05;
}

interface Prepared {
  type: DocType;
  title: string;
  text: string;
  sha256: string;
  bytes: number;
  chunks: TextChunk[];
}

/** Everything an import needs, computed without touching the database; throws on bad input. */
export function prepareDocument(input: ImportInput): Prepared {
  if (typeof input.source !== "string" || !input.source.trim()) throw new InvalidError("source is required (a file name, path or URL)");
  const source = input.source.trim();
  const type = resolveType(source, input.type);
  if (typeof input.content !== "string" && !Buffer.isBuffer(input.content)) throw new InvalidError("content must be text or a Buffer");
  const bytes = typeof input.content === "string" ? Buffer.byteLength(input.content) : input.content.length;
  if (bytes > MAX_DOCUMENT_BYTES) {
    throw new EngineError(`document is ${(bytes / 1024 / 1024).toFixed(1)} MB; the limit is ${MAX_DOCUMENT_BYTES / 1024 / 1024} MB`, 413, "too_large");
  }
  const raw = decode(input.content);
  if (looksBinary(raw)) throw new InvalidError("binary file: the content is mostly control characters, not text");
  let text: string;
  let derivedTitle: string | null = null;
  if (type === "html") {
    text = normalizeText(htmlToText(raw));
    derivedTitle = htmlTitle(raw);
  } else if (type === "markdown") {
    const fm = splitFrontMatter(normalizeText(raw));
    text = normalizeText(fm.body);
    derivedTitle = fm.title;
  } else {
    text = normalizeText(raw);
  }
  if (!/[\p{L}\p{N}]/u.test(text)) throw new InvalidError("document is empty: it has no text to index");
  const chunks = chunkExtracted(text, type !== "text");
  if (chunks.length === 0) throw new InvalidError("document is empty: it has no text to index");
  if (!derivedTitle && type !== "text") derivedTitle = chunks.find((c) => c.heading)?.heading ?? null;
  const given = input.title?.trim();
  let title = given || derivedTitle || null;
  if (!title) {
    const line = firstLine(text);
    if (line && (type !== "text" || line.length <= 120)) title = line;
    else title = fileTitle(source) || line;
  }
  title = truncateWords(title ?? "Untitled", 300);
  const sha256 = createHash("sha256").update(text).digest("hex");
  return { type, title, text, sha256, bytes, chunks };
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
    const where = filter ? { OR: [{ title: { contains: filter } }, { source: { contains: filter } }] } : {};
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
