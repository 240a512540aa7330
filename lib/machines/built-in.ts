// A built-in workflow as a plugin: one folder under workflows/ whose index.ts default-exports
// builtIn({...}), listed by one line in workflows/registry.ts. The definition (machine, input,
// hooks) is plain data; the effects are server code built on the runtime's ports; the run-page
// views are a client module the pages load lazily, so neither the worker nor lib pulls React in.
import type { AnyStateMachine } from "xstate";
import type { Db } from "../db/client";
import type { Engine, WorkflowEffects } from "../engine/engine";
import type { ContextManager } from "../knowledge/context-manager";
import type { KnowledgeStore } from "../knowledge/documents";
import type { ModelPort } from "../llm/types";
import type { SearchPort } from "../search/types";
import type { EffectsOf } from "./effects-of";
import type { WorkflowDefinition } from "./types";

/** What the runtime hands every workflow's effects (each takes the ports it needs). */
export interface EffectPorts {
  db: Db;
  /** the model port (with usage recording) */
  model: () => ModelPort;
  cm: ContextManager;
  /** the document store, seeded with the guide on first use */
  documents: () => Promise<KnowledgeStore>;
  /** the knowledge store as a search port */
  knowledge: SearchPort;
  /** web search, when SWITCHYARD_SEARCH_URL is set */
  web: SearchPort | null;
  /** the engine, for effects that start or steer other runs */
  engine: () => Engine;
  env: NodeJS.ProcessEnv;
}

/** A module whose default export the pages use (client views, a server panel). */
export type Lazy = () => Promise<{ default: unknown }>;

export interface BuiltInWorkflow {
  definition: WorkflowDefinition;
  /** its place in the catalog and the New run form (lower first; none: after the others) */
  order?: number;
  /** the machine's effects on this runtime's ports (none: a stage machine without steps) */
  effects?: (ports: EffectPorts) => WorkflowEffects;
  /** run-input defaults taken from the environment (merged under each new run's input) */
  defaults?: (env: NodeJS.ProcessEnv) => Record<string, unknown>;
  /** the run page's and the review queue's views: a "use client" module (see components/runs/workflow-views.tsx) */
  views?: Lazy;
  /** extra panels on the workflow page: a server component taking { rt } */
  panel?: Lazy;
}

/**
 * Declares a built-in workflow. `definition.machine` keeps its own type (declare the definition
 * with `satisfies WorkflowDefinition`), so `effects` must implement every actor the machine's
 * setup() names, with its input and output types: a missing effect does not compile.
 */
export function builtIn<M extends AnyStateMachine>(w: {
  definition: WorkflowDefinition & { machine: M };
  order?: number;
  effects?: (ports: EffectPorts) => EffectsOf<M>;
  defaults?: (env: NodeJS.ProcessEnv) => Record<string, unknown>;
  views?: Lazy;
  panel?: Lazy;
}): BuiltInWorkflow {
  return w;
}
