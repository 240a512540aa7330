// The workflow catalog and each workflow's description, derived from its machine.
import { z } from "zod";
import { ConflictError, EngineError, NotFoundError, isEngineError } from "../engine/errors";
import { deriveGraph } from "../graph/derive";
import { graphToFlow, flowToMermaid } from "../flows/mermaid";
import { flowSource, flowVersions, saveUserWorkflow } from "../flows/store";
import { checkForSave } from "../flows/validate";
import { setSwitches, switchesOf, workflowSwitches } from "../flows/status";
import { abortRun } from "./runs";
import type { FlowConfig } from "../flows/types";
import { findWorkflow, isBuiltIn, listWorkflows } from "../machines/registry";
import type { WorkflowDefinition } from "../machines/types";
import type { Runtime } from "../runtime";

/** The catalog: every workflow but the deleted ones, each saying whether it is disabled. */
export async function workflowSummaries(rt: Runtime) {
  const switches = await workflowSwitches(rt.db);
  return listWorkflows()
    .filter((w) => !switches.get(w.id)?.deletedAt)
    .map((w) => ({ id: w.id, title: w.title, seed: w.seed, description: w.description, userDefined: !isBuiltIn(w.id), version: versionOf(w), disabled: switches.get(w.id)?.disabled ?? false }));
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

/** POST /api/workflows?dryRun=true: check the definition as a save would, and save nothing. */
export const CreateWorkflowQuery = z.object({ dryRun: z.enum(["true", "false", "1", "0"], { error: "dryRun must be true or false" }).optional() });

function sourceOf(body: z.infer<typeof CreateWorkflowBody>) {
  return body.mermaid !== undefined ? (["mermaid", body.mermaid] as const) : body.yaml !== undefined ? (["yaml", body.yaml] as const) : (["json", typeof body.json === "string" ? body.json : JSON.stringify(body.json, null, 2)] as const);
}

/**
 * The dry run: `{ dryRun: true, valid, id, errors, warnings }` with the issues (and lines) a save
 * would answer with — its 422's issues as `errors`, its warnings (this server's environment for
 * secrets) — and 200 either way; `npm run validate` does the same offline.
 */
export function checkWorkflow(body: z.infer<typeof CreateWorkflowBody>, env: Record<string, string | undefined> = process.env) {
  const [format, source] = sourceOf(body);
  const r = checkForSave(format, source, { ...(body.id ? { id: body.id } : {}), env });
  if (!r.ok) return { dryRun: true as const, valid: false, id: null, errors: r.issues, warnings: [] };
  const errors = isBuiltIn(r.config.id) ? [{ message: `"${r.config.id}" is a built-in workflow; choose another id`, line: 1 }] : [];
  return { dryRun: true as const, valid: errors.length === 0, id: r.config.id, errors, warnings: r.warnings };
}

export async function createWorkflow(rt: Runtime, body: z.infer<typeof CreateWorkflowBody>) {
  const [format, source] = sourceOf(body);
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

/** GET /api/workflows/{id}: its description and whether it is disabled; 404 for a deleted one. */
export async function workflowDescription(rt: Runtime, id: string) {
  const described = describeWorkflow(id);
  const s = await switchesOf(rt.db, id);
  if (s.deletedAt !== null) throw new EngineError(`workflow "${id}" was deleted on ${new Date(s.deletedAt).toISOString()}; its old runs stay readable`, 404, "workflow_deleted");
  return { ...described, disabled: s.disabled };
}

/** A user-defined workflow known here or stored by another process (404 otherwise, and for a deleted one). */
async function existing(rt: Runtime, id: string) {
  if (!findWorkflow(id) && !isBuiltIn(id) && !(await flowSource(rt.db, id))) throw new NotFoundError(`unknown workflow "${id}"`);
  const s = await switchesOf(rt.db, id);
  if (s.deletedAt !== null) throw new EngineError(`workflow "${id}" was deleted on ${new Date(s.deletedAt).toISOString()}`, 404, "workflow_deleted");
  return s;
}

/** a workflow id in a path (a built-in's or one defined here) */
export const WorkflowIdParam = z.object({ id: z.string().min(1).max(200).regex(/^[A-Za-z0-9_-]+$/, "not a workflow id") });

export const PatchWorkflowBody = z.object({ disabled: z.boolean({ error: "disabled must be true or false" }) }).strict();

/** PATCH /api/workflows/{id} { disabled }: a disabled workflow starts no new runs and leaves the New-run form. */
export async function patchWorkflow(rt: Runtime, id: string, body: z.infer<typeof PatchWorkflowBody>) {
  await existing(rt, id);
  const s = await setSwitches(rt.db, id, { disabled: body.disabled }, rt.clock.now());
  return { id, disabled: s.disabled };
}

export const ExportWorkflowQuery = z.object({ format: z.enum(["mermaid", "json"]).default("json"), download: z.enum(["0", "1"]).optional() }).strict();

export const DeleteWorkflowQuery = z.object({ force: z.enum(["true", "false"], { error: "force must be true or false" }).optional() }).strict();

const OPEN = ["running", "waiting"];
const openRuns = async (rt: Runtime, id: string) => (await rt.db.run.findMany({ where: { workflow: id, status: { in: OPEN } }, select: { id: true }, orderBy: { createdAt: "asc" } })).map((r) => r.id);

/**
 * DELETE /api/workflows/{id}: 409 while it has open runs, unless `force` (they are aborted first:
 * the workflow is disabled, so none starts meanwhile, then each open run is aborted). The id is
 * kept as a tombstone: its versions stay for its runs and exports, saving it again is a 409.
 */
export async function deleteWorkflow(rt: Runtime, id: string, opts: { force?: boolean } = {}) {
  if (isBuiltIn(id)) throw new ConflictError(`"${id}" is a built-in workflow: it cannot be deleted (disable it with PATCH /api/workflows/${id} {"disabled": true})`);
  await existing(rt, id);
  const open = await openRuns(rt, id);
  if (open.length && !opts.force) {
    throw new ConflictError(`workflow "${id}" has ${open.length} open run(s): let them finish or abort them, or delete with ?force=true to abort them first`, { open: open.length, runs: open.slice(0, 20) });
  }
  const aborted: string[] = [];
  if (open.length) {
    await setSwitches(rt.db, id, { disabled: true }, rt.clock.now());
    // a run started before the switch was seen may still appear: look again until none is open
    for (let pass = 0; pass < 5; pass++) {
      const now = pass === 0 ? open : await openRuns(rt, id);
      if (!now.length) break;
      for (const runId of now) {
        try {
          await abortRun(rt, runId, `workflow ${id} was deleted`);
          aborted.push(runId);
        } catch (e) {
          // it finished on its own meanwhile
          if (!(isEngineError(e) && e.status === 409)) throw e;
        }
      }
    }
  }
  const s = await setSwitches(rt.db, id, { deletedAt: new Date(rt.clock.now()) }, rt.clock.now());
  return { id, deleted: true, deletedAt: new Date(s.deletedAt!).toISOString(), aborted };
}
