// The run bus: in-process fan-out of what the engine committed, for SSE streams and tests.
import type { RunView, TransitionView, ReviewView } from "./views";

export type BusMessage =
  /** remote: committed by another process (cluster mode), relayed here for watchers; hooks ignore it */
  | { type: "run"; run: RunView; transitions: TransitionView[]; remote?: boolean }
  | { type: "review"; review: ReviewView }
  | { type: "progress"; runId: string; state: string; message: string; remote?: boolean }
  | ({ type: "hook" } & HookEvent);

/** a state hook's event (lib/engine/hooks.ts derives them from what the engine committed) */
export type HookName = "on_transition" | "on_enter" | "on_exit";

export interface HookEvent {
  hook: HookName;
  runId: string;
  workflow: string;
  /** the transition's seq */
  seq: number;
  /** on_enter / on_exit: the state entered or left (its id path); on_transition: null */
  stage: string | null;
  /** active state ids before and after the transition */
  from: string[];
  to: string[];
  event: string;
  reason: string;
  at: string;
}

type Listener = (msg: BusMessage) => void;

export class RunBus {
  private listeners = new Map<string, Set<Listener>>();

  /** listeners that only react to what this process does (hooks, relays): they do not count as watching */
  private passive = new Set<Listener>();

  /** Listen to one run's messages, or to every run with "*". Returns the unsubscribe. */
  subscribe(key: string, fn: Listener, opts: { passive?: boolean } = {}): () => void {
    let set = this.listeners.get(key);
    if (!set) this.listeners.set(key, (set = new Set()));
    set.add(fn);
    if (opts.passive) this.passive.add(fn);
    return () => {
      set!.delete(fn);
      this.passive.delete(fn);
      if (set!.size === 0) this.listeners.delete(key);
    };
  }

  /** To the run's listeners and those of every run ("*"), or (`only`) to the run's alone. */
  publish(runId: string, msg: BusMessage, opts: { only?: boolean } = {}): void {
    this.deliver(this.listeners.get(runId), msg);
    if (!opts.only) this.deliver(this.listeners.get("*"), msg);
  }

  private deliver(set: Set<Listener> | undefined, msg: BusMessage): void {
    if (!set) return;
    for (const fn of set) {
      try {
        fn(msg);
      } catch {
        // a broken listener must not stop the engine
      }
    }
  }

  /** Someone (not a passive listener) listens to this run in particular ("*": to every run). */
  watched(runId: string): boolean {
    for (const fn of this.listeners.get(runId) ?? []) if (!this.passive.has(fn)) return true;
    return false;
  }

  get size(): number {
    let n = 0;
    for (const s of this.listeners.values()) n += s.size;
    return n;
  }
}
