// What a workflow's effects are to the engine: the functions its machine invokes (actors), the
// actions run after a commit, and the context each is given. The engine (engine.ts) runs them;
// the rest of the code builds them. Types and markers only, so that a module that wraps effects
// (lib/engine/poison.ts, lib/tasks) need not import the engine.
import type { EventObject } from "xstate";
import type { BoundModel } from "../llm/bound";
import type { Clock } from "./clock";

export interface EffectContext {
  runId: string;
  /** the state that invoked the effect */
  state: string;
  /** stable per invocation: use it to make writes idempotent */
  key: string;
  signal: AbortSignal;
  /** the model, bound to this invocation (its run, state, key and signal): usage rows, the journal, cancellation */
  model: BoundModel;
  clock: Clock;
  /** send an event to the run (ignored once this invocation is no longer current) */
  emit(event: EventObject & Record<string, unknown>): void;
  /** a live progress line for watchers (not persisted) */
  progress(message: string): void;
  /** "restart": this invocation was in flight when the process (or the cluster worker running it) stopped, and runs again under the same key */
  again?: "restart";
}
export type EffectFn = (input: never, ctx: EffectContext) => Promise<unknown>;

/**
 * Marks an effect that spends its time waiting for something outside this process (an external
 * worker's task, lib/tasks): a process that dies while it waits did not die of it, so those
 * crashes are not counted against it as a poison pill.
 */
export const WAITS_OUTSIDE = Symbol.for("switchyard.effect-waits-outside");
export function waitingOutside<F extends EffectFn>(fn: F): F {
  (fn as unknown as Record<symbol, unknown>)[WAITS_OUTSIDE] = true;
  return fn;
}
const PARKED = Symbol.for("switchyard.effect-parked");
/**
 * Cluster mode: a waiting effect throws this to give its job back while it waits (it would hold
 * one of the worker's effect slots and outlive the job's expiry). Nothing is committed; whoever
 * sees the wait end calls runEffect again for the same invocation key (lib/tasks does).
 */
export function parkEffect(why = "waiting outside the process"): Error {
  return Object.assign(new Error(`parked: ${why}`), { [PARKED]: true });
}
export const isParked = (e: unknown) => typeof e === "object" && e !== null && (e as Record<symbol, unknown>)[PARKED] === true;
export const waitsOutside = (fn: unknown) => typeof fn === "function" && (fn as unknown as Record<symbol, unknown>)[WAITS_OUTSIDE] === true;

export interface ActionArgs {
  runId: string;
  key: string;
  context: unknown;
  event: EventObject;
  clock: Clock;
}
export type ActionFn = (args: ActionArgs) => void | Promise<void>;

export interface WorkflowEffects {
  actors: Record<string, EffectFn>;
  actions?: Record<string, ActionFn>;
}
