// Preparing a document for the knowledge store: its type, its text (HTML and Markdown reduced to
// plain text, front matter and titles read), the checks that refuse bad input, and the chunks
// (~600-900 characters, overlapping, each keeping its nearest heading). Pure functions, no I/O.
import { createHash } from "node:crypto";
import path from "node:path";
import { convert, type FormatCallback } from "html-to-text";
import { EngineError, InvalidError } from "../engine/errors";

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

// ------------------------------------------------------------------ text extraction

export const isType = (t: unknown): t is DocType => typeof t === "string" && (DOC_TYPES as readonly string[]).includes(t);

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

/**
 * How deep html-to-text walks the element tree: it recurses per level and overflows the stack a
 * couple of thousand levels down; what lies deeper than this becomes "...".
 */
const MAX_HTML_DEPTH = 512;

/** HTML → text, headings kept as Markdown headings so that chunks know their section. */
export function htmlToText(html: string): string {
  return convert(html, {
    wordwrap: false,
    limits: { maxDepth: MAX_HTML_DEPTH },
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
  const t = convert(`<p>${m[1]}</p>`, { wordwrap: false, limits: { maxDepth: MAX_HTML_DEPTH } }).replace(/\s+/g, " ").trim();
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
