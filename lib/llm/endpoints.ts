// Model endpoints from the environment: endpoint 1 from the usual OPENAI_* variables, further
// endpoints (in fallback order) from SWITCHYARD_LLM_ENDPOINTS, an optional embeddings endpoint,
// and the retry knobs. Keys never leave this module unmasked except to build a client.
import { z } from "zod";
import type { DoublingRetry } from "../engine/retry";

export type Env = Record<string, string | undefined>;

export interface Endpoint {
  name: string;
  baseURL: string;
  /** "not-needed" when no key is configured (local servers) */
  apiKey: string;
  model: string;
  azure?: { apiVersion: string; deployment: string };
}

export interface LlmConfig {
  /** in fallback order; empty when no endpoint is configured */
  endpoints: Endpoint[];
  embeddings?: Endpoint;
  /** per attempt */
  timeoutMs: number;
  /** per endpoint: SWITCHYARD_LLM_MAX_RETRIES + 1 attempts, waits from SWITCHYARD_LLM_BACKOFF_MS (full jitter, capped) */
  retry: DoublingRetry;
}

/** no wait between model attempts is longer (a server asking for more: the next endpoint is tried) */
export const BACKOFF_CAP_MS = 30_000;

export interface EndpointInfo {
  name: string;
  baseURL: string;
  model: string;
  keySet: boolean;
  /** e.g. "sk-…abcd"; null when no key is set */
  maskedKey: string | null;
  azure?: { apiVersion: string; deployment: string };
}

export interface LlmConfigInfo {
  endpoints: EndpointInfo[];
  embeddings: EndpointInfo | null;
  timeoutMs: number;
  maxRetries: number;
  backoffMs: number;
}

export const NO_KEY = "not-needed";
export const DEFAULT_BASE_URL = "https://api.openai.com/v1";
export const DEFAULT_MODEL = "gpt-4o-mini";

const nonEmpty = z.string().trim().min(1);
const endpointSchema = z.strictObject({
  name: nonEmpty.optional(),
  baseURL: z.url({ protocol: /^https?$/ }),
  apiKey: nonEmpty.optional(),
  model: nonEmpty,
  azure: z.strictObject({ apiVersion: nonEmpty, deployment: nonEmpty }).optional(),
});
const endpointsSchema = z.array(endpointSchema);

function stripSlash(url: string): string {
  return url.replace(/\/+$/, "");
}

function intVar(env: Env, name: string, fallback: number, min: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer ≥ ${min}, got "${raw}"`);
  return n;
}

function urlVar(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  if (!z.url({ protocol: /^https?$/ }).safeParse(raw).success) throw new Error(`${name} is not an http(s) URL: "${raw}"`);
  return stripSlash(raw);
}

function parseExtraEndpoints(raw: string | undefined): z.infer<typeof endpointsSchema> {
  if (!raw?.trim()) return [];
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (e) {
    throw new Error(`SWITCHYARD_LLM_ENDPOINTS is not valid JSON: ${(e as Error).message}`);
  }
  const parsed = endpointsSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.length ? `[${i.path.join(".")}] ` : ""}${i.message}`);
    throw new Error(`SWITCHYARD_LLM_ENDPOINTS is invalid (expected an array of { name?, baseURL, apiKey?, model, azure? }): ${problems.join("; ")}`);
  }
  for (const [i, e] of parsed.data.entries()) {
    if (e.azure && !e.apiKey) throw new Error(`SWITCHYARD_LLM_ENDPOINTS is invalid: [${i}] an azure endpoint needs an apiKey`);
  }
  return parsed.data;
}

export function loadEndpoints(env: Env = process.env): LlmConfig {
  const endpoints: Endpoint[] = [];
  const key1 = env.OPENAI_API_KEY?.trim();
  const base1 = urlVar(env, "OPENAI_BASE_URL");
  const first: Endpoint | undefined =
    key1 || base1 ? { name: "endpoint 1", baseURL: base1 ?? DEFAULT_BASE_URL, apiKey: key1 || NO_KEY, model: env.OPENAI_MODEL?.trim() || DEFAULT_MODEL } : undefined;
  if (first) endpoints.push(first);
  for (const e of parseExtraEndpoints(env.SWITCHYARD_LLM_ENDPOINTS)) {
    endpoints.push({
      name: e.name ?? `endpoint ${endpoints.length + 1}`,
      baseURL: stripSlash(e.baseURL),
      apiKey: e.apiKey ?? NO_KEY,
      model: e.model,
      ...(e.azure ? { azure: e.azure } : {}),
    });
  }
  const names = endpoints.map((e) => e.name);
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup) throw new Error(`SWITCHYARD_LLM_ENDPOINTS is invalid: the endpoint name "${dup}" is used twice`);

  return {
    endpoints,
    embeddings: loadEmbeddings(env, first),
    timeoutMs: intVar(env, "SWITCHYARD_LLM_TIMEOUT_MS", 60_000, 1),
    retry: { maxAttempts: intVar(env, "SWITCHYARD_LLM_MAX_RETRIES", 2, 0) + 1, backoffMs: intVar(env, "SWITCHYARD_LLM_BACKOFF_MS", 500, 0), maxBackoffMs: BACKOFF_CAP_MS },
  };
}

function loadEmbeddings(env: Env, first: Endpoint | undefined): Endpoint | undefined {
  const model = env.SWITCHYARD_EMBEDDINGS_MODEL?.trim();
  if (!model) return undefined;
  const baseURL = urlVar(env, "SWITCHYARD_EMBEDDINGS_BASE_URL") ?? first?.baseURL;
  if (!baseURL) {
    throw new Error("SWITCHYARD_EMBEDDINGS_MODEL is set but there is no endpoint for it: set SWITCHYARD_EMBEDDINGS_BASE_URL, or OPENAI_API_KEY / OPENAI_BASE_URL");
  }
  // endpoint 1's key is only sent to endpoint 1's own host, never to a different embeddings server
  const apiKey = env.SWITCHYARD_EMBEDDINGS_API_KEY?.trim() || (first && baseURL === first.baseURL ? first.apiKey : NO_KEY);
  return { name: "embeddings", baseURL, apiKey, model };
}

export function maskKey(key: string): string | null {
  if (!key || key === NO_KEY) return null;
  // short keys would be mostly revealed by prefix + suffix
  return key.length >= 16 ? `${key.slice(0, 3)}…${key.slice(-4)}` : "…";
}

/** A base URL without any user:password part. */
function publicURL(url: string): string {
  const u = new URL(url);
  if (!u.username && !u.password) return url;
  u.username = "";
  u.password = "";
  return stripSlash(u.toString());
}

function describe(e: Endpoint): EndpointInfo {
  const maskedKey = maskKey(e.apiKey);
  return { name: e.name, baseURL: publicURL(e.baseURL), model: e.model, keySet: maskedKey !== null, maskedKey, ...(e.azure ? { azure: { ...e.azure } } : {}) };
}

/** What a settings page may show: never a key, only whether one is set and its masked form. */
export function describeEndpoints(config: LlmConfig): LlmConfigInfo {
  return {
    endpoints: config.endpoints.map(describe),
    embeddings: config.embeddings ? describe(config.embeddings) : null,
    timeoutMs: config.timeoutMs,
    // shown as set: SWITCHYARD_LLM_MAX_RETRIES, SWITCHYARD_LLM_BACKOFF_MS
    maxRetries: config.retry.maxAttempts - 1,
    backoffMs: config.retry.backoffMs,
  };
}
