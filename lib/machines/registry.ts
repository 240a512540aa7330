// The catalog of workflows: the built-in ones, and the user-defined ones (the stage machine's generic
// state machine) that lib/flows/store.ts loads from the database and registers here. Everything
// about a workflow's shape (diagram, REST description, tests) is derived from its machine.
import * as registry from "../../workflows/registry";
import type { ApiHandler, BuiltInWorkflow, EffectPorts } from "./built-in";
import type { WorkflowEffects } from "../engine/engine";
import type { ZodType } from "zod";
import type { WorkflowDefinition } from "./types";

/** the built-in workflows' entries (workflows/<id>/index.ts), in catalog order */
export const BUILT_IN_ENTRIES: BuiltInWorkflow[] = (Object.values(registry) as BuiltInWorkflow[]).sort((a, b) => (a.order ?? Infinity) - (b.order ?? Infinity));
export const BUILT_IN: WorkflowDefinition[] = BUILT_IN_ENTRIES.map((w) => w.definition);

const byId = new Map(BUILT_IN.map((w) => [w.id, w]));
const entries = new Map(BUILT_IN_ENTRIES.map((w) => [w.definition.id, w]));

/** the built-in workflows' effects on the runtime's ports, by workflow id */
export function builtInEffects(ports: EffectPorts): Record<string, WorkflowEffects> {
  return Object.fromEntries(BUILT_IN_ENTRIES.filter((w) => w.effects).map((w) => [w.definition.id, w.effects!(ports)]));
}

/** the built-ins' effect output schemas (what an external worker must return), by workflow id, then effect */
export function builtInOutputs(): Record<string, Record<string, ZodType>> {
  return Object.fromEntries(BUILT_IN_ENTRIES.map((w) => [w.definition.id, w.outputs ?? {}]));
}

/** run-input defaults from the environment, by workflow id */
export function builtInDefaults(env: NodeJS.ProcessEnv): Record<string, Record<string, unknown>> {
  return Object.fromEntries(BUILT_IN_ENTRIES.filter((w) => w.defaults).map((w) => [w.definition.id, w.defaults!(env)]));
}

/** a built-in workflow's run-page views module (a client reference on the server; null: none) */
export async function viewsOf(id: string): Promise<unknown> {
  return (await entries.get(id)?.views?.())?.default ?? null;
}

/** a built-in workflow's extra workflow-page panel (a server component taking { rt }; null: none) */
export async function panelOf(id: string): Promise<unknown> {
  return (await entries.get(id)?.panel?.())?.default ?? null;
}
/** the built-in workflow that contributes the app-level JSON endpoint /api/<name> (null: none) */
export function apiOf(name: string): { workflow: string; handler: ApiHandler } | null {
  const w = BUILT_IN_ENTRIES.find((e) => e.api && Object.hasOwn(e.api, name));
  return w ? { workflow: w.definition.id, handler: w.api![name]! } : null;
}

/** the app-level page <name> a built-in workflow contributes (a server component; null: none) */
export async function pageOf(name: string): Promise<unknown> {
  const w = BUILT_IN_ENTRIES.find((e) => e.pages && Object.hasOwn(e.pages, name));
  return w ? ((await w.pages![name]!()).default ?? null) : null;
}

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
