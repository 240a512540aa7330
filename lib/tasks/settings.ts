// SWITCHYARD_EXTERNAL_EFFECTS: send effects of built-in workflows to external workers' queues.
//   SWITCHYARD_EXTERNAL_EFFECTS="<workflow>.<effect>=<queue>,…"
// e.g. a team's own research agent answering a built-in's sub-agent tasks. The effect's input
// becomes the task's input; the worker's output is the effect's result. Checked at boot: an
// unknown workflow or effect, or a malformed entry, stops the start with a message; so does an
// effect whose workflow declares no output schema for it (builtIn({ outputs })): a worker's output
// is hostile input, and only a declared schema says what the machine can take.
import type { z } from "zod";
import type { WorkflowEffects } from "../engine/engine";
import { externalBuiltin } from "./effect";
import { DEFAULT_MAX_ATTEMPTS, type TaskQueue } from "./queue";

export interface ExternalRoute {
  workflow: string;
  effect: string;
  queue: string;
}

const ENTRY = /^([a-z][a-z0-9-]{1,62})\.([A-Za-z_][A-Za-z0-9_.:-]{0,99})=([a-z0-9][a-z0-9._-]{0,62})$/;

export function externalRoutesFromEnv(env: NodeJS.ProcessEnv): ExternalRoute[] {
  const v = env.SWITCHYARD_EXTERNAL_EFFECTS?.trim();
  if (!v) return [];
  const out: ExternalRoute[] = [];
  for (const raw of v.split(",")) {
    const entry = raw.trim();
    if (!entry) continue;
    const m = ENTRY.exec(entry);
    if (!m) throw new Error(`SWITCHYARD_EXTERNAL_EFFECTS: "${entry}" is not <workflow>.<effect>=<queue> (queue: lower-case letters, digits, . _ -)`);
    if (out.some((r) => r.workflow === m[1] && r.effect === m[2])) throw new Error(`SWITCHYARD_EXTERNAL_EFFECTS: ${m[1]}.${m[2]} is given twice`);
    out.push({ workflow: m[1]!, effect: m[2]!, queue: m[3]! });
  }
  return out;
}

/** The effects map with the routed effects replaced by tasks; throws for a route naming no built-in effect. */
export function routeEffects(effects: Record<string, WorkflowEffects>, routes: ExternalRoute[], tasks: () => TaskQueue, outputs: Record<string, Record<string, z.core.$ZodType>>): Record<string, WorkflowEffects> {
  if (!routes.length) return effects;
  const out = { ...effects };
  for (const r of routes) {
    const wf = out[r.workflow];
    if (!wf) throw new Error(`SWITCHYARD_EXTERNAL_EFFECTS: no built-in workflow "${r.workflow}" (built-ins: ${Object.keys(effects).sort().join(", ")})`);
    if (!wf.actors[r.effect]) throw new Error(`SWITCHYARD_EXTERNAL_EFFECTS: ${r.workflow} has no effect "${r.effect}" (its effects: ${Object.keys(wf.actors).sort().join(", ")})`);
    const schema = outputs[r.workflow]?.[r.effect];
    if (!schema) {
      const declared = Object.keys(outputs[r.workflow] ?? {}).sort();
      throw new Error(`SWITCHYARD_EXTERNAL_EFFECTS: ${r.workflow}.${r.effect} cannot be sent to a worker: its workflow declares no output schema for it (${declared.length ? `effects that can: ${declared.join(", ")}` : `${r.workflow} declares none`}; see docs/guide/16-external-workers.md)`);
    }
    out[r.workflow] = { ...wf, actors: { ...wf.actors, [r.effect]: externalBuiltin(tasks, r.workflow, r.effect, r.queue, DEFAULT_MAX_ATTEMPTS, schema) } };
  }
  return out;
}
