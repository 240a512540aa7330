// The JSON shapes of Switchyard's REST API that this client sends and receives, as plain types
// (no runtime dependency). They mirror the server's (lib/api/schemas.ts for requests, the views in
// lib/engine/views.ts and lib/api/review-types.ts for answers); test/client.test.ts checks the
// request types against the server's zod schemas and runs the client against a real server.

export type RunStatus = "running" | "waiting" | "completed" | "failed" | "aborted";
export type ReviewStatus = "pending" | "decided" | "cancelled";

/** A run, as GET /api/runs/{id} answers. */
export interface Run {
  id: string;
  workflow: string;
  /** what the run is called everywhere (POST /api/runs { name }, the definition's run_name, or the workflow's own rule) */
  name?: string | null;
  status: RunStatus;
  /** names of the active states, e.g. ["REVIEW"] */
  state: string[];
  /** full paths of the active states */
  stateIds: string[];
  /** the machine's context; a user-defined workflow keeps each step's result in `context.steps[STAGE].output` */
  context: unknown;
  input: unknown;
  output: unknown;
  error: unknown;
  version: number;
  seq: number;
  parentId: string | null;
  forkOf: string | null;
  forkSeq: number | null;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
  since: string | null;
  /** the pending review the run waits on, if any */
  reviewId?: string | null;
  /** event types the run accepts from clients right now */
  accepted?: string[];
}

export interface Transition {
  seq: number;
  from: string;
  to: string;
  event: string;
  reason: string;
  at: string;
  durationMs: number;
  payload?: unknown;
}

/** What POST /api/runs/{id}/events answers. */
export interface EventResult {
  run: Run;
  transitions: Transition[];
}

/** A review row (as it comes back from a decision). */
export interface ReviewRecord {
  id: string;
  runId: string;
  workflow: string;
  /** the state that asked */
  state: string;
  kind: string;
  prompt: string;
  /** what the reviewer is shown */
  payload: unknown;
  status: ReviewStatus;
  decision: string | null;
  feedback: string | null;
  reviewer: string | null;
  createdAt: string;
  decidedAt: string | null;
  /** who decided: a person, or the engine (a replay or an evaluation); null while pending or cancelled */
  decidedBy: "person" | "engine" | null;
  /** the groups it is routed to (null: anyone) */
  assignedTo: string[] | null;
  /** when it is due (null: no deadline) */
  dueAt: string | null;
  /** the groups it was assigned to before it was escalated (null: not escalated) */
  escalatedFrom: string[] | null;
}

/** A review as GET /api/reviews and GET /api/reviews/{id} answer: typed for any client. */
export interface Review extends ReviewRecord {
  /** the decisions it allows */
  decisions: string[];
  /** decision → JSON Schema of the body that decision is posted with */
  decisionSchemas: Record<string, JsonSchema>;
  approvals: { so_far: number; needed: number; by: string[] };
  /** how long it has waited (until decided), in ms */
  ageMs: number;
  /** pending and past dueAt */
  overdue: boolean;
}

/** A JSON Schema document (draft 2020-12, as zod writes it). */
export type JsonSchema = { [key: string]: unknown };

/** The body of POST /api/reviews/{id}/decision besides `decision` itself. */
export interface DecisionPayload {
  feedback?: string;
  /** who decides (with accounts on, the signed-in person or token is recorded instead) */
  reviewer?: string;
  modifications?: string[];
  /** decision-specific fields, e.g. `{ edited }` for an `edit` */
  data?: Record<string, unknown>;
}

export interface DecisionResult {
  review: ReviewRecord;
  run: Run;
  transitions: Transition[];
}

export interface ReviewQuery {
  status?: ReviewStatus;
  runId?: string;
  limit?: number;
  /** "me" (your groups, accounts on) or a group name */
  assigned?: string;
  /** only pending reviews past their deadline */
  overdue?: boolean;
}

export interface RunQuery {
  status?: RunStatus[];
  workflow?: string;
  waiting?: boolean;
  limit?: number;
  offset?: number;
}

export interface RunList {
  /** runs without their context */
  runs: Omit<Run, "context">[];
  total: number;
  counts: Record<string, number>;
}

/** An event for POST /api/runs/{id}/events: its type and the workflow's fields for it. */
export type RunEvent = { type: string } & Record<string, unknown>;

/** A task an external worker claimed (POST /api/tasks/claim). */
export interface Task {
  id: string;
  runId: string;
  /** the stage whose `external` step this is */
  stage: string;
  input: unknown;
  /** 1 on the first offer, 2 after one lease expired or one retryable failure, … */
  attempt: number;
  /** how long the claim holds without a heartbeat */
  leaseMs: number;
  /** this claim's lease: heartbeat, complete and fail send it (a later claim of the same task gets another) */
  leaseToken: string;
  /**
   * the W3C trace context of the step's span when the server exports traces (OTEL_EXPORTER_OTLP_ENDPOINT),
   * else null: put your work in the run's trace with it; heartbeat, complete and fail send it back
   */
  traceparent: string | null;
}

export interface HeartbeatResult {
  id: string;
  /** ISO time the lease now ends (leaseMs from the heartbeat) */
  leaseUntil: string | null;
  attempt: number;
  leaseMs: number;
}

export interface CompleteResult {
  id: string;
  status: "done";
  /** the output the task was completed with (the first one, when completed twice) */
  output: unknown;
}

/** `queued`: it will be offered again at `retryAt` (retryable, attempts left); `failed`: the step failed (the workflow's on_error route). */
export interface FailResult {
  id: string;
  status: "queued" | "failed";
  attempt: number;
  retryAt?: string;
}

/** The error body the API answers with. */
export interface ErrorBody {
  error: string;
  code?: string;
  issues?: { path: string; message: string }[];
  details?: unknown;
}

/** A message of GET /api/runs/{id}/stream (Server-Sent Events): `hello` and `run` carry the run. */
export type RunStreamEvent =
  | { event: "hello"; data: { run: Run } }
  | { event: "run"; data: { type: "run"; run: Run; transitions: Transition[] } }
  | { event: "review" | "progress" | "hook" | "error" | string; data: unknown };

/** A workflow definition to send: exactly one of yaml, json (text or object) or mermaid; `id` names an untitled Mermaid diagram. */
export type WorkflowSource = { id?: string } & ({ yaml: string } | { json: string | Record<string, unknown> } | { mermaid: string });

/** What POST /api/workflows answers (201 a new version, 200 `created: false` when unchanged). */
export interface ImportedWorkflow {
  id: string;
  title?: string;
  created: boolean;
  warnings: { message: string; line?: number }[];
  versions?: { version: number }[];
  [key: string]: unknown;
}

/** What POST /api/workflows?dryRun=true answers: the server's checks, nothing saved. */
export interface WorkflowCheck {
  dryRun: true;
  valid: boolean;
  id: string | null;
  errors: { message: string; line?: number }[];
  warnings: { message: string; line?: number }[];
}

export type ScheduleOverlap = "skip" | "allow" | "queue-one";
export type ScheduleCatchup = "none" | "latest";

/** A schedule (GET /api/schedules, docs/guide/20-schedules.md). */
export interface Schedule {
  id: string;
  name: string;
  workflow: string;
  version: number | null;
  cron: string;
  timezone: string;
  input: Record<string, unknown>;
  runName: string | null;
  overlap: ScheduleOverlap;
  catchup: ScheduleCatchup;
  paused: boolean;
  nextFireAt: string | null;
  nextFires: string[];
  lastFireAt: string | null;
  lastRunId: string | null;
  [key: string]: unknown;
}

export interface NewSchedule {
  workflow: string;
  cron: string;
  version?: number | null;
  timezone?: string;
  input?: Record<string, unknown>;
  name?: string;
  runName?: string | null;
  overlap?: ScheduleOverlap;
  catchup?: ScheduleCatchup;
  paused?: boolean;
}
