// A passage with the matched terms marked. No hooks: renders on the server and in the browser.
import { Fragment } from "react";
import { escapeRegExp as escape } from "@/lib/regexp";

/**
 * A stored passage made readable: hard-wrapped lines of a paragraph joined (list items, table
 * rows and code keep their lines), and Markdown emphasis and code ticks dropped.
 */
export function displayText(text: string): string {
  const lines = text.split("\n");
  let fence = false;
  const out: string[] = [];
  for (const line of lines) {
    const isFence = /^\s*(```|~~~)/.test(line);
    const structural = fence || isFence || line.trim() === "" || /^\s*([-*+]|\d+[.)])\s|^\s*[|>#]/.test(line);
    const prev = out.length ? out[out.length - 1] : null;
    const prevJoinable = prev !== null && prev.trim() !== "" && !/^\s*(```|~~~|\|)/.test(prev);
    if (!structural && prevJoinable && !fence) out[out.length - 1] = `${prev} ${line.trim()}`;
    else out.push(line);
    if (isFence) fence = !fence;
  }
  return out
    .join("\n")
    .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, "$2")
    .replace(/`([^`\n]+)`/g, "$1");
}

/** Split `text` into plain and matched parts; terms match whole words, case-insensitively. */
export function highlightParts(text: string, terms: string[]): { text: string; match: boolean }[] {
  const list = [...new Set(terms.map((t) => t.trim()).filter((t) => t.length > 0))].sort((a, b) => b.length - a.length);
  if (list.length === 0) return [{ text, match: false }];
  const re = new RegExp(`(?<![\\p{L}\\p{N}])(${list.map(escape).join("|")})(?![\\p{L}\\p{N}])`, "giu");
  const parts: { text: string; match: boolean }[] = [];
  let last = 0;
  for (const m of text.matchAll(re)) {
    if (m.index > last) parts.push({ text: text.slice(last, m.index), match: false });
    parts.push({ text: m[0], match: true });
    last = m.index + m[0].length;
  }
  if (last < text.length) parts.push({ text: text.slice(last), match: false });
  return parts;
}

export function KbHighlight({ text, terms, className = "" }: { text: string; terms: string[]; className?: string }) {
  return (
    <p className={`whitespace-pre-line break-words text-sm leading-relaxed text-slate-700 ${className}`} data-testid="kb-passage">
      {highlightParts(displayText(text), terms).map((p, i) =>
        p.match ? (
          <mark key={i} className="rounded bg-amber-100 px-0.5 text-slate-900">
            {p.text}
          </mark>
        ) : (
          <Fragment key={i}>{p.text}</Fragment>
        ),
      )}
    </p>
  );
}
