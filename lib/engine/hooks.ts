// State hooks (StateHookManager: docs/guide/15-conversation-and-your-own-workflows.md): on_transition, on_enter(stage), on_exit(stage),
// derived from what the engine committed. Handlers run after the commit, never inside it; a
// throwing handler is logged and does not stop the others. Each hook event is also published
// on the run bus as { type: "hook" }, so the run's SSE stream carries it.
import type { BusMessage, HookEvent, HookName, RunBus } from "./bus";
import type { DeliveryRow, TransitionRow } from "./store/types";

/**
 * Plans the webhook deliveries of a commit's hook events, which the engine writes in the commit
 * itself (so a crash cannot lose them between the commit and a separate write), and learns of
 * them once they are committed. lib/hooks/webhooks.ts is the one planner.
 */
export interface DeliveryPlanner {
  /** a Promise only when it must read something first (its list of webhooks is not fresh) */
  plan(run: { id: string; workflow: string }, transitions: TransitionRow[]): DeliveryRow[] | Promise<DeliveryRow[]>;
  committed(rows: DeliveryRow[]): void;
}

export type { HookEvent, HookName } from "./bus";

type Handler = (e: HookEvent) => void | Promise<void>;

/** `wants`: whether the handler may care about a workflow's events at all (false: they are not even derived for it) */
type HandlerOptions = { wants?: (workflow: string) => boolean };

const split = (s: string) => (s ? s.split(",") : []);

/** The hook events of one committed transition, in firing order: exits, the transition, entries. */
export function hookEvents(run: { id: string; workflow: string }, t: { seq: number; from: string; to: string; event: string; reason: string; at: string }): HookEvent[] {
  const from = split(t.from);
  const to = split(t.to);
  const base = { runId: run.id, workflow: run.workflow, seq: t.seq, from, to, event: t.event, reason: t.reason, at: t.at };
  const left = from.filter((s) => !to.includes(s));
  const entered = to.filter((s) => !from.includes(s));
  if (left.length === 0 && entered.length === 0) return [];
  return [
    ...left.map((stage) => ({ ...base, hook: "on_exit" as const, stage })),
    { ...base, hook: "on_transition" as const, stage: null },
    ...entered.map((stage) => ({ ...base, hook: "on_enter" as const, stage })),
  ];
}

/** The hook events of one transition as the store keeps it. */
export function hookEventsOf(run: { id: string; workflow: string }, t: TransitionRow): HookEvent[] {
  return hookEvents(run, { seq: t.seq, from: t.from.join(","), to: t.to.join(","), event: t.event, reason: t.reason, at: new Date(t.at).toISOString() });
}

export class StateHooks {
  private planner: DeliveryPlanner | null = null;
  private handlers: { hook: HookName; stage: string | null; fn: Handler; wants?: (workflow: string) => boolean }[] = [];
  private detach: (() => void) | null = null;

  constructor(private log: (message: string, error: unknown) => void = (m, e) => console.error(`[hooks] ${m}`, e)) {}

  onTransition(fn: Handler): () => void {
    return this.add("on_transition", null, fn);
  }

  /** `stage` matches the state's id path or its last segment ("EXECUTION", "ModelRuntime.CacheHit" or "CacheHit"). */
  onEnter(stage: string, fn: Handler): () => void {
    return this.add("on_enter", stage, fn);
  }

  onExit(stage: string, fn: Handler): () => void {
    return this.add("on_exit", stage, fn);
  }

  /** Every hook event, whatever its kind (webhooks, the SSE stream). */
  onAny(fn: Handler, opts: HandlerOptions = {}): () => void {
    const subs = [this.add("on_transition", null, fn, opts), this.add("on_enter", null, fn, opts), this.add("on_exit", null, fn, opts)];
    return () => subs.forEach((u) => u());
  }

  /** Set (or clear) the planner of webhook deliveries written with each commit. */
  plan(planner: DeliveryPlanner | null): void {
    this.planner = planner;
  }

  /** The webhook deliveries to write with a commit of these transitions (none without a planner). */
  deliveries(run: { id: string; workflow: string }, transitions: TransitionRow[]): DeliveryRow[] | Promise<DeliveryRow[]> {
    return this.planner && transitions.length ? this.planner.plan(run, transitions) : [];
  }

  /** Deliveries just committed (the planner sends them). */
  committed(rows: DeliveryRow[]): void {
    if (rows.length) this.planner?.committed(rows);
  }

  private add(hook: HookName, stage: string | null, fn: Handler, opts: HandlerOptions = {}): () => void {
    const h = { hook, stage, fn, wants: opts.wants };
    this.handlers.push(h);
    return () => {
      this.handlers = this.handlers.filter((x) => x !== h);
    };
  }

  /** Derive hook events from the bus's committed transitions and republish them on it. */
  attach(bus: RunBus): () => void {
    this.detach?.();
    const off = bus.subscribe("*", (msg: BusMessage) => {
      if (msg.type !== "run") return;
      // only derived when someone is there: a watcher of the run (its stream) or a handler here;
      // the all-runs stream carries summaries, not hook events
      const relay = bus.watched(msg.run.id);
      // a remote commit's hooks fired in the process that made it
      const fire = !msg.remote && this.handlers.some((h) => !h.wants || h.wants(msg.run.workflow));
      if (!relay && !fire) return;
      for (const t of msg.transitions) {
        for (const e of hookEvents(msg.run, t)) {
          if (relay) bus.publish(e.runId, { type: "hook", ...e }, { only: true });
          if (fire) this.fire(e);
        }
      }
    }, { passive: true });
    this.detach = off;
    return off;
  }

  fire(e: HookEvent): void {
    for (const h of this.handlers) {
      if (h.hook !== e.hook || (h.wants && !h.wants(e.workflow))) continue;
      if (h.stage !== null && e.stage !== h.stage && e.stage?.split(".").pop() !== h.stage) continue;
      try {
        const out = h.fn(e);
        if (out && typeof (out as Promise<void>).catch === "function") (out as Promise<void>).catch((err) => this.log(`${e.hook} handler failed`, err));
      } catch (err) {
        this.log(`${e.hook} handler failed`, err);
      }
    }
  }
}
