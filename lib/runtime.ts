// Wiring: database → run store → ports → engine. One runtime per process (the web server,
// a worker, a test). No Next.js here; the web app reaches it through getRuntime().
import { randomUUID } from "node:crypto";
import type pg from "pg";
import type PgBoss from "pg-boss";
import { prismaOnSqlite, type Db } from "./db/client";
import { pendingOnPostgres, pgTarget, poolMaxFromEnv, prismaOnPostgres } from "./db/postgres";
import { CommitListener, channelsFor } from "./cluster/listen";
import { QueueDispatcher, queueSettingsFromEnv, startQueue, type QueueSettings } from "./cluster/queue";
import { JobWorker } from "./cluster/worker";
import { PostgresRunStore } from "./engine/store/postgres";
import { Scheduler } from "./schedules/scheduler";
import { AlertMonitor, alertIntervalFromEnv } from "./alerts/monitor";
import { pruneRuns, RetentionJob, retentionFromEnv } from "./retention/prune";
import { Accounts } from "./auth/accounts";
import { serveRequestAccounts } from "./auth/request-accounts";
import { pendingOnSqlite } from "./db/pending";
import { openSqlite, type Durability, type SqliteHandle } from "./db/sqlite";
import { writerFromEnv } from "./db/sqlite-writer";
import { databaseUrl, providerOf, sqlitePath } from "./db/url";
import { RunBus } from "./engine/bus";
import { systemClock, type Clock } from "./engine/clock";
import { invocationOf } from "./engine/key";
import { Engine, type WorkflowEffects } from "./engine/engine";
import { crashHook } from "./engine/poison";
import { SqliteRunStore } from "./engine/store/sqlite";
import type { RunStore } from "./engine/store/types";
import { WebhookDispatcher, type WebhookDispatcherOptions } from "./hooks/webhooks";
import { loadUserWorkflows } from "./flows/store";
import { stepEffects } from "./steps/effects";
import { configureSandbox, queuePerPrincipalFromEnv } from "./sandbox";
import { principalScoped, principalsIn } from "./sandbox/principal";
import { currentIn, externalStep } from "./tasks/effect";
import { leaseFromEnv, TaskQueue } from "./tasks/queue";
import { externalRoutesFromEnv, routeEffects } from "./tasks/settings";
import type { KnowledgeStore } from "./knowledge/documents";
import { knowledgeStoreFor, seededOnFirstUse } from "./knowledge/instance";
import type { LlmConfig } from "./llm/endpoints";
import { RecordingModel } from "./llm/recording";
import { evictAfterFromEnv } from "./engine/evict";
import { selectModel } from "./llm/select";
import type { ModelPort } from "./llm/types";
import { builtInDefaults, builtInEffects, builtInEntries, builtInOutputs, builtInWorkflows, findWorkflow, isBuiltIn } from "./machines/registry";
import { Services } from "./machines/services";
import { reviewRoutesFromEnv } from "./reviews/routes";
import { candidateOf } from "./change/candidates";
import { holdRunningCandidates, resumeEvals } from "./change/evals";
import { KnowledgeSearch } from "./search/knowledge";
import { SearxngSearch } from "./search/searxng";
import { flushTelemetry } from "./telemetry";

import type { Cluster, Role, Runtime } from "./runtime-types";

export type { Cluster, Role, Runtime };

export function roleFromEnv(env: NodeJS.ProcessEnv): Role {
  const v = env.SWITCHYARD_ROLE?.trim().toLowerCase();
  if (!v) return "all";
  if (v === "all" || v === "web" || v === "worker") return v;
  throw new Error(`SWITCHYARD_ROLE must be all, web or worker; got "${env.SWITCHYARD_ROLE}"`);
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
  /** run the workflows' service chores (lib/machines/services.ts) on this interval (ms) instead of each chore's own; 0 = never */
  serviceChoresMs?: number;
  /** webhook delivery settings (tests); start: false records deliveries without sending them */
  webhooks?: Pick<WebhookDispatcherOptions, "fetch" | "backoffMs" | "timeoutMs" | "pollMs" | "log"> & { start?: boolean };
  /** alert evaluation: start: false never evaluates on its own (call rt.alerts.evaluateOnce());
   *  intervalMs defaults to SWITCHYARD_ALERT_INTERVAL_MS (15 s; 0 = off) */
  alerts?: { start?: boolean; intervalMs?: number };
  /** retention (default from SWITCHYARD_RETENTION_DAYS / _INTERVAL_MS / SWITCHYARD_ARCHIVE_DIR); null = off */
  retention?: { olderThanMs: number; archiveDir?: string | null; intervalMs: number } | null;
  /** default from SWITCHYARD_ROLE */
  role?: Role;
  /** PostgreSQL queue settings (default from the environment, see queueSettingsFromEnv) */
  queue?: Partial<QueueSettings>;
  /** PostgreSQL workers: effects at once (default SWITCHYARD_WORKER_CONCURRENCY or 32) and the idle poll (ms) */
  worker?: { concurrency?: number; pollMs?: number };
  log?: (message: string) => void;
  /** schedules (tests): start: false never fires on its own (call rt.schedules.tick()); pollMs, graceMs as in SchedulerOptions */
  schedules?: { start?: boolean; pollMs?: number; graceMs?: number };
  /** keep the fleet's per-state counters with each commit (default true; npm run bench:fleet turns them off to compare) */
  fleetCounters?: boolean;
}

/** The built-in workflows' effects on this runtime's ports. */
export function defaultEffects(rt: Omit<Runtime, "engine" | "close">, env: NodeJS.ProcessEnv): Record<string, WorkflowEffects> {
  const searchUrl = env.SWITCHYARD_SEARCH_URL?.trim();
  const web = searchUrl ? new SearxngSearch(searchUrl) : null;
  const knowledge = new KnowledgeSearch(rt.knowledgeReady);
  return builtInEffects({ db: rt.db, model: () => rt.model, documents: rt.knowledgeReady, knowledge, web, engine: rt.getEngine, env }, rt.services);
}

// ---------------------------------------------------------------------------- services
// createRuntime composes the services below, each built by a small function: the database and
// run store, the queue (PostgreSQL), models, background chores, external workers' tasks, the
// engine, cluster mode. Each hands back what it made and, where it holds something open, how
// to stop it; the runtime stops them in one fixed order (shutdown below).

/** The database: on SQLite one connection the run store and Prisma share; on PostgreSQL the run store's pool and Prisma's own. */
interface Storage {
  sqlite: SqliteHandle | null;
  pg: pg.Pool | null;
  store: RunStore;
  db: Db;
  /** PostgreSQL: where it is, and this process's name in commit notices */
  target: ReturnType<typeof pgTarget> | null;
  origin: string | null;
  close(): Promise<void>;
}

async function openStorage(url: string, provider: "sqlite" | "postgres", env: NodeJS.ProcessEnv, durability: Durability | undefined): Promise<Storage> {
  if (provider === "sqlite") {
    const sqlite = openSqlite(sqlitePath(url), durability ?? (env.SWITCHYARD_DURABILITY === "full" ? "full" : "normal"));
    const db = await prismaOnSqlite(sqlite);
    const store = new SqliteRunStore(sqlite, { writer: writerFromEnv(env) });
    const close = async () => {
      await db.$disconnect();
      await store.close();
      sqlite.db.close();
    };
    return { sqlite, pg: null, store, db, target: null, origin: null, close };
  }
  const target = pgTarget(url);
  const origin = randomUUID();
  const max = poolMaxFromEnv(env);
  const store = new PostgresRunStore(target.connectionString, { options: target.options, max, notify: { channel: channelsFor(target.schema).commits, origin } });
  const db = prismaOnPostgres(target, max);
  const close = async () => {
    await db.$disconnect();
    await store.close();
  };
  return { sqlite: null, pg: store.pool, store, db, target, origin, close };
}

/** PostgreSQL's job queue (pg-boss): effects, timers and chores go to workers through it. */
interface Queue {
  boss: PgBoss;
  dispatcher: QueueDispatcher;
  settings: QueueSettings;
  origin: string;
  target: ReturnType<typeof pgTarget>;
  /** whom a queued job wakes (set once the cluster's worker and listener exist) */
  wakes: { worker: JobWorker | null; listener: CommitListener | null };
}

async function startQueueService(storage: Storage, settings: QueueSettings, role: Role, clock: Clock, log: (m: string) => void): Promise<Queue> {
  const target = storage.target!;
  const boss = await startQueue(target.connectionString, settings, { supervise: role !== "web", log });
  const wakes: Queue["wakes"] = { worker: null, listener: null };
  // jobs queued in one turn share one wake-up notice to the workers
  const waking = new Set<string>();
  const queued = (name: string) => {
    wakes.worker?.wake([name]);
    if (waking.size === 0) {
      setImmediate(() => {
        const queues = [...waking];
        waking.clear();
        void wakes.listener?.jobsQueued(queues).catch(() => {});
      });
    }
    waking.add(name);
  };
  return { boss, dispatcher: new QueueDispatcher(boss, settings, queued, clock), settings, origin: storage.origin!, target, wakes };
}

/** The model port (the one configured, or a test's), recording each call's usage. */
function modelService(opts: RuntimeOptions, env: NodeJS.ProcessEnv, db: Db, clock: Clock) {
  const selected = opts.model ? { model: opts.model, config: null } : selectModel(env);
  return { model: new RecordingModel(selected.model, db, clock), llm: selected.config as LlmConfig | null, rawModel: selected.model };
}

/** Work on a clock beside the engine's: webhooks, alerts, retention, schedules (started later, by startChores or by the cluster). */
function choreServices(opts: RuntimeOptions, env: NodeJS.ProcessEnv, s: { db: Db; store: RunStore; clock: Clock; getEngine: () => Engine; defaults: Record<string, Record<string, unknown>>; services: Services; log: (m: string) => void }) {
  const { start: startWebhooks = true, ...webhookOpts } = opts.webhooks ?? {};
  const webhooks = new WebhookDispatcher({ db: s.db, clock: s.clock, ...webhookOpts });
  const alertInterval = opts.alerts?.intervalMs ?? alertIntervalFromEnv(env);
  const alerts = new AlertMonitor({ db: s.db, store: s.store, clock: s.clock, intervalMs: alertInterval || undefined, notify: (a) => webhooks.notifyAlert(a) });
  const keep = opts.retention !== undefined ? opts.retention : retentionFromEnv(env);
  const retention = keep ? new RetentionJob({ store: s.store, clock: s.clock }, keep) : null;
  const schedules = new Scheduler({ db: s.db, clock: s.clock, engine: s.getEngine, defaults: s.defaults, pollMs: opts.schedules?.pollMs, graceMs: opts.schedules?.graceMs, log: s.log });
  // the workflows' service chores, each on its own interval unless the options set one for all (0: never)
  const serviceChores = s.services.chores().map((c) => ({ ...c, everyMs: opts.serviceChoresMs ?? c.chore.everyMs })).filter((c) => c.everyMs > 0);
  return { webhooks, startWebhooks, alerts, alertInterval, keep, retention, schedules, serviceChores };
}
type Chores = ReturnType<typeof choreServices>;

/** One process on its own (no cluster): the chores run here, on their intervals. */
function startLocalChores(c: Chores, opts: RuntimeOptions, role: Role, clustered: boolean): ReturnType<typeof setInterval>[] {
  if (c.startWebhooks && role !== "web") c.webhooks.start();
  if (!clustered && opts.alerts?.start !== false && c.alertInterval > 0) c.alerts.start();
  // the services' chores: run on their intervals here; in cluster mode by one worker per window
  const timers = clustered ? [] : c.serviceChores.map((x) => setInterval(() => void x.chore.run().catch(() => {}), x.everyMs));
  for (const t of timers) t.unref?.();
  if (!clustered) c.retention?.start();
  return timers;
}

/** The effects each workflow runs with: built-ins' (some sent to external workers), user-defined workflows' steps, each in its run's sandbox scope. */
function effectServices(opts: RuntimeOptions, env: NodeJS.ProcessEnv, base: Omit<Runtime, "engine" | "close">) {
  const { tasks, db } = base;
  // built-ins' effects sent to external workers by SWITCHYARD_EXTERNAL_EFFECTS (checked here, at boot)
  const effects = routeEffects(opts.effects?.(base) ?? defaultEffects(base, env), externalRoutesFromEnv(env), () => tasks, builtInOutputs());
  // user-defined workflows' steps (lib/steps): a model call, an HTTP call, code in the sandbox, an external worker's task
  const steps = stepEffects({ external: externalStep(() => tasks), env });
  // each effect runs in its run's scope: code it sends to the sandbox counts against whoever started the run
  configureSandbox({ maxQueuedPerPrincipal: queuePerPrincipalFromEnv(env) });
  const scoped = principalScoped(principalsIn(db));
  // (any user-defined workflow: an evaluation's candidate may add steps its registered versions lack)
  const effectsOf = (id: string) => scoped(effects[id] ?? (isBuiltIn(id) ? { actors: {} } : steps));
  const crash = crashHook(env.SWITCHYARD_TEST_CRASH_EFFECT); // test only: see lib/engine/poison.ts
  return crash ? (id: string) => crash(effectsOf(id)) : effectsOf;
}

/** The engine on the run store, with its effects, the queue (cluster mode) and its telemetry log. */
function engineService(
  opts: RuntimeOptions,
  env: NodeJS.ProcessEnv,
  s: { store: RunStore; clock: Clock; effects: (id: string) => WorkflowEffects; model: () => ModelPort; queue: Queue | null; reviewRoutes: ReturnType<typeof reviewRoutesFromEnv>; log: (m: string) => void },
): Engine {
  return new Engine({
    store: s.store,
    clock: s.clock,
    bus: new RunBus(),
    // an evaluation's runs run its candidate, held in memory only (lib/change/candidates.ts)
    workflows: (id, input, run) => candidateOf(run?.replay?.eval) ?? findWorkflow(id, input),
    effects: s.effects,
    // what effects call as ctx.model (bound to their invocation)
    model: s.model,
    dispatch: s.queue?.dispatcher,
    // a waiting run leaves memory after this long idle (lib/engine/evict.ts)
    evictAfterMs: evictAfterFromEnv(env),
    fleetCounters: opts.fleetCounters,
    reviewRoutes: s.reviewRoutes,
    log: opts.log || env.SWITCHYARD_LOG === "debug" ? (level, m, d) => (level !== "info" || env.SWITCHYARD_LOG === "debug") && s.log(`[engine] ${level} ${m}${d === undefined ? "" : ` ${JSON.stringify(d)}`}`) : undefined,
  });
}

/** Cluster mode (PostgreSQL): the job worker (unless web-only), the commit listener, and the chores each worker proposes. */
async function startCluster(
  opts: RuntimeOptions,
  env: NodeJS.ProcessEnv,
  role: Role,
  queue: Queue,
  s: { engine: Engine; store: RunStore; clock: Clock; chores: Chores; services: Services; log: (m: string) => void },
): Promise<{ cluster: Cluster; proposals: ReturnType<typeof setInterval> | null }> {
  const { boss, dispatcher, settings, origin, target } = queue;
  const { engine, chores, log } = s;
  const worker =
    role === "web"
      ? null
      : new JobWorker({
          boss,
          engine,
          concurrency: opts.worker?.concurrency ?? workerConcurrency(env),
          pollMs: opts.worker?.pollMs ?? 2_000,
          log,
          reaper: { connectionString: target.connectionString, options: target.options, schema: settings.schema },
          chores: async (chore) => {
            if (chore === "alerts") return chores.alerts.evaluateOnce();
            if (chore === "retention") return chores.keep ? pruneRuns({ store: s.store, clock: s.clock }, chores.keep) : null;
            return s.services.runChore(chore) ?? engine.sweep();
          },
        });
  queue.wakes.worker = worker;
  const listener = new CommitListener({
    connectionString: target.connectionString,
    options: target.options,
    channels: channelsFor(target.schema),
    origin,
    engine,
    store: s.store,
    bus: engine.bus,
    onJobs: (queues) => worker?.wake(queues),
    log,
  });
  queue.wakes.listener = listener;
  await listener.start();
  const cluster: Cluster = { origin, boss, dispatcher, listener, worker, settings };
  if (!worker) return { cluster, proposals: null };
  worker.start();
  // cluster-wide chores: each worker proposes them, pg-boss keeps one per window
  const propose = () => {
    void dispatcher.chore("sweep", 60).catch((e) => log(`queue: ${(e as Error).message}`));
    if (chores.alertInterval > 0 && opts.alerts?.start !== false) void dispatcher.chore("alerts", chores.alertInterval / 1000).catch(() => {});
    if (chores.keep) void dispatcher.chore("retention", chores.keep.intervalMs / 1000).catch(() => {});
    for (const c of chores.serviceChores) void dispatcher.chore(c.name, c.everyMs / 1000).catch(() => {});
  };
  propose();
  const proposals = setInterval(propose, 5_000);
  proposals.unref?.();
  return { cluster, proposals };
}

/** Checks before anything is opened: the role fits the database, the review routes parse, migrations are applied. */
async function bootChecks(opts: RuntimeOptions, env: NodeJS.ProcessEnv, url: string, provider: "sqlite" | "postgres", role: Role) {
  if (provider === "sqlite" && role !== "all") throw new Error(`SWITCHYARD_ROLE=${role} needs PostgreSQL (DATABASE_URL=postgresql://…): on SQLite one process does everything`);
  // the built-ins' review routes (SWITCHYARD_REVIEW_ROUTES), checked at boot, before anything is opened
  const reviewRoutes = reviewRoutesFromEnv(env, builtInWorkflows());
  if (opts.migrate) await opts.migrate(url);
  const pending = provider === "sqlite" ? pendingOnSqlite(url) : await pendingOnPostgres(url);
  if (pending.length) throw new Error(`the database at ${maskPassword(url)} lacks migrations ${pending.join(", ")}: run \`npm run db:migrate\` (npm start does it for you)`);
  return reviewRoutes;
}

export async function createRuntime(opts: RuntimeOptions = {}): Promise<Runtime> {
  const env = opts.env ?? process.env;
  const url = opts.url ?? databaseUrl(env);
  const provider = providerOf(url);
  const role = opts.role ?? roleFromEnv(env);
  const log = opts.log ?? ((m: string) => console.error(`[switchyard] ${m}`));
  const reviewRoutes = await bootChecks(opts, env, url, provider, role);
  const clock = opts.clock ?? systemClock;
  const storage = await openStorage(url, provider, env, opts.durability);
  const { sqlite, pg: pgPool, store, db } = storage;
  const queue = storage.target ? await startQueueService(storage, { ...queueSettingsFromEnv(env), ...opts.queue }, role, clock, log) : null;
  await loadUserWorkflows(db);
  const models = modelService(opts, env, db, clock);
  // each built-in workflow's own services (the Context Manager …), created and started once here
  const services = await Services.start(builtInEntries(), { db, clock, dialect: provider, model: () => models.model, env });
  const knowledge = knowledgeStoreFor({ db, model: models.model, dialect: provider }, env);
  const knowledgeReady = seededOnFirstUse(knowledge, opts.seedGuide ?? env.SWITCHYARD_SEED_GUIDE !== "0");
  let engineRef: Engine | null = null;
  const getEngine = () => {
    if (!engineRef) throw new Error("the engine is not built yet");
    return engineRef;
  };
  const defaults = builtInDefaults(env);
  const chores = choreServices(opts, env, { db, store, clock, getEngine, defaults, services, log });
  const { webhooks, alerts, retention, schedules } = chores;
  // an effect waiting for a worker parks (no effect held in memory, so its run can be evicted, and in
  // cluster mode no job slot held); a settled task runs its invocation again, loading the run if evicted
  const resume = (t: { runId: string; key: string }) => getEngine().runEffect(invocationOf(t.runId, t.key));
  const tasks = new TaskQueue({ ports: { sqlite, pg: pgPool }, clock, leaseMs: leaseFromEnv(env), isCurrent: currentIn(store), resume, log });
  const base = {
    tasks,
    webhooks,
    alerts,
    retention,
    accounts: new Accounts(db, clock),
    getEngine,
    url,
    provider,
    role,
    cluster: null as Cluster | null,
    sqlite,
    pg: pgPool,
    db,
    store,
    services,
    knowledge,
    knowledgeReady,
    ...models,
    clock,
    defaults,
    schedules,
  };
  const engine = engineService(opts, env, { store, clock, effects: effectServices(opts, env, base), queue, reviewRoutes, log, model: () => base.model });
  engineRef = engine;
  webhooks.attach(engine.hooks);
  // a run that moved on withdraws the tasks its parked effects left for workers
  engine.bus.subscribe("*", (msg) => msg.type === "run" && tasks.runMoved(msg.run.id), { passive: true });
  const clustered = queue ? await startCluster(opts, env, role, queue, { engine, store, clock, chores, services, log }) : null;
  const cluster = clustered?.cluster ?? null;
  base.cluster = cluster;
  const serviceTimers = startLocalChores(chores, opts, role, !!cluster);
  // an evaluation's candidate runs on a definition held in memory: held again before its runs resume
  if (opts.resume !== false) await holdRunningCandidates(db).catch((e) => log(`evaluations: ${(e as Error).message}`));
  if (opts.resume !== false) await engine.resume();
  if (role !== "web" && opts.schedules?.start !== false) schedules.start();
  let closing: Promise<void> | null = null;
  const runtime: Runtime = {
    ...base,
    cluster,
    engine,
    schedules,
    close() {
      closing ??= shutdown();
      return closing;
    },
  };
  // evaluations a stopped process was running go on (one process does them: SQLite, or a cluster's "all" process)
  if (opts.resume !== false && role === "all") void resumeEvals(runtime).catch((e) => log(`evaluations: ${(e as Error).message}`));
  return runtime;
  async function shutdown() {
    const worker = cluster?.worker ?? null;
    if (clustered?.proposals) clearInterval(clustered.proposals);
    await schedules.stop();
    await worker?.stop();
    await retention?.stop();
    await alerts.stop();
    await webhooks.stop();
    for (const t of serviceTimers) clearInterval(t);
    await engine.stop();
    tasks.close();
    await worker?.settled(); // jobs cut short by the stop are failed, so another worker retries them
    await cluster?.listener.stop();
    await queue?.boss.stop({ graceful: false, wait: true }).catch(() => {});
    await webhooks.idle(); // hook events of the last commits are recorded (pending, sent after a restart)
    await services.idle();
    await storage.close();
    // the spans of the last steps go out before the process stops (traces on: lib/telemetry)
    await flushTelemetry().catch(() => {});
  }
}

function workerConcurrency(env: NodeJS.ProcessEnv): number {
  const v = env.SWITCHYARD_WORKER_CONCURRENCY?.trim();
  if (!v) return 32;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 10_000) throw new Error(`SWITCHYARD_WORKER_CONCURRENCY must be a whole number from 1 to 10000; got "${v}"`);
  return n;
}

/** The URL with its password replaced (for messages). */
function maskPassword(url: string): string {
  return url.replace(/(\/\/[^:/@]+:)[^@]*@/, "$1***@");
}

const KEY = Symbol.for("switchyard.runtime");
type Holder = { [KEY]?: Promise<Runtime> };

/** The process-wide runtime (created on first use from the environment). */
export function getRuntime(): Promise<Runtime> {
  const g = globalThis as Holder;
  if (!g[KEY]) {
    g[KEY] = createRuntime().catch((e) => {
      delete g[KEY];
      serveRequestAccounts(null);
      throw e;
    });
    // the API routes ask these accounts who sent each request (lib/api/http.ts)
    serveRequestAccounts(g[KEY].then((rt) => rt.accounts));
  }
  return g[KEY];
}

/** The knowledge store of the process-wide runtime, seeded with the guide on first use. */
export async function knowledgeStore(): Promise<KnowledgeStore> {
  return (await getRuntime()).knowledgeReady();
}
