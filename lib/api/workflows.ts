// The workflow catalog and each workflow's description, derived from its machine.
import { z } from "zod";
import { NotFoundError } from "../engine/errors";
import { deriveGraph } from "../graph/derive";
import { graphToFlow, flowToMermaid } from "../flows/mermaid";
import { flowVersions, saveUserWorkflow } from "../flows/store";
import type { FlowConfig } from "../flows/types";
import { findWorkflow, isBuiltIn, listWorkflows } from "../machines/registry";
import type { WorkflowDefinition } from "../machines/types";
import type { Runtime } from "../runtime";

export function workflowSummaries() {
  return listWorkflows().map((w) => ({ id: w.id, title: w.title, seed: w.seed, description: w.description, userDefined: !isBuiltIn(w.id), version: versionOf(w) }));
}

const versionOf = (w: WorkflowDefinition) => w.version ?? null;

export function describeWorkflow(id: string) {
  const def = findWorkflow(id);
  if (!def) throw new NotFoundError(`unknown workflow "${id}"`);
  const graph = deriveGraph(def.machine);
  return {
    id: def.id,
    title: def.title,
    seed: def.seed,
    description: def.description,
    userDefined: !isBuiltIn(def.id),
    version: versionOf(def),
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

/** POST /api/workflows: exactly one of mermaid, json (an object or its text) or yaml. */
export const CreateWorkflowBody = z
  .object({
    id: z.string().max(63).optional(),
    mermaid: z.string().max(200_000).optional(),
    json: z.union([z.string().max(200_000), z.record(z.string(), z.unknown())]).optional(),
    yaml: z.string().max(200_000).optional(),
  })
  .strict()
  .refine((b) => [b.mermaid, b.json, b.yaml].filter((x) => x !== undefined).length === 1, { message: "send exactly one of mermaid, json or yaml" });

export async function createWorkflow(rt: Runtime, body: z.infer<typeof CreateWorkflowBody>) {
  const [format, source] =
    body.mermaid !== undefined ? (["mermaid", body.mermaid] as const) : body.yaml !== undefined ? (["yaml", body.yaml] as const) : (["json", typeof body.json === "string" ? body.json : JSON.stringify(body.json, null, 2)] as const);
  const saved = await saveUserWorkflow(rt.db, format, source, { id: body.id, now: rt.clock.now() });
  return { ...describeWorkflow(saved.id), created: saved.created, warnings: saved.warnings, versions: await flowVersions(rt.db, saved.id) };
}

/** The FlowConfig of any workflow: a stage machine's own config, or one derived from the machine. */
export function workflowFlow(id: string): FlowConfig {
  const def = findWorkflow(id);
  if (!def) throw new NotFoundError(`unknown workflow "${id}"`);
  const own = def.flow;
  return own ?? graphToFlow(deriveGraph(def.machine), { id: def.id, title: def.title, description: def.description });
}

export function exportWorkflow(id: string, format: "mermaid" | "json"): { body: string; type: string; filename: string } {
  const flow = workflowFlow(id);
  return format === "mermaid"
    ? { body: flowToMermaid(flow), type: "text/plain; charset=utf-8", filename: `${id}.mmd` }
    : { body: JSON.stringify(flow, null, 2), type: "application/json; charset=utf-8", filename: `${id}.json` };
}
