// Live updates across processes: every commit on PostgreSQL NOTIFYs its runs (inside the
// transaction, so only what committed is announced). Each process LISTENs: runs it holds are
// re-read, watchers on its run bus get the new transitions (the notice carries only ids and
// seqs; details are read here), and workers wake to fetch the jobs that commit queued. Effects'
// progress lines travel the same way on a second channel.
import pg from "pg";
import type { RunBus } from "../engine/bus";
import type { Engine } from "../engine/engine";
import type { CommitNotice } from "../engine/store/postgres";
import type { RunStore } from "../engine/store/types";
import { reviewView, transitionView } from "../engine/views";

export interface Channels {
  commits: string;
  progress: string;
  jobs: string;
}

/** Channel names per database schema (tests put several instances on one server). */
export function channelsFor(schema: string | null): Channels {
  const s = (schema ?? "public").toLowerCase().replace(/[^a-z0-9_]/g, "_").slice(0, 40);
  return { commits: `sy_commits_${s}`, progress: `sy_progress_${s}`, jobs: `sy_jobs_${s}` };
}

interface ProgressNotice {
  o: string;
  r: string;
  s: string;
  m: string;
}

export interface ListenerOptions {
  connectionString: string;
  /** pg `options` (search_path) */
  options?: string;
  channels: Channels;
  origin: string;
  engine: Engine;
  store: RunStore;
  bus: RunBus;
  /** jobs were queued somewhere, on these queues (all: undefined); workers fetch */
  onJobs?: (queues?: string[]) => void;
  log: (message: string) => void;
}

export class CommitListener {
  private client: pg.Client | null = null;
  private stopped = false;
  private retryMs = 500;
  /** run id → the last seq relayed to the bus */
  private relayed = new Map<string, number>();
  /** run id → the last pending review relayed for it */
  private reviewed = new Map<string, string>();
  private detachProgress: (() => void) | null = null;
  private sender: pg.Pool;
  private reconnecting: ReturnType<typeof setTimeout> | null = null;

  constructor(private o: ListenerOptions) {
    this.sender = new pg.Pool({ connectionString: o.connectionString, options: o.options, max: 2 });
  }

  async start(): Promise<void> {
    await this.connect();
    // progress lines of effects running here go to the other processes
    this.detachProgress = this.o.bus.subscribe("*", (msg) => {
      if (msg.type !== "progress" || msg.remote) return;
      const notice: ProgressNotice = { o: this.o.origin, r: msg.runId, s: msg.state, m: msg.message.slice(0, 2_000) };
      void this.sender.query("SELECT pg_notify($1, $2)", [this.o.channels.progress, JSON.stringify(notice)]).catch(() => {});
    }, { passive: true });
  }

  /** Tell the workers that jobs were queued on these queues. */
  async jobsQueued(queues: string[]): Promise<void> {
    await this.sender.query("SELECT pg_notify($1, $2)", [this.o.channels.jobs, queues.join(",")]);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.o.connectionString, options: this.o.options });
    client.on("error", (e) => this.lost(e));
    client.on("end", () => this.lost(new Error("connection ended")));
    client.on("notification", (n) => this.onNotification(n.channel, n.payload ?? ""));
    await client.connect();
    const c = this.o.channels;
    await client.query(`LISTEN "${c.commits}"; LISTEN "${c.progress}"; LISTEN "${c.jobs}"`);
    this.client = client;
    this.retryMs = 500;
  }

  private lost(e: Error) {
    if (this.stopped || this.reconnecting) return;
    this.o.log(`listener: ${e.message}; reconnecting`);
    const old = this.client;
    this.client = null;
    void old?.end().catch(() => {});
    this.reconnecting = setTimeout(() => {
      this.reconnecting = null;
      this.connect().then(
        // commits made while the connection was down: workers fetch, watchers re-read on their next notice
        () => this.o.onJobs?.(),
        (err) => {
          this.retryMs = Math.min(this.retryMs * 2, 10_000);
          this.lost(err);
        },
      );
    }, this.retryMs);
    this.reconnecting.unref?.();
  }

  private onNotification(channel: string, payload: string) {
    const c = this.o.channels;
    if (channel === c.jobs) return this.o.onJobs?.(payload ? payload.split(",") : undefined);
    try {
      if (channel === c.progress) {
        const p = JSON.parse(payload) as ProgressNotice;
        if (p.o !== this.o.origin) this.o.bus.publish(p.r, { type: "progress", runId: p.r, state: p.s, message: p.m, remote: true });
        return;
      }
      if (channel !== c.commits) return;
      const notice = JSON.parse(payload) as CommitNotice;
      if (notice.o === this.o.origin) return;
      for (const [runId, version, first, last] of notice.runs) void this.onCommit(runId, version, first, last);
    } catch (e) {
      this.o.log(`listener: bad notice on ${channel}: ${(e as Error).message}`);
    }
  }

  private async onCommit(runId: string, version: number, first: number, last: number) {
    try {
      await this.o.engine.refreshRun(runId, version);
      // read the details only for someone watching here (a browser's stream, an effect waiting on a child run)
      if (!this.o.bus.watched(runId) && !this.o.bus.watched("*")) return;
      const after = Math.max(first - 1, this.relayed.get(runId) ?? 0);
      if (last <= after && last !== 0) return;
      const [run, rows] = await Promise.all([this.o.engine.getRun(runId), last > after ? this.o.store.transitions(runId, after, last - after) : Promise.resolve([])]);
      if (rows.length) this.relayed.set(runId, rows[rows.length - 1].seq);
      if (this.relayed.size > 50_000) this.relayed.clear();
      this.o.bus.publish(runId, { type: "run", run, transitions: rows.map((t) => transitionView(t, true)), remote: true });
      // a review the other process opened: as the engine that opened it publishes it (the review queue, the pending count)
      if (run.reviewId && this.reviewed.get(runId) !== run.reviewId) {
        this.reviewed.set(runId, run.reviewId);
        if (this.reviewed.size > 50_000) this.reviewed.clear();
        const review = await this.o.store.getReview(run.reviewId);
        if (review?.status === "pending") this.o.bus.publish(runId, { type: "review", review: reviewView(review) });
      }
    } catch (e) {
      this.o.log(`listener: run ${runId}: ${(e as Error).message}`);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.detachProgress?.();
    if (this.reconnecting) clearTimeout(this.reconnecting);
    await this.client?.end().catch(() => {});
    await this.sender.end().catch(() => {});
  }
}
