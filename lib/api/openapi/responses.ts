// The shapes the API answers with, as zod schemas for the API description (requests are described
// by the schemas the routes validate with; answers are built by the views in lib/engine/views.ts,
// lib/api/*.ts and lib/change/*.ts). Objects are open: a field added to an answer is not a break.
// test/openapi.test.ts checks real answers of a running server against these.
import { z } from "zod";
import "zod-openapi";
import { RUN_STATUSES } from "../schemas";

const iso = z.string().meta({ description: "an ISO 8601 date-time (UTC)", example: "2026-11-23T09:30:00.000Z" });
const isoOrNull = iso.nullable();
const any = z.unknown();

export const RunStatus = z.enum(RUN_STATUSES).meta({ id: "RunStatus" });

export const Run = z
  .looseObject({
    id: z.string(),
    workflow: z.string(),
    name: z.string().nullable().meta({ description: "what the run is called everywhere" }),
    status: RunStatus,
    state: z.array(z.string()).meta({ description: "names of the active states, e.g. [\"REVIEW\"]" }),
    stateIds: z.array(z.string()).optional().meta({ description: "full paths of the active states" }),
    context: any.meta({ description: "the machine's context (a user-defined workflow keeps each step's result in context.steps[STAGE].output)" }),
    input: any,
    output: any,
    error: any,
    version: z.number().int(),
    seq: z.number().int().meta({ description: "the number of the last transition" }),
    parentId: z.string().nullable(),
    forkOf: z.string().nullable(),
    forkSeq: z.number().int().nullable(),
    scheduleId: z.string().nullable().meta({ description: "the schedule that started it" }),
    replayOf: z.string().nullable().meta({ description: "a replay or evaluation run: the run it replays" }),
    workflowVersion: z.number().int().nullable().meta({ description: "the version of a user-defined workflow the run is pinned to; null for built-ins" }),
    createdAt: iso,
    updatedAt: iso,
    finishedAt: isoOrNull,
    since: isoOrNull.meta({ description: "when the current state(s) were entered" }),
    reviewId: z.string().nullable().optional().meta({ description: "the pending review the run waits on" }),
    accepted: z.array(z.string()).optional().meta({ description: "event types the run accepts from clients now" }),
    waitingFor: z.array(z.lazy(() => WaitingFor)).optional().meta({ description: "GET /api/runs/{id}: one entry per thing the live run waits on (empty once it ended)" }),
  })
  .meta({ id: "Run", description: "A run: a workflow's machine with its context, at its latest transition." });

const where = { state: z.string().meta({ description: "the state id (its path)" }), stateName: z.string() };
export const WaitingFor = z
  .discriminatedUnion("kind", [
    z.looseObject({ kind: z.literal("review"), ...where, reviewId: z.string(), decisions: z.array(z.string()), approvals: z.looseObject({ so_far: z.number().int(), needed: z.number().int(), by: z.array(z.string()) }), dueAt: isoOrNull }),
    z.looseObject({ kind: z.literal("timer"), ...where, at: iso, to: z.string().nullable().meta({ description: "the state the timer's transition goes to" }) }),
    z.looseObject({ kind: z.literal("task"), ...where, queue: z.string(), claimedBy: z.string().nullable(), attempt: z.number().int(), heartbeatAt: isoOrNull, leaseUntil: isoOrNull }),
    z.looseObject({ kind: z.literal("event"), ...where, accepts: z.array(z.string()).meta({ description: "the events it takes, less review decisions and ABORT" }) }),
    z.looseObject({ kind: z.literal("effect"), ...where, name: z.string(), since: isoOrNull }),
  ])
  .meta({ id: "WaitingFor", description: "What a live run waits on: a review, a timer, an external worker's task, an event (at rest), an effect in flight." });

const count = z.number().int();
export const Fleet = z
  .looseObject({
    workflow: z.string(),
    version: z.number().int().nullable().meta({ description: "a user-defined workflow's version; null for a built-in" }),
    window: z.enum(["1h", "24h", "7d", "all"]),
    generatedAt: iso,
    runs: z.looseObject({ running: count, waiting: count, completed: count, failed: count, aborted: count }),
    states: z.record(
      z.string(),
      z.looseObject({
        now: z.looseObject({ running: count, waiting: count }),
        entered: count,
        dwellMs: z.looseObject({ p50: z.number(), p95: z.number() }).nullable(),
        failedHere: count,
        stuck: count,
      }),
    ),
    edges: z.array(z.looseObject({ from: z.string(), to: z.string(), count })),
  })
  .meta({ id: "Fleet", description: "Where a workflow's runs are now and what they did in the window, per state (keys: state ids)." });

export const BulkResult = z.looseObject({
  results: z.array(z.looseObject({ id: z.string(), ok: z.boolean(), runId: z.string().optional().meta({ description: "the new run of a retry" }), error: z.string().optional() })),
});


export const Transition = z
  .looseObject({
    seq: z.number().int(),
    from: z.string(),
    to: z.string(),
    event: z.string(),
    reason: z.string(),
    at: iso,
    durationMs: z.number(),
    payload: any.optional().meta({ description: "the event's payload (with `payload=1`)" }),
  })
  .meta({ id: "Transition" });

export const RunSummary = Run.omit({ context: true }).meta({ id: "RunSummary", description: "A run as lists show it: without its context." });

export const RunList = z
  .looseObject({
    runs: z.array(RunSummary),
    total: z.number().int(),
    counts: z.record(z.string(), z.number()).meta({ description: "runs by status (replays apart, as `replay`)" }),
  })
  .meta({ id: "RunList" });

/** the answer of a step: the run after it, and the transitions it made */
export const RunStep = z.looseObject({ run: Run, transitions: z.array(Transition) }).meta({ id: "RunStep" });

export const ReviewRecord = z
  .looseObject({
    id: z.string(),
    runId: z.string(),
    workflow: z.string(),
    state: z.string().meta({ description: "the state that asked" }),
    kind: z.string(),
    prompt: z.string(),
    payload: any.meta({ description: "what the reviewer is shown" }),
    status: z.enum(["pending", "decided", "cancelled"]),
    decision: z.string().nullable(),
    feedback: z.string().nullable(),
    reviewer: z.string().nullable(),
    createdAt: iso,
    decidedAt: isoOrNull,
    decidedBy: z.enum(["person", "engine"]).nullable().meta({ description: "who decided: a person, or the engine (a replay or an evaluation); null while pending or cancelled" }),
    assignedTo: z.array(z.string()).nullable().meta({ description: "the groups it is routed to (null: anyone)" }),
    dueAt: isoOrNull.meta({ description: "when it is due (null: no deadline)" }),
    escalatedFrom: z.array(z.string()).nullable().meta({ description: "the groups it was assigned to before its deadline passed (null: not escalated)" }),
  })
  .meta({ id: "ReviewRecord" });

export const Review = ReviewRecord.extend({
  decisions: z.array(z.string()).meta({ description: "the decisions it allows" }),
  decisionSchemas: z.record(z.string(), z.looseObject({})).meta({ description: "decision → JSON Schema of the body that decision is posted with" }),
  approvals: z.object({ so_far: z.number().int(), needed: z.number().int(), by: z.array(z.string()) }),
  ageMs: z.number().meta({ description: "how long it has waited (until decided)" }),
  overdue: z.boolean().meta({ description: "pending and past dueAt" }),
}).meta({ id: "Review", description: "A review with the decisions it allows and each one's body schema: a client can render any review." });

export const DecisionResult = z.looseObject({ review: ReviewRecord, run: Run, transitions: z.array(Transition) }).meta({ id: "DecisionResult" });

export const ForkResult = z.looseObject({ run: Run, fromSeq: z.number().int(), transitions: z.number().int().or(z.array(any)) });

export const Snapshot = z.looseObject({
  runId: z.string(),
  seq: z.number().int(),
  requested: z.number().int(),
  at: iso,
  value: any,
  context: any,
  forkEditable: z.array(z.string()).meta({ description: "the context keys a fork from here may replace" }),
  timers: z.array(z.object({ id: z.string(), dueAt: iso, event: any })),
});

export const Artifacts = z.array(z.object({ name: z.string(), size: z.number().int(), updatedAt: iso }));

export const Task = z
  .looseObject({
    id: z.string(),
    runId: z.string(),
    stage: z.string().meta({ description: "the stage whose external step this is" }),
    input: any,
    attempt: z.number().int().meta({ description: "1 on the first offer, 2 after a lease expired or a retryable failure, …" }),
    leaseMs: z.number().int().meta({ description: "how long the claim holds without a heartbeat" }),
    leaseToken: z.string().meta({ description: "this claim's lease: heartbeat, complete and fail send it" }),
    traceparent: z
      .string()
      .nullable()
      .meta({ description: "the W3C trace context of the step's span when the server exports traces (OTEL_EXPORTER_OTLP_ENDPOINT), else null; send it back as the `traceparent` header of heartbeat, complete and fail" }),
  })
  .meta({ id: "Task" });

export const Heartbeat = z.looseObject({ id: z.string(), leaseUntil: isoOrNull, attempt: z.number().int(), leaseMs: z.number().int() });
export const Completed = z.looseObject({ id: z.string(), status: z.literal("done"), output: any });
export const Failed = z.looseObject({ id: z.string(), status: z.enum(["queued", "failed"]), attempt: z.number().int(), retryAt: iso.optional() });

export const WorkflowList = z.looseObject({
  workflows: z.array(z.looseObject({ id: z.string(), title: z.string(), seed: z.string().nullable().optional(), description: z.string().nullable().optional(), disabled: z.boolean() })),
});

const Issue = z.looseObject({ message: z.string(), line: z.number().int().optional() });
export const WorkflowCheck = z
  .looseObject({ dryRun: z.literal(true), valid: z.boolean(), id: z.string().nullable(), errors: z.array(Issue), warnings: z.array(Issue) })
  .meta({ id: "WorkflowCheck", description: "A definition checked as a save would check it (`?dryRun=true`): nothing saved." });

export const WorkflowDescription = z
  .looseObject({
    id: z.string(),
    title: z.string(),
    userDefined: z.boolean(),
    version: z.number().int().nullable(),
    initial: z.array(z.string()),
    states: z.array(z.looseObject({ id: z.string(), name: z.string(), type: z.string(), parent: z.string().nullable(), human: z.boolean() })),
    transitions: z.array(z.looseObject({ source: z.string(), target: z.string().nullable(), event: z.string().nullable() })),
    events: z.array(z.string()),
  })
  .meta({ id: "WorkflowDescription", description: "A workflow's states and transitions, derived from its machine." });

export const Schedule = z
  .looseObject({
    id: z.string(),
    name: z.string(),
    workflow: z.string(),
    version: z.number().int().nullable(),
    cron: z.string(),
    timezone: z.string(),
    input: any,
    runName: z.string().nullable(),
    overlap: z.enum(["skip", "allow", "queue-one"]),
    catchup: z.enum(["none", "latest"]),
    paused: z.boolean(),
    nextFireAt: isoOrNull,
    nextFires: z.array(iso).meta({ description: "the next fire times" }),
    lastFireAt: isoOrNull,
    lastRunId: z.string().nullable(),
    createdAt: iso,
    updatedAt: iso,
  })
  .meta({ id: "Schedule" });

export const ScheduleOne = z.looseObject({ schedule: Schedule });
export const ScheduleDetail = z.looseObject({ schedule: Schedule, runs: z.array(z.looseObject({ id: z.string(), status: RunStatus, createdAt: iso, finishedAt: isoOrNull })) });

export const Webhook = z
  .looseObject({ id: z.string(), workflow: z.string(), url: z.string(), events: z.array(z.string()), secretHint: z.string().meta({ description: "the secret's last characters; the secret itself is never returned" }) })
  .meta({ id: "Webhook" });
export const Delivery = z.looseObject({ id: z.string(), status: z.string(), attempts: z.number().int() }).meta({ id: "WebhookDelivery" });

export const AlertRule = z.looseObject({ id: z.string(), workflow: z.string(), state: z.string(), metric: z.enum(["dwell", "failure_rate", "waiting"]), threshold: z.number(), windowMs: z.number(), enabled: z.boolean() }).meta({ id: "AlertRule" });
export const Alert = z.looseObject({ id: z.string(), ruleId: z.string(), source: z.string(), workflow: z.string(), state: z.string(), metric: z.string(), value: z.number(), threshold: z.number(), message: z.string(), status: z.enum(["open", "resolved"]), openedAt: iso, resolvedAt: isoOrNull }).meta({ id: "Alert" });

export const Health = z.looseObject({
  status: z.literal("ok"),
  database: z.looseObject({ provider: z.string(), latencyMs: z.number() }).optional(),
  engine: z.looseObject({}).optional(),
  cluster: z.looseObject({}).nullable().optional(),
  runs: z.record(z.string(), z.number()).optional(),
  contextManager: z.looseObject({}).optional(),
  model: z.string().optional(),
});

export const Me = z.object({ accounts: z.boolean(), user: z.object({ name: z.string(), role: z.string(), via: z.string() }).nullable() });
export const SignedIn = z.object({ name: z.string(), role: z.string() });

export const Compare = z.looseObject({ a: z.looseObject({ id: z.string() }), b: z.looseObject({ id: z.string() }), steps: z.array(z.looseObject({})), firstDivergence: z.looseObject({}).nullable(), totals: z.looseObject({}) });
export const EvalReport = z.looseObject({ id: z.string(), status: z.enum(["running", "done"]), workflow: z.string() }).meta({ id: "EvalReport" });
export const MigrateResult = z.looseObject({ dryRun: z.boolean(), results: z.array(z.looseObject({ runId: z.string(), from: z.number().nullable(), to: z.number(), ok: z.boolean(), reason: z.string().optional() })) });
export const VersionDiff = z.looseObject({ workflow: z.string(), a: z.number().int(), b: z.number().int(), states: z.looseObject({}), steps: z.looseObject({}) });
export const Usage = z.looseObject({ total: z.looseObject({ calls: z.number().int(), promptTokens: z.number(), completionTokens: z.number(), latencyMs: z.number() }), byState: z.array(z.looseObject({})), calls: z.array(z.looseObject({})) });
export const ImportResult = z.looseObject({ id: z.string(), originalId: z.string(), transitions: z.number().int(), reviews: z.number().int(), timers: z.number().int(), artifacts: z.number().int(), usage: z.number().int() });

export const KnowledgeList = z.looseObject({ documents: z.array(z.looseObject({ id: z.string(), title: z.string() })), total: z.number().int() });
export const KnowledgeHits = z.looseObject({ query: z.string(), method: z.string(), hits: z.array(z.looseObject({})), tookMs: z.number() });
export const KnowledgeDocument = z.looseObject({ id: z.string(), title: z.string(), chunks: z.array(z.looseObject({})) });
export const KnowledgeImported = z.looseObject({ document: z.looseObject({ id: z.string() }), chunks: z.number().int(), duplicate: z.boolean() });
export const KnowledgeUploaded = z.looseObject({ results: z.array(z.looseObject({ file: z.string(), ok: z.boolean() })), imported: z.number().int(), failed: z.number().int() });

/** free-form JSON (an object whose fields the operation describes) */
export const Json = z.looseObject({});

const StateStats = z.object({
  decisions: z.record(z.string(), z.number().int()).meta({ description: "decisions by kind (every decision the state offers, 0 when none)" }),
  rates: z.record(z.string(), z.number()).meta({ description: "each kind's share of the decisions (0..1)" }),
  total: z.number().int(),
  timeToDecisionMs: z.object({ p50: z.number().nullable(), p95: z.number().nullable() }),
  reviewers: z.record(z.string(), z.number().int()).meta({ description: "decisions per reviewer" }),
  agreement: z.number().nullable().meta({ description: "quorum reviews: share of finished rounds that reached the quorum with no edit and no reject" }),
  rounds: z.number().int().optional().meta({ description: "quorum reviews: the finished rounds `agreement` rests on" }),
});

export const ReviewStats = z
  .object({ workflow: z.string(), window: z.enum(["1h", "24h", "7d", "all"]), since: isoOrNull, states: z.record(z.string(), StateStats) })
  .meta({ id: "ReviewStats", description: "People's decisions on a workflow's review states in a window (replays' and evaluations' decisions are the engine's and left out)." });
