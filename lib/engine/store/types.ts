// The run store: rows the engine commits and reads back. One interface, one conformance
// suite (test/store.*.test.ts), one implementation per database.
import type { CrashLedger } from "../poison";

export type RunStatus = "running" | "waiting" | "completed" | "failed" | "aborted";
export const TERMINAL: readonly RunStatus[] = ["completed", "failed", "aborted"];

export interface RunRow {
  id: string;
  workflow: string;
  status: RunStatus;
  /** active leaf state ids */
  state: string[];
  /** persisted XState snapshot without context, plus the engine's `effects` map */
  snapshot: Record<string, unknown>;
  context: unknown;
  input: unknown;
  output: unknown;
  error: unknown;
  /** state id → epoch ms it was entered */
  entered: Record<string, number>;
  version: number;
  seq: number;
  parentId: string | null;
  /** the run this one was forked from, and the seq of the snapshot it started from */
  forkOf: string | null;
  forkSeq: number | null;
  /** the schedule that started it (lib/schedules), else null */
  scheduleId: string | null;
  /** retries taken so far (RETRY events, transitions whose reason is a retry) */
  retries: number;
  /** when the oldest pending review opened (epoch ms); null while none is pending */
  waitingSince: number | null;
  /** a failed run's failure states as "|A|B.C|" (see failureStates in draft.ts); null otherwise */
  failedStates: string | null;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
  /** what the run is called (set when it starts; null for runs started before names were kept) */
  name: string | null;
  /** a replay or evaluation run: the run it replays (left out of lists, counts, alerts, metrics and webhooks) */
  replayOf?: string | null;
  /** how it reuses recorded outputs (a replay, an evaluation, or a fork with reuse: true) */
  replay?: ReplaySpec | null;
}

/** How a run reuses another run's recorded outputs and decisions (lib/change/replay.ts). */
export interface ReplaySpec {
  /** the run whose recorded effect outputs (and review decisions) it reuses */
  of: string;
  /** states whose effects run for real and whose side effects (http, post-commit actions, webhooks) are sent */
  live: string[];
  /** a review at the same state and visit is decided as the source's was ("replay"), or opens for a person ("ask") */
  decisions: "replay" | "ask";
  /** the evaluation the run is a case of */
  eval?: string;
  /** a fork with reuse: true (a run of its own, listed and counted; only recorded outputs are reused) */
  fork?: boolean;
}

/** What one effect invocation was given and returned (table EffectOutcome), written with the step that took the outcome. */
export interface OutcomeRow {
  /** the invocation key runId:child:seq */
  key: string;
  runId: string;
  /** the invoking state's path and the seq of the transition that invoked it */
  state: string;
  seq: number;
  effect: string;
  /** SHA-256 of the input's canonical JSON */
  inputHash: string;
  output: unknown;
  error: { name: string; message: string; category?: string } | null;
  /** "replayed" (taken from the source run), "skipped" (a side effect a replay did not send), null: it ran */
  source: "replayed" | "skipped" | null;
  at: number;
}

export interface TransitionRow {
  runId: string;
  seq: number;
  from: string[];
  to: string[];
  event: string;
  reason: string;
  at: number;
  durationMs: number;
  payload: unknown;
}

export interface TimerRow {
  runId: string;
  id: string;
  dueAt: number;
  event: Record<string, unknown>;
  seq: number;
}

export type ReviewStatus = "pending" | "decided" | "cancelled";

export interface ReviewRow {
  id: string;
  runId: string;
  workflow: string;
  state: string;
  kind: string;
  prompt: string;
  payload: unknown;
  status: ReviewStatus;
  decision: string | null;
  feedback: string | null;
  reviewer: string | null;
  createdAt: number;
  decidedAt: number | null;
  seq: number;
  /** a decision a replay made: the id of the source run's review it repeated */
  replayedFrom?: string | null;
  /** who decided: a person, or the engine (a replay or an evaluation repeating a recorded decision) */
  decidedBy?: DecidedBy | null;
  /** the groups it is routed to (null: anyone) */
  assignedTo?: string[] | null;
  /** when it is due (ms since the epoch; null: no deadline) */
  dueAt?: number | null;
  /** the groups it was assigned to before it was escalated */
  escalatedFrom?: string[] | null;
}

export type DecidedBy = "person" | "engine";

/** A pending review re-routed (its deadline passed: escalated to other groups). */
export interface ReviewRoute {
  id: string;
  assignedTo: string[] | null;
  escalatedFrom: string[] | null;
}

export interface ReviewClose {
  id: string;
  status: "decided" | "cancelled";
  decision: string | null;
  feedback: string | null;
  reviewer: string | null;
  decidedAt: number;
  /** a decision a replay made: the source review it repeated */
  replayedFrom?: string;
  /** a decision's maker: a person (engine.decide) or the engine (a replay); null for a cancelled review */
  decidedBy?: DecidedBy | null;
}

export interface ArtifactWrite {
  name: string;
  content: string;
  /** put replaces the file; append adds to its end (logs) */
  mode: "put" | "append";
}

export interface ArtifactInfo {
  name: string;
  size: number;
  updatedAt: number;
}

/** Everything one step of one run writes. Committed atomically, or not at all. */
export interface CommitItem {
  run: RunRow;
  /** the version the run row must still have; null when the row is new */
  expectVersion: number | null;
  transitions: TransitionRow[];
  timersSet: TimerRow[];
  timersClear: string[];
  reviewsOpen: ReviewRow[];
  /** each must still be pending, or the whole item is a conflict */
  reviewsClose: ReviewClose[];
  artifacts: ArtifactWrite[];
  /** every timer pending after this commit (stored with the commit's snapshot) */
  timers: TimerRow[];
  /** the first transition this commit made itself (a fork's first commit also carries copied history); default transitions[0] */
  snapshotFirst?: number;
  /** post-commit actions to keep in the outbox until they have run */
  outbox?: OutboxRow[];
  /** webhook deliveries for this commit's hook events (pending, due now) */
  deliveries?: DeliveryRow[];
  /** the request's Idempotency-Key, written with the commit; a key already there makes the item a conflict */
  idempotency?: IdempotencyRow;
  /** effect outcomes this commit took (what each invocation was given and returned) */
  outcomes?: OutcomeRow[];
  /** the run's input replaced (a migration moves the version pin, input.definitionVersion) */
  setInput?: unknown;
  /** fleet counter increments (lib/fleet/counters.ts), added in the same transaction */
  fleet?: FleetDelta[];
  /** pending reviews re-routed (an escalation) */
  reviewsRoute?: ReviewRoute[];
}

/** What a keyed request hands the engine: the commit it makes fills in the run and its transitions. */
export type IdempotencyClaim = Omit<IdempotencyRow, "runId" | "fromSeq" | "toSeq">;

/** An Idempotency-Key and the commit its first request made (table IdempotencyKey, lib/api/idempotency.ts). */
export interface IdempotencyRow {
  /** "<userId or -> <METHOD> <path>" */
  scope: string;
  key: string;
  /** hash of the request: a repeat with another body is refused */
  fingerprint: string;
  runId: string;
  /** the status of the first answer */
  status: number;
  /** the transitions the commit wrote (fromSeq > toSeq: none) */
  fromSeq: number;
  toSeq: number;
  createdAt: number;
}

/**
 * A post-commit action in the engine's outbox (table ActionOutbox): written in the transaction of
 * the step that took it, deleted once it has run, run again after a crash (lib/engine/outbox.ts).
 */
export interface OutboxRow {
  /** the action's idempotency key: runId:seq:name (":2", ":3" … for a repeat in the same transition) */
  key: string;
  runId: string;
  /** the transition that took the action */
  seq: number;
  workflow: string;
  /** the action's name (WorkflowEffects.actions) */
  name: string;
  /** what the action is called with */
  payload: { context: unknown; event: unknown };
  attempts: number;
  lastError: string | null;
  /** before this instant only the committing process runs it (its lease); after it, anyone may */
  dueAt: number;
  createdAt: number;
}

/** A webhook delivery due for a commit's hook events, written in the commit (lib/hooks/webhooks.ts sends it). */
export interface DeliveryRow {
  id: string;
  webhookId: string;
  runId: string;
  hook: string;
  /** the JSON body sent */
  body: string;
  createdAt: number;
}

/** The run as it stood after one commit (seq = the commit's last transition). */
export interface SnapshotRow {
  runId: string;
  seq: number;
  /** the commit's first transition: the snapshot answers for seq first..seq */
  first: number;
  snapshot: Record<string, unknown>;
  context: unknown;
  timers: TimerRow[];
  at: number;
}

export type CommitOutcome = "ok" | "conflict";

/** Runs per status, live runs only under running and waiting; `imported`: imported runs recorded as running or waiting (they never move here); `replay`: replay and evaluation runs, whatever their status (counted nowhere else). */
export type StatusCounts = Record<RunStatus, number> & { imported: number; replay: number };

export interface RunQuery {
  status?: RunStatus[];
  workflow?: string;
  /** only runs with a pending review */
  waitingForHuman?: boolean;
  /** created at or after / before (epoch ms) */
  from?: number;
  to?: number;
  /** free text found in the run's input or output (case-insensitive) */
  text?: string;
  /** only runs whose pending review was opened at or before this instant (epoch ms) */
  waitingSince?: number;
  /** unfinished runs that have retried: a RETRY event or a transition whose reason speaks of a retry */
  retrying?: boolean;
  /** failed runs that failed in this state (the error's state, or the state they ended in) */
  failedIn?: string;
  /** runs a schedule started (lib/schedules) */
  scheduleId?: string;
  /** runs whose id starts with this (lower-case hex digits and dashes only) */
  idPrefix?: string;
  /** only these runs (one query for a page that names many runs, like the review queue) */
  ids?: string[];
  /** list replay and evaluation runs too (left out by default) */
  replays?: boolean;
  /** only the replays of this run */
  replayOf?: string;
  /** live runs that wait on any of these (lib/api/waiting.ts): review, timer, task, event (at rest: no effect in flight, no review open), effect */
  waitingFor?: ("review" | "timer" | "task" | "event" | "effect")[];
  /** live runs in this state or a state inside it (a state id, its path) */
  state?: string;
  /** live runs with an external worker's task unclaimed since this instant or before (epoch ms) */
  unclaimedSince?: number;
  limit?: number;
  offset?: number;
}

export interface ReviewQuery {
  status?: ReviewStatus;
  runId?: string;
  /** reviews of any of these runs */
  runIds?: string[];
  /** reviews assigned to any of these groups */
  assigned?: string[];
  /** leaves out pending reviews a person in these groups may not decide (assigned to groups, none of them these) */
  decidableBy?: string[];
  /** reviews due at or before this time (ms since the epoch): overdue at that time */
  dueBy?: number;
  limit?: number;
}

export interface ResumableRun {
  run: RunRow;
  timers: TimerRow[];
  reviews: ReviewRow[];
}

/** One model call a run made (table ModelCall; RecordingModel writes them, lib/llm/recording.ts). */
export interface ModelCallRow {
  id: string;
  /** the effect's journal key (null for an imported run's: it never replays a call) */
  key: string | null;
  runId: string;
  state: string | null;
  purpose: string;
  adapter: string;
  endpoint: string | null;
  model: string | null;
  promptTokens: number;
  completionTokens: number;
  estimated: boolean;
  latencyMs: number;
  attempts: number;
  ok: boolean;
  errorCategory: string | null;
  error: string | null;
  output: string | null;
  createdAt: number;
}

/** An artifact with its content: text, or the bytes a binary one holds (SQLite keeps those as a BLOB). */
export interface ArtifactRow {
  name: string;
  content: string | Buffer;
  size: number;
  updatedAt: number;
}

/** A run with every row it owns, read or written as one (run export and import, lib/api/run-export.ts). */
export interface RunBundle {
  run: RunRow;
  /** by seq */
  transitions: TransitionRow[];
  /** by seq, createdAt, id */
  reviews: ReviewRow[];
  /** the run after each commit; timers as the Snapshot row keeps them (no runId) */
  snapshots: (Omit<SnapshotRow, "runId" | "timers"> & { timers: Omit<TimerRow, "runId">[] })[];
  /** by dueAt, id */
  timers: TimerRow[];
  /** by name */
  artifacts: ArtifactRow[];
  /** by createdAt, id */
  usage: ModelCallRow[];
  /** ids of the runs it started (by createdAt, id); not written by an import */
  children: string[];
}

/**
 * What an import wrote: all of it, or nothing because the run id is taken ("exists"), a row
 * collided with one already there ("constraint"), or a value cannot be stored on this database
 * ("unstorable": `path` names it in the bundle, e.g. artifacts.0.content).
 */
export type ImportOutcome = { ok: true } | { ok: false; reason: "exists" | "constraint" | "unstorable"; message: string; path?: string };

/** Tables whose rows belong to one run (column runId): removed with it. */
export const RUN_OWNED = ["Transition", "Snapshot", "Timer", "Review", "Artifact", "ModelCall", "WebhookDelivery", "RunPrincipal"] as const;

/** Rows one retention pass removed, per table: Run and each of RUN_OWNED. */
export type RemovedRows = Record<"Run" | (typeof RUN_OWNED)[number], number>;

/** A store's whole-run operations: a run with everything it owns read, written or removed as one. */
export interface RunArchive {
  /** the run with every row it owns, read in one consistent snapshot (run export); null: no such run */
  exportRun(id: string): Promise<RunBundle | null>;
  /** a bundle stored as a new run, in one transaction: all of it or nothing (run import; `children` is not written) */
  importRun(bundle: RunBundle): Promise<ImportOutcome>;
  /** retention: finished runs that ended before `before` (epoch ms), oldest first */
  finishedBefore(before: number, limit: number): Promise<string[]>;
  /** retention: those of `ids` still finished, removed with every row they own in one transaction; rows removed per table (Run and each owned table) */
  removeRuns(ids: string[]): Promise<RemovedRows>;
  /** retention: snapshots older than `before` dropped, each run's latest kept; how many went */
  thinSnapshots(before: number): Promise<number>;
}

/** A stored Idempotency-Key with the first answer's body (JSON text; null until it is stored). */
export type StoredIdempotencyRow = IdempotencyRow & { response: string | null };

/** Idempotency-Keys after the commit that wrote them (lib/api/idempotency.ts; a commit writes them, CommitItem.idempotency). */
export interface IdempotencyKeys {
  get(scope: string, key: string): Promise<StoredIdempotencyRow | null>;
  /** the first answer's body, stored once */
  answered(scope: string, key: string, response: string): Promise<void>;
  /** the key forgotten if written at or before `before` (it expired) */
  forget(scope: string, key: string, before: number): Promise<void>;
  /** every key written at or before `before` removed (retention); how many went */
  expire(before: number): Promise<number>;
}

/** The metrics scrape's aggregate rows, one list per family (lib/metrics/prometheus.ts formats them). */
export interface MetricRows {
  /** workflow, status (imported runs recorded as running or waiting: "imported"), n */
  runs: Record<string, unknown>[];
  /** workflow, n */
  transitions: Record<string, unknown>[];
  /** workflow, state, b (bucket index), n, sum_ms: one sample per state a transition left */
  dwell: Record<string, unknown>[];
  /** workflow, b, n, sum_ms: decided reviews' wait */
  reviewWait: Record<string, unknown>[];
  /** workflow, n */
  reviewsPending: Record<string, unknown>[];
  /** workflow ("" outside a run), outcome ("ok" or the error category), n, prompt, completion */
  modelCalls: Record<string, unknown>[];
  /** queue, status (queued, claimed), n, oldest (createdAt, epoch ms) */
  tasks: Record<string, unknown>[];
}

/** A workflow's fleet counter sums and where its live runs are (lib/fleet/fleet.ts). */
export interface FleetRows {
  counts: { kind: string; key: string; bucket: number; n: number }[];
  /** per state: the live runs in it now (leaves and groups: ActiveState), of them `waiting` waiting, the rest running */
  live: { state: string; n: number; waiting: number }[];
  /** per state asked for (`stuckBefore`): the live runs that entered it before that time */
  stuck: { state: string; n: number }[];
}

/** Model calls of one workflow's runs (replays left out) per state (null: outside any state). */
export interface UsageByState {
  state: string | null;
  calls: number;
  promptTokens: number;
  completionTokens: number;
  avgLatencyMs: number;
  errors: number;
}

/** Aggregate reads over the run tables (lib/engine/store/aggregates.ts). */
export interface RunAggregates {
  /** every metric family in one consistent read; histogram bounds in whole ms */
  metrics(bounds: { dwellMs: readonly number[]; reviewWaitMs: readonly number[] }): Promise<MetricRows>;
  /**
   * The fleet counters of a workflow version (null: built-in, counted as version 0) from `hour` on,
   * or the all-time row (`allTime`), and where its live runs (pinned to that version) are, in one
   * read; `stuckBefore` makes, from the counters, the time per state before which a live run that
   * entered it counts as stuck (epoch ms; states left out have none).
   */
  fleet(q: { workflow: string; version: number | null; hour: number; allTime: boolean }, stuckBefore: (counts: FleetRows["counts"]) => Map<string, number>): Promise<FleetRows>;
  usageByState(workflow: string): Promise<UsageByState[]>;
}

export interface RunStore {
  readonly dialect: "sqlite" | "postgres";
  /**
   * How the committer feeds the store: at most `batch` items per commit, at most `depth` commits
   * in flight (a store that applies batches in order on another thread overlaps them with the
   * engine's work). Default: one batch of up to 1000 at a time.
   */
  readonly pipeline?: { batch: number; depth: number };
  commit(items: CommitItem[]): Promise<CommitOutcome[]>;
  getRun(id: string): Promise<RunRow | null>;
  /** the run's version alone (null: no such run); cluster mode checks it before each step */
  runVersion(id: string): Promise<number | null>;
  listRuns(q: RunQuery): Promise<RunRow[]>;
  countRuns(q: Omit<RunQuery, "limit" | "offset">): Promise<number>;
  /** runs per status; imported runs recorded as running or waiting are counted apart, as `imported` (lib/engine/imported.ts) */
  countByStatus(workflow?: string): Promise<StatusCounts>;
  transitions(runId: string, afterSeq?: number, limit?: number): Promise<TransitionRow[]>;
  /** transitions that left `state` in runs of `workflow` (for per-state metrics), newest first; `since`: only after that instant */
  transitionsLeaving(workflow: string, state: string, limit: number, since?: number): Promise<TransitionRow[]>;
  getReview(id: string): Promise<ReviewRow | null>;
  listReviews(q: ReviewQuery): Promise<ReviewRow[]>;
  timers(runId: string): Promise<TimerRow[]>;
  /** the run's recorded effect outcomes, by seq */
  outcomes(runId: string): Promise<OutcomeRow[]>;
  /** the snapshot of the commit that wrote transition `seq` (the first snapshot at or after it) */
  snapshotAt(runId: string, seq: number): Promise<SnapshotRow | null>;
  artifacts(runId: string): Promise<ArtifactInfo[]>;
  artifact(runId: string, name: string): Promise<string | null>;
  resumable(): Promise<ResumableRun[]>;
  /** what a restart loads (lib/engine/evict.ts): unfinished runs with an effect in flight (Run.inFlight > 0), and running ones with no timer or pending review (the STUCK check's), imported ones left out */
  activeRuns(): Promise<ResumableRun[]>;
  /** the earliest due time after `after` (null: any) of a pending timer of an unfinished, not imported run (one indexed read); null: none */
  nextTimer(after: number | null): Promise<number | null>;
  /** pending timers of unfinished, not imported runs due by `by`, earliest first */
  dueTimers(by: number, limit: number): Promise<TimerRow[]>;
  /** outbox rows (oldest first) with fewer than `maxAttempts` attempts; `dueBy`: only those due by then */
  outbox(q: { limit: number; maxAttempts: number; dueBy?: number }): Promise<OutboxRow[]>;
  /** take a row for one attempt: true when its attempts were still `attempts` (and it was due by `now`, if given); it is then due again at `until` */
  claimOutbox(key: string, attempts: number, until: number, now?: number): Promise<boolean>;
  /** rows whose actions have run */
  outboxDone(keys: string[]): Promise<void>;
  /** an attempt failed: `attempts` made so far, the error, due again at `dueAt` */
  outboxFailed(key: string, attempts: number, error: string, dueAt: number): Promise<void>;
  /** the engine evicted the run from memory: drop anything kept per run to write its next step (lib/engine/evict.ts) */
  forget?(runId: string): void;
  /** whole runs: export, import and retention (lib/engine/store/archive.ts) */
  readonly archive: RunArchive;
  /** Idempotency-Keys: read, answered, expired */
  readonly idempotency: IdempotencyKeys;
  /** aggregate reads: metrics, the fleet, model usage */
  readonly aggregates: RunAggregates;
  /** the poison-pill ledger on this database (lib/engine/poison.ts); absent: no crash counting */
  crashLedger?(): CrashLedger;
  close(): Promise<void>;
}

/** What a fleet counter counts (lib/fleet/counters.ts computes the increments, the store adds them). */
export type FleetKind = "enter" | "dwell" | "edge" | "step" | "fail" | "end";

/** One counter row's increment: [workflow, version, hour, kind, key, bucket, n]. */
export type FleetDelta = [string, number, number, FleetKind, string, number, number];
