// The catalog of workflows: the built-in ones, which the program's entry point provides (the web
// server's instrumentation.ts, a script, the test setup: `provideWorkflows(workflows/registry)`),
// and the user-defined ones (the stage machine's generic state machine) that lib/flows/store.ts
// loads from the database and registers here. The core never imports a workflow: it is given
// them, as an XState machine is given its implementations. Everything about a workflow's shape
// (diagram, REST description, tests) is derived from its machine.
import type { BuiltInWorkflow, EffectPorts, NavLink } from "./built-in";
import { API_METHODS, type ApiEndpoint, type ApiMethod, type ApiMethodName } from "./workflow-api";
import type { WorkflowEffects } from "../engine/engine";
import type { Services } from "./services";
import type { z } from "zod";
import type { WorkflowDefinition } from "./types";

interface Catalog {
  entries: BuiltInWorkflow[];
  byId: Map<string, WorkflowDefinition>;
}

/**
 * The provided built-ins, one catalog per process: Next.js may load this module once per server
 * bundle (instrumentation, route handlers, server actions, pages), so it hangs on globalThis under
 * a registered symbol rather than in a module variable.
 */
const CATALOG = Symbol.for("switchyard.built-in-workflows");
type Holder = { [CATALOG]?: Catalog };

/** The built-in workflows' entries (workflows/registry.ts's exports), in catalog order. */
export function catalogOrder(workflows: Record<string, BuiltInWorkflow> | BuiltInWorkflow[]): BuiltInWorkflow[] {
  return Object.values(workflows).sort((a, b) => (a.order ?? Infinity) - (b.order ?? Infinity));
}

/** Give the core its built-in workflows (the entry point does this once, before the runtime starts). */
export function provideWorkflows(workflows: Record<string, BuiltInWorkflow> | BuiltInWorkflow[]): void {
  const entries = catalogOrder(workflows);
  (globalThis as Holder)[CATALOG] = { entries, byId: new Map(entries.map((w) => [w.definition.id, w.definition])) };
}

function catalog(): Catalog {
  const c = (globalThis as Holder)[CATALOG];
  if (!c) throw new Error("no workflows were provided: the entry point calls provideWorkflows() with workflows/registry.ts before it uses the catalog or starts the runtime");
  return c;
}

/** the built-in workflows' entries (workflows/<id>/index.ts), in catalog order */
export function builtInEntries(): BuiltInWorkflow[] {
  return catalog().entries;
}

/** the links the built-in workflows add to the top navigation, in catalog order */
export function builtInNav(): NavLink[] {
  return builtInEntries().flatMap((w) => w.nav ?? []);
}

/** the built-in workflows' definitions, in catalog order */
export function builtInWorkflows(): WorkflowDefinition[] {
  return catalog().entries.map((w) => w.definition);
}

/** the built-in workflows' effects on the runtime's ports and each workflow's own services, by workflow id */
export function builtInEffects(ports: EffectPorts, services: Services): Record<string, WorkflowEffects> {
  return Object.fromEntries(builtInEntries().filter((w) => w.effects).map((w) => [w.definition.id, w.effects!(ports, services.forWorkflow(w.definition.id) ?? {})]));
}

/** the built-ins' effect output schemas (what an external worker must return), by workflow id, then effect */
export function builtInOutputs(): Record<string, Record<string, z.core.$ZodType>> {
  return Object.fromEntries(builtInEntries().map((w) => [w.definition.id, w.outputs ?? {}]));
}

/** the built-in workflow that contributes the app-level JSON endpoint /api/<name>, and the endpoint (null: none) */
export function apiOf(name: string): { workflow: string; endpoint: ApiEndpoint } | null {
  const w = builtInEntries().find((e) => e.api && Object.hasOwn(e.api, name));
  return w ? { workflow: w.definition.id, endpoint: w.api![name]! } : null;
}

/** every method of every built-in's app-level endpoint, in catalog order (for the API description) */
export function builtInApi(): { workflow: string; name: string; method: ApiMethodName; op: ApiMethod }[] {
  return builtInEntries().flatMap((w) =>
    Object.entries(w.api ?? {}).flatMap(([name, endpoint]) => API_METHODS.filter((m) => endpoint[m]).map((method) => ({ workflow: w.definition.id, name, method, op: endpoint[method]! }))),
  );
}

/** run-input defaults from the environment, by workflow id */
export function builtInDefaults(env: NodeJS.ProcessEnv): Record<string, Record<string, unknown>> {
  return Object.fromEntries(builtInEntries().filter((w) => w.defaults).map((w) => [w.definition.id, w.defaults!(env)]));
}

/**
 * user-defined workflows: id → version → definition, one map per process. Next.js may load this
 * module once per server bundle (route handlers, server actions, pages), so the map hangs on
 * globalThis under a registered symbol rather than in a module variable.
 */
const KEY = Symbol.for("switchyard.user-workflows");
const user: Map<string, Map<number, WorkflowDefinition>> = ((globalThis as { [KEY]?: Map<string, Map<number, WorkflowDefinition>> })[KEY] ??= new Map());

export const isBuiltIn = (id: string) => catalog().byId.has(id);

/**
 * A workflow by id. For a user-defined one, a run's input names the version it started with
 * (`definitionVersion`); without it the latest version answers.
 */
export function findWorkflow(id: string, input?: unknown): WorkflowDefinition | undefined {
  const builtIn = catalog().byId.get(id);
  if (builtIn) return builtIn;
  const versions = user.get(id);
  if (!versions) return undefined;
  const pinned = (input as { definitionVersion?: unknown } | undefined)?.definitionVersion;
  if (typeof pinned === "number" && versions.has(pinned)) return versions.get(pinned);
  return versions.get(Math.max(...versions.keys()));
}

export function listWorkflows(): WorkflowDefinition[] {
  return [...builtInWorkflows(), ...[...user.keys()].sort().map((id) => findWorkflow(id)!)];
}

export function registerUserWorkflow(def: WorkflowDefinition, version: number): void {
  if (isBuiltIn(def.id)) throw new Error(`${def.id} is a built-in workflow`);
  let versions = user.get(def.id);
  if (!versions) user.set(def.id, (versions = new Map()));
  versions.set(version, def);
}

/** every registered version of a user-defined workflow, oldest first */
export function userVersions(id: string): number[] {
  return [...(user.get(id)?.keys() ?? [])].sort((a, b) => a - b);
}
