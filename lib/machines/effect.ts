import { fromPromise } from "xstate";

/**
 * A named side effect of a machine. The machine stays pure: the engine looks the name up in
 * the workflow's effect implementations (lib/effects) and runs it after the transition that
 * invoked it has been committed. Running the placeholder itself is a wiring bug.
 */
export function effect<TOutput, TInput>(name: string) {
  return fromPromise<TOutput, TInput>(async () => {
    throw new Error(`effect "${name}" runs only inside the Switchyard engine`);
  });
}
