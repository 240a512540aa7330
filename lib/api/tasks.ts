// The external workers' API: request bodies and answers of /api/tasks/*. The routes
// are thin; the queue is lib/tasks/queue.ts.
import { z } from "zod";
import type { TaskRow } from "../tasks/store";
import { MAX_WAIT_MS } from "../tasks/queue";

const Queue = z.string().regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, "a queue name: lower-case letters, digits, . _ - (at most 63)");
const Worker = z.string().trim().min(1, "worker: name this worker").max(200);
/**
 * Heartbeat, complete and fail show the lease token their claim was given (required); `worker`
 * and `attempt` are informational (accepted, not checked: the token says which claim this is).
 */
const Fence = {
  leaseToken: z.string({ error: "required: send the leaseToken your claim's answer carried" }).min(1, "required: send the leaseToken your claim's answer carried").max(200),
  worker: Worker.optional(),
  attempt: z.number().int().min(1).optional(),
};

export const TaskIdParam = z.object({ id: z.string().uuid("a task id (a UUID)") });

export const ClaimBody = z
  .object({
    queue: Queue,
    worker: Worker,
    /** long-poll: wait up to this long for a task (capped at 30 s) */
    waitMs: z.number().int().min(0).max(MAX_WAIT_MS, `waitMs: at most ${MAX_WAIT_MS} (30 s)`).optional(),
  })
  .strict();

export const HeartbeatBody = z.object(Fence).strict();
export const QueueName = Queue;

export const CompleteBody = z
  .object({ output: z.json().meta({ id: "JsonValue" }).refine((v) => v !== undefined, "output is required (any JSON value)"), ...Fence })
  .strict()
  .refine((b) => "output" in b, { message: "output is required (any JSON value)", path: ["output"] });

const ErrorText = z.string().trim().min(1, "error: say what went wrong").max(10_000);
export const FailBody = z
  .object({
    error: z.union([ErrorText, z.object({ message: ErrorText, category: z.string().regex(/^[A-Z_]{1,40}$/, "category: upper-case letters and _").optional() }).strict()]),
    retryable: z.boolean(),
    ...Fence,
  })
  .strict();

export const heartbeatView = (t: TaskRow) => ({ id: t.id, leaseUntil: t.leaseUntil === null ? null : new Date(t.leaseUntil).toISOString(), attempt: t.attempt });
export const completeView = (t: TaskRow) => ({ id: t.id, status: t.status, output: t.output });
export const failView = (t: TaskRow) => ({ id: t.id, status: t.status, attempt: t.attempt, ...(t.status === "queued" && t.leaseUntil ? { retryAt: new Date(t.leaseUntil).toISOString() } : {}) });
