// Every link and every guide number in docs/ and README.md resolves: a relative link
// names a file that exists (and, with #anchor, a heading it has); "guide NN" names a page of
// docs/guide/. Guides 15 and 16 once pointed at guides 12 and 14, which do not exist.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..");
const pages = ["README.md", ...fs.readdirSync(path.join(ROOT, "docs"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".md")).map((f) => path.join("docs", f))].sort();
const guides = fs.readdirSync(path.join(ROOT, "docs/guide")).filter((f) => /^\d\d-.*\.md$/.test(f));

/** GitHub's anchor of a heading: lower case, punctuation dropped (not - or _), spaces as - */
const slug = (heading: string) =>
  heading
    .replace(/`/g, "")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");

function anchorsOf(file: string): Set<string> {
  const out = new Set<string>();
  let fenced = false;
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    const h = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
    if (h) out.add(slug(h[1]!));
  }
  return out;
}

/** the text of a page outside code blocks and inline code, with the line of each line */
function prose(file: string): { text: string; line: number }[] {
  let fenced = false;
  return fs
    .readFileSync(path.join(ROOT, file), "utf8")
    .split("\n")
    .map((text, i) => {
      if (text.startsWith("```")) {
        fenced = !fenced;
        return { text: "", line: i + 1 };
      }
      return { text: fenced ? "" : text.replace(/`[^`]*`/g, "``"), line: i + 1 };
    });
}

describe("docs/ and README.md: links and guide numbers resolve", () => {
  it("found the pages", () => {
    expect(pages).toContain("README.md");
    expect(pages).toContain("docs/guide/18-composites-regions-forks-joins.md");
  });

  it.each(pages)("%s: every relative link names a file (and heading) that exists", (page) => {
    const broken: string[] = [];
    for (const { text, line } of prose(page)) {
      for (const m of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        const target = m[1]!;
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
        const [file, anchor] = target.split("#") as [string, string | undefined];
        const abs = file ? path.resolve(ROOT, path.dirname(page), decodeURIComponent(file)) : path.join(ROOT, page);
        if (!fs.existsSync(abs)) broken.push(`line ${line}: ${target}: no such file`);
        else if (anchor && abs.endsWith(".md") && !anchorsOf(abs).has(anchor)) broken.push(`line ${line}: ${target}: no heading #${anchor} there`);
      }
    }
    expect(broken).toEqual([]);
  });

  it.each(pages)('%s: every "guide NN" is a page of docs/guide', (page) => {
    const broken: string[] = [];
    for (const { text, line } of prose(page)) {
      for (const m of text.matchAll(/\bguides?\s+(\d{1,2})\b((?:\s*(?:,|and|or)\s*\d{1,2}\b)*)/gi)) {
        const numbers = [m[1]!, ...(m[2]!.match(/\d{1,2}/g) ?? [])];
        for (const n of numbers) if (!guides.some((g) => g.startsWith(`${n.padStart(2, "0")}-`))) broken.push(`line ${line}: guide ${n}`);
      }
      // a file name of a guide page
      for (const m of text.matchAll(/\b(\d\d-[a-z0-9-]+\.md)\b/g)) if (!guides.includes(m[1]!) && !fs.existsSync(path.join(ROOT, m[1]!))) broken.push(`line ${line}: ${m[1]}`);
    }
    expect(broken).toEqual([]);
  });
});
