// The effects a machine needs, derived from its setup({ actors }): one implementation per
// named actor, taking the actor's input and resolving to its output. A workflow's effects are
// typed with it, so a missing, misnamed or mistyped effect is a compile error.
import type { AnyStateMachine, InputFrom, OutputFrom } from "xstate";
import type { ActionFn, EffectContext } from "../engine/engine";

type Implementations<M extends AnyStateMachine> = NonNullable<Parameters<M["provide"]>[0]>;
export type ActorLogics<M extends AnyStateMachine> = NonNullable<Implementations<M>["actors"]>;

/** an effect's implementation: the actor's input in, its output out */
export type EffectOf<L> = (input: InputFrom<NonNullable<L>>, ctx: EffectContext) => Promise<OutputFrom<NonNullable<L>>>;

/** the actions machine M names in setup({ actions }) (assign actions and post-commit placeholders alike) */
export type ActionsOf<M extends AnyStateMachine> = keyof NonNullable<Implementations<M>["actions"]>;

/**
 * every actor of machine M, implemented; and post-commit actions, each one M names (a misspelt
 * action is a compile error). Which named actions are post-commit is not in M's type (setup()
 * keeps only their params), so a missing one is not: the engine only runs the ones given here.
 */
export type EffectsOf<M extends AnyStateMachine> = {
  actors: { [K in keyof ActorLogics<M>]-?: EffectOf<ActorLogics<M>[K]> };
  actions?: { [K in ActionsOf<M>]?: ActionFn };
};
