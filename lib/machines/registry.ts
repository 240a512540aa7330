// The catalog of workflows: the built-in ones, and the user-defined ones (seed 003's generic
// state machine) that lib/flows/store.ts loads from the database and registers here. Everything
// about a workflow's shape (diagram, REST description, tests) is derived from its machine.
import { deepResearch } from "./deep-research";
import { domainAgent } from "./domain-agent";
import { processingModes } from "./processing-modes";
import { swissArmy } from "./swiss-army";
import { conversation } from "./conversation";
import type { WorkflowDefinition } from "./types";

export const BUILT_IN: WorkflowDefinition[] = [swissArmy, deepResearch, domainAgent, processingModes, conversation];

const byId = new Map(BUILT_IN.map((w) => [w.id, w]));
/**
 * user-defined workflows: id → version → definition, one map per process. Next.js may load this
 * module once per server bundle (route handlers, server actions, pages), so the map hangs on
 * globalThis under a registered symbol rather than in a module variable.
 */
const KEY = Symbol.for("switchyard.user-workflows");
const user: Map<string, Map<number, WorkflowDefinition>> = ((globalThis as { [KEY]?: Map<string, Map<number, WorkflowDefinition>> })[KEY] ??= new Map());

export const isBuiltIn = (id: string) => byId.has(id);

/**
 * A workflow by id. For a user-defined one, a run's input names the version it started with
 * (`definitionVersion`); without it the latest version answers.
 */
export function findWorkflow(id: string, input?: unknown): WorkflowDefinition | undefined {
  const builtIn = byId.get(id);
  if (builtIn) return builtIn;
  const versions = user.get(id);
  if (!versions) return undefined;
  const pinned = (input as { definitionVersion?: unknown } | undefined)?.definitionVersion;
  if (typeof pinned === "number" && versions.has(pinned)) return versions.get(pinned);
  return versions.get(Math.max(...versions.keys()));
}

export function listWorkflows(): WorkflowDefinition[] {
  return [...BUILT_IN, ...[...user.keys()].sort().map((id) => findWorkflow(id)!)];
}

export function registerUserWorkflow(def: WorkflowDefinition, version: number): void {
  if (byId.has(def.id)) throw new Error(`${def.id} is a built-in workflow`);
  let versions = user.get(def.id);
  if (!versions) user.set(def.id, (versions = new Map()));
  versions.set(version, def);
}

/** every registered version of a user-defined workflow, oldest first */
export function userVersions(id: string): number[] {
  return [...(user.get(id)?.keys() ?? [])].sort((a, b) => a - b);
}
