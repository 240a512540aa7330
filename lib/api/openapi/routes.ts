// The API's operations, one entry per route file's method (app/api/**/route.ts): the path as the
// route is written, the zod schemas that route validates its path, query and body with (the same
// objects: nothing is copied) and what it answers. document.ts turns this list into the OpenAPI
// document at GET /api/openapi.json; test/openapi.test.ts fails when a route file or one of its
// methods is missing here, or when an entry names a route that does not exist.
//
// Adding a route: add its entry to the group it belongs to (or a new group in OPERATIONS), with
// the schemas the route parses. Errors every operation may answer (400, 401/403, 422, 413/415 for
// a body, 503) are added by document.ts; list the others (404, 409, …) with what they mean. A
// workflow's own endpoint is not listed here: its entry declares it with its schemas and
// description (lib/machines/workflow-api.ts), and allOperations() adds it.
import { z } from "zod";
import { AlertListQuery, CreateRuleBody, RuleIdParam, RuleListQuery } from "../alerts";
import { ImportJsonBody, KnowledgeIdParam, KnowledgeQuery, MAX_UPLOAD_BYTES, MAX_UPLOAD_FILES } from "../knowledge";
import { CreateScheduleBody, ScheduleIdParam, UpdateScheduleBody } from "../schedules";
import {
  AbortBody,
  ArtifactQuery,
  ARTIFACT_SEGMENT,
  CompareParams,
  DecisionBody,
  EventBody,
  ForkBody,
  LoginBody,
  NoQuery,
  ReviewListQuery,
  RunExportQuery,
  RunIdParam,
  RunImportQuery,
  RunListQuery,
  SnapshotQuery,
  StartRunBody,
  TransitionQuery,
} from "../schemas";
import { ClaimBody, CompleteBody, FailBody, HeartbeatBody, TaskIdParam } from "../tasks";
import { CreateWebhookBody, DeliveryIdParam, DeliveryListQuery, WebhookIdParam, WebhookListQuery } from "../webhooks";
import { CreateWorkflowBody, CreateWorkflowQuery, DeleteWorkflowQuery, ExportWorkflowQuery, PatchWorkflowBody, WorkflowIdParam } from "../workflows";
import { EvalBody, EvalIdParam, EvalListQuery } from "../../change/evals";
import { MigrateBody, MigrateParams, VersionDiffParams } from "../../change/migrate";
import { ReplayBody } from "../../change/replay";
import { FleetQuery } from "../../fleet/fleet";
import { BulkBody } from "../bulk";
import { StatsQuery } from "../../reviews/stats";
import { builtInApi } from "../../machines/registry";
import type { Role, WORKER } from "../../auth/roles";
import { RunExportDoc } from "../run-export";
import * as R from "./responses";
import { empty, LocationHeader, media, ok, ReplayedHeader, type ErrorStatus, type ResponseSpec } from "./shared";

export type Method = "get" | "post" | "put" | "patch" | "delete";

export interface ApiOperation {
  method: Method;
  /** as the route is written: `/api/runs/{id}` for app/api/runs/[id]/route.ts */
  path: string;
  /** a stable name for generated clients (each is unique) */
  operationId: string;
  /** the group it is listed under in the reference */
  tag: string;
  summary: string;
  description?: string;
  /** path parameters (the schema the route parses its params with) */
  params?: z.ZodObject;
  query?: z.core.$ZodType;
  /** a JSON body */
  body?: z.core.$ZodType;
  /** the body may be left out (an empty body is `{}`) */
  bodyOptional?: true;
  /** other media types the body may have, besides JSON */
  otherBodies?: Record<string, { schema: Record<string, unknown> }>;
  /** takes an Idempotency-Key header */
  idempotent?: true;
  responses: Record<number, ResponseSpec>;
  /** error statuses besides the ones every operation may answer, and when */
  errors?: Partial<Record<ErrorStatus, string>>;
  /** the role it needs with accounts on (null: anyone), when not the table's (lib/auth/roles.ts): a workflow's endpoint may say */
  role?: Role | typeof WORKER | null;
}

/** An operation as its group lists it: under "METHOD /path", its tag the group's unless it names another. */
type Entry = Omit<ApiOperation, "method" | "path" | "tag"> & { tag?: string };

/** A group of operations listed under one tag, in the order written. */
function group(tag: string, entries: Record<`${Method} /api/${string}`, Entry>): ApiOperation[] {
  return Object.entries(entries).map(([route, entry]) => {
    const [method, path] = route.split(" ") as [Method, string];
    // (descriptors, not values: an entry may read a field when the document is built, a getter read late)
    return Object.defineProperties({ method, path, tag }, Object.getOwnPropertyDescriptors(entry)) as ApiOperation;
  });
}

const runErrors = { 404: "unknown run" };
const events = "Server-Sent Events (`text/event-stream`): `hello`, `run`, `review`, `progress`, `hook`";

const runs = group("Runs", {
  "post /api/runs": {
    operationId: "startRun",
    summary: "Start a run",
    description: "Starts a run of a workflow with its input. With an Idempotency-Key, a repeat answers with the run the first request started.",
    body: StartRunBody,
    idempotent: true,
    responses: { 201: ok(R.Run, "the new run (a repeat: the run the first request started)", LocationHeader.extend(ReplayedHeader.shape)) },
    errors: { 409: "the workflow is disabled (`workflow_disabled`) or deleted (`workflow_deleted`)", 422: "unknown workflow, or a declared input missing or of the wrong type" },
  },
  "get /api/runs": {
    operationId: "listRuns",
    summary: "List and search runs",
    description:
      "`q` searches inputs and outputs; `from` / `to` are dates (YYYY-MM-DD or ISO; `to` exclusive); `waitingLongerThan` is the minutes a review has waited; `retrying=true` lists unfinished runs that retried; `failedIn` the state a failed run failed in; `scheduleId` the runs a schedule started. Replay and evaluation runs are listed only with `replays=1` (`replayOf=` lists one run's replays) and counted apart as `counts.replay`.",
    query: RunListQuery,
    responses: { 200: ok(R.RunList, "a page of runs, newest first, with the total and counts by status") },
  },
  "get /api/runs/{id}": {
    operationId: "getRun",
    summary: "Get a run",
    description: "`name` is what the run is called everywhere; `accepted` the events its current state takes; `replayOf` the run a replay replays; `workflowVersion` the pinned version of a user-defined workflow (null for built-ins).",
    params: RunIdParam,
    responses: { 200: ok(R.Run, "the run, with the events its current state accepts") },
    errors: runErrors,
  },
  "post /api/runs/{id}/events": {
    operationId: "sendEvent",
    summary: "Send an event to a run",
    description: "`{ type, … }`: the workflow's fields for that event. With an Idempotency-Key, a repeat answers as the first request did.",
    params: RunIdParam,
    body: EventBody,
    idempotent: true,
    responses: { 200: ok(R.RunStep, "the run after the event and the transitions it made", ReplayedHeader) },
    errors: { ...runErrors, 409: "the current state does not accept this event, or the run has finished or is imported" },
  },
  "post /api/runs/{id}/abort": {
    operationId: "abortRun",
    summary: "Abort a run",
    params: RunIdParam,
    body: AbortBody,
    bodyOptional: true,
    responses: { 200: ok(R.RunStep, "the aborted run") },
    errors: { ...runErrors, 409: "the run has already finished" },
  },
  "post /api/runs/{id}/fork": {
    operationId: "forkRun",
    summary: "Fork a run from a transition",
    description:
      "A new run (`forkOf`, `forkSeq`) from the snapshot of the commit that wrote transition `seq`; `context` replaces top-level keys, only those that came from the run's input (a user-defined workflow's `task` and `input`; a built-in's declared keys, `forkEditable` in `GET /api/runs/{id}/snapshots`), each keeping the kind of value it held; a fork starting in a review starts with no approvals; `reuse: true` reuses the outputs the source recorded for the same state, visit and input.",
    params: RunIdParam,
    body: ForkBody,
    responses: { 201: ok(R.ForkResult, "the new run") },
    errors: { ...runErrors, 409: "the workflow is disabled or deleted", 422: "a seq outside the run or at its end, a context key the engine or a step keeps (named), or an edit that changes a member's kind" },
  },
  "post /api/runs/{id}/replay": {
    operationId: "replayRun",
    summary: "Replay a run without side effects",
    description:
      "A new run (`replayOf`) of the version given (default the latest) with the source's input: recorded outputs are reused where state, visit and input are the same; http steps, external tasks, post-commit actions and webhooks are never sent unless `live` names the state; reviews are decided as the source's reviewers did (`decisions: \"ask\"`: real reviews). The source never changes.",
    params: RunIdParam,
    body: ReplayBody,
    bodyOptional: true,
    responses: { 201: ok(z.looseObject({ run: R.Run }), "the replay") },
    errors: { 404: "unknown run or version", 422: "unknown live state" },
  },
  "get /api/runs/{id}/compare/{other}": {
    operationId: "compareRuns",
    summary: "Compare two runs of one workflow",
    description: "Two runs aligned on the statechart path: steps, the first divergence and totals.",
    params: CompareParams,
    responses: { 200: ok(R.Compare, "the comparison") },
    errors: { 404: "unknown run", 422: "runs of two workflows" },
  },
  "get /api/runs/{id}/transitions": {
    operationId: "listTransitions",
    summary: "A run's transitions",
    params: RunIdParam,
    query: TransitionQuery,
    responses: { 200: ok(z.array(R.Transition), "its transitions after `after`, oldest first") },
    errors: runErrors,
  },
  "get /api/runs/{id}/snapshots": {
    operationId: "getSnapshot",
    summary: "A run as it stood after a transition",
    params: RunIdParam,
    query: SnapshotQuery,
    responses: { 200: ok(R.Snapshot, "the state value, context and timers after the commit that wrote transition `seq`") },
    errors: { 404: "unknown run or seq" },
  },
  "get /api/runs/{id}/stream": {
    operationId: "streamRun",
    summary: "Follow a run",
    params: RunIdParam,
    responses: { 200: media("text/event-stream", `${events}: the run's changes until the client closes`) },
    errors: runErrors,
  },
  "get /api/runs/{id}/usage": {
    operationId: "getRunUsage",
    summary: "A run's model calls",
    description: "Tokens, latency and endpoint of each model call, totals and per state.",
    params: RunIdParam,
    responses: { 200: ok(R.Usage, "its model usage") },
    errors: runErrors,
  },
  "get /api/runs/{id}/artifacts": {
    operationId: "listArtifacts",
    summary: "The files a run keeps",
    params: RunIdParam,
    responses: { 200: ok(R.Artifacts, "its files") },
    errors: runErrors,
  },
  "get /api/runs/{id}/artifacts/{path}": {
    operationId: "getArtifact",
    summary: "One file of a run",
    description:
      "`path` is the file's name and may span several segments (`logs/orchestrator.log`); its slashes may also be sent encoded (`logs%2Forchestrator.log`). At most 5 names, each of letters, digits, `.`, `_` and `-` (not `.` or `..`). `?download=1` saves it as a file.",
    params: z.object({
      id: RunIdParam.shape.id,
      path: z
        .string()
        .regex(new RegExp(`^${ARTIFACT_SEGMENT.source.slice(1, -1)}(/${ARTIFACT_SEGMENT.source.slice(1, -1)}){0,4}$`))
        .meta({ description: "the file's name: one or more segments joined by `/` (or `%2F`)", example: "logs/orchestrator.log" }),
    }),
    query: ArtifactQuery,
    responses: { 200: media("text/plain", "the file (text/markdown, text/plain or application/json by its extension)") },
    errors: { 404: "unknown run or file", 422: "a name that is not a file name (`..`, more than 5 segments)" },
  },
  "get /api/runs/{id}/export": {
    operationId: "exportRun",
    summary: "Export a run as one JSON document",
    description: "Format `switchyard-run`, version 1 (binary artifacts base64); `?download=1` saves it as `run-<id>.json`.",
    params: RunIdParam,
    query: RunExportQuery,
    // the document as written (the schema's input side, as POST /api/runs/import takes it)
    responses: { 200: media("application/json", "the export", { $ref: "#/components/schemas/RunExport" }) },
    errors: runErrors,
  },
  "post /api/runs/import": {
    operationId: "importRun",
    summary: "Import a run export",
    description:
      "An export (up to 50 MB) becomes a read-only run `imported-<original id>` (`?as=new`: `imported-<uuid>`) that is never resumed; its events, abort and decisions answer 409. It keeps its recorded status and history, but its pending reviews are not in the review queue, and recorded as running or waiting it is counted as `imported` (run counts, /api/health, the `switchyard_runs` gauge), never as running.",
    query: RunImportQuery,
    body: RunExportDoc,
    responses: { 201: ok(R.ImportResult, "what was imported", LocationHeader) },
    errors: { 400: "it names a workflow this instance does not have", 409: "imported before", 413: "larger than 50 MB", 422: "not a valid export" },
  },
  "post /api/runs/bulk": {
    operationId: "bulkRuns",
    summary: "Abort or retry many runs",
    description:
      "By `ids` or by `filter` (GET /api/runs's query as an object), one result per run, each taken as one by one: abort refuses a run that has ended; retry forks a failed run at its failed step with the same input (`runId`: the new run). More than 1,000 matching runs: 422 `{ error, code: \"too_many\", total }`.",
    body: BulkBody,
    responses: { 200: ok(R.BulkResult, "one result per run") },
  },
  "get /api/stream": {
    operationId: "streamAll",
    summary: "Follow every run",
    responses: { 200: media("text/event-stream", `${events}: every run's changes (summaries)`) },
  },
});

const reviews = group("Reviews", {
  "get /api/reviews": {
    operationId: "listReviews",
    summary: "List reviews",
    description: "`assigned=me|<group>` keeps reviews routed to a group (`me`: your groups, accounts on); `overdue=true` pending ones past their deadline. With accounts on, pending reviews assigned to groups you are not in are left out (admins see all).",
    query: ReviewListQuery,
    responses: { 200: ok(z.array(R.Review), "reviews, oldest first") },
  },
  "get /api/reviews/{id}": {
    operationId: "getReview",
    summary: "Get a review",
    description: "Its prompt and payload, the decisions it allows, each decision's body as JSON Schema, and approvals so far and needed.",
    params: RunIdParam,
    responses: { 200: ok(R.Review, "the review") },
    errors: { 404: "unknown review" },
  },
  "post /api/reviews/{id}/decision": {
    operationId: "decideReview",
    summary: "Decide a review",
    description: "`data` carries decision-specific fields, e.g. an edited plan. With an Idempotency-Key, a repeat answers as the first request did.",
    params: RunIdParam,
    body: DecisionBody,
    idempotent: true,
    responses: { 200: ok(R.DecisionResult, "the decided review, the run after it and its transitions", ReplayedHeader) },
    errors: { 403: "accounts on: the review is assigned to groups the caller is not in (or the caller's role is not enough)", 404: "unknown review", 409: "already decided, or stale, or the same person approving a quorum twice", 422: "a decision the review does not allow, a malformed body, no `reviewer` on a quorum review (accounts off), or an edit not shaped like the value it replaces (the path named)" },
  },
  "get /api/workflows/{id}/reviews/stats": {
    operationId: "reviewStats",
    summary: "Decision analytics of a workflow's review states",
    description: "People's decisions per review state in the window (default 24h): by kind, rates, time to decision (p50, p95), per reviewer, and for quorum reviews the share of rounds that reached the quorum with no edit and no reject.",
    params: WorkflowIdParam,
    query: StatsQuery,
    responses: { 200: ok(R.ReviewStats, "the statistics") },
    errors: { 404: "unknown workflow" },
  },
});

const taskErrors = { 404: "unknown task", 409: "`run_moved_on` (the run left the stage), `not_claimed`, `lease_lost` (a wrong or stale lease token), checked in that order" };

const tasks = group("Tasks", {
  "post /api/tasks/claim": {
    operationId: "claimTask",
    summary: "Claim a task (external workers)",
    description: "Long-polls up to `waitMs` (at most 30 s). Each task goes to exactly one claimant. A worker token bound to queues may claim from those only.",
    body: ClaimBody,
    responses: { 200: ok(R.Task, "a task, leased to this worker"), 204: empty("no task came within waitMs") },
    errors: { 403: "a worker token bound to other queues (`queue_not_allowed`), or the caller's role is not enough" },
  },
  "post /api/tasks/{id}/heartbeat": {
    operationId: "heartbeatTask",
    summary: "Extend a task's lease",
    params: TaskIdParam,
    body: HeartbeatBody,
    bodyOptional: true,
    responses: { 200: ok(R.Heartbeat, "the lease now runs `leaseMs` from now") },
    errors: taskErrors,
  },
  "post /api/tasks/{id}/complete": {
    operationId: "completeTask",
    summary: "Complete a task",
    description: "Again with the same lease token: the same answer, nothing changes. The output is credited to the caller.",
    params: TaskIdParam,
    body: CompleteBody,
    responses: { 200: ok(R.Completed, "done") },
    errors: taskErrors,
  },
  "post /api/tasks/{id}/fail": {
    operationId: "failTask",
    summary: "Fail a task",
    description: "`queued`: offered again at `retryAt` (retryable, attempts left); `failed`: the step takes its `on_error` route.",
    params: TaskIdParam,
    body: FailBody,
    responses: { 200: ok(R.Failed, "what happens next") },
    errors: taskErrors,
  },
});

const workflows = group("Workflows", {
  "get /api/workflows": {
    operationId: "listWorkflows",
    summary: "List workflows",
    description: "Deleted workflows are left out.",
    responses: { 200: ok(R.WorkflowList, "the workflows") },
  },
  "post /api/workflows": {
    operationId: "createWorkflow",
    summary: "Define a workflow",
    description:
      "From Mermaid, JSON or YAML (plus `id` for a Mermaid diagram without a title or `switchyard: { id }`). 201 with its description; 200 with `created: false` when unchanged. `?dryRun=true`: 200 with the checks' errors and warnings (and their lines), nothing saved (`switchyard workflows validate`).",
    query: CreateWorkflowQuery,
    body: CreateWorkflowBody,
    responses: { 201: ok(R.WorkflowDescription, "saved as a new version"), 200: ok(z.union([R.WorkflowDescription, R.WorkflowCheck]), "unchanged (`created: false`), or with `?dryRun=true` the check") },
    errors: { 409: "a built-in or deleted workflow's id", 422: "an invalid definition: `details.issues` with line numbers" },
  },
  "get /api/workflows/{id}": {
    operationId: "getWorkflow",
    summary: "Describe a workflow",
    params: WorkflowIdParam,
    responses: { 200: ok(R.WorkflowDescription, "its states and transitions, derived from the machine") },
    errors: { 404: "unknown workflow, or deleted (`workflow_deleted`)" },
  },
  "patch /api/workflows/{id}": {
    operationId: "patchWorkflow",
    summary: "Disable or enable a workflow",
    description: "A disabled workflow starts no runs or forks (409 `workflow_disabled`) and leaves the New-run form.",
    params: WorkflowIdParam,
    body: PatchWorkflowBody,
    responses: { 200: ok(z.looseObject({ id: z.string(), disabled: z.boolean() }), "its switches now") },
    errors: { 404: "unknown workflow" },
  },
  "delete /api/workflows/{id}": {
    operationId: "deleteWorkflow",
    summary: "Delete a user-defined workflow",
    description: "409 while it has running or waiting runs; `force=true` aborts them first. The id stays as a tombstone (its versions stay for old runs and exports).",
    params: WorkflowIdParam,
    query: DeleteWorkflowQuery,
    responses: { 200: ok(z.looseObject({ id: z.string(), deleted: z.literal(true), deletedAt: z.string(), aborted: z.array(z.string()) }), "deleted") },
    errors: { 404: "unknown workflow", 409: "a built-in, or open runs without force" },
  },
  "get /api/workflows/{id}/export": {
    operationId: "exportWorkflow",
    summary: "Export a workflow",
    description: "Any workflow, built-in or user-defined, as Mermaid `stateDiagram-v2` or as a JSON StateConfig (`download=1` to save).",
    params: WorkflowIdParam,
    query: ExportWorkflowQuery,
    responses: { 200: { description: "the workflow", content: { "application/json": { schema: R.Json }, "text/plain": { schema: { type: "string", description: "Mermaid" } } } } },
    errors: { 404: "unknown workflow" },
  },
  "post /api/workflows/{id}/migrate": {
    operationId: "migrateRuns",
    summary: "Move waiting runs to another version",
    description: "Runs at rest move by one transition `migrated vA → vB by <who>`; states map by name unless `map` says otherwise; runs that cannot move say why.",
    params: MigrateParams,
    body: MigrateBody,
    responses: { 200: ok(R.MigrateResult, "each run's outcome") },
    errors: { 404: "unknown workflow or version" },
  },
  "get /api/workflows/{id}/fleet": {
    operationId: "getFleet",
    summary: "Where the workflow's runs are, per state",
    description:
      "Runs now in each state, visits begun, time in state (p50, p95), failures and stuck runs in the window (1h, 24h, 7d or all; whole hours), and edge traffic, from counters kept with each step. Replays and evaluation runs are not counted.",
    params: WorkflowIdParam,
    query: FleetQuery,
    responses: { 200: ok(R.Fleet, "the fleet") },
    errors: { 404: "unknown workflow or version" },
  },
  "get /api/workflows/{id}/versions/{a}/diff/{b}": {
    operationId: "diffVersions",
    summary: "What changed between two versions",
    params: VersionDiffParams,
    responses: { 200: ok(R.VersionDiff, "states and steps added, removed and changed") },
    errors: { 404: "unknown workflow or version" },
  },
});

const evals = group("Evaluations", {
  "post /api/evals": {
    operationId: "startEval",
    summary: "Evaluate a candidate against past decisions",
    description: "Each review a person decided is a case: its run is replayed against the candidate and scored at each review it reaches. It runs on; GET /api/evals/{id} reads it.",
    body: EvalBody,
    responses: { 202: ok(z.object({ id: z.string() }), "started", LocationHeader) },
    errors: { 404: "unknown workflow or version" },
  },
  "get /api/evals": {
    operationId: "listEvals",
    summary: "List evaluations",
    query: EvalListQuery,
    responses: { 200: ok(z.looseObject({ evals: z.array(R.EvalReport) }), "newest first") },
  },
  "get /api/evals/{id}": {
    operationId: "getEval",
    summary: "An evaluation's report",
    params: EvalIdParam,
    responses: { 200: ok(R.EvalReport, "the report as it stands") },
    errors: { 404: "unknown evaluation" },
  },
});

const schedules = group("Schedules", {
  "get /api/schedules": {
    operationId: "listSchedules",
    summary: "List schedules",
    responses: { 200: ok(z.looseObject({ schedules: z.array(R.Schedule) }), "the schedules with their next fire times") },
  },
  "post /api/schedules": {
    operationId: "createSchedule",
    summary: "Create a schedule",
    description: "A workflow started on a cron pattern (5 fields, or 6 with seconds) in a time zone; `overlap` decides what happens while its previous run is open, `catchup` whether a fire missed while down runs once.",
    body: CreateScheduleBody,
    responses: { 201: ok(R.ScheduleOne, "the schedule", LocationHeader) },
  },
  "get /api/schedules/{id}": {
    operationId: "getSchedule",
    summary: "A schedule and its newest runs",
    params: ScheduleIdParam,
    responses: { 200: ok(R.ScheduleDetail, "the schedule") },
    errors: { 404: "unknown schedule" },
  },
  "patch /api/schedules/{id}": {
    operationId: "updateSchedule",
    summary: "Change, pause or resume a schedule",
    params: ScheduleIdParam,
    body: UpdateScheduleBody,
    responses: { 200: ok(R.ScheduleOne, "the schedule now") },
    errors: { 404: "unknown schedule" },
  },
  "delete /api/schedules/{id}": {
    operationId: "deleteSchedule",
    summary: "Delete a schedule",
    description: "Its runs stay (they keep their scheduleId).",
    params: ScheduleIdParam,
    responses: { 204: empty("deleted") },
    errors: { 404: "unknown schedule" },
  },
  "post /api/schedules/{id}/trigger": {
    operationId: "triggerSchedule",
    summary: "Run a schedule now",
    params: ScheduleIdParam,
    responses: { 201: ok(z.looseObject({ run: R.Run }), "the new run", LocationHeader) },
    errors: { 404: "unknown schedule" },
  },
});

const webhooks = group("Webhooks", {
  "get /api/webhooks": {
    operationId: "listWebhooks",
    summary: "List webhooks",
    description: "With `workflow`: the webhooks that fire for it (its own and the `*` ones). Secrets are never returned.",
    query: WebhookListQuery,
    responses: { 200: ok(z.looseObject({ webhooks: z.array(R.Webhook) }), "the webhooks") },
  },
  "post /api/webhooks": {
    operationId: "createWebhook",
    summary: "Add a webhook",
    body: CreateWebhookBody,
    responses: { 201: ok(z.looseObject({ webhook: R.Webhook }), "the webhook (with a secretHint, never the secret)", LocationHeader) },
  },
  "get /api/webhooks/{id}": {
    operationId: "getWebhook",
    summary: "Get a webhook",
    params: WebhookIdParam,
    responses: { 200: ok(z.looseObject({ webhook: R.Webhook }), "the webhook") },
    errors: { 404: "unknown webhook" },
  },
  "delete /api/webhooks/{id}": {
    operationId: "deleteWebhook",
    summary: "Delete a webhook and its delivery log",
    params: WebhookIdParam,
    responses: { 204: empty("deleted") },
    errors: { 404: "unknown webhook" },
  },
  "get /api/webhooks/{id}/deliveries": {
    operationId: "listDeliveries",
    summary: "A webhook's deliveries",
    params: WebhookIdParam,
    query: DeliveryListQuery,
    responses: { 200: ok(z.looseObject({ deliveries: z.array(R.Delivery) }), "newest first") },
    errors: { 404: "unknown webhook" },
  },
  "post /api/webhooks/deliveries/{id}/redeliver": {
    operationId: "redeliver",
    summary: "Send a delivery again",
    params: DeliveryIdParam,
    responses: { 202: ok(z.looseObject({ delivery: R.Delivery }), "queued again (pending)") },
    errors: { 404: "unknown delivery", 409: "already pending" },
  },
});

const alerts = group("Alerts", {
  "get /api/alerts": {
    operationId: "listAlerts",
    summary: "List alerts",
    query: AlertListQuery,
    responses: { 200: ok(z.looseObject({ alerts: z.array(R.Alert) }), "newest first") },
  },
  "get /api/alerts/rules": {
    operationId: "listAlertRules",
    summary: "List alert rules",
    query: RuleListQuery,
    responses: { 200: ok(z.looseObject({ rules: z.array(R.AlertRule) }), "the rules") },
  },
  "post /api/alerts/rules": {
    operationId: "createAlertRule",
    summary: "Add an alert rule",
    body: CreateRuleBody,
    responses: { 201: ok(z.looseObject({ rule: R.AlertRule }), "the rule", LocationHeader) },
  },
  "delete /api/alerts/rules/{id}": {
    operationId: "deleteAlertRule",
    summary: "Delete an alert rule (its open alert resolves)",
    params: RuleIdParam,
    responses: { 204: empty("deleted") },
    errors: { 404: "unknown rule" },
  },
});

const knowledge = group("Knowledge", {
  "get /api/knowledge": {
    operationId: "searchKnowledge",
    summary: "List or search documents",
    description: "Without `q`: `{ documents, total }`; with `q`: the ranked hits.",
    query: KnowledgeQuery,
    responses: { 200: { description: "documents or hits", content: { "application/json": { schema: z.union([R.KnowledgeList, R.KnowledgeHits]) } } } },
  },
  "post /api/knowledge": {
    operationId: "importKnowledge",
    summary: "Import documents",
    description: `JSON \`{ title?, source?, type?, content }\`, or multipart/form-data with up to ${MAX_UPLOAD_FILES} \`file\` fields (${MAX_UPLOAD_BYTES / 1024 / 1024} MiB in all): per-file results, or the failure's status when no file could be imported.`,
    body: ImportJsonBody,
    otherBodies: { "multipart/form-data": { schema: { type: "object", properties: { file: { type: "array", items: { type: "string", contentMediaType: "application/octet-stream" } } }, required: ["file"] } } },
    responses: { 201: { description: "imported", content: { "application/json": { schema: z.union([R.KnowledgeImported, R.KnowledgeUploaded]) } } } },
    errors: { 415: "a binary or unknown file type, or another content type", 422: "an empty document" },
  },
  "get /api/knowledge/{id}": {
    operationId: "getKnowledgeDocument",
    summary: "A document with its chunks",
    params: KnowledgeIdParam,
    responses: { 200: ok(R.KnowledgeDocument, "the document") },
    errors: { 404: "unknown document" },
  },
  "delete /api/knowledge/{id}": {
    operationId: "deleteKnowledgeDocument",
    summary: "Delete a document",
    description: "It and its chunks leave the search index at once.",
    params: KnowledgeIdParam,
    responses: { 204: empty("deleted") },
    errors: { 404: "unknown document" },
  },
});

const system = group("System", {
  "get /api/health": {
    operationId: "health",
    summary: "Is the server up",
    description: "Database, engine, Context Manager and model status and run counts. With accounts on, a caller without a session or token gets `{ status }` only.",
    responses: { 200: ok(R.Health, "up") },
  },
  "get /api/metrics": {
    operationId: "metrics",
    summary: "Prometheus metrics",
    description: "Runs by status, transitions, state dwell histograms, review wait, model tokens (replay and evaluation runs left out).",
    query: NoQuery,
    responses: { 200: media("text/plain; version=0.0.4", "Prometheus text exposition format 0.0.4") },
  },
  "get /api/openapi.json": {
    operationId: "openapi",
    summary: "This API description",
    description: "The OpenAPI 3.1 document the reference at /api-reference renders.",
    query: NoQuery,
    responses: { 200: ok(R.Json, "an OpenAPI 3.1 document") },
  },
  "post /api/auth/login": {
    operationId: "login",
    tag: "Accounts",
    summary: "Sign in",
    description: "Sets the session cookie. Five failures in 15 minutes lock the name.",
    body: LoginBody,
    responses: { 200: ok(R.SignedIn, "signed in (Set-Cookie: sy_session=…)") },
    errors: { 401: "wrong name or password", 404: "accounts are off (`accounts_off`)" },
  },
  "post /api/auth/logout": {
    operationId: "logout",
    tag: "Accounts",
    summary: "Sign out",
    responses: { 200: ok(z.object({ ok: z.literal(true) }), "signed out (the cookie is cleared)") },
  },
  "get /api/auth/me": {
    operationId: "me",
    tag: "Accounts",
    summary: "Who is calling",
    responses: { 200: ok(R.Me, "whether accounts are on, and the caller") },
  },
});

/** the app's own operations (route files under app/api), in the order the reference lists them */
const groups: ApiOperation[] = [...runs, ...reviews, ...tasks, ...workflows, ...evals, ...schedules, ...webhooks, ...alerts, ...knowledge];
export const OPERATIONS: ApiOperation[] = [...groups, ...system];

/** the built-in workflows' endpoints (their entries' `api`, served by app/api/[...name]/route.ts), as operations */
export function workflowOperations(): ApiOperation[] {
  return builtInApi().map(({ name, method, op }) => ({
    method: method.toLowerCase() as Method,
    path: `/api/${name}`,
    operationId: op.operationId,
    tag: op.tag,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    ...(op.query ? { query: op.query } : {}),
    ...(op.body ? { body: op.body } : {}),
    responses: op.responses,
    ...(op.errors ? { errors: op.errors } : {}),
    ...(op.role !== undefined ? { role: op.role } : {}),
  }));
}

/**
 * every operation the API description lists: the app's, with the workflows' before the System
 * group (read when the document is built: the catalog is provided by then, not when this module loads)
 */
export function allOperations(): ApiOperation[] {
  return [...groups, ...workflowOperations(), ...system];
}
