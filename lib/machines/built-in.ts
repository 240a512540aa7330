// A built-in workflow as a plugin: one folder under workflows/ whose index.ts default-exports
// builtIn({...}), listed by one line in workflows/registry.ts. The definition (machine, input,
// hooks) is plain data; the effects are server code built on the runtime's ports; the run-page
// views are a client module the pages load lazily, so neither the worker nor lib pulls React in.
import type { AnyStateMachine, OutputFrom } from "xstate";
import type { z } from "zod";
import type { Db } from "../db/client";
import type { Engine, WorkflowEffects } from "../engine/engine";
import type { KnowledgeStore } from "../knowledge/documents";
import type { ModelPort } from "../llm/types";
import type { SearchPort } from "../search/types";
import type { ApiEndpoint } from "./workflow-api";
import type { ActorLogics, EffectsOf } from "./effects-of";
import type { ServiceFactory, WorkflowService } from "./services";
import type { WorkflowDefinition } from "./types";

/** What the runtime hands every workflow's effects (each takes the ports it needs; a workflow's own services come beside them). */
export interface EffectPorts {
  db: Db;
  /** the model port (with usage recording) */
  model: () => ModelPort;
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

/** A link in the app's top navigation: `icon` is an SVG path (24×24, stroked) shown on a phone instead of the label. */
export interface NavLink {
  href: string;
  label: string;
  icon?: string;
}

/** A module whose default export the pages use (client views, a server panel). */
export type Lazy = () => Promise<{ default: unknown }>;

export interface BuiltInWorkflow {
  definition: WorkflowDefinition;
  /** its place in the catalog and the New run form (lower first; none: after the others) */
  order?: number;
  /** the machine's effects on this runtime's ports and the workflow's own services (none: a stage machine without steps) */
  effects?: (ports: EffectPorts, services: WorkflowService) => WorkflowEffects;
  /** the workflow's own services (lib/machines/services.ts): created once per runtime, their lifecycle run by it */
  services?: ServiceFactory;
  /** run-input defaults taken from the environment (merged under each new run's input) */
  defaults?: (env: NodeJS.ProcessEnv) => Record<string, unknown>;
  /** the run page's and the review queue's views: a "use client" module (see components/runs/workflow-views.tsx) */
  views?: Lazy;
  /** extra panels on the workflow page: a server component taking { rt } */
  panel?: Lazy;
  /** a panel on the Settings page: a server component taking { rt } */
  settings?: Lazy;
  /** app-level JSON endpoints, by name: /api/<name>, each method with its schemas and description (lib/machines/workflow-api.ts) */
  api?: Record<string, ApiEndpoint>;
  /** app-level pages, by name: /<name>, rendered by app/[page]/page.tsx through pageOf(name) (a server component taking the page's props; its module may export `metadata`) */
  pages?: Record<string, Lazy>;
  /** links the app's top navigation shows for it (after the core's Evals) */
  nav?: NavLink[];
  /**
   * zod schemas of effects' outputs, by effect name: what an external worker must return when
   * SWITCHYARD_EXTERNAL_EFFECTS sends that effect to a queue (an effect without one cannot be sent)
   */
  outputs?: Record<string, z.core.$ZodType>;
}

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/**
 * Output schemas for machine M's effects: each key an effect M names, each schema's parsed type
 * the same as that effect's output (a schema that lets through less or more is a compile error).
 */
export type OutputSchemas<M extends AnyStateMachine, O> = {
  [K in keyof O]: K extends keyof ActorLogics<M> ? (O[K] extends z.core.$ZodType ? (Same<z.output<O[K]>, OutputFrom<NonNullable<ActorLogics<M>[K]>>> extends true ? O[K] : { error: "the schema's type is not the effect's output"; effect: K }) : never) : never;
};

/**
 * Declares a built-in workflow. `definition.machine` keeps its own type (declare the definition
 * with `satisfies WorkflowDefinition`), so `effects` must implement every actor the machine's
 * setup() names, with its input and output types: a missing effect does not compile.
 */
export function builtIn<M extends AnyStateMachine, O extends Record<string, z.core.$ZodType> = Record<never, z.core.$ZodType>, S extends WorkflowService = WorkflowService>(w: {
  definition: WorkflowDefinition & { machine: M };
  order?: number;
  /** the workflow's own services; `effects` receives what this returns */
  services?: ServiceFactory<S>;
  effects?: (ports: EffectPorts, services: S) => EffectsOf<M>;
  defaults?: (env: NodeJS.ProcessEnv) => Record<string, unknown>;
  views?: Lazy;
  panel?: Lazy;
  settings?: Lazy;
  api?: Record<string, ApiEndpoint>;
  pages?: Record<string, Lazy>;
  nav?: NavLink[];
  /** zod schemas of the effects' outputs (see BuiltInWorkflow.outputs), typed against the machine */
  outputs?: O & OutputSchemas<M, O>;
}): BuiltInWorkflow {
  // EffectsOf<M>'s actions map has optional keys (a value may read as undefined), which
  // WorkflowEffects' Record does not say; the engine looks each action up and skips a missing one
  return w as BuiltInWorkflow;
}
