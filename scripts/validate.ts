// npm run validate -- <file.yaml|.yml|.json|.mmd> [more files] [--id <id>] — check workflow
// definitions offline with the server's own checks (no database, no server): each error and
// warning with its line, as POST /api/workflows would say it. Exit 1 when any file has an error
// (warnings are printed; alone they exit 0). --id names a Mermaid diagram that has no id or title.
import fs from "node:fs";
import { issueText, validateFile } from "../lib/flows/validate-file";
import { provideWorkflows } from "../lib/machines/registry";
import * as workflows from "../workflows/registry";

provideWorkflows(workflows);

const argv = process.argv.slice(2).filter((a) => a !== "--");
const idAt = argv.indexOf("--id");
const id = idAt >= 0 ? argv[idAt + 1] : undefined;
const files = argv.filter((a, i) => !(idAt >= 0 && (i === idAt || i === idAt + 1)));
if (files.length === 0 || files.includes("--help") || files.includes("-h")) {
  console.error("usage: npm run validate -- <file.yaml|.yml|.json|.mmd> [more files] [--id <id>]");
  process.exit(files.length === 0 ? 2 : 0);
}

let failed = 0;
for (const file of files) {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    console.log(`✖ ${file}: cannot read it: ${(e as Error).message}`);
    failed++;
    continue;
  }
  const r = validateFile(file, text, { id });
  for (const e of r.errors) console.log(`${file}: error: ${issueText(e)}`);
  for (const w of r.warnings) console.log(`${file}: warning: ${issueText(w)}`);
  if (r.errors.length) {
    failed++;
    console.log(`✖ ${file}: ${r.errors.length} error${r.errors.length === 1 ? "" : "s"}${r.warnings.length ? `, ${r.warnings.length} warning${r.warnings.length === 1 ? "" : "s"}` : ""}`);
  } else console.log(`✔ ${file}: ${r.id} is valid${r.warnings.length ? ` (${r.warnings.length} warning${r.warnings.length === 1 ? "" : "s"})` : ""}`);
}
process.exit(failed ? 1 : 0);
