// POST /api/runs/{id}/replay (guide 19 §3): a new run of a version of the source's workflow (the
// latest by default; for a built-in, the code now running) with the source's input, taking the
// outputs the source recorded where the invocation is the same, sending nothing out (http steps,
// post-commit actions, webhooks) unless `live` names the state, and deciding reviews as the
// source's reviewers did (decisions: "replay", the default) or asking people ("ask").
import { z } from "zod";
import { InvalidError, NotFoundError } from "../engine/errors";
import { deriveGraph } from "../graph/derive";
import { findWorkflow, isBuiltIn, userVersions } from "../machines/registry";
import type { WorkflowDefinition } from "../machines/types";
import type { ReplaySpec } from "../engine/store/types";
import type { Runtime } from "../runtime-types";
import { runResource } from "../api/runs";
import { unpinned } from "./canonical";

export const ReplayBody = z
  .object({
    version: z.number({ error: "version must be a number" }).int("version must be a whole number").min(1, "versions start at 1").optional(),
    live: z.array(z.string().trim().min(1, "a live state needs a name").max(200), { error: "live must be a list of state ids" }).max(100, "at most 100 live states").optional(),
    decisions: z.enum(["replay", "ask"], { error: 'decisions must be "replay" or "ask"' }).optional(),
  })
  .strict();
export type ReplayRequest = z.infer<typeof ReplayBody>;

/** The definition a replay runs: a version of a user-defined workflow (default: the latest), or the built-in's code. */
export function replayTarget(workflow: string, version?: number): WorkflowDefinition {
  if (isBuiltIn(workflow)) {
    if (version !== undefined) throw new InvalidError(`${workflow} is a built-in workflow: it has no versions (replay runs the code now running; leave version out)`);
    return findWorkflow(workflow)!;
  }
  const versions = userVersions(workflow);
  if (versions.length === 0) throw new NotFoundError(`workflow ${workflow} is not registered here`);
  const v = version ?? Math.max(...versions);
  if (!versions.includes(v)) throw new NotFoundError(`workflow ${workflow} has no version ${v} (versions: ${versions.join(", ")})`);
  return findWorkflow(workflow, { definitionVersion: v })!;
}

/** `live` states as the definition names them: each a state id (path) or a state's name; unknown ones are refused. */
export function liveStates(def: WorkflowDefinition, live: string[] = []): string[] {
  const states = deriveGraph(def.machine).states;
  const unknown = live.filter((l) => !states.some((s) => s.id === l || s.name === l || s.id.split(".").at(-1) === l));
  if (unknown.length) throw new InvalidError(`live names states ${def.id} does not have: ${unknown.join(", ")}`);
  return [...new Set(live)];
}

export async function replayRun(rt: Runtime, sourceId: string, req: ReplayRequest, opts: { eval?: string; def?: WorkflowDefinition } = {}) {
  const source = await rt.store.getRun(sourceId);
  if (!source) throw new NotFoundError(`run ${sourceId} not found`);
  const def = opts.def ?? replayTarget(source.workflow, req.version);
  const spec: ReplaySpec = { of: sourceId, live: liveStates(def, req.live), decisions: req.decisions ?? "replay", ...(opts.eval ? { eval: opts.eval } : {}) };
  // the source's input, its version pin left to the target (the definition's input schema sets it)
  const out = await rt.engine.start(source.workflow, unpinned(source.input) ?? {}, { replay: spec, def });
  return { run: runResource(out.run, { accepted: await rt.engine.acceptedNow(out.run.id) }) };
}
