// The JSON shapes of Switchyard's REST API that this client sends and receives, as plain types
// (no runtime dependency). Answers are written from the server's response schemas into
// api-types.ts (`npm run client:types`; test/client-types.test.ts keeps it current); requests are
// declared here, and test/client.test.ts checks them against the server's zod schemas and runs
// the client against a real server.
import type { ReviewRecord, Run, RunStatus, Schedule, Transition } from "./api-types.js";

export type * from "./api-types.js";

export type ReviewStatus = ReviewRecord["status"];

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

/** An event for POST /api/runs/{id}/events: its type and the workflow's fields for it. */
export type RunEvent = { type: string } & Record<string, unknown>;

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

export type ScheduleOverlap = Schedule["overlap"];
export type ScheduleCatchup = Schedule["catchup"];

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
