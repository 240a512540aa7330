// What a fork may start from: a snapshot whose state value names states the machine has, whose
// invoking states have their effects in flight, and a context whose edited members are ones the
// workflow lets a fork edit (WorkflowDefinition.forkEditable) and keep the kind
// of value the machine had there (workflows carry no context schema, so the stored context at the
// fork point is the reference: a member that held an object still holds an object, recursively;
// null is refused wherever the machine had a value). Each check answers why not, or null.
import type { AnyStateMachine, AnyStateNode } from "xstate";
import { an, shapeMismatch } from "./shape";

/** Why `value` cannot stand where the machine had `was` (null: it can). */
function mismatch(path: string, was: unknown, value: unknown): string | null {
  const m = shapeMismatch(path, was, value, { maxDepth: 8, exactKeys: false });
  return m && "got" in m ? `context.${m.path} held ${an(m.was)}; ${an(m.got)} would break the machine there` : null;
}

/**
 * Why the edits cannot replace members of `base` (null: they can). Only the members the workflow
 * lets a fork edit (`editable`: what came from the run's input, or what a built-in declares) and
 * the context has may be edited; everything the engine and the steps keep (approvals, reviews,
 * step records, visits, tool calls, decisions, entry times …) is refused by name.
 */
export function contextEditProblem(base: Record<string, unknown>, edits: Record<string, unknown>, editable: readonly string[], workflow: string): string | null {
  const may = editable.length ? `a fork of ${workflow} may edit only ${editable.map((k) => `context.${k}`).join(", ")}` : `a fork of ${workflow} may not edit its context`;
  for (const [key, value] of Object.entries(edits)) {
    if (!editable.includes(key)) return `context.${key} is kept by the workflow, not given by the run's input: ${may}`;
    if (!Object.hasOwn(base, key)) return `context.${key} is not a member of this run's context (members: ${Object.keys(base).join(", ")})`;
    const why = mismatch(key, base[key], value);
    if (why) return why;
  }
  return null;
}

/** Why a persisted state value does not name states of `machine` (null: it does). */
export function stateValueProblem(machine: AnyStateMachine, value: unknown): string | null {
  const walk = (node: AnyStateNode, v: unknown, at: string): string | null => {
    const states = node.states as Record<string, AnyStateNode>;
    const name = (k: string) => (at ? `${at}.${k}` : k);
    if (typeof v === "string") {
      if (!Object.hasOwn(states, v)) return `state "${name(v)}" is not a state of ${machine.id}`;
      const child = states[v];
      return child.type === "compound" || child.type === "parallel" ? `state "${name(v)}" is not a leaf: it needs one of its states (${Object.keys(child.states).join(", ")})` : null;
    }
    if (!v || typeof v !== "object" || Array.isArray(v)) return `the state value${at ? ` under "${at}"` : ""} is not a state name or an object of them`;
    const keys = Object.keys(v);
    if (node.type === "parallel") {
      const missing = Object.keys(states).filter((k) => !keys.includes(k));
      if (missing.length) return `the parallel state "${at || machine.id}" needs all its regions; missing ${missing.join(", ")}`;
    } else if (keys.length !== 1) {
      return `"${at || machine.id}" is in exactly one state at a time; the value names ${keys.length}`;
    }
    for (const k of keys) {
      if (!Object.hasOwn(states, k)) return `state "${name(k)}" is not a state of ${machine.id}`;
      const child = states[k];
      const inner = (v as Record<string, unknown>)[k];
      if (child.type !== "compound" && child.type !== "parallel") {
        if (inner !== undefined && inner !== null && (typeof inner !== "object" || Object.keys(inner).length)) return `state "${name(k)}" has no states of its own`;
        continue;
      }
      const why = walk(child, inner, name(k));
      if (why) return why;
    }
    return null;
  };
  return walk(machine.root, value, "");
}

/** Why the active states' invocations are not all in the persisted snapshot (null: they are). */
export function invocationProblem(nodes: AnyStateNode[], children: Record<string, { src?: unknown; snapshot?: { status?: string } }> | undefined): string | null {
  for (const node of nodes) {
    for (const inv of node.invoke as { id: string; src: unknown }[]) {
      const c = children?.[inv.id];
      // (one that finished is the machine's business: a state may stay after its effect ended)
      if (!c) return `state "${node.path.join(".")}" invokes ${typeof inv.src === "string" ? inv.src : inv.id}, but the snapshot has no such effect: nothing would run`;
      if (typeof inv.src === "string" && c.src !== inv.src) return `state "${node.path.join(".")}" invokes ${inv.src}, but the snapshot has ${String(c.src)} there`;
    }
  }
  return null;
}
