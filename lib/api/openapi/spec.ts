// The shapes an operation's description is made of (types only, importing nothing of the app):
// the API's own operations (routes.ts) and a workflow's endpoints (lib/machines/workflow-api.ts)
// describe their answers with them.
import type { z } from "zod";

/** an answer: what it means, its media types with their schemas, its headers */
export interface ResponseSpec {
  description: string;
  content?: Record<string, { schema: z.core.$ZodType | Record<string, unknown> }>;
  headers?: z.ZodObject;
}

/** The error statuses an operation may answer, and when (the generic ones are added by document.ts). */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 503;
