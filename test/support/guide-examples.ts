// The examples written on a guide page: every ```yaml, ```json and ```mermaid block, in order,
// with the line it starts on (test/guide-structures.test.ts, test/accepted-events.test.ts).
import fs from "node:fs";
import path from "node:path";
import type { FlowFormat } from "../../lib/flows/validate";

export interface GuideExample {
  format: FlowFormat;
  source: string;
  /** the line of the block's first line in the page */
  line: number;
}

const LANG: Record<string, FlowFormat> = { yaml: "yaml", json: "json", mermaid: "mermaid" };

export function guideExamples(page: string): GuideExample[] {
  const rows = fs.readFileSync(path.resolve(import.meta.dirname, "../..", page), "utf8").split("\n");
  const out: GuideExample[] = [];
  for (let i = 0; i < rows.length; i++) {
    const open = /^```(\w+)\s*$/.exec(rows[i]!);
    const format = open ? LANG[open[1]!] : undefined;
    if (!format) continue;
    const end = rows.findIndex((r, j) => j > i && r.startsWith("```"));
    out.push({ format, source: rows.slice(i + 1, end).join("\n") + "\n", line: i + 2 });
    i = end;
  }
  return out;
}

export const STRUCTURES_GUIDE = "docs/guide/18-composites-regions-forks-joins.md";
