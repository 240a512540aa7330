// Request schemas of the REST API, named for what they carry.
import { z } from "zod";

export const RUN_STATUSES = ["running", "waiting", "completed", "failed", "aborted"] as const;

const id = z.string().min(1).max(200);

export const StartRunBody = z
  .object({
    workflow: z.string().min(1, "workflow is required").max(100),
    input: z.unknown().optional(),
    /** what the run is called (else the workflow's run_name, or its own rule) */
    name: z.string().trim().min(1, "name: leave it out or give one").max(200).optional(),
  })
  .strict();

/** a date (YYYY-MM-DD, UTC midnight) or a full ISO date-time, as epoch ms */
export const IsoDate = z
  .string()
  .max(40)
  .refine((v) => /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v) && !Number.isNaN(Date.parse(v)), "must be a date (YYYY-MM-DD) or an ISO date-time")
  .transform((v) => Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : v));

/** what a live run may wait on (GET /api/runs/{id}'s waitingFor, lib/api/waiting.ts) */
export const WAITING_KINDS = ["review", "timer", "task", "event", "effect"] as const;

export const RunListQuery = z
  .object({
    status: z
      .string()
      .max(200)
      .transform((s) => s.split(",").filter(Boolean))
      .pipe(z.array(z.enum(RUN_STATUSES)))
      .optional(),
    workflow: z.string().max(100).optional(),
    waiting: z.enum(["true", "false"]).optional(),
    // (a NUL would end the full-text search's quoted phrase early: SQLite refuses it, a 500)
    q: z.string().trim().max(200).refine((s) => !s.includes("\u0000"), "q must not contain NUL characters").optional(),
    from: IsoDate.optional(),
    to: IsoDate.optional(),
    waitingLongerThan: z.coerce.number().min(0).max(525_600, "at most a year, in minutes").optional(),
    retrying: z.enum(["true", "false"]).optional(),
    failedIn: z.string().trim().min(1).max(200).optional(),
    scheduleId: z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, "scheduleId must be a schedule id").optional(),
    /** list replay and evaluation runs too (left out otherwise) */
    replays: z.enum(["0", "1", "true", "false"]).optional(),
    /** only the replays of this run */
    replayOf: z.string().min(1).max(200).regex(/^[A-Za-z0-9_-]+$/, "not a run id").optional(),
    /** live runs waiting on any of these kinds (a comma list): review, timer, task, event, effect */
    waitingFor: z
      .string()
      .max(200)
      .transform((s) => s.split(",").map((k) => k.trim()).filter(Boolean))
      .pipe(z.array(z.enum(WAITING_KINDS, { error: `waitingFor takes a comma list of ${WAITING_KINDS.join(", ")}` })).min(1, "waitingFor needs at least one kind"))
      .optional(),
    /** live runs in this state or one inside it (a state id: its path) */
    state: z.string().min(1).max(300).refine((s) => !/[\u0000-\u001f]/.test(s), "state must not contain control characters").optional(),
    /** live runs whose external worker's task has waited unclaimed at least this many minutes */
    unclaimedLongerThan: z.coerce.number().min(0).max(525_600, "at most a year, in minutes").optional(),
    limit: z.coerce.number().int().min(1).max(500).optional(),
    offset: z.coerce.number().int().min(0).max(10_000_000).optional(),
  })
  .strict();

export const EventBody = z.looseObject({ type: z.string().min(1, "type is required").max(100) });

export const ForkBody = z
  .object({
    seq: z.number({ error: "seq (a transition number) is required" }).int("seq must be a whole number").min(1, "seq starts at 1"),
    context: z.record(z.string().min(1).max(200), z.unknown(), { error: "context must be an object of the keys to replace" }).optional(),
    input: z.unknown().optional(),
    /** effect invocations after the fork point take the outputs the source recorded for them (same state, visit and input) */
    reuse: z.boolean({ error: "reuse must be true or false" }).optional(),
  })
  .strict();

export const SnapshotQuery = z.object({ seq: z.coerce.number({ error: "seq must be a number" }).int().min(1, "seq starts at 1") }).strict();

export const AbortBody = z.object({ reason: z.string().max(2_000).optional() }).strict();

export const TransitionQuery = z
  .object({
    after: z.coerce.number().int().min(0).optional(),
    limit: z.coerce.number().int().min(1).max(10_000).optional(),
    payload: z.enum(["0", "1", "true", "false"]).optional(),
  })
  .strict();

export const DecisionBody = z
  .object({
    decision: z.string().min(1, "decision is required").max(50),
    feedback: z.string().max(10_000).optional(),
    reviewer: z.string().max(200).optional(),
    modifications: z.array(z.string().max(2_000)).max(50).optional(),
    /** decision-specific fields, e.g. the edited plan of a deep-research "modify" */
    data: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export const ReviewListQuery = z
  .object({
    status: z.enum(["pending", "decided", "cancelled"]).optional(),
    runId: id.optional(),
    limit: z.coerce.number().int().min(1).max(1_000).optional(),
    /** "me" (your groups, accounts on) or a group name */
    assigned: z.union([z.literal("me"), z.string().trim().toLowerCase().regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, 'assigned is "me" or a group name (lower-case letters, digits, . _ -)')]).optional(),
    /** "true": only pending reviews past their deadline */
    overdue: z.enum(["true", "false"], { error: "overdue is true or false" }).optional(),
  })
  .strict();

export const RunIdParam = z.object({ id: z.string().min(1).max(200).regex(/^[A-Za-z0-9_-]+$/, "not a run id") });

export const LoginBody = z.object({ name: z.string().trim().min(1, "name is required").max(100), password: z.string().min(1, "password is required").max(200) }).strict();

/** no query parameters: an unknown one is a 422, not silently ignored */
export const NoQuery = z.object({}).strict();

const runIdText = z.string().min(1).max(200).regex(/^[A-Za-z0-9_-]+$/, "not a run id");
export const CompareParams = z.object({ id: runIdText, other: runIdText });

export const RunExportQuery = z.object({ download: z.enum(["0", "1", "true", "false"]).optional() }).strict();

export const RunImportQuery = z.object({ as: z.enum(["new"]).optional() }).strict();

/** one name of an artifact's path (`logs/orchestrator.log` has two) */
export const ARTIFACT_SEGMENT = /^[A-Za-z0-9._-]+$/;
const ArtifactSegment = z
  .string()
  .min(1)
  .max(200)
  .regex(ARTIFACT_SEGMENT, "not a file name")
  .refine((s) => s !== "." && s !== "..", "relative path segments are not allowed");

/**
 * An artifact's name from the catch-all's segments: `logs/orchestrator.log` arrives as two
 * segments, or as one with its slash encoded (`logs%2Forchestrator.log`); either way 1 to 5 names.
 */
export const ArtifactPath = z
  .array(z.string().max(1_000))
  .min(1)
  .max(5)
  .transform((segments) => segments.flatMap((s) => s.split(/\/|%2F/i)))
  .pipe(z.array(ArtifactSegment).min(1).max(5))
  .transform((segments) => segments.join("/"));

/** `?download=` (any value) saves the file; other parameters are ignored */
export const ArtifactQuery = z.looseObject({ download: z.string().optional() });
