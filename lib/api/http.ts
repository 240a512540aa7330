// HTTP plumbing for route handlers, on the Web Request/Response API only (no Next.js): JSON
// bodies with a size limit, zod validation, and errors mapped to 4xx with a message.
import { z } from "zod";
import { EngineError, StorageError, isEngineError, isStorageFailure, isZodError } from "../engine/errors";
import { assertSameOrigin } from "./csrf";
import type { Principal } from "../auth/accounts";
import { requestAccounts } from "../auth/request-accounts";
import { authEnabled, permits, requiredRole, type Role, type WORKER } from "../auth/roles";
import { routeTemplate, telemetryOn, traceRequest } from "../telemetry";

export class HttpError extends EngineError {}

export const MAX_BODY_BYTES = 1_000_000;

/**
 * How deep a JSON body may nest. JSON.parse takes any depth, but JSON.stringify, structuredClone
 * and other recursive code overflow the stack a few thousand levels down (a 500), so deeper
 * bodies are refused before they are parsed. No document of this API comes near it.
 */
export const MAX_JSON_DEPTH = 512;

/** Does JSON text nest arrays and objects deeper than `limit`? (brackets inside strings do not count) */
export function jsonTooDeep(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** JSON.parse for request bodies: 400 when nested deeper than MAX_JSON_DEPTH or malformed. */
export function parseJsonBody(text: string): unknown {
  if (jsonTooDeep(text)) throw new HttpError(`request body is nested deeper than ${MAX_JSON_DEPTH} levels`, 400, "too_deep");
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new HttpError(`malformed JSON: ${(e as Error).message}`, 400, "malformed_json");
  }
}

// a BigInt (an integer column read in safe-integers mode) cannot be written by JSON.stringify
const bigints = (_key: string, v: unknown) => (typeof v === "bigint" ? (v >= Number.MIN_SAFE_INTEGER && v <= Number.MAX_SAFE_INTEGER ? Number(v) : v.toString()) : v);

export function json(data: unknown, status = 200, headers: Record<string, string> = {}): Response {
  let text: string;
  try {
    text = JSON.stringify(data);
  } catch (e) {
    if (!(e instanceof TypeError && /BigInt/i.test(e.message))) throw e;
    text = JSON.stringify(data, bigints);
  }
  return new Response(text, { status, headers: { "content-type": "application/json; charset=utf-8", ...headers } });
}

function issues(e: { issues: { path: PropertyKey[]; message: string }[] }) {
  return e.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
}

export function errorResponse(e: unknown): Response {
  if (isZodError(e)) {
    return json({ error: `invalid request: ${issues(e).map((i) => `${i.path || "body"}: ${i.message}`).join("; ")}`, code: "invalid", issues: issues(e) }, 422);
  }
  if (!isEngineError(e) && isStorageFailure(e)) e = new StorageError(e);
  if (isEngineError(e)) {
    return json({ error: e.message, code: e.code, ...(e.details !== undefined ? { details: e.details } : {}) }, e.status, e.code === "storage_unavailable" ? { "retry-after": "2" } : {});
  }
  console.error("[api] unexpected error", e);
  return json({ error: "internal error", code: "internal" }, 500);
}

/** Read a JSON body: 415 for a non-JSON content type, 413 when too large, 400 when malformed or too deeply nested. */
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
  return parseJsonBody(text);
}

export function parse<T extends z.core.$ZodType>(schema: T, value: unknown): z.infer<T> {
  return z.parse(schema, value);
}

export function query(req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of new URL(req.url).searchParams) out[k] = v;
  return out;
}

/** Wrap a handler so that every failure becomes a JSON error response. */
const principals = new WeakMap<Request, Principal>();

/** The signed-in person or token behind a request (null with accounts off). */
export function principalOf(req: Request): Principal | null {
  return principals.get(req) ?? null;
}

/** The role a request needs, when the route says so itself (undefined: the table in lib/auth/roles.ts says). */
export type RoleOf = (req: Request) => Role | typeof WORKER | null | undefined;

/** With SWITCHYARD_AUTH=on: 401 without a session or token, 403 without the role the route needs. */
async function authorize(req: Request, roleOf?: RoleOf): Promise<void> {
  if (!authEnabled()) return;
  const path = new URL(req.url).pathname;
  const own = roleOf?.(req);
  const need = own === undefined ? requiredRole(req.method, path) : own;
  if (!need) return;
  const accounts = requestAccounts();
  if (!accounts) throw new HttpError("the server is starting: try again in a moment", 503, "starting");
  const who = await (await accounts).fromRequest(req.headers);
  if (!who) throw new HttpError("sign in, or send an API token (Authorization: Bearer sy_…)", 401, "unauthenticated");
  if (!permits(who.role, need)) throw new HttpError(`${req.method} ${path} needs the ${need} role; ${who.name} has ${who.role}`, 403, "forbidden");
  principals.set(req, who);
}

/** 400 for a path whose percent-encoding does not decode (`/api/runs/%c0%ae`: not UTF-8). */
export function assertDecodablePath(req: Request): void {
  const path = new URL(req.url).pathname;
  try {
    decodeURIComponent(path);
  } catch {
    throw new HttpError(`malformed percent-encoding in the path ${path.slice(0, 200)}: each %XX sequence must encode UTF-8`, 400, "bad_path");
  }
}

/** `roleOf`: the role a request needs when the route knows it (a workflow's endpoint declares its own). */
export function handler<A extends unknown[]>(fn: (...args: A) => Promise<Response>, { roleOf }: { roleOf?: RoleOf } = {}): (...args: A) => Promise<Response> {
  const handle = async (...args: A) => {
    try {
      if (args[0] instanceof Request) {
        assertDecodablePath(args[0]);
        assertSameOrigin(args[0]);
        await authorize(args[0], roleOf);
      }
      return await fn(...args);
    } catch (e) {
      return errorResponse(e);
    }
  };
  return async (...args: A) => {
    const req = args[0];
    if (!(req instanceof Request) || !telemetryOn()) return handle(...args);
    // with traces on (lib/telemetry): a span per request, named by its route ("/api/runs/{id}")
    let params: Record<string, string | string[]> | undefined;
    try {
      params = await (args[1] as { params?: Promise<Record<string, string | string[]>> } | undefined)?.params;
    } catch {
      params = undefined;
    }
    const path = new URL(req.url).pathname;
    return traceRequest(req, () => routeTemplate(path, params), () => handle(...args));
  };
}
