// HTTP plumbing for route handlers, on the Web Request/Response API only (no Next.js): JSON
// bodies with a size limit, zod validation, and errors mapped to 4xx with a message.
import { z } from "zod";
import { EngineError, isEngineError, isZodError } from "../engine/errors";

export class HttpError extends EngineError {}

export const MAX_BODY_BYTES = 1_000_000;

export function json(data: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(data), { status, headers: { "content-type": "application/json; charset=utf-8", ...headers } });
}

function issues(e: { issues: { path: PropertyKey[]; message: string }[] }) {
  return e.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
}

export function errorResponse(e: unknown): Response {
  if (isZodError(e)) {
    return json({ error: `invalid request: ${issues(e).map((i) => `${i.path || "body"}: ${i.message}`).join("; ")}`, code: "invalid", issues: issues(e) }, 422);
  }
  if (isEngineError(e)) {
    return json({ error: e.message, code: e.code, ...(e.details !== undefined ? { details: e.details } : {}) }, e.status);
  }
  console.error("[api] unexpected error", e);
  return json({ error: "internal error", code: "internal" }, 500);
}

/** Read a JSON body: 415 for a non-JSON content type, 413 when too large, 400 when malformed. */
export async function readJson(req: Request, { optional = false } = {}): Promise<unknown> {
  const type = req.headers.get("content-type") ?? "";
  const length = Number(req.headers.get("content-length") ?? "0");
  if (length > MAX_BODY_BYTES) throw new HttpError(`request body is larger than ${MAX_BODY_BYTES} bytes`, 413, "too_large");
  let text: string;
  try {
    text = await req.text();
  } catch {
    throw new HttpError("could not read the request body", 400, "bad_body");
  }
  if (Buffer.byteLength(text) > MAX_BODY_BYTES) throw new HttpError(`request body is larger than ${MAX_BODY_BYTES} bytes`, 413, "too_large");
  if (text.trim() === "") {
    if (optional) return undefined;
    throw new HttpError("request body is empty; send a JSON object", 400, "empty_body");
  }
  if (type && !/\bjson\b/i.test(type)) throw new HttpError(`content-type must be application/json (got ${type.split(";")[0]})`, 415, "unsupported_media_type");
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new HttpError(`malformed JSON: ${(e as Error).message}`, 400, "malformed_json");
  }
}

export function parse<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  return schema.parse(value);
}

export function query(req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of new URL(req.url).searchParams) out[k] = v;
  return out;
}

/** Wrap a handler so that every failure becomes a JSON error response. */
export function handler<A extends unknown[]>(fn: (...args: A) => Promise<Response>): (...args: A) => Promise<Response> {
  return async (...args: A) => {
    try {
      return await fn(...args);
    } catch (e) {
      return errorResponse(e);
    }
  };
}
