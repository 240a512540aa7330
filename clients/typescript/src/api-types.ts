// Written by `npm run client:types` from the server's response schemas (lib/api/openapi/responses.ts,
// through lib/api/openapi/client-types.ts): do not edit. test/client-types.test.ts keeps it current.
// Objects are open: the server may add fields.

export interface CompleteResult {
  id: string;
  status: "done";
  output: unknown;
}

export interface DecisionResult extends EventResult {
  review: ReviewRecord;
}

export interface EventResult {
  run: Run;
  transitions: Transition[];
}

export interface FailResult {
  id: string;
  status: "queued" | "failed";
  attempt: number;
  /** an ISO 8601 date-time (UTC) */
  retryAt?: string;
}

export interface HeartbeatResult {
  id: string;
  leaseUntil: string | null;
  attempt: number;
  leaseMs: number;
}

/** A review with the decisions it allows and each one's body schema: a client can render any review. */
export interface Review extends ReviewRecord {
  /** the decisions it allows */
  decisions: string[];
  /** decision → JSON Schema of the body that decision is posted with */
  decisionSchemas: Record<string, Record<string, unknown>>;
  approvals: {
    so_far: number;
    needed: number;
    by: string[];
  };
  /** how long it has waited (until decided) */
  ageMs: number;
  /** pending and past dueAt */
  overdue: boolean;
}

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
  status: "pending" | "decided" | "cancelled";
  decision: string | null;
  feedback: string | null;
  reviewer: string | null;
  /** an ISO 8601 date-time (UTC) */
  createdAt: string;
  decidedAt: string | null;
  /** who decided: a person, or the engine (a replay or an evaluation); null while pending or cancelled */
  decidedBy: "person" | "engine" | null;
  /** the groups it is routed to (null: anyone) */
  assignedTo: string[] | null;
  /** when it is due (null: no deadline) */
  dueAt: string | null;
  /** the groups it was assigned to before its deadline passed (null: not escalated) */
  escalatedFrom: string[] | null;
}

/** A run: a workflow's machine with its context, at its latest transition. */
export interface Run extends RunSummary {
  /** the machine's context (a user-defined workflow keeps each step's result in context.steps[STAGE].output) */
  context: unknown;
}

export interface RunList {
  runs: RunSummary[];
  total: number;
  /** runs by status (replays apart, as `replay`) */
  counts: Record<string, number>;
}

export type RunStatus = "running" | "waiting" | "completed" | "failed" | "aborted";

/** A run as lists show it: without its context. */
export interface RunSummary {
  id: string;
  workflow: string;
  /** what the run is called everywhere */
  name: string | null;
  status: RunStatus;
  /** names of the active states, e.g. ["REVIEW"] */
  state: string[];
  /** full paths of the active states */
  stateIds?: string[];
  input: unknown;
  output: unknown;
  error: unknown;
  version: number;
  /** the number of the last transition */
  seq: number;
  parentId: string | null;
  forkOf: string | null;
  forkSeq: number | null;
  /** the schedule that started it */
  scheduleId: string | null;
  /** a replay or evaluation run: the run it replays */
  replayOf: string | null;
  /** the version of a user-defined workflow the run is pinned to; null for built-ins */
  workflowVersion: number | null;
  /** an ISO 8601 date-time (UTC) */
  createdAt: string;
  /** an ISO 8601 date-time (UTC) */
  updatedAt: string;
  finishedAt: string | null;
  /** when the current state(s) were entered */
  since: string | null;
  /** the pending review the run waits on */
  reviewId?: string | null;
  /** event types the run accepts from clients now */
  accepted?: string[];
  /** GET /api/runs/{id}: one entry per thing the live run waits on (empty once it ended) */
  waitingFor?: WaitingFor[];
}

export interface Schedule {
  id: string;
  name: string;
  workflow: string;
  version: number | null;
  cron: string;
  timezone: string;
  input: unknown;
  runName: string | null;
  overlap: "skip" | "allow" | "queue-one";
  catchup: "none" | "latest";
  paused: boolean;
  nextFireAt: string | null;
  /** the next fire times */
  nextFires: string[];
  lastFireAt: string | null;
  lastRunId: string | null;
  /** an ISO 8601 date-time (UTC) */
  createdAt: string;
  /** an ISO 8601 date-time (UTC) */
  updatedAt: string;
}

export interface Task {
  id: string;
  runId: string;
  /** the stage whose external step this is */
  stage: string;
  input: unknown;
  /** 1 on the first offer, 2 after a lease expired or a retryable failure, … */
  attempt: number;
  /** how long the claim holds without a heartbeat */
  leaseMs: number;
  /** this claim's lease: heartbeat, complete and fail send it */
  leaseToken: string;
  /** the W3C trace context of the step's span when the server exports traces (OTEL_EXPORTER_OTLP_ENDPOINT), else null; send it back as the `traceparent` header of heartbeat, complete and fail */
  traceparent: string | null;
}

export interface Transition {
  seq: number;
  from: string;
  to: string;
  event: string;
  reason: string;
  /** an ISO 8601 date-time (UTC) */
  at: string;
  durationMs: number;
  /** the event's payload (with `payload=1`) */
  payload?: unknown;
}

/** What a live run waits on: a review, a timer, an external worker's task, an event (at rest), an effect in flight. */
export type WaitingFor = {
  kind: "review";
  /** the state id (its path) */
  state: string;
  stateName: string;
  reviewId: string;
  decisions: string[];
  approvals: {
    so_far: number;
    needed: number;
    by: string[];
  };
  dueAt: string | null;
} | {
  kind: "timer";
  /** the state id (its path) */
  state: string;
  stateName: string;
  /** an ISO 8601 date-time (UTC) */
  at: string;
  /** the state the timer's transition goes to */
  to: string | null;
} | {
  kind: "task";
  /** the state id (its path) */
  state: string;
  stateName: string;
  queue: string;
  claimedBy: string | null;
  attempt: number;
  heartbeatAt: string | null;
  leaseUntil: string | null;
} | {
  kind: "event";
  /** the state id (its path) */
  state: string;
  stateName: string;
  /** the events it takes, less review decisions and ABORT */
  accepts: string[];
} | {
  kind: "effect";
  /** the state id (its path) */
  state: string;
  stateName: string;
  name: string;
  since: string | null;
};

/** A definition checked as a save would check it (`?dryRun=true`): nothing saved. */
export interface WorkflowCheck {
  dryRun: true;
  valid: boolean;
  id: string | null;
  errors: {
    message: string;
    line?: number;
  }[];
  warnings: {
    message: string;
    line?: number;
  }[];
}
