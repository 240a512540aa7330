// The workflow catalog and each workflow's description, derived from its machine.
import { NotFoundError } from "../engine/errors";
import { deriveGraph } from "../graph/derive";
import { findWorkflow, listWorkflows } from "../machines/registry";

export function workflowSummaries() {
  return listWorkflows().map((w) => ({ id: w.id, title: w.title, seed: w.seed, description: w.description }));
}

export function describeWorkflow(id: string) {
  const def = findWorkflow(id);
  if (!def) throw new NotFoundError(`unknown workflow "${id}"`);
  const graph = deriveGraph(def.machine);
  return {
    id: def.id,
    title: def.title,
    seed: def.seed,
    description: def.description,
    initial: graph.states.filter((s) => s.initial && s.parent === null).map((s) => s.id),
    states: graph.states.map((s) => ({
      id: s.id,
      name: s.name,
      type: s.type,
      parent: s.parent,
      human: s.human,
      ...(s.human ? { decisions: s.decisions } : {}),
      tags: s.tags,
      summary: s.summary,
      timeout: s.timeout,
      invokes: s.invokes,
    })),
    transitions: graph.transitions.map((t) => ({
      source: t.source,
      target: t.target,
      event: t.event,
      guard: t.guard,
      delay: t.delay,
      delayMs: t.delayMs,
      description: t.description,
      internal: t.internal,
    })),
    events: Object.keys(def.events),
    metrics: (def.metrics ?? []).map(({ compute: _c, ...m }) => m),
    example: def.example ?? null,
  };
}
