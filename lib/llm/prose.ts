// What the offline engine may quote as a finding: prose. Code blocks, shell commands, JSON and
// tables are instructions or data, not statements; quoting them as "what the sources say" reads
// as nonsense ("curl -s localhost:3000/api/runs -H …" as a research summary).

/** The text without fenced code blocks (an unclosed fence runs to the end) and indented code lines. */
export function withoutCode(text: string): string {
  return text
    .replace(/(^|\n)[ \t]*(```|~~~)[^\n]*\n[\s\S]*?(?:\n[ \t]*\2[^\n]*(?=\n|$)|$)/g, "$1")
    .replace(/(^|\n)(?: {4}|\t)[^\n]*(?=\n|$)/g, "$1");
}

const COMMAND = /^(?:\$\s*)?(?:curl|wget|npm|npx|pnpm|yarn|node|git|docker|kubectl|psql|sqlite3|export|cd|ls|cat|echo|sudo|pip|python3?|bash|sh|set|env|make|brew|apt(?:-get)?)\s/i;

/** True for a sentence that reads as prose: words and punctuation, not a command, code or data. */
export function isProseSentence(sentence: string): boolean {
  const s = sentence.trim();
  if (s.length < 20) return false;
  if (/```|~~~/.test(s) || COMMAND.test(s)) return false;
  if ((s.match(/\|/g)?.length ?? 0) >= 2) return false;
  // shell continuations, JSON bodies, arrows and statements
  if (/\\\s|[{}]|=>|;\s*$|^\s*[[{<]|\s-[A-Za-z]\s'|:\/\/localhost|\$\(|\$[A-Z_]{2,}/.test(s)) return false;
  const letters = s.match(/[A-Za-z]/g)?.length ?? 0;
  const spaces = s.match(/\s/g)?.length ?? 0;
  // prose is mostly letters and has words
  if (letters / s.length < 0.6 || spaces < 3) return false;
  return /^[A-Z0-9"'(*_`]/.test(s);
}
