// User-defined workflows in the database: every save is a new immutable version (FlowDefinition
// row); runs keep the version they started with. Loaded into the workflow registry when a
// runtime starts, and registered as soon as they are saved.
import type { Db } from "../db/client";
import { ConflictError, InvalidError } from "../engine/errors";
import { isBuiltIn, registerUserWorkflow, userVersions } from "../machines/registry";
import { flowWorkflow } from "./machine";
import type { FlowConfig, FlowIssue } from "./types";
import { switchesOf } from "./status";
import { checkForSave, type FlowFormat } from "./validate";
import { sameDefinition } from "./same";

export interface SavedFlow {
  id: string;
  version: number;
  format: FlowFormat;
  /** false when the definition equals the latest version (nothing new was stored) */
  created: boolean;
  config: FlowConfig;
  /** kept but worth knowing: in Mermaid, stages no run can reach */
  warnings: FlowIssue[];
}

/** Register every stored version (runs of older versions resume on their own machine). */
export async function loadUserWorkflows(db: Db): Promise<number> {
  const rows = await db.flowDefinition.findMany({ orderBy: [{ id: "asc" }, { version: "asc" }] });
  for (const r of rows) {
    if (isBuiltIn(r.id)) continue;
    registerUserWorkflow(flowWorkflow(JSON.parse(r.config) as FlowConfig, { version: r.version }), r.version);
  }
  return rows.length;
}

/** Validate and store a definition: 422 with line-numbered issues when invalid. */
export async function saveUserWorkflow(db: Db, format: FlowFormat, source: string, opts: { id?: string; now?: number; env?: Record<string, string | undefined> } = {}): Promise<SavedFlow> {
  // warnings about secrets read this server's environment
  const checked = checkForSave(format, source, { id: opts.id, env: opts.env ?? process.env });
  if (!checked.ok) {
    const lines = checked.issues.map((i) => (i.line ? `line ${i.line}: ${i.message}` : i.message));
    throw new InvalidError(`the workflow definition is invalid: ${lines.join("; ")}`, { issues: checked.issues });
  }
  const config = checked.config;
  if (isBuiltIn(config.id)) throw new ConflictError(`"${config.id}" is a built-in workflow; choose another id`);
  // a deleted workflow's id stays taken: its old runs and exports name its versions
  if ((await switchesOf(db, config.id)).deletedAt !== null) throw new ConflictError(`workflow "${config.id}" was deleted and its id stays reserved for its old runs; choose another id`);
  const latest = await db.flowDefinition.findFirst({ where: { id: config.id }, orderBy: { version: "desc" } });
  // the same workflow as the latest version (an export imported back, a map in another key order): not stored again
  const stored = latest ? (JSON.parse(latest.config) as FlowConfig) : null;
  if (latest && stored && (latest.config === JSON.stringify(config) || sameDefinition(stored, config))) {
    if (!userVersions(config.id).includes(latest.version)) registerUserWorkflow(flowWorkflow(stored, { version: latest.version }), latest.version);
    return { id: config.id, version: latest.version, format, created: false, config: stored, warnings: checked.warnings };
  }
  const version = (latest?.version ?? 0) + 1;
  await db.flowDefinition.create({
    data: { id: config.id, version, format, source, config: JSON.stringify(config), createdAt: new Date(opts.now ?? Date.now()) },
  });
  registerUserWorkflow(flowWorkflow(config, { version }), version);
  return { id: config.id, version, format, created: true, config, warnings: checked.warnings };
}

export async function flowVersions(db: Db, id: string) {
  const rows = await db.flowDefinition.findMany({ where: { id }, orderBy: { version: "asc" }, select: { version: true, format: true, createdAt: true } });
  return rows.map((r) => ({ version: r.version, format: r.format, createdAt: r.createdAt.toISOString() }));
}

export async function flowSource(db: Db, id: string, version?: number) {
  return db.flowDefinition.findFirst({ where: { id, ...(version ? { version } : {}) }, orderBy: { version: "desc" } });
}
