// Cached diagram layouts per workflow machine (a machine's layout never changes at run time).
import type { AnyStateMachine } from "xstate";
import { findWorkflow } from "../machines/registry";
import { deriveGraph } from "./derive";
import { layoutGraph, type Layout } from "./layout";

const layouts = new WeakMap<AnyStateMachine, Promise<Layout>>();

/** The layout of a workflow's diagram; `input` (a run's) picks a user-defined workflow's version. */
export function workflowLayout(id: string, input?: unknown): Promise<Layout> | null {
  const def = findWorkflow(id, input);
  if (!def) return null;
  let p = layouts.get(def.machine);
  if (!p) {
    p = layoutGraph(deriveGraph(def.machine));
    layouts.set(def.machine, p);
    p.catch(() => layouts.delete(def.machine));
  }
  return p;
}
