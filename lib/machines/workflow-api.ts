// A workflow's app-level JSON endpoints (its entry's `api`): each one a path under /api and, per
// HTTP method, what it validates, what it answers and how it is described in the OpenAPI
// document. The app serves them all from one route file (app/api/[...name]/route.ts through
// lib/api/workflow-api.ts) and lists them in /api/openapi.json (lib/api/openapi/routes.ts): a
// workflow adds an endpoint without a file outside its folder.
import type { z } from "zod";
import type { ErrorStatus, ResponseSpec } from "../api/openapi/spec";
import type { Role, WORKER } from "../auth/roles";
import type { Db } from "../db/client";
import type { Clock } from "../engine/clock";

export const API_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
export type ApiMethodName = (typeof API_METHODS)[number];

/** What an endpoint's handler is handed: the runtime's database and clock. */
export interface ApiPorts {
  db: Db;
  clock: Clock;
}

type Parsed<S> = S extends z.core.$ZodType ? z.output<S> : undefined;

export interface ApiMethodSpec<Q extends z.core.$ZodType | undefined, B extends z.core.$ZodType | undefined> {
  /** a stable name for generated clients (unique across the API) */
  operationId: string;
  /** the group the reference lists it under */
  tag: string;
  summary: string;
  description?: string;
  /** the query string's schema: the request is parsed with it (422 on a mismatch), and it is described with it */
  query?: Q;
  /** the JSON body's schema (read with the API's limits, then parsed with it) */
  body?: B;
  /**
   * the answers on success, by status (`ok(schema, …)`, `empty(…)` from lib/api/openapi/shared.ts);
   * the lowest is the status the endpoint answers with, and 204 answers without a body
   */
  responses: Record<number, ResponseSpec>;
  /** error statuses besides the ones every operation may answer, and when */
  errors?: Partial<Record<ErrorStatus, string>>;
  /** the role it needs with accounts on (null: anyone); none: the table's (lib/auth/roles.ts: viewer reads, admin changes) */
  role?: Role | typeof WORKER | null;
  /** the answer: its JSON body (nothing for a 204) */
  handle: (input: { query: Parsed<Q>; body: Parsed<B>; req: Request }, ports: ApiPorts) => Promise<unknown>;
}

/** One method of an endpoint, as the catalog keeps it. */
export type ApiMethod = ApiMethodSpec<z.core.$ZodType | undefined, z.core.$ZodType | undefined>;

/** An endpoint: its methods. */
export type ApiEndpoint = Partial<Record<ApiMethodName, ApiMethod>>;

/** Declare one method of an endpoint (its handler is typed by its query and body schemas). */
export function apiMethod<Q extends z.core.$ZodType | undefined = undefined, B extends z.core.$ZodType | undefined = undefined>(spec: ApiMethodSpec<Q, B>): ApiMethod {
  return spec as unknown as ApiMethod;
}

/** the status an endpoint's method answers with on success: the lowest of its responses */
export function successStatus(m: Pick<ApiMethod, "responses">): number {
  return Math.min(...Object.keys(m.responses).map(Number));
}
