// What a runtime is (lib/runtime.ts builds one): the types alone, so that the modules the runtime
// is built from can take one as a parameter without importing the module that builds it.
import type pg from "pg";
import type PgBoss from "pg-boss";
import type { AlertMonitor } from "./alerts/monitor";
import type { Accounts } from "./auth/accounts";
import type { CommitListener } from "./cluster/listen";
import type { QueueDispatcher, QueueSettings } from "./cluster/queue";
import type { JobWorker } from "./cluster/worker";
import type { Db } from "./db/client";
import type { SqliteHandle } from "./db/sqlite";
import type { Clock } from "./engine/clock";
import type { Engine } from "./engine/engine";
import type { RunStore } from "./engine/store/types";
import type { WebhookDispatcher } from "./hooks/webhooks";
import type { KnowledgeStore } from "./knowledge/documents";
import type { LlmConfig } from "./llm/endpoints";
import type { Services } from "./machines/services";
import type { RecordingModel } from "./llm/recording";
import type { ModelPort } from "./llm/types";
import type { RetentionJob } from "./retention/prune";
import type { Scheduler } from "./schedules/scheduler";
import type { TaskQueue } from "./tasks/queue";

/**
 * What this process does (SWITCHYARD_ROLE). On SQLite one process does everything ("all"). On
 * PostgreSQL "web" only serves requests, pages and streams; "worker" (`npm run worker`) runs
 * effects, timers and chores from the queue; "all" (the default) does both.
 */
export type Role = "all" | "web" | "worker";

/** Cluster mode's moving parts (PostgreSQL only). */
export interface Cluster {
  /** names this process in commit notices */
  origin: string;
  boss: PgBoss;
  dispatcher: QueueDispatcher;
  listener: CommitListener;
  /** null in a web-only process */
  worker: JobWorker | null;
  settings: QueueSettings;
}

export interface Runtime {
  url: string;
  provider: "sqlite" | "postgres";
  role: Role;
  /** SQLite: the connection the run store and Prisma share (null on PostgreSQL) */
  sqlite: SqliteHandle | null;
  /** PostgreSQL: the run store's pool (timestamps read as epoch ms; null on SQLite) */
  pg: pg.Pool | null;
  /** PostgreSQL: queue, commit listener and (unless web-only) the job worker */
  cluster: Cluster | null;
  db: Db;
  store: RunStore;
  engine: Engine;
  /** each built-in workflow's own services (builtIn({ services })), by workflow id: `services.of(id)` */
  services: Services;
  /** the document store (its index is built on first search) */
  knowledge: KnowledgeStore;
  /** the document store, seeded with the shipped guide on first use when empty (unless seeding is off) */
  knowledgeReady(): Promise<KnowledgeStore>;
  model: RecordingModel;
  /** the engine, for effects that start or steer other runs (it exists once the runtime is built) */
  getEngine(): Engine;
  /** the model endpoints configured (null when a test injected a model) */
  llm: LlmConfig | null;
  /** the model port itself, without usage recording (for connection tests) */
  rawModel: ModelPort;
  clock: Clock;
  /** run-input defaults taken from the environment, per workflow */
  defaults: Record<string, Record<string, unknown>>;
  /** outgoing webhooks on the engine's hook events (lib/hooks/webhooks.ts) */
  webhooks: WebhookDispatcher;
  /** per-state alerts: rules, the metrics tables' thresholds, evaluated on an interval (lib/alerts/monitor.ts) */
  alerts: AlertMonitor;
  /** the scheduled pruning of old finished runs (lib/retention), when SWITCHYARD_RETENTION_DAYS is set */
  retention: RetentionJob | null;
  /** users, sessions and API tokens (used when SWITCHYARD_AUTH=on) */
  accounts: Accounts;
  /** external workers' tasks (lib/tasks; the /api/tasks routes) */
  tasks: TaskQueue;
  /** schedules: workflows started on a cron pattern (lib/schedules); fires in every process but web-only ones */
  schedules: Scheduler;
  close(): Promise<void>;
}
