// An invoked effect's cancellation. Its AbortSignal is made only when the effect asks for it:
// most effects (parsing a request, searching, storing a result) never do, and an AbortController
// with its listener was ~1.5% of a step on the engine's thread (npm run bench).

export class Cancel {
  aborted = false;
  private controller: AbortController | null = null;

  /** `onAbort` runs first when the effect is cancelled, before the signal's own listeners */
  constructor(private onAbort: () => void) {}

  /** The effect's AbortSignal (already aborted when asked for after the cancellation). */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort();
    }
    return this.controller.signal;
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.onAbort();
    this.controller?.abort();
  }
}
