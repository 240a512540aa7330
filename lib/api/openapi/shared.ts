// What every operation of the API description shares: the error body, the two ways to sign in,
// the Idempotency-Key header and small builders for responses. The registry (routes.ts) uses
// these; document.ts turns the registry into the OpenAPI document.
import { z } from "zod";
import "zod-openapi";
import { SESSION_COOKIE } from "../../auth/accounts";
import { IdempotencyKeyValue } from "../idempotency";
import { MAX_BODY_BYTES } from "../http";
import type { ErrorStatus, ResponseSpec } from "./spec";

export type { ErrorStatus, ResponseSpec } from "./spec";

/** The body of every error answer (lib/api/http.ts errorResponse). */
export const ErrorBody = z
  .looseObject({
    error: z.string().meta({ description: "what went wrong, for a person" }),
    code: z.string().meta({ description: "a stable code for programs: invalid, not_found, conflict, unauthenticated, forbidden, malformed_json, …" }),
    issues: z
      .array(z.object({ path: z.string(), message: z.string() }))
      .optional()
      .meta({ description: "a validation error (422 invalid): each field that is wrong, by its dotted path" }),
    details: z.unknown().optional().meta({ description: "more about the error, by code (e.g. line-numbered issues of a workflow definition)" }),
  })
  .meta({ id: "Error", description: "An error: `{ error, code }`, with `issues` for a validation error." });

export const SECURITY_SCHEMES = {
  sessionCookie: {
    type: "apiKey",
    in: "cookie",
    name: SESSION_COOKIE,
    description: "The session a person gets from POST /api/auth/login (HttpOnly, 14 days). Needed only with accounts on (SWITCHYARD_AUTH=on).",
  },
  bearerToken: {
    type: "http",
    scheme: "bearer",
    bearerFormat: "sy_…",
    description: "An API token from `npm run user -- token …`, sent as `Authorization: Bearer sy_…`. Needed only with accounts on (SWITCHYARD_AUTH=on); a token never acts above its owner's role.",
  },
} as const;

/** the header a repeatable POST takes (lib/api/idempotency.ts) */
export const IdempotencyHeaders = z.object({
  "idempotency-key": IdempotencyKeyValue.optional().meta({
    description:
      "Send the same key again (with the same body) and get the first answer again, with `Idempotent-Replayed: true`, instead of doing the work twice. 1–255 printable ASCII characters; kept 24 hours, per user, method and path. The same key with another body: 422 `idempotency_key_reused`.",
    example: "start-2026-11-23-digest",
  }),
});

export const ReplayedHeader = z.object({
  "idempotent-replayed": z.literal("true").optional().meta({ description: "present on the answer to a repeat of an Idempotency-Key" }),
});

export const LocationHeader = z.object({ location: z.string().meta({ description: "the new resource's path" }) });

type Headers = z.ZodObject;

/** a JSON answer */
export const ok = (schema: z.core.$ZodType, description: string, headers?: Headers): ResponseSpec => ({ description, content: { "application/json": { schema } }, ...(headers ? { headers } : {}) });

/** an answer of another media type (text, Server-Sent Events, a file) */
export const media = (type: string, description: string, schema: Record<string, unknown> = { type: "string" }, headers?: Headers): ResponseSpec => ({ description, content: { [type]: { schema } }, ...(headers ? { headers } : {}) });

/** an answer without a body */
export const empty = (description: string): ResponseSpec => ({ description });


export const ERROR_TEXT: Record<ErrorStatus, string> = {
  400: "the body is empty or not JSON, nested too deeply, or the path's percent-encoding is malformed",
  401: "accounts on: no session or API token (`unauthenticated`)",
  403: "accounts on: the caller's role is not enough (`forbidden`); or a state-changing request from another site (`cross_site`)",
  404: "no such resource",
  409: "the resource is not in a state that allows this",
  413: `the body is larger than ${MAX_BODY_BYTES.toLocaleString("en")} bytes`,
  415: "the content type is not application/json",
  422: "the body or query is well-formed but invalid (`invalid`, with `issues`), or an unknown parameter or field",
  503: "the database is unreachable (`storage_unavailable`); try again after Retry-After seconds",
};

export const errorResponse = (description: string): ResponseSpec => ({
  description,
  content: { "application/json": { schema: ErrorBody } },
});
