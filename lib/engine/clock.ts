// Time, injectable: the engine's timers and timestamps all come from a Clock, so tests drive
// timeouts with a simulated clock instead of sleeping.

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

// Node caps setTimeout at 2^31-1 ms; longer timers re-arm themselves.
const MAX_DELAY = 2_147_483_647;

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const box: { h?: ReturnType<typeof setTimeout> } = {};
    const due = Date.now() + Math.max(0, ms);
    const arm = () => {
      const left = due - Date.now();
      box.h = left > MAX_DELAY ? setTimeout(arm, MAX_DELAY) : setTimeout(fn, Math.max(0, left));
      box.h.unref?.();
    };
    arm();
    return box;
  },
  clearTimeout(handle) {
    const box = handle as { h?: ReturnType<typeof setTimeout> };
    if (box?.h) clearTimeout(box.h);
  },
};

/** A clock that only moves when told to. `advance` fires due timers in due order. */
export class ManualClock implements Clock {
  private t: number;
  private nextId = 1;
  private timers = new Map<number, { due: number; fn: () => void }>();

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.timers.set(id, { due: this.t + Math.max(0, ms), fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }

  /** Number of armed timers. */
  get pending(): number {
    return this.timers.size;
  }

  /** Move time forward by `ms`, firing every timer that falls due on the way. */
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      let first: [number, { due: number; fn: () => void }] | undefined;
      for (const entry of this.timers) if (entry[1].due <= end && (!first || entry[1].due < first[1].due)) first = entry;
      if (!first) break;
      this.timers.delete(first[0]);
      this.t = Math.max(this.t, first[1].due);
      first[1].fn();
    }
    this.t = end;
  }
}
