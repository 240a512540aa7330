// `npm run validate -- <file.yaml|.json|.mmd>`: a definition checked offline, in a
// team's own CI, with the server's own checks (lib/flows/validate.ts checkForSave: the shape, the
// meaning, the steps, a Mermaid diagram that does not say which workflow it is, an id a built-in
// workflow has) and its warnings, each with the line the server names.
import path from "node:path";
import { isBuiltIn } from "../machines/registry";
import type { FlowIssue } from "./types";
import { checkForSave, type FlowFormat } from "./validate";

export const FORMATS: Record<string, FlowFormat> = { ".yaml": "yaml", ".yml": "yaml", ".json": "json", ".mmd": "mermaid", ".mermaid": "mermaid", ".md": "mermaid" };

export interface FileCheck {
  format: FlowFormat | null;
  id: string | null;
  errors: FlowIssue[];
  warnings: FlowIssue[];
}

/** What the server would say of this file: its errors (it would refuse it) and its warnings (it would keep it). */
export function validateFile(file: string, text: string, opts: { id?: string; env?: Record<string, string | undefined> } = {}): FileCheck {
  const format = FORMATS[path.extname(file).toLowerCase()] ?? null;
  if (!format) return { format, id: null, errors: [{ message: `${path.extname(file) || "no extension"}: name the file .yaml, .yml, .json or .mmd` }], warnings: [] };
  const r = checkForSave(format, text, { ...(opts.id ? { id: opts.id } : {}), env: opts.env ?? process.env });
  if (!r.ok) return { format, id: null, errors: r.issues, warnings: [] };
  if (isBuiltIn(r.config.id)) return { format, id: r.config.id, errors: [{ message: `"${r.config.id}" is a built-in workflow; choose another id`, line: 1 }], warnings: r.warnings };
  return { format, id: r.config.id, errors: [], warnings: r.warnings };
}

/** One issue as the server's 422 writes it: "line N: message". */
export const issueText = (i: FlowIssue) => (i.line ? `line ${i.line}: ${i.message}` : i.message);
