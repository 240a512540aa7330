// Machine definition → the workflow's graph: states (compound and parallel ones as groups)
// and transitions (event, guard, delay, the seed's condition). The diagram, the REST
// description and the docs all read this; nothing about a workflow's shape is written twice.
import type { AnyStateMachine, AnyStateNode, AnyTransitionDefinition } from "xstate";
import type { StateMeta } from "../machines/types";
import { guardName, initialStep, stateId } from "../engine/step";

export interface GraphState {
  /** full path, e.g. "BOTH_SPLIT.PARSE_BRANCH" */
  id: string;
  /** the seed's name for it */
  name: string;
  type: "atomic" | "compound" | "parallel" | "final" | "history";
  parent: string | null;
  initial: boolean;
  /** opens a human review when entered */
  human: boolean;
  decisions: string[];
  tags: string[];
  summary: string | null;
  description: string | null;
  timeout: string | null;
  invokes: string[];
}

export type EdgeKind = "event" | "done" | "error" | "after" | "always";

export interface GraphTransition {
  id: string;
  source: string;
  /** the target state id; equals source for a targetless (internal) transition */
  target: string;
  event: string;
  kind: EdgeKind;
  guard: string | null;
  /** delay name and resolved duration, for timers */
  delay: string | null;
  delayMs: number | null;
  description: string | null;
  internal: boolean;
}

export interface WorkflowGraph {
  states: GraphState[];
  transitions: GraphTransition[];
}

function kindOf(t: AnyTransitionDefinition): EdgeKind {
  const ev = t.eventType as string;
  if (ev === "") return "always";
  if (ev.startsWith("xstate.after.")) return "after";
  if (ev.startsWith("xstate.done.")) return "done";
  if (ev.startsWith("xstate.error.")) return "error";
  return "event";
}

/** An invoked actor's name: its id, or for XState's generated "<n>.<machine>.<state path>" the state's key. */
function actorLabel(id: string): string {
  const generated = /^\d+\.[^.]+\.(.+)$/.exec(id);
  return generated ? `${generated[1]!.split(".").pop()}` : id;
}

/** A readable event label: "parse done", "after searchTimeout", "REQUEST". */
export function eventLabel(event: string): string {
  if (event === "") return "always";
  if (event === "xstate.fork") return "fork";
  if (event.startsWith("xstate.after.")) return `after ${event.split(".")[2]}`;
  if (event.startsWith("xstate.done.actor.")) return `${actorLabel(event.slice(18))} done`;
  if (event.startsWith("xstate.error.actor.")) return `${actorLabel(event.slice(19))} error`;
  if (event.startsWith("xstate.done.state.")) return "region done";
  return event;
}

export function formatMs(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1_000 === 0) return `${ms / 1_000} s`;
  return `${ms} ms`;
}

const cache = new WeakMap<AnyStateMachine, WorkflowGraph>();

export function deriveGraph(machine: AnyStateMachine): WorkflowGraph {
  const hit = cache.get(machine);
  if (hit) return hit;
  let context: unknown = {};
  try {
    context = initialStep(machine, {}).snapshot.context;
  } catch {
    // delays then show by name only
  }
  const delays = (machine.implementations.delays ?? {}) as Record<string, number | ((a: { context: unknown }) => number)>;
  const resolveDelay = (d: unknown): [string | null, number | null] => {
    if (typeof d === "number") return [formatMs(d), d];
    if (typeof d !== "string") return [null, null];
    const impl = delays[d];
    if (typeof impl === "number") return [d, impl];
    if (typeof impl === "function") {
      try {
        return [d, impl({ context })];
      } catch {
        return [d, null];
      }
    }
    const n = Number(d);
    return Number.isFinite(n) ? [formatMs(n), n] : [d, null];
  };

  const states: GraphState[] = [];
  const transitions: GraphTransition[] = [];
  const walk = (node: AnyStateNode) => {
    const id = stateId(node);
    if (id !== "") {
      const meta = (node.meta ?? {}) as StateMeta;
      const parent = node.parent && stateId(node.parent) !== "" ? stateId(node.parent) : null;
      states.push({
        id,
        name: meta.name ?? node.key,
        type: node.type,
        parent,
        initial: node.parent ? (node.parent.initial as unknown as { target?: readonly AnyStateNode[] } | undefined)?.target?.includes(node) ?? false : false,
        human: !!meta.review,
        decisions: meta.review?.decisions ?? [],
        tags: [...(node.tags ?? [])],
        summary: meta.summary ?? null,
        description: node.description ?? null,
        timeout: meta.timeout ?? null,
        invokes: (node.invoke ?? []).map((i: { src: unknown; id: string }) => (typeof i.src === "string" ? i.src : i.id)),
      });
      const all: AnyTransitionDefinition[] = [...[...node.transitions.values()].flat(), ...(node.always ?? [])];
      for (const t of all) {
        const targets = (t.target ?? []) as AnyStateNode[];
        const [delay, delayMs] = kindOf(t) === "after" ? resolveDelay((t as { delay?: unknown }).delay) : [null, null];
        const base = {
          source: id,
          event: t.eventType as string,
          kind: kindOf(t),
          guard: guardName(t.guard),
          delay,
          delayMs,
          description: t.description ?? null,
        };
        if (targets.length === 0) {
          transitions.push({ id: `${id}#${transitions.length}`, ...base, target: id, internal: true });
        } else {
          for (const target of targets) transitions.push({ id: `${id}#${transitions.length}`, ...base, target: stateId(target), internal: false });
        }
      }
    }
    for (const child of Object.values(node.states) as AnyStateNode[]) walk(child);
  };
  walk(machine.root);
  const graph = { states, transitions };
  cache.set(machine, graph);
  return graph;
}
