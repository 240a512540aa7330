// One attempt of an http step (lib/steps/effects.ts runs the attempts and the retry). Secrets are
// filled into header values here, from the parts the definition's own template made (lib/steps/
// template.ts renderHeader), and nothing that leaves this file holds one: a header value that
// cannot be sent is reported by its name only, and every error message and reply is scrubbed of
// the secrets this call used. The reply is read as a stream and given up past `max_bytes`; an
// attempt that has no answer within HTTP_TIMEOUT_MS is a retryable NETWORK error.
import type { EffectContext } from "../engine/engine";
import { StepError } from "./errors";
import { HTTP_DEFAULT_MAX_BYTES, HTTP_TIMEOUT_MS } from "./http-limits";
import type { HeaderPart } from "./template";
import { traceHttp } from "../telemetry";

/** A header value of an effect's input: parts (text and secrets by name), or plain text. */
export type HeaderValue = string | HeaderPart[];

export interface HttpCall {
  url: string;
  method: string;
  headers: Record<string, HeaderValue>;
  body?: unknown;
  /** the step's http.max_bytes */
  maxBytes?: number;
}

export interface HttpPorts {
  fetch: typeof globalThis.fetch;
  secret: (name: string) => string | undefined;
  /** SWITCHYARD_HTTP_MAX_BYTES */
  maxBytes: number;
}

/** Why a header value (already trimmed as fetch trims it) cannot be sent, in words that do not quote it. */
function unsendable(v: string): string | null {
  if (/[\r\n]/.test(v)) return "it holds a line break";
  if (v.includes("\0")) return "it holds a NUL character";
  if (/[^\u0000-\u00ff]/.test(v)) return "it holds a character outside Latin-1";
  return null;
}

/** Replace every secret value in `s` by `[secret NAME]`. */
function redact(s: string, used: Map<string, string>): string {
  for (const [name, value] of used) if (value) s = s.split(value).join(`[secret ${name}]`);
  return s;
}

function redactJson(v: unknown, used: Map<string, string>): unknown {
  if (typeof v === "string") return redact(v, used);
  if (Array.isArray(v)) return v.map((x) => redactJson(x, used));
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [redact(k, used), redactJson(x, used)]));
  return v;
}

/**
 * The headers to send, and the secrets they use (name → value). A missing secret, or a value
 * fetch would refuse (CR, LF, NUL, a character outside Latin-1), is a BUSINESS error that names
 * the header only: the value may hold a secret, and the error is stored and shown.
 */
export function sendHeaders(call: HttpCall, key: string, secret: (name: string) => string | undefined): { headers: Record<string, string>; used: Map<string, string> } {
  const headers: Record<string, string> = { "idempotency-key": key };
  const used = new Map<string, string>();
  for (const [name, raw] of Object.entries(call.headers)) {
    // a plain string is text as it stands (an effect input stored before header parts existed)
    const parts: HeaderPart[] = typeof raw === "string" ? [raw] : raw;
    let value = "";
    for (const p of parts) {
      if (typeof p === "string") {
        value += p;
        continue;
      }
      const v = secret(p.secret);
      if (v === undefined) throw new StepError(`secret ${p.secret} is not set (set SWITCHYARD_SECRET_${p.secret} in the environment)`, "BUSINESS", false);
      used.set(p.secret, v);
      value += v;
    }
    value = value.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, "");
    const why = unsendable(value);
    if (why) throw new StepError(`${call.method} ${call.url}: header ${name} is not a valid HTTP header value (${why}); nothing was sent`, "BUSINESS", false);
    headers[name.toLowerCase()] = value;
  }
  return { headers, used };
}

/** Read a body up to `limit` bytes: the text read, and whether there was more. */
async function readCapped(res: Response, limit: number): Promise<{ text: string; over: boolean }> {
  const declared = Number(res.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > limit) {
    await res.body?.cancel().catch(() => {});
    return { text: "", over: true };
  }
  if (!res.body) return { text: "", over: false };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > limit) {
      chunks.push(value.subarray(0, limit - size));
      await reader.cancel().catch(() => {});
      return { text: Buffer.concat(chunks).toString("utf8"), over: true };
    }
    chunks.push(value);
    size += value.byteLength;
  }
  return { text: Buffer.concat(chunks).toString("utf8"), over: false };
}

/** One attempt: send, read the reply (capped, within HTTP_TIMEOUT_MS), and say what it was. */
export async function httpAttempt(call: HttpCall, ctx: EffectContext, ports: HttpPorts, sent: { headers: Record<string, string>; used: Map<string, string> }, resend = 0): Promise<{ output: unknown; by: string }> {
  const limit = Math.min(call.maxBytes ?? HTTP_DEFAULT_MAX_BYTES, ports.maxBytes);
  const what = `${call.method} ${call.url}`;
  const abort = new AbortController();
  const cancelled = () => abort.abort(ctx.signal.reason);
  if (ctx.signal.aborted) cancelled();
  else ctx.signal.addEventListener("abort", cancelled, { once: true });
  let timedOut = false;
  const timer = ctx.clock.setTimeout(() => {
    timedOut = true;
    abort.abort(new Error("timed out"));
  }, HTTP_TIMEOUT_MS);
  try {
    const hasBody = call.body !== undefined && call.method !== "GET";
    const headers = { ...sent.headers, ...(hasBody && !sent.headers["content-type"] ? { "content-type": "application/json" } : {}) };
    let res: Response;
    try {
      // with traces on, a client span whose traceparent goes with the request (lib/telemetry)
      res = await traceHttp({ method: call.method, url: call.url, resend }, (trace) =>
        ports.fetch(call.url, { method: call.method, headers: { ...trace, ...headers }, body: hasBody ? JSON.stringify(call.body) : undefined, signal: abort.signal, redirect: "manual" }),
      );
    } catch (e) {
      if (timedOut) throw new StepError(`${what}: no answer within ${HTTP_TIMEOUT_MS / 1000} s`, "NETWORK", true);
      const blocked = (e as { code?: string }).code === "EBLOCKED";
      throw new StepError(`${what}: ${(e as Error).message}`, blocked ? "BUSINESS" : "NETWORK", !blocked);
    }
    let body: { text: string; over: boolean };
    try {
      body = await readCapped(res, res.ok ? limit : Math.min(limit, 64 * 1024));
    } catch (e) {
      if (timedOut) throw new StepError(`${what}: the reply did not finish within ${HTTP_TIMEOUT_MS / 1000} s`, "NETWORK", true);
      throw new StepError(`${what}: reading the reply failed: ${(e as Error).message}`, "NETWORK", true);
    }
    if (!res.ok) {
      const retryable = res.status >= 500 || res.status === 429 || res.status === 408;
      throw new StepError(`${what} answered ${res.status}${body.text ? `: ${body.text.slice(0, 300)}` : ""}`, retryable ? "NETWORK" : "BUSINESS", retryable);
    }
    if (body.over) throw new StepError(`${what}: the reply is larger than ${limit} bytes (http.max_bytes; no step reads more than SWITCHYARD_HTTP_MAX_BYTES)`, "RESOURCE_LIMIT", false);
    let output: unknown = body.text;
    if ((res.headers.get("content-type") ?? "").includes("json") && body.text) {
      try {
        output = JSON.parse(body.text);
      } catch {
        throw new StepError(`${what}: the reply says JSON but is not`, "BUSINESS", false);
      }
    }
    return { output: redactJson(output, sent.used), by: `http ${res.status}` };
  } catch (e) {
    if (e instanceof Error) e.message = redact(e.message, sent.used);
    throw e;
  } finally {
    ctx.clock.clearTimeout(timer);
    ctx.signal.removeEventListener("abort", cancelled);
  }
}
