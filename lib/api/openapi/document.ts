// The OpenAPI 3.1 document of the API (GET /api/openapi.json), made by zod-openapi from the
// registry in routes.ts: each operation's schemas become its parameters, request body and
// responses; the role it needs (lib/auth/roles.ts), the sign-in schemes, the Idempotency-Key
// header and the error answers are added here the same way for every operation.
import { z } from "zod";
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject, type ZodOpenApiResponsesObject } from "zod-openapi";
import pkg from "../../../package.json";
import { requiredRole } from "../../auth/roles";
import { allOperations, type ApiOperation } from "./routes";
import { ERROR_TEXT, ErrorBody, errorResponse, IdempotencyHeaders, SECURITY_SCHEMES, type ErrorStatus, type ResponseSpec } from "./shared";

const SIGNED_IN = [{ sessionCookie: [] }, { bearerToken: [] }];

/** the role an operation needs with accounts on (null: anyone), asked of the same table the server asks */
export function roleOf(op: Pick<ApiOperation, "method" | "path" | "role">): string | null {
  if (op.role !== undefined) return op.role;
  return requiredRole(op.method.toUpperCase(), op.path.replace(/\{[^}]+\}/g, "x"));
}

function errorsOf(op: ApiOperation, role: string | null): Partial<Record<ErrorStatus, string>> {
  const out: Partial<Record<ErrorStatus, string>> = { 400: ERROR_TEXT[400] };
  if (role) Object.assign(out, { 401: ERROR_TEXT[401], 403: ERROR_TEXT[403] });
  else if (op.method !== "get") out[403] = "a state-changing request from another site (`cross_site`)";
  if (op.body) Object.assign(out, { 413: ERROR_TEXT[413], 415: ERROR_TEXT[415] });
  if (op.body || op.query || op.params) out[422] = ERROR_TEXT[422];
  out[503] = ERROR_TEXT[503];
  return { ...out, ...op.errors };
}

function responsesOf(op: ApiOperation, role: string | null): ZodOpenApiResponsesObject {
  const out: Record<string, ResponseSpec & { headers?: unknown }> = {};
  for (const [status, spec] of Object.entries(op.responses)) out[status] = spec;
  for (const [status, text] of Object.entries(errorsOf(op, role))) {
    out[status] = Number(status) === 503 ? { ...errorResponse(text), headers: z.object({ "retry-after": z.string().meta({ description: "seconds" }) }) } : errorResponse(text);
  }
  return out as unknown as ZodOpenApiResponsesObject;
}

function operationOf(op: ApiOperation): ZodOpenApiOperationObject {
  const role = roleOf(op);
  const who = role === null ? "Anyone may call it." : role === "worker" ? "Needs a worker token, or the operator role." : `Needs the ${role} role.`;
  const content = {
    ...(op.body ? { "application/json": { schema: op.body } } : {}),
    ...(op.otherBodies ?? {}),
  };
  return {
    operationId: op.operationId,
    tags: [op.tag],
    summary: op.summary,
    description: [op.description, `With accounts on: ${who}`].filter(Boolean).join("\n\n"),
    "x-switchyard-role": role,
    security: role === null ? [{}, ...SIGNED_IN] : SIGNED_IN,
    requestParams: {
      ...(op.params ? { path: op.params } : {}),
      ...(op.query ? { query: op.query as z.ZodObject } : {}),
      ...(op.idempotent ? { header: IdempotencyHeaders } : {}),
    },
    ...(Object.keys(content).length ? { requestBody: { required: !op.bodyOptional, content } } : {}),
    responses: responsesOf(op, role),
  } as ZodOpenApiOperationObject;
}

function build() {
  const operations = allOperations();
  const paths: ZodOpenApiPathsObject = {};
  for (const op of operations) {
    const item = (paths[op.path] ??= {}) as Record<string, ZodOpenApiOperationObject>;
    if (item[op.method]) throw new Error(`two entries for ${op.method.toUpperCase()} ${op.path} in lib/api/openapi/routes.ts or a workflow's api`);
    item[op.method] = operationOf(op);
  }
  return createDocument(
    {
      openapi: "3.1.0",
      info: {
        title: "Switchyard API",
        version: pkg.version,
        description:
          "JSON in and out; every body and query is validated, and bad input gets a 4xx with `{ error, code }` (a validation error also lists `issues`). Unknown fields and query parameters are refused (422). Times are ISO 8601 in UTC, durations milliseconds.\n\nWith accounts off (the default) nothing needs signing in. With `SWITCHYARD_AUTH=on`, send the session cookie of a signed-in person or an API token (`Authorization: Bearer sy_…`); each operation says the role it needs.",
      },
      tags: [...new Set(operations.map((o) => o.tag))].map((name) => ({ name })),
      paths,
      components: { securitySchemes: SECURITY_SCHEMES, schemas: { Error: ErrorBody } },
    },
    {
      // query parameters and path segments arrive as text; zod.coerce reads them as numbers
      allowEmptySchema: { custom: { input: true } },
      override: ({ jsonSchema, zodSchema, io }) => {
        // unknown-parameter catch-alls (z.custom that refuses everything) take nothing
        if (io === "input" && zodSchema._zod.def.type === "custom") Object.assign(jsonSchema, { not: {} });
      },
    },
  );
}

let cached: ReturnType<typeof build> | null = null;

/** The OpenAPI document (built once per process). */
export function openApiDocument(): ReturnType<typeof build> {
  return (cached ??= build());
}
