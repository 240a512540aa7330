// The shipped corpus: the Switchyard guide (docs/guide/*.md) and each workflow's own guide page
// (workflows/<id>/guide.md), imported into an empty knowledge store at setup and on first start
// so that the first searches find something useful.
import fs from "node:fs";
import path from "node:path";
import type { FileImportResult, KnowledgeStore } from "./documents";

export interface SeedResult {
  seeded: boolean;
  /** why nothing was imported */
  reason?: string;
  imported: number;
  chunks: number;
  failed: { file: string; error: string }[];
}

/** Import the guide if the store has no documents yet (idempotent: a second call does nothing). */
export async function seedCorpus(store: KnowledgeStore, dir = "docs/guide", workflows = "workflows"): Promise<SeedResult> {
  const empty = { imported: 0, chunks: 0, failed: [] };
  if ((await store.stats()).documents > 0) return { seeded: false, reason: "the knowledge store already has documents", ...empty };
  // the folder is read at run time from the working directory, not traced into the build
  const abs = path.resolve(/*turbopackIgnore: true*/ dir);
  if (!fs.existsSync(/*turbopackIgnore: true*/ abs) || !fs.statSync(/*turbopackIgnore: true*/ abs).isDirectory()) return { seeded: false, reason: `no corpus folder at ${abs}`, ...empty };
  const results: FileImportResult[] = await store.importFolder(dir);
  for (const file of workflowGuides(workflows)) results.push(await store.importFileResult(file));
  const ok = results.filter((r) => r.ok);
  return {
    seeded: ok.length > 0,
    imported: ok.filter((r) => !r.duplicate).length,
    chunks: ok.reduce((n, r) => n + (r.duplicate ? 0 : r.chunks), 0),
    failed: results.flatMap((r) => (r.ok ? [] : [{ file: r.file, error: r.error }])),
  };
}

/** workflows/<id>/guide.md of every workflow folder that has one (relative paths, sorted) */
export function workflowGuides(workflows = "workflows"): string[] {
  const abs = path.resolve(/*turbopackIgnore: true*/ workflows);
  if (!fs.existsSync(/*turbopackIgnore: true*/ abs)) return [];
  return fs
    .readdirSync(/*turbopackIgnore: true*/ abs, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(/*turbopackIgnore: true*/ path.join(abs, d.name, "guide.md")))
    .map((d) => path.join(workflows, d.name, "guide.md"))
    .sort();
}
