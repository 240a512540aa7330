// The one place the engine touches a field XState does not document: the transitions a
// microstep took, read from the inspection stream's "@xstate.microstep" event (`_transitions`).
// XState's public `getMicrosteps` gives each microstep's snapshot and actions but not which
// transitions (with their guards and descriptions) produced it, and every transition row the
// engine stores records that reason. test/xstate-public-api.test.ts keeps this file the only one
// that reads XState's private fields.
//
// Everything else here is public: an actor scope built from `createActor` and passed to the
// machine's own `transition` / `getInitialSnapshot` / `restoreSnapshot`, as XState's pure
// `transition()` does. XState builds a fresh actor for every call of `transition()`; reusing one
// inert scope per machine doubles the stepping rate.
import {
  createActor,
  type AnyActorScope,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type AnyTransitionDefinition,
  type EventObject,
  type InspectionEvent,
} from "xstate";

export interface ExecutableAction {
  type: string;
  params?: unknown;
  exec?: (...args: unknown[]) => unknown;
  info?: unknown;
}

export interface Microstep {
  event: EventObject;
  snapshot: AnyMachineSnapshot;
  transitions: AnyTransitionDefinition[];
}

interface Sink {
  actions: ExecutableAction[];
  steps: Microstep[];
}

interface Scoped {
  scope: AnyActorScope;
  sink: Sink;
}

const scopes = new WeakMap<AnyStateMachine, Scoped>();

function scoped(machine: AnyStateMachine): Scoped {
  let s = scopes.get(machine);
  if (s) return s;
  const self = createActor(machine);
  const sink: Sink = { actions: [], steps: [] };
  self.system.inspect({
    next: (ev: InspectionEvent) => {
      if (ev.type !== "@xstate.microstep") return;
      sink.steps.push({ event: ev.event, snapshot: ev.snapshot as AnyMachineSnapshot, transitions: ev._transitions ?? [] });
    },
  });
  const scope = {
    self,
    defer: () => {},
    id: "",
    logger: () => {},
    sessionId: "",
    stopChild: () => {},
    system: self.system,
    emit: () => {},
    actionExecutor: (a: ExecutableAction) => {
      sink.actions.push(a);
    },
  } as unknown as AnyActorScope;
  s = { scope, sink };
  scopes.set(machine, s);
  return s;
}

/** One macrostep: the next snapshot, the actions to execute, and each microstep that took a transition. */
export function macrostep(machine: AnyStateMachine, snapshot: AnyMachineSnapshot, event: EventObject): { snapshot: AnyMachineSnapshot; actions: ExecutableAction[]; microsteps: Microstep[] } {
  const { scope, sink } = scoped(machine);
  sink.actions = [];
  sink.steps = [];
  const next = machine.transition(snapshot, event, scope) as AnyMachineSnapshot;
  return { snapshot: next, actions: sink.actions, microsteps: sink.steps.filter((s) => s.transitions.length > 0) };
}

/** The initial snapshot of a new run and the actions of entering its initial state. */
export function initialMacrostep(machine: AnyStateMachine, input: unknown): { snapshot: AnyMachineSnapshot; actions: ExecutableAction[] } {
  const { scope, sink } = scoped(machine);
  sink.actions = [];
  sink.steps = [];
  const next = machine.getInitialSnapshot(scope, input) as AnyMachineSnapshot;
  return { snapshot: next, actions: sink.actions };
}

/** A stored snapshot brought back to life (its invoked children are not started: the scope is inert). */
export function restoreWith(machine: AnyStateMachine, persisted: unknown): AnyMachineSnapshot {
  return machine.restoreSnapshot(persisted as never, scoped(machine).scope) as AnyMachineSnapshot;
}
