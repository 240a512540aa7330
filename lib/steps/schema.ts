// Steps in a user-defined workflow's definition: a stage may call a model (`llm`), a
// tool over HTTP (`http`), code in the sandbox (`code`), ask people (`review`) or wait (`wait`),
// and say where the run goes next (`next`, `on`, `on_error`, `retry`, `timeout`). The shape is
// checked here with zod; the meaning (routes, templates, URLs) in lib/steps/check.ts; the steps
// become XState invocations, reviews and timers in lib/steps/compile.ts.
import { z } from "zod";
import { ReviewRouteSchema } from "../reviews/routes";

const Stage = z.string().min(1).max(80);
const Template = z.string().max(20_000);
const Seconds = z.number().positive().max(366 * 86_400);

/** decisions a review may offer: the standard ones and custom lower-case names */
export const STANDARD_DECISIONS = ["approve", "reject", "edit", "respond"] as const;
const Decision = z.string().regex(/^[a-z][a-z0-9_]{0,39}$/, "a decision is a lower-case name (letters, digits, _)");

const Llm = z
  .object({
    prompt: Template,
    system: Template.optional(),
    /** a JSON Schema: the output is an object that matches it */
    schema: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export const HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
const Http = z
  .object({
    url: Template,
    method: z.enum(HTTP_METHODS).default("POST"),
    /** header values are templates; a secret comes from settings as {{secrets.NAME}} */
    headers: z.record(z.string().regex(/^[A-Za-z0-9-]{1,80}$/, "a header name"), Template).optional(),
    /** any JSON; every string in it is a template */
    body: z.unknown().optional(),
    /** the largest reply read, in bytes (default 1 MB; at most SWITCHYARD_HTTP_MAX_BYTES, checked when saved) */
    max_bytes: z.number().int().min(1).optional(),
  })
  .strict();

const Code = z
  .object({
    language: z.enum(["javascript", "python"]).default("javascript"),
    /** the program; `input`, `steps` and `review` are defined for it */
    source: z.string().min(1).max(100 * 1024),
    timeout_ms: z.number().int().min(10).max(30_000).optional(),
  })
  .strict();

const Review = z
  .object({
    prompt: Template,
    /** what the reviewer is shown (a template) */
    show: Template.optional(),
    decisions: z.array(Decision).min(1).max(20).default(["approve", "reject"]),
    /** distinct people who must approve (any reject decides at once) */
    approvers: z.number().int().min(1).max(20).default(1),
    /** the groups that may decide it (accounts on; otherwise labels that route and filter) */
    assign: ReviewRouteSchema.shape.assign,
    /** when it is due and whom it is escalated to then (the run stays: moving on is `timeout`) */
    due: ReviewRouteSchema.shape.due,
  })
  .strict();

const Wait = z
  .object({ after_s: Seconds.optional(), until: z.iso.datetime({ offset: true }).optional() })
  .strict()
  .refine((w) => (w.after_s === undefined) !== (w.until === undefined), "give after_s or until (one of them)");

const External = z.object({ queue: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, "a queue name: lower-case letters, digits, . _ -") }).strict();

export const StepSchema = z
  .object({
    llm: Llm.optional(),
    http: Http.optional(),
    code: Code.optional(),
    review: Review.optional(),
    wait: Wait.optional(),
    external: External.optional(),
    next: Stage.optional(),
    on: z.record(z.string(), Stage).optional(),
    /** guards in order after the step (a review: after a decision with no on.<decision>): the first whose `if` (CEL) holds picks the stage, else next */
    when: z.array(z.object({ if: z.string().trim().min(1, "write an expression").max(1_000), to: Stage }).strict()).min(1).max(20).optional(),
    on_error: Stage.optional(),
    retry: z.object({ max: z.number().int().min(0).max(20), backoff_s: z.number().min(0).max(3_600).default(1) }).strict().optional(),
    timeout: z.object({ after_s: Seconds, to: Stage.optional() }).strict().optional(),
  })
  .strict()
  .refine((s) => KINDS.filter((k) => s[k] !== undefined).length === 1, { message: "a step is exactly one of llm, http, code, review, wait, external" });

export const KINDS = ["llm", "http", "code", "review", "wait", "external"] as const;
export type StepKind = (typeof KINDS)[number];
export type StepSpec = z.output<typeof StepSchema>;

export const kindOf = (s: StepSpec): StepKind => KINDS.find((k) => s[k] !== undefined)!;

/** the steps block of a definition */
export const StepsSchema = z.record(z.string(), StepSchema);
