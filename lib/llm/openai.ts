// The OpenAI-compatible model port: chat completions (plain or streamed), structured output and
// embeddings against OpenAI, Azure OpenAI, Ollama, vLLM, LM Studio or llama.cpp servers. The SDK's
// own retries are off; this adapter classifies every failure (errors.ts), retries the retryable
// ones with backoff per endpoint, then falls back to the next endpoint.
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, AzureOpenAI } from "openai";
import { zodResponseFormat } from "openai/helpers/zod";
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { CompletionUsage } from "openai/resources/completions";
import { z } from "zod";
import { estimateTokens } from "../knowledge/text";
import { backoffMs, type RetryPolicy } from "../engine/retry";
import { BACKOFF_CAP_MS, type Endpoint, type LlmConfig } from "./endpoints";
import { type ErrorCategory, isModelError, ModelError, retryAfterMs } from "./errors";
import type { EmbedResult, GenerateRequest, GenerateResult, ModelPort, ModelRequest, ObjectRequest, ObjectResult, Passage, Usage } from "./types";

export { BACKOFF_CAP_MS };

export const OPENAI_ADAPTER = "openai-compatible";
export const EMBED_BATCH = 128;

export interface OpenAiModelOptions {
  /** how to wait between retries (tests inject a recorder) */
  sleep?: (ms: number) => Promise<void>;
  /** jitter source in [0, 1) */
  random?: () => number;
}

export interface ConnectionTest {
  ok: boolean;
  latencyMs: number;
  model: string;
  error?: string;
  category?: ErrorCategory;
}

interface Slot {
  endpoint: Endpoint;
  client: OpenAI;
}

/** One attempt against one endpoint: its client, a signal covering caller abort and timeout. */
interface Attempt extends Slot {
  signal: AbortSignal;
  /** restarts the per-attempt timer; streams call it per chunk, so a long but live stream is not cut */
  touch(): void;
}

interface Reply {
  text: string;
  usage?: Usage;
  model?: string;
}

type ChatParams = Omit<ChatCompletionCreateParamsNonStreaming, "model">;

/** Full jitter: a random delay in [0, the policy's wait before retry number `retry`). */
export function backoffDelay(policy: RetryPolicy, retry: number, random: () => number = Math.random): number {
  return Math.floor(random() * backoffMs(policy, retry));
}

function abortError(): Error {
  return Object.assign(new Error("the model call was aborted"), { name: "AbortError" });
}

function makeClient(e: Endpoint, timeout: number): OpenAI {
  const common = { apiKey: e.apiKey, maxRetries: 0, timeout };
  if (!e.azure) return new OpenAI({ ...common, baseURL: e.baseURL });
  // accept the bare resource URL (https://x.openai.azure.com) as well as one ending in /openai
  const baseURL = new URL(e.baseURL).pathname === "/" ? `${e.baseURL}/openai` : e.baseURL;
  return new AzureOpenAI({ ...common, baseURL, apiVersion: e.azure.apiVersion, deployment: e.azure.deployment });
}

// ---- classification ---------------------------------------------------------------------------

const CONTEXT_LIMIT = /context[_ ](?:length|window|size)|maximum context|too many tokens|prompt is too long/i;
const BUSINESS_CODES: Record<number, string> = { 400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found", 422: "unprocessable" };

/** The first `code` (ECONNREFUSED, UND_ERR_SOCKET, …) along an error's cause chain. */
function causeCode(e: unknown): string | undefined {
  for (let c = e, depth = 0; c && typeof c === "object" && depth < 5; c = (c as { cause?: unknown }).cause, depth++) {
    const code = (c as { code?: unknown }).code;
    if (typeof code === "string") return code;
  }
  return undefined;
}

function badResponse(endpoint: string, why: string, cause?: unknown): ModelError {
  return new ModelError(`${endpoint}: ${why}`, { category: "LLM", code: "bad_response", endpoint, cause });
}

function refused(endpoint: string, refusal?: string | null): ModelError {
  return new ModelError(`${endpoint}: the model refused${refusal ? `: ${refusal}` : " (content filter)"}`, { category: "BUSINESS", code: "refused", endpoint });
}

function fromApiError(e: APIError, endpoint: string): ModelError {
  const status = e.status;
  const code = String(e.code ?? e.type ?? "");
  const opts = { endpoint, status, cause: e };
  const msg = `${endpoint}: ${e.message}`;
  if (code === "insufficient_quota") return new ModelError(msg, { ...opts, category: "RESOURCE_LIMIT", code: "quota" });
  if (status === 429) return new ModelError(msg, { ...opts, category: "LLM", code: "rate_limited", retryAfterMs: retryAfterMs(e.headers) });
  if (status === 413) return new ModelError(msg, { ...opts, category: "RESOURCE_LIMIT", code: "too_large" });
  if ((status === 400 || status === undefined) && (code === "context_length_exceeded" || CONTEXT_LIMIT.test(e.message))) {
    return new ModelError(msg, { ...opts, category: "RESOURCE_LIMIT", code: "context_length" });
  }
  if (status === 408) return new ModelError(msg, { ...opts, category: "LLM", code: "timeout" });
  if (status !== undefined && status >= 500) return new ModelError(msg, { ...opts, category: "LLM", code: "server_error", retryAfterMs: retryAfterMs(e.headers) });
  if (status !== undefined && BUSINESS_CODES[status]) return new ModelError(msg, { ...opts, category: "BUSINESS", code: BUSINESS_CODES[status] });
  // no status: an error event inside a stream
  if (status === undefined) return new ModelError(msg, { ...opts, category: "LLM", code: "server_error" });
  return new ModelError(msg, { ...opts, category: "UNKNOWN", code: `http_${status}` });
}

export function classifyError(e: unknown, endpoint = "endpoint"): ModelError {
  if (isModelError(e)) return e;
  if (e instanceof APIConnectionTimeoutError) return new ModelError(`${endpoint}: request timed out`, { category: "LLM", code: "timeout", endpoint, cause: e });
  if (e instanceof APIConnectionError) {
    const code = causeCode(e);
    return new ModelError(`${endpoint}: cannot connect${code ? ` (${code})` : ""}`, { category: "NETWORK", code: "connection", endpoint, cause: e });
  }
  if (e instanceof APIError) return fromApiError(e, endpoint);
  if (e instanceof SyntaxError) return badResponse(endpoint, `unparseable reply (${e.message})`, e);
  // raised outside the SDK's connection handling: the body was being read when the connection died
  const code = causeCode(e);
  if (e instanceof TypeError && (e.message === "terminated" || code === "UND_ERR_SOCKET")) return badResponse(endpoint, "the connection closed mid-reply", e);
  if (e instanceof TypeError && /fetch failed/i.test(e.message)) return new ModelError(`${endpoint}: cannot connect${code ? ` (${code})` : ""}`, { category: "NETWORK", code: "connection", endpoint, cause: e });
  if (code && /^(ECONN|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EPIPE)/.test(code)) {
    return new ModelError(`${endpoint}: network error (${code})`, { category: "NETWORK", code: "connection", endpoint, cause: e });
  }
  return new ModelError(`${endpoint}: ${e instanceof Error ? e.message : String(e)}`, { category: "UNKNOWN", code: "unknown", endpoint, cause: e });
}

// ---- prompts, citations, usage ------------------------------------------------------------------

function userContent(req: ModelRequest): string {
  const passages = req.passages ?? [];
  if (!passages.length) return req.prompt;
  const context = passages.map((p, i) => `[${i + 1}] ${p.title}: ${p.text}`).join("\n\n");
  return `Context:\n${context}\n\nWhen you use the context, cite it by its number in square brackets, e.g. [1].\n\n${req.prompt}`;
}

function buildMessages(req: ModelRequest): ChatCompletionMessageParam[] {
  const messages: ChatCompletionMessageParam[] = [];
  if (req.system) messages.push({ role: "system", content: req.system });
  messages.push({ role: "user", content: userContent(req) });
  return messages;
}

/** Ids of the passages cited as [n] (or [n, m]) in `text`, in passage order. */
export function citationsOf(text: string, passages: Passage[] = []): string[] {
  const cited = new Set<number>();
  for (const m of text.matchAll(/\[(\d+(?:\s*,\s*\d+)*)\]/g)) {
    for (const n of m[1].split(",")) {
      const i = Number(n) - 1;
      if (i >= 0 && i < passages.length) cited.add(i);
    }
  }
  return [...cited].sort((a, b) => a - b).map((i) => passages[i].id);
}

function usageOf(u: CompletionUsage | null | undefined): Usage | undefined {
  if (!u || typeof u.prompt_tokens !== "number") return undefined;
  return { promptTokens: u.prompt_tokens, completionTokens: u.completion_tokens ?? 0, estimated: false };
}

function estimate(messages: ChatCompletionMessageParam[], text: string): Usage {
  const prompt = messages.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? ""))).join("\n");
  return { promptTokens: estimateTokens(prompt), completionTokens: estimateTokens(text), estimated: true };
}

/** JSON out of a reply; local models sometimes wrap it in a ``` fence despite the schema. */
function unfence(text: string): string {
  const m = text.trim().match(/^```(?:json)?\s*([\s\S]*?)\s*```$/);
  return m ? m[1] : text.trim();
}

function validate<T>(text: string, schema: z.core.$ZodType<T>): { ok: true; value: T } | { ok: false; error: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `the reply is not JSON (${(e as Error).message})` };
  }
  const parsed = z.safeParse(schema, json);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, error: z.prettifyError(parsed.error) };
}

// ---- the adapter --------------------------------------------------------------------------------

/**
 * The response_format for a schema: strict structured outputs when the schema allows them (every
 * field required), otherwise a non-strict JSON schema (optional fields, defaults), otherwise plain
 * JSON mode. The reply is validated with zod either way.
 */
export function responseFormat(schema: z.core.$ZodType, name: string): ChatParams["response_format"] {
  try {
    // zodResponseFormat's type asks for a classic schema (every one here is: z.object …); another goes to the fallback below
    if (schema instanceof z.ZodType) return zodResponseFormat(schema, name);
    throw new Error("not a classic zod schema");
  } catch {
    try {
      return { type: "json_schema", json_schema: { name, strict: false, schema: z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown> } };
    } catch {
      return { type: "json_object" };
    }
  }
}

export class OpenAiModel implements ModelPort {
  readonly name = OPENAI_ADAPTER;
  readonly offline = false;
  /** present only when an embeddings endpoint is configured */
  readonly embed?: (texts: string[], signal?: AbortSignal) => Promise<EmbedResult>;

  private readonly slots: Slot[];
  private readonly embedSlot?: Slot;

  get model(): string | undefined {
    return this.slots[0]?.endpoint.model;
  }

  get embeddingsModel(): string | undefined {
    return this.embedSlot?.endpoint.model;
  }
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;

  constructor(
    private readonly config: LlmConfig,
    opts: OpenAiModelOptions = {},
  ) {
    this.slots = config.endpoints.map((endpoint) => ({ endpoint, client: makeClient(endpoint, config.timeoutMs) }));
    const emb = config.embeddings;
    if (emb) {
      this.embedSlot = { endpoint: emb, client: makeClient(emb, config.timeoutMs) };
      this.embed = (texts, signal) => this.embedAll(texts, signal);
    }
    this.sleep = opts.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.random = opts.random ?? Math.random;
  }

  async generate(req: GenerateRequest): Promise<GenerateResult> {
    const started = performance.now();
    const tally = { attempts: 0 };
    const messages = buildMessages(req);
    const params: ChatParams = { messages, ...sampling(req) };
    const onText = req.onText;
    const { value, endpoint } = await this.withRetries(this.slots, req.signal, tally, (a) => (onText ? this.streamChat(a, params, onText) : this.chat(a, params)));
    return {
      text: value.text,
      adapter: `${endpoint.model} @ ${endpoint.name}`,
      usage: value.usage ?? estimate(messages, value.text),
      latencyMs: Math.round(performance.now() - started),
      citations: citationsOf(value.text, req.passages),
      attempts: tally.attempts,
    };
  }

  /**
   * A validated object. Each exchange is the request plus one repair round (the model sees its
   * own reply and what was wrong with it). A reply still invalid after the repair is an LLM error:
   * the exchange is retried from scratch after a backoff while the retry policy allows, and then the
   * classified error (invalid_output, no longer retryable) goes to the workflow, which asks a person.
   */
  async generateObject<T>(req: ObjectRequest<T>): Promise<ObjectResult<T>> {
    const started = performance.now();
    const tally = { attempts: 0 };
    const usage: Usage = { promptTokens: 0, completionTokens: 0, estimated: false };
    for (let exchange = 0; ; exchange++) {
      try {
        const out = await this.exchange(req, tally, usage);
        return { ...out, latencyMs: Math.round(performance.now() - started), attempts: tally.attempts };
      } catch (e) {
        if (!isModelError(e) || e.code !== "invalid_output" || exchange + 1 >= this.config.retry.maxAttempts) throw e;
        await this.pause(backoffDelay(this.config.retry, exchange, this.random), req.signal);
      }
    }
  }

  private async exchange<T>(req: ObjectRequest<T>, tally: { attempts: number }, usage: Usage): Promise<Omit<ObjectResult<T>, "latencyMs">> {
    const format = responseFormat(req.schema, req.schemaName);
    const messages = buildMessages(req);
    for (let round = 0; ; round++) {
      const params: ChatParams = { messages: [...messages], ...sampling(req), response_format: format };
      const { value, endpoint } = await this.withRetries(this.slots, req.signal, tally, (a) => this.chat(a, params));
      const u = value.usage ?? estimate(messages, value.text);
      usage.promptTokens += u.promptTokens;
      usage.completionTokens += u.completionTokens;
      usage.estimated ||= u.estimated;
      const text = unfence(value.text);
      const checked = validate(text, req.schema);
      if (checked.ok) {
        req.onText?.(text);
        return { object: checked.value, text, adapter: `${endpoint.model} @ ${endpoint.name}`, usage: { ...usage }, citations: citationsOf(text, req.passages), attempts: tally.attempts };
      }
      if (round >= 1) {
        throw new ModelError(`${endpoint.name}: the reply does not match "${req.schemaName}" after a repair attempt: ${checked.error}`, {
          category: "LLM",
          code: "invalid_output",
          retryable: false,
          endpoint: endpoint.name,
          attempts: tally.attempts,
        });
      }
      messages.push(
        { role: "assistant", content: value.text },
        { role: "user", content: `That reply is not valid: ${checked.error}\nReply again with only the corrected JSON object for "${req.schemaName}".` },
      );
    }
  }

  /** A tiny request (max_tokens 1, or one embedding) without retries, for a settings page. */
  async testConnection(endpointName: string): Promise<ConnectionTest> {
    const slot = [...this.slots, ...(this.embedSlot ? [this.embedSlot] : [])].find((s) => s.endpoint.name === endpointName);
    if (!slot) return { ok: false, latencyMs: 0, model: "", error: `no endpoint named "${endpointName}"`, category: "BUSINESS" };
    const started = performance.now();
    try {
      const value: Reply =
        slot === this.embedSlot
          ? await this.attempt(slot, undefined, async (a) => ({ text: "", model: (await this.embedBatch(a, ["ping"])).model }))
          : await this.attempt(slot, undefined, (a) => this.chat(a, { messages: [{ role: "user", content: "ping" }], max_tokens: 1 }));
      return { ok: true, latencyMs: Math.round(performance.now() - started), model: value.model || slot.endpoint.model };
    } catch (e) {
      const err = classifyError(e, endpointName);
      return { ok: false, latencyMs: Math.round(performance.now() - started), model: slot.endpoint.model, error: err.message, category: err.category };
    }
  }

  // ---- requests -------------------------------------------------------------------------------

  private async chat(a: Attempt, params: ChatParams): Promise<Reply> {
    const completion: unknown = await a.client.chat.completions.create({ ...params, model: a.endpoint.model }, { signal: a.signal });
    const choice = (completion as Partial<ChatCompletion> | null)?.choices?.[0];
    // a proxy's HTML page arrives as a string; a foreign JSON body has no choices
    if (!choice?.message) throw badResponse(a.endpoint.name, "the reply is not a chat completion");
    if (choice.message.refusal || choice.finish_reason === "content_filter") throw refused(a.endpoint.name, choice.message.refusal);
    const c = completion as ChatCompletion;
    return { text: choice.message.content ?? "", usage: usageOf(c.usage), model: c.model };
  }

  private async streamChat(a: Attempt, params: ChatParams, onText: (chunk: string) => void): Promise<Reply> {
    const stream = await a.client.chat.completions.create(
      { ...params, model: a.endpoint.model, stream: true, stream_options: { include_usage: true } },
      { signal: a.signal },
    );
    let text = "";
    let refusal = "";
    let finish: string | null = null;
    let usage: Usage | undefined;
    let model: string | undefined;
    for await (const chunk of stream) {
      a.touch();
      usage = usageOf(chunk.usage) ?? usage;
      model ??= chunk.model;
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      if (choice.delta?.refusal) refusal += choice.delta.refusal;
      const piece = choice.delta?.content;
      if (piece) {
        text += piece;
        onText(piece);
      }
      if (choice.finish_reason) finish = choice.finish_reason;
    }
    // the SDK ends an aborted stream quietly
    a.signal.throwIfAborted();
    if (refusal || finish === "content_filter") throw refused(a.endpoint.name, refusal);
    if (!finish) throw badResponse(a.endpoint.name, "the stream ended before the reply was complete");
    return { text, usage, model };
  }

  private async embedAll(texts: string[], signal?: AbortSignal): Promise<EmbedResult> {
    const slot = this.embedSlot!;
    const started = performance.now();
    const tally = { attempts: 0 };
    const vectors: number[][] = [];
    let promptTokens = 0;
    let estimated = false;
    for (let i = 0; i < texts.length; i += EMBED_BATCH) {
      const batch = texts.slice(i, i + EMBED_BATCH);
      const { value } = await this.withRetries([slot], signal, tally, (a) => this.embedBatch(a, batch));
      vectors.push(...value.vectors);
      if (value.promptTokens === undefined) {
        estimated = true;
        promptTokens += batch.reduce((n, t) => n + estimateTokens(t), 0);
      } else promptTokens += value.promptTokens;
    }
    return {
      vectors,
      adapter: `${slot.endpoint.model} @ ${slot.endpoint.name}`,
      usage: { promptTokens, completionTokens: 0, estimated },
      latencyMs: Math.round(performance.now() - started),
    };
  }

  private async embedBatch(a: Attempt, input: string[]): Promise<{ vectors: number[][]; promptTokens?: number; model?: string }> {
    // float explicitly: without it the SDK asks for base64 and would mis-decode servers that ignore that
    const res: unknown = await a.client.embeddings.create({ model: a.endpoint.model, input, encoding_format: "float" }, { signal: a.signal });
    const body = res as { data?: { index?: number; embedding?: unknown }[]; usage?: { prompt_tokens?: number }; model?: string } | null;
    const data = body?.data;
    if (!Array.isArray(data) || data.length !== input.length || !data.every((d) => Array.isArray(d?.embedding))) {
      throw badResponse(a.endpoint.name, `expected ${input.length} embeddings`);
    }
    const ordered = [...data].sort((x, y) => (x.index ?? 0) - (y.index ?? 0));
    return { vectors: ordered.map((d) => d.embedding as number[]), promptTokens: body?.usage?.prompt_tokens, model: body?.model };
  }

  // ---- retries --------------------------------------------------------------------------------

  private async withRetries<T>(slots: Slot[], signal: AbortSignal | undefined, tally: { attempts: number }, op: (a: Attempt) => Promise<T>): Promise<{ value: T; endpoint: Endpoint }> {
    let last: ModelError | undefined;
    for (const slot of slots) {
      for (let retry = 0; ; retry++) {
        if (signal?.aborted) throw abortError();
        tally.attempts++;
        try {
          return { value: await this.attempt(slot, signal, op), endpoint: slot.endpoint };
        } catch (e) {
          if (!isModelError(e)) throw e; // the caller's abort
          e.attempts = tally.attempts;
          // BUSINESS, RESOURCE_LIMIT, UNKNOWN would fail the same way anywhere: no retry, no fallback
          if (!e.retryable) throw e;
          last = e;
          if (retry + 1 >= this.config.retry.maxAttempts) break;
          // a server asking for a long wait: try the next endpoint instead of blocking the run
          if (e.retryAfterMs !== undefined && e.retryAfterMs > BACKOFF_CAP_MS) break;
          await this.pause(e.retryAfterMs ?? backoffDelay(this.config.retry, retry, this.random), signal);
        }
      }
    }
    throw last ?? new ModelError("no model endpoint is configured", { category: "BUSINESS", code: "not_configured", attempts: tally.attempts });
  }

  private async attempt<T>(slot: Slot, signal: AbortSignal | undefined, op: (a: Attempt) => Promise<T>): Promise<T> {
    const timer = new AbortController();
    let handle: ReturnType<typeof setTimeout> | undefined;
    const touch = () => {
      clearTimeout(handle);
      handle = setTimeout(() => timer.abort(), this.config.timeoutMs);
    };
    touch();
    try {
      return await op({ ...slot, signal: signal ? AbortSignal.any([signal, timer.signal]) : timer.signal, touch });
    } catch (e) {
      if (signal?.aborted) throw abortError();
      const name = slot.endpoint.name;
      if (timer.signal.aborted) throw new ModelError(`${name}: no reply within ${this.config.timeoutMs} ms`, { category: "LLM", code: "timeout", endpoint: name, cause: e });
      throw classifyError(e, name);
    } finally {
      clearTimeout(handle);
    }
  }

  /** The injected sleep, cut short by the caller's abort. */
  private pause(ms: number, signal?: AbortSignal): Promise<void> {
    if (!signal) return this.sleep(ms);
    if (signal.aborted) return Promise.reject(abortError());
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(abortError());
      signal.addEventListener("abort", onAbort, { once: true });
      this.sleep(ms).then(
        () => {
          signal.removeEventListener("abort", onAbort);
          resolve();
        },
        (e) => {
          signal.removeEventListener("abort", onAbort);
          reject(e);
        },
      );
    });
  }
}

function sampling(req: ModelRequest): Pick<ChatParams, "max_tokens" | "temperature"> {
  return { ...(req.maxTokens !== undefined ? { max_tokens: req.maxTokens } : {}), ...(req.temperature !== undefined ? { temperature: req.temperature } : {}) };
}
