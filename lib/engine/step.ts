// Pure stepping: machine + snapshot + event → next snapshot, the XState transitions that
// were taken (one record per transition, with its reason) and the actions to execute.
// Nothing here does I/O; the engine persists the result first and only then acts on it.
import { getStateNodes, type AnyMachineSnapshot, type AnyStateMachine, type AnyStateNode, type AnyTransitionDefinition, type EventObject, type Snapshot } from "xstate";
import { initialMacrostep, macrostep, restoreWith, type ExecutableAction, type Microstep } from "./xstate-scope";

export type { ExecutableAction } from "./xstate-scope";

export interface TakenTransition {
  /** source state id of the transition as written in the machine ("" for the root) */
  source: string;
  /** target state ids (empty for a targetless transition) */
  targets: string[];
  /** active leaf state ids before / after this microstep, restricted to this transition */
  from: string[];
  to: string[];
  event: EventObject;
  reason: string;
}

export interface StepResult {
  snapshot: AnyMachineSnapshot;
  transitions: TakenTransition[];
  actions: ExecutableAction[];
}

/** state nodes are fixed per machine: each one's id is joined once (activeLeaves runs several times a step) */
const ids = new WeakMap<AnyStateNode, string>();

/** "swiss-army.CONTEXT_SEARCH" → "CONTEXT_SEARCH"; the root → "". */
export function stateId(node: AnyStateNode): string {
  let id = ids.get(node);
  if (id === undefined) ids.set(node, (id = node.path.join(".")));
  return id;
}

/**
 * Per machine (by its root node), the active nodes of each state value met so far, by the
 * value's key (a string value as is, else its JSON): a machine's state values are few, and every
 * step of every run makes new snapshots of them. A lookup here costs less than remembering the
 * list per snapshot did (a WeakMap entry per snapshot). The lists are shared: callers only read them.
 */
const byValue = new WeakMap<AnyStateNode, Map<string, AnyStateNode[]>>();

/**
 * The active state nodes of a snapshot, the root first, in document order: XState's public
 * `getStateNodes` over the state value (it repeats ancestors; each node is kept once), computed
 * once per machine and state value.
 */
export function activeNodes(snapshot: AnyMachineSnapshot): AnyStateNode[] {
  const root = snapshot.machine.root as AnyStateNode;
  const value = snapshot.value;
  const key = typeof value === "string" ? value : `\u0000${JSON.stringify(value)}`;
  let known = byValue.get(root);
  if (!known) byValue.set(root, (known = new Map()));
  let nodes = known.get(key);
  if (!nodes) {
    nodes = [...new Set(getStateNodes(root, value))].sort((a, b) => a.order - b.order);
    known.set(key, nodes);
  }
  return nodes;
}

/** The active groups of a snapshot: the compound and parallel states around its active leaves (not the root). */
export function activeGroups(snapshot: AnyMachineSnapshot): string[] {
  const out: string[] = [];
  for (const n of activeNodes(snapshot)) if ((n.type === "compound" || n.type === "parallel") && n.parent) out.push(stateId(n));
  return out;
}

export function activeLeaves(snapshot: AnyMachineSnapshot): string[] {
  return activeNodes(snapshot).filter((n) => n.type === "atomic" || n.type === "final").map(stateId);
}

function within(id: string, ancestor: string): boolean {
  return ancestor === "" || id === ancestor || id.startsWith(ancestor + ".");
}

export function describeTransition(t: AnyTransitionDefinition, event: EventObject): string {
  if (t.description) return t.description;
  const guard = guardName(t.guard);
  if (guard) return `guard ${guard}`;
  return describeEvent(event);
}

/** The name of a transition's guard: "requestValid", "not(x)", or "(inline)". */
export function guardName(guard: unknown): string | null {
  if (!guard) return null;
  if (typeof guard === "string") return guard;
  if (typeof guard === "function") return guard.name && guard.name !== "guard" ? guard.name : "(inline)";
  if (typeof guard === "object" && "type" in guard) return String((guard as { type: unknown }).type);
  return null;
}

export function describeEvent(event: EventObject): string {
  const type = event.type;
  if (type.startsWith("xstate.after.")) return `timer ${type.split(".")[2]} elapsed`;
  if (type.startsWith("xstate.done.actor.")) return `${type.slice(18)} finished`;
  if (type.startsWith("xstate.error.actor.")) {
    const err = (event as { error?: { message?: string } }).error;
    return `${type.slice(19)} failed${err?.message ? `: ${err.message}` : ""}`;
  }
  if (type.startsWith("xstate.done.state.")) {
    // "xstate.done.state.<machine id>.<state path>": the compound state that reached its final state
    return `${type.split(".").at(-1)} done`;
  }
  if (type === "xstate.init") return "run started";
  return type;
}

function toRecords(
  microsteps: Microstep[],
  before: AnyMachineSnapshot,
): TakenTransition[] {
  const out: TakenTransition[] = [];
  let prevLeaves = activeLeaves(before);
  for (const step of microsteps) {
    const nextLeaves = activeLeaves(step.snapshot);
    for (const t of step.transitions) {
      const source = stateId(t.source);
      const targets = (t.target ?? []).map((n: AnyStateNode) => stateId(n));
      let from: string[];
      let to: string[];
      if (targets.length === 0) {
        from = prevLeaves.filter((l) => within(l, source));
        to = from;
      } else {
        from = prevLeaves.filter((l) => within(l, source) && (!nextLeaves.includes(l) || t.reenter || targets.some((x: string) => within(l, x))));
        to = nextLeaves.filter((l) => targets.some((x: string) => within(l, x)));
        if (from.length === 0) from = prevLeaves.filter((l) => within(l, source));
      }
      out.push({ source, targets, from, to, event: step.event, reason: describeTransition(t, step.event) });
    }
    prevLeaves = nextLeaves;
  }
  return out;
}

/** Compute the next step. `transitions` is empty when the event is not accepted. */
export function step(machine: AnyStateMachine, snapshot: AnyMachineSnapshot, event: EventObject): StepResult {
  const next = macrostep(machine, snapshot, event);
  return { snapshot: next.snapshot, transitions: toRecords(next.microsteps, snapshot), actions: next.actions };
}

/** The initial step of a new run: the snapshot and the actions of entering the initial state. */
export function initialStep(machine: AnyStateMachine, input: unknown): StepResult {
  const next = initialMacrostep(machine, input);
  const to = activeLeaves(next.snapshot);
  return {
    snapshot: next.snapshot,
    transitions: [{ source: "", targets: to, from: [], to, event: { type: "xstate.init" }, reason: "run started" }],
    actions: next.actions,
  };
}

/** Persisted snapshot (JSON-safe) without its context, which is stored on its own; `extra` keys are added to it. */
export function persist(machine: AnyStateMachine, snapshot: AnyMachineSnapshot, extra: Record<string, unknown> = {}): Record<string, unknown> {
  // the context is stored in its own column: skip XState's deep walk over it
  const { context: _context, ...rest } = machine.getPersistedSnapshot({ ...snapshot, context: null } as AnyMachineSnapshot) as Record<string, unknown>;
  return Object.assign(rest, extra);
}

export function restore(machine: AnyStateMachine, persisted: Record<string, unknown>, context: unknown): AnyMachineSnapshot {
  return restoreWith(machine, { ...persisted, context } as unknown as Snapshot<unknown>);
}
