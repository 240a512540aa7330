// Wiring: database → run store → ports → engine. One runtime per process (the web server,
// a worker, a test). No Next.js here; the web app reaches it through getRuntime().
import { prismaOnSqlite, type Db } from "./db/client";
import { AlertMonitor, alertIntervalFromEnv } from "./alerts/monitor";
import { RetentionJob, retentionFromEnv } from "./retention/prune";
import { Accounts } from "./auth/accounts";
import { pendingOnSqlite } from "./db/pending";
import { openSqlite, type Durability, type SqliteHandle } from "./db/sqlite";
import { databaseUrl, providerOf, sqlitePath } from "./db/url";
import { deepResearchEffects } from "./effects/deep-research";
import { domainAgentEffects } from "./effects/domain-agent";
import { processingModesEffects } from "./effects/processing-modes";
import { swissArmyEffects } from "./effects/swiss-army";
import { RunBus } from "./engine/bus";
import { systemClock, type Clock } from "./engine/clock";
import { Engine, type WorkflowEffects } from "./engine/engine";
import { SqliteRunStore } from "./engine/store/sqlite";
import type { RunStore } from "./engine/store/types";
import { WebhookDispatcher, type WebhookDispatcherOptions } from "./hooks/webhooks";
import { loadUserWorkflows } from "./flows/store";
import { ContextManager } from "./knowledge/context-manager";
import type { KnowledgeStore } from "./knowledge/documents";
import { knowledgeStoreFor, seededOnFirstUse } from "./knowledge/instance";
import type { LlmConfig } from "./llm/endpoints";
import { RecordingModel } from "./llm/recording";
import { selectModel } from "./llm/select";
import type { ModelPort } from "./llm/types";
import { findWorkflow } from "./machines/registry";
import type { SwissConfig } from "./machines/swiss-army.types";
import { KnowledgeSearch } from "./search/knowledge";
import { SearxngSearch } from "./search/searxng";

export interface Runtime {
  url: string;
  provider: "sqlite" | "postgres";
  sqlite: SqliteHandle;
  db: Db;
  store: RunStore;
  engine: Engine;
  cm: ContextManager;
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
  /** per-state alerts: rules, seed 001's thresholds, evaluated on an interval (lib/alerts/monitor.ts) */
  alerts: AlertMonitor;
  /** the scheduled pruning of old finished runs (lib/retention), when SWITCHYARD_RETENTION_DAYS is set */
  retention: RetentionJob | null;
  /** users, sessions and API tokens (used when SWITCHYARD_AUTH=on) */
  accounts: Accounts;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  url?: string;
  clock?: Clock;
  /** applies pending migrations first (scripts and tests pass lib/db/migrations' migrateDatabase;
   *  the web server leaves it out: `npm start` migrates before Next starts) */
  migrate?: (url: string) => Promise<unknown>;
  /** resume unfinished runs (default true) */
  resume?: boolean;
  durability?: Durability;
  env?: NodeJS.ProcessEnv;
  /** replace ports (tests) */
  model?: ModelPort;
  effects?: (rt: Omit<Runtime, "engine" | "close">) => Record<string, WorkflowEffects>;
  /** seed docs/guide into an empty knowledge store on first use (default: env SWITCHYARD_SEED_GUIDE !== "0") */
  seedGuide?: boolean;
  /** flush the Context Manager's outbox on an interval (ms; 0 = never) */
  outboxIntervalMs?: number;
  /** webhook delivery settings (tests); start: false records deliveries without sending them */
  webhooks?: Pick<WebhookDispatcherOptions, "fetch" | "backoffMs" | "timeoutMs" | "pollMs" | "log"> & { start?: boolean };
  /** alert evaluation: start: false never evaluates on its own (call rt.alerts.evaluateOnce());
   *  intervalMs defaults to SWITCHYARD_ALERT_INTERVAL_MS (15 s; 0 = off) */
  alerts?: { start?: boolean; intervalMs?: number };
  /** retention (default from SWITCHYARD_RETENTION_DAYS / _INTERVAL_MS / SWITCHYARD_ARCHIVE_DIR); null = off */
  retention?: { olderThanMs: number; archiveDir?: string | null; intervalMs: number } | null;
}

function intEnv(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const v = env[name];
  if (v === undefined || v === "") return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer (milliseconds); got "${v}"`);
  return n;
}

/** Timeout settings from the environment (seed 001's 5 s search and 10 min execution limits). */
export function swissConfigFromEnv(env: NodeJS.ProcessEnv): Partial<SwissConfig> {
  const out: Partial<SwissConfig> = {};
  const map: [keyof SwissConfig, string][] = [
    ["parseTimeoutMs", "SWITCHYARD_PARSE_TIMEOUT_MS"],
    ["searchTimeoutMs", "SWITCHYARD_SEARCH_TIMEOUT_MS"],
    ["executionTimeoutMs", "SWITCHYARD_EXECUTION_TIMEOUT_MS"],
    ["updateTimeoutMs", "SWITCHYARD_UPDATE_TIMEOUT_MS"],
    ["idleAnalysisMs", "SWITCHYARD_IDLE_ANALYSIS_MS"],
  ];
  for (const [key, name] of map) {
    const v = intEnv(env, name);
    if (v !== undefined) out[key] = v;
  }
  return out;
}

/** processing-modes settings from the environment: the seed's system1.enable_cache and the cache TTL. */
export function modesConfigFromEnv(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const flag = env.SWITCHYARD_SYSTEM1_CACHE?.trim().toLowerCase();
  if (flag) {
    if (!["on", "off", "1", "0", "true", "false"].includes(flag)) throw new Error(`SWITCHYARD_SYSTEM1_CACHE must be on or off; got "${env.SWITCHYARD_SYSTEM1_CACHE}"`);
    out.enableCache = ["on", "1", "true"].includes(flag);
  }
  const ttl = env.SWITCHYARD_CACHE_TTL_S?.trim();
  if (ttl) {
    const n = Number(ttl);
    if (!Number.isInteger(n) || n < 0) throw new Error(`SWITCHYARD_CACHE_TTL_S must be a whole number of seconds; got "${ttl}"`);
    out.cacheTtlMs = n * 1000;
  }
  return out;
}

/** The built-in workflows' effects on this runtime's ports. */
export function defaultEffects(rt: Omit<Runtime, "engine" | "close">, env: NodeJS.ProcessEnv): Record<string, WorkflowEffects> {
  const searchUrl = env.SWITCHYARD_SEARCH_URL?.trim();
  const web = searchUrl ? new SearxngSearch(searchUrl) : null;
  const knowledge = new KnowledgeSearch(rt.knowledgeReady);
  return {
    "processing-modes": processingModesEffects({ db: rt.db, model: () => rt.model, knowledge, web, engine: rt.getEngine }),
    "swiss-army": swissArmyEffects({ cm: rt.cm, model: () => rt.model, documents: rt.knowledgeReady }),
    "domain-agent": domainAgentEffects({ db: rt.db, model: () => rt.model }),
    "deep-research": deepResearchEffects({
      model: () => rt.model,
      knowledge,
      web,
      missionsOn: (day) => missionsOn(rt.db, day),
    }),
  };
}

/** deep-research runs created on a UTC day (numbers the day's missions DR-YYYYMMDD-NNN). */
async function missionsOn(db: Db, day: string): Promise<number> {
  const start = new Date(`${day}T00:00:00.000Z`);
  const end = new Date(start.getTime() + 86_400_000);
  return db.run.count({ where: { workflow: "deep-research", createdAt: { gte: start, lt: end } } });
}

export async function createRuntime(opts: RuntimeOptions = {}): Promise<Runtime> {
  const env = opts.env ?? process.env;
  const url = opts.url ?? databaseUrl(env);
  const provider = providerOf(url);
  if (provider === "postgres") {
    throw new Error("PostgreSQL support is not built yet: use a file: DATABASE_URL (SQLite) for now");
  }
  if (opts.migrate) await opts.migrate(url);
  const pending = pendingOnSqlite(url);
  if (pending.length) throw new Error(`the database at ${url} lacks migrations ${pending.join(", ")}: run \`npm run db:migrate\` (npm start does it for you)`);
  const clock = opts.clock ?? systemClock;
  const durability = opts.durability ?? (env.SWITCHYARD_DURABILITY === "full" ? "full" : "normal");
  const sqlite = openSqlite(sqlitePath(url), durability);
  const db = await prismaOnSqlite(sqlite);
  const store = new SqliteRunStore(sqlite);
  const cm = new ContextManager(db, clock);
  await cm.seed();
  await loadUserWorkflows(db);
  const selected = opts.model ? { model: opts.model, config: null } : selectModel(env);
  const model = new RecordingModel(selected.model, db, clock);
  const knowledge = knowledgeStoreFor({ db, model }, env);
  const knowledgeReady = seededOnFirstUse(knowledge, opts.seedGuide ?? env.SWITCHYARD_SEED_GUIDE !== "0");
  let engineRef: Engine | null = null;
  const { start: startWebhooks = true, ...webhookOpts } = opts.webhooks ?? {};
  const webhooks = new WebhookDispatcher({ db, clock, ...webhookOpts });
  const alertInterval = opts.alerts?.intervalMs ?? alertIntervalFromEnv(env);
  const alerts = new AlertMonitor({ db, store, clock, intervalMs: alertInterval || undefined, notify: (a) => webhooks.notifyAlert(a) });
  const keep = opts.retention !== undefined ? opts.retention : retentionFromEnv(env);
  const retention = keep ? new RetentionJob({ sqlite, clock }, keep) : null;
  const base = {
    webhooks,
    alerts,
    retention,
    accounts: new Accounts(db, clock),
    getEngine: () => {
      if (!engineRef) throw new Error("the engine is not built yet");
      return engineRef;
    },
    url,
    provider,
    sqlite,
    db,
    store,
    cm,
    knowledge,
    knowledgeReady,
    model,
    llm: selected.config,
    rawModel: selected.model,
    clock,
    defaults: { "swiss-army": { config: swissConfigFromEnv(env) }, "processing-modes": { config: modesConfigFromEnv(env) } },
  };
  const effects = opts.effects?.(base) ?? defaultEffects(base, env);
  const engine = new Engine({
    store,
    clock,
    bus: new RunBus(),
    workflows: findWorkflow,
    effects: (id) => effects[id] ?? { actors: {} },
  });
  engineRef = engine;
  webhooks.attach(engine.hooks);
  if (startWebhooks) webhooks.start();
  if (opts.alerts?.start !== false && alertInterval > 0) alerts.start();
  const interval = opts.outboxIntervalMs ?? 10_000;
  const outbox = interval > 0 ? setInterval(() => void cm.flushOutbox().catch(() => {}), interval) : null;
  outbox?.unref?.();
  retention?.start();
  if (opts.resume !== false) await engine.resume();
  return {
    ...base,
    engine,
    async close() {
      await retention?.stop();
      await alerts.stop();
      await webhooks.stop();
      if (outbox) clearInterval(outbox);
      await engine.stop();
      await webhooks.idle(); // hook events of the last commits are recorded (pending, sent after a restart)
      await cm.idle();
      await db.$disconnect();
      sqlite.db.close();
    },
  };
}

const KEY = Symbol.for("switchyard.runtime");
type Holder = { [KEY]?: Promise<Runtime> };

/** The process-wide runtime (created on first use from the environment). */
export function getRuntime(): Promise<Runtime> {
  const g = globalThis as Holder;
  g[KEY] ??= createRuntime().catch((e) => {
    delete g[KEY];
    throw e;
  });
  return g[KEY]!;
}
