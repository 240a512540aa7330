// The definition a run runs on (an evaluation's candidate, held in memory or rebuilt from the
// evaluation's stored source; else its pinned version), and its diagram layout.
import { deriveGraph } from "../graph/derive";
import { workflowLayout } from "../graph";
import { layoutOffThread } from "../graph/elk-thread";
import type { Layout } from "../graph/layout";
import type { ReplaySpec } from "../engine/store/types";
import { findWorkflow } from "../machines/registry";
import type { WorkflowDefinition } from "../machines/types";
import type { Runtime } from "../runtime-types";
import { evalDefinition } from "./evals";

export async function runDefinition(rt: Runtime, run: { workflow: string; input: unknown; replay?: ReplaySpec | null }): Promise<WorkflowDefinition | undefined> {
  if (run.replay?.eval) {
    const candidate = await evalDefinition(rt, run.replay.eval);
    if (candidate) return candidate;
  }
  return findWorkflow(run.workflow, run.input);
}

const candidates = new WeakMap<object, Promise<Layout>>();

/** A registered definition's cached layout, or a candidate's own. */
export function layoutOf(def: WorkflowDefinition): Promise<Layout> {
  const registered = findWorkflow(def.id, def.version ? { definitionVersion: def.version } : undefined);
  if (registered === def) return workflowLayout(def.id, def.version ? { definitionVersion: def.version } : undefined)!;
  let p = candidates.get(def.machine);
  if (!p) candidates.set(def.machine, (p = layoutOffThread(deriveGraph(def.machine), [{}]).then((ls) => ls[0])));
  return p;
}
