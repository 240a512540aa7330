// Small text helpers shared by retrieval, classification and the offline model: tokenising,
// stop words, key terms, stems, sentence splitting. Deterministic.
import { stemmer } from "stemmer";

const STOP = new Set(
  (
    "a an and are as at be been but by can could do does did for from has have how i if in into is it its me my of on or our " +
    "please should so some that the their them then there these this those to us was we were what when where which who why will " +
    "with would you your about also any just like make need want get use using via than too very more most such only own same " +
    "each few other both all not no nor up down out over under again further once here write create give show tell let lets"
  ).split(" "),
);

export function tokens(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9][a-z0-9+#._-]*/g) ?? []).map((t) => t.replace(/[._-]+$/, "")).filter(Boolean);
}

export function isStopWord(t: string): boolean {
  return STOP.has(t);
}

/** Content words in order of first appearance, without duplicates. */
export function keyTerms(text: string, max = 12): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const t of tokens(text)) {
    if (t.length < 3 || STOP.has(t) || /^\d+$/.test(t) || seen.has(t)) continue;
    seen.add(t);
    out.push(t);
    if (out.length >= max) break;
  }
  return out;
}

export function sentences(text: string): string[] {
  return text
    .split(MARKDOWN_BLOCK)
    .map((block) => block.replace(BLOCK_MARKER, "").replace(/\s+/g, " "))
    .flatMap((block) => block.split(/(?<=[.!?])\s+(?=[A-Z0-9"'(`*_])/))
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** Where a Markdown text breaks regardless of punctuation: blank lines, list items, headings, quotes. */
const MARKDOWN_BLOCK = /\n\s*\n|\n(?=[ \t]*(?:[-*+]|\d+[.)]|#{1,6}|>)[ \t])|(?<=^[ \t]*#{1,6}[ \t][^\n]*)\n/m;
const BLOCK_MARKER = /^\s*(?:[-*+]|\d+[.)]|#{1,6}|>)[ \t]+/;

/**
 * A sentence as plain text to quote inside other Markdown: bold and italic markers removed, and
 * code ticks too when a cut left them unbalanced. Null when the sentence was itself cut short
 * (it ends in an ellipsis), since a quote that stops mid-word reads as a fault.
 */
export function quotable(sentence: string): string | null {
  if (/(…|\.\.\.)$/.test(sentence)) return null;
  const plain = sentence.replace(/\*\*|__|(?<![\w*])\*(?=\S)|(?<=\S)\*(?![\w*])/g, "");
  return (plain.match(/`/g)?.length ?? 0) % 2 ? plain.replace(/`/g, "") : plain;
}

/** The Porter stem of a word ("resumes", "resuming" → "resum"), to match word forms. */
export function stem(word: string): string {
  return /^[a-z]+$/.test(word) ? stemmer(word) : word;
}

/** The stems of a text's words. */
export function stems(text: string): Set<string> {
  return new Set(tokens(text).map(stem));
}

/**
 * Whether a sentence reads as prose worth quoting: not a flattened Markdown table row, and not a
 * fragment (a chunk may start mid-sentence).
 */
export function isProse(sentence: string): boolean {
  return (sentence.match(/\|/g)?.length ?? 0) < 2 && !/^[a-z,;:)]/.test(sentence);
}

/** Share of `terms` that occur in `text` (0..1). */
export function coverage(terms: string[], text: string): number {
  if (terms.length === 0) return 1;
  const have = new Set(tokens(text));
  return terms.filter((t) => have.has(t)).length / terms.length;
}

/** The text cut to `max` characters, with an ellipsis when cut. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** A rough token count (about four characters per token), used when no model reports usage. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
