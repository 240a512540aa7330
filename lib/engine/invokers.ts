// Which state invoked an effect: the machine's own invoke definitions, read once per machine. An
// effect's usage rows and step records carry this state, the step's own, and not every state the
// run is in at the time (two parallel branches each run their own step).
import type { AnyStateMachine, AnyStateNode } from "xstate";

const cache = new WeakMap<AnyStateMachine, Map<string, string>>();

/** invoke id → the path ("A.B.C") of the state node that declares it */
function invokersOf(machine: AnyStateMachine): Map<string, string> {
  let map = cache.get(machine);
  if (map) return map;
  map = new Map();
  const walk = (node: AnyStateNode) => {
    for (const inv of node.invoke ?? []) if (typeof inv.id === "string") map!.set(inv.id, node.path.join("."));
    for (const child of Object.values(node.states ?? {})) walk(child as AnyStateNode);
  };
  walk(machine.root);
  cache.set(machine, map);
  return map;
}

/**
 * The state that invoked child `id`: the path of the node that declares it (a compound state's
 * invoke runs while any of its children is active: the node itself is the step). Falls back to
 * XState's naming of an invoke without an id ("<n>.<machine>.<state path>"), then to every
 * active state.
 */
export function invokingStateOf(machine: AnyStateMachine, id: string, leaves: string[]): string {
  const path = invokersOf(machine).get(id) ?? /^\d+\.[^.]+\.(.+)$/.exec(id)?.[1];
  if (path && leaves.some((s) => s === path || s.startsWith(`${path}.`))) return path;
  return leaves.join(",");
}
