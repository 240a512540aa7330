// Group commit: the steps of all runs that are ready in the same turn of the event loop share
// one database transaction. Each run still waits for its own commit before it acts, so every
// transition is durable before the side effects it starts; many runs pay for one fsync.
// A store that writes on another thread takes several smaller batches in flight at once, so
// the runs of one batch step (on this thread) while the next batch is written (on that one).
import type { CommitItem, CommitOutcome, RunStore } from "./store/types";

interface Pending {
  item: CommitItem;
  resolve: (o: CommitOutcome) => void;
  reject: (e: unknown) => void;
}

export interface BatchStats {
  batches: number;
  items: number;
  largest: number;
}

export class Committer {
  private queue: Pending[] = [];
  private inflight = 0;
  private scheduled = false;
  private maxBatch: number;
  private depth: number;
  readonly stats: BatchStats = { batches: 0, items: 0, largest: 0 };

  constructor(
    private store: RunStore,
    maxBatch?: number,
  ) {
    this.maxBatch = maxBatch ?? store.pipeline?.batch ?? 1000;
    this.depth = store.pipeline?.depth ?? 1;
  }

  commit(item: CommitItem): Promise<CommitOutcome> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  /** Resolves when everything queued so far has been committed or rejected. */
  async drain(): Promise<void> {
    while (this.queue.length || this.inflight) await new Promise((r) => setImmediate(r));
  }

  private schedule(): void {
    if (this.scheduled || this.inflight >= this.depth) return;
    this.scheduled = true;
    // setImmediate: let every run whose step is ready in this turn join the batch
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.inflight >= this.depth || this.queue.length === 0) return;
    this.inflight++;
    const batch = this.queue.splice(0, this.maxBatch);
    if (this.queue.length) this.schedule(); // the rest goes in the next batch, already in flight if depth allows
    try {
      const outcomes = await this.store.commit(batch.map((p) => p.item));
      this.stats.batches++;
      this.stats.items += batch.length;
      this.stats.largest = Math.max(this.stats.largest, batch.length);
      batch.forEach((p, i) => p.resolve(outcomes[i]));
    } catch (e) {
      batch.forEach((p) => p.reject(e));
    } finally {
      this.inflight--;
      if (this.queue.length) this.schedule();
    }
  }
}
