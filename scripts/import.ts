// npm run import -- <folder|file> [more folders/files] — import documents into the knowledge
// store of DATABASE_URL (default: SQLite under data/). Folders are walked recursively for
// .md/.markdown/.txt/.text/.html/.htm files. One line per file, a summary, exit 1 if any failed.
import "dotenv/config";
import fs from "node:fs";
import { migrateDatabase } from "../lib/db/migrations";
import type { FileImportResult } from "../lib/knowledge/documents";
import { createRuntime } from "../lib/runtime";
import { provideWorkflows } from "../lib/machines/registry";
import * as workflows from "../workflows/registry";

provideWorkflows(workflows);

const args = process.argv.slice(2).filter((a) => a !== "--");
if (args.length === 0 || args.includes("--help") || args.includes("-h")) {
  console.error("usage: npm run import -- <folder|file> [more folders/files]\n  imports .md, .markdown, .txt, .text, .html and .htm files into the knowledge store");
  process.exit(args.length === 0 ? 2 : 0);
}

function line(r: FileImportResult): string {
  if (!r.ok) return `✖ ${r.file}: error: ${r.error}`;
  if (r.duplicate) return `= ${r.file}: duplicate of “${r.document.title}”`;
  const emb = r.embedError ? ` (without embeddings: ${r.embedError})` : r.embedded ? " (embedded)" : "";
  return `✔ ${r.file}: imported ${r.chunks} chunk${r.chunks === 1 ? "" : "s"} as “${r.document.title}”${emb}`;
}

const rt = await createRuntime({ migrate: migrateDatabase, resume: false, serviceChoresMs: 0, alerts: { start: false } });
let imported = 0;
let chunks = 0;
let duplicates = 0;
let failed = 0;
try {
  const store = rt.knowledge;
  const started = performance.now();
  for (const arg of args) {
    let results: FileImportResult[];
    const stat = fs.statSync(arg, { throwIfNoEntry: false });
    if (!stat) results = [{ file: arg, ok: false, error: "no such file or folder", status: 404, code: "not_found" }];
    else if (stat.isDirectory()) {
      results = await store.importFolder(arg);
      if (results.length === 0) console.log(`· ${arg}: no .md/.markdown/.txt/.text/.html/.htm files`);
    } else results = [await store.importFileResult(arg)];
    for (const r of results) {
      console.log(line(r));
      if (!r.ok) failed++;
      else if (r.duplicate) duplicates++;
      else {
        imported++;
        chunks += r.chunks;
      }
    }
  }
  const stats = await store.stats();
  console.log(
    `\n${imported} imported (${chunks} chunks), ${duplicates} duplicate${duplicates === 1 ? "" : "s"}, ${failed} failed in ${Math.round(performance.now() - started)} ms` +
      ` — the store now holds ${stats.documents} documents, ${stats.chunks} chunks`,
  );
} finally {
  await rt.close();
}
process.exit(failed > 0 ? 1 : 0);
