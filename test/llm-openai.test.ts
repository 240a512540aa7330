// The OpenAI-compatible adapter against a local fake server speaking the real protocol.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { describeEndpoints, loadEndpoints, type LlmConfig } from "../lib/llm/endpoints";
import { isModelError, type ModelError } from "../lib/llm/errors";
import { BACKOFF_CAP_MS, backoffDelay, OpenAiModel, type OpenAiModelOptions } from "../lib/llm/openai";
import { type FakeOpenAi, start } from "./support/fake-openai";

let a: FakeOpenAi;
let b: FakeOpenAi;
let closedPort: number;
let sleeps: number[];

beforeAll(async () => {
  [a, b] = await Promise.all([start(), start()]);
  // a port that was just free: nothing listens there, so connecting is refused
  const s = createServer().listen(0, "127.0.0.1");
  await new Promise((r) => s.once("listening", r));
  closedPort = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
});
afterAll(async () => {
  await Promise.all([a.close(), b.close()]);
});
beforeEach(() => {
  a.reset();
  b.reset();
  sleeps = [];
});

function config(env: Record<string, string> = {}): LlmConfig {
  return loadEndpoints({ OPENAI_BASE_URL: a.url, OPENAI_MODEL: "fake-model", SWITCHYARD_LLM_BACKOFF_MS: "100", ...env });
}
const twoEndpoints = (env: Record<string, string> = {}) => config({ SWITCHYARD_LLM_ENDPOINTS: JSON.stringify([{ baseURL: b.url, model: "fake-b" }]), ...env });

function model(cfg: LlmConfig = config(), opts: OpenAiModelOptions = {}) {
  return new OpenAiModel(cfg, {
    sleep: async (ms) => void sleeps.push(ms),
    random: () => 0.5,
    ...opts,
  });
}

async function failure(p: Promise<unknown>): Promise<ModelError> {
  const e = await p.then(
    () => {
      throw new Error("expected a failure");
    },
    (e: unknown) => e,
  );
  if (!isModelError(e)) throw e;
  return e;
}

const req = { purpose: "test", prompt: "Say hello." };

describe("generate", () => {
  it("returns a plain reply with the server's usage and the adapter label", async () => {
    a.script({ reply: "Hello there." });
    const out = await model().generate({ ...req, system: "Be brief." });
    expect(out.text).toBe("Hello there.");
    expect(out.adapter).toBe("fake-model @ endpoint 1");
    expect(out.usage.estimated).toBe(false);
    expect(out.usage.promptTokens).toBeGreaterThan(0);
    expect(out.usage.completionTokens).toBe(3);
    expect(out.attempts).toBe(1);
    expect(out.latencyMs).toBeGreaterThanOrEqual(0);
    const sent = a.requests[0];
    expect(sent.path).toBe("/v1/chat/completions");
    expect(sent.headers.authorization).toBe("Bearer not-needed");
    expect(sent.body.stream).toBeUndefined();
    expect(sent.body.model).toBe("fake-model");
    expect(sent.body.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Say hello." },
    ]);
  });

  it("estimates usage when the server reports none", async () => {
    a.script({ reply: "Twelve chars", noUsage: true });
    const out = await model().generate(req);
    expect(out.usage).toEqual({ promptTokens: 3, completionTokens: 3, estimated: true });
  });

  it("streams deltas in order and reports the usage chunk", async () => {
    a.script({ reply: "one two three four" });
    const chunks: string[] = [];
    const out = await model().generate({ ...req, onText: (c) => chunks.push(c) });
    expect(chunks).toEqual(["one ", "two ", "three ", "four"]);
    expect(out.text).toBe("one two three four");
    expect(out.usage.estimated).toBe(false);
    expect(out.usage.completionTokens).toBe(5);
    expect(a.requests[0].body.stream).toBe(true);
    expect(a.requests[0].body.stream_options).toEqual({ include_usage: true });
  });

  it("gives passages as numbered context and cites the [n] the reply uses", async () => {
    a.script({ reply: "Retry with backoff [1], add jitter [3, 1]; ignore [7]." });
    const passages = [
      { id: "p:backoff", title: "Backoff", text: "Wait longer each time." },
      { id: "p:unused", title: "Unused", text: "Nothing." },
      { id: "p:jitter", title: "Jitter", text: "Randomise the wait." },
    ];
    const out = await model().generate({ ...req, passages });
    expect(out.citations).toEqual(["p:backoff", "p:jitter"]);
    const user = a.requests[0].body.messages.at(-1).content as string;
    expect(user).toContain("[1] Backoff: Wait longer each time.");
    expect(user).toContain("[3] Jitter: Randomise the wait.");
    expect(user).toMatch(/cite/i);
    expect(user.endsWith("Say hello.")).toBe(true);
  });

  it("passes maxTokens and temperature through", async () => {
    await model().generate({ ...req, maxTokens: 50, temperature: 0.2 });
    expect(a.requests[0].body).toMatchObject({ max_tokens: 50, temperature: 0.2 });
  });
});

describe("retries and fallback", () => {
  it("429 with Retry-After 2: waits exactly 2000 ms, then succeeds", async () => {
    a.script({ status: 429, retryAfter: 2 }, { reply: "after the wait" });
    const out = await model().generate(req);
    expect(out.text).toBe("after the wait");
    expect(sleeps).toEqual([2000]);
    expect(out.attempts).toBe(2);
  });

  it("honours retry-after-ms too", async () => {
    a.script({ status: 429, retryAfterMs: 750 });
    await model().generate(req);
    expect(sleeps).toEqual([750]);
  });

  it("500: retries with growing backoff, then falls back to endpoint 2", async () => {
    a.setDefault({ status: 500 });
    b.script({ reply: "from b" });
    const out = await model(twoEndpoints()).generate(req);
    expect(out.text).toBe("from b");
    expect(out.adapter).toBe("fake-b @ endpoint 2");
    expect(a.requests).toHaveLength(3); // 1 + maxRetries 2
    expect(b.requests).toHaveLength(1);
    expect(sleeps).toEqual([50, 100]); // random 0.5 × 100 × 2^n
    expect(out.attempts).toBe(4);
  });

  it("full jitter stays within [0, base·2^n) and is capped at 30 s", async () => {
    a.setDefault({ status: 503 });
    const err = await failure(model(config({ SWITCHYARD_LLM_MAX_RETRIES: "5" }), { random: Math.random }).generate(req));
    expect(err.code).toBe("server_error");
    expect(sleeps).toHaveLength(5);
    sleeps.forEach((ms, n) => {
      expect(ms).toBeGreaterThanOrEqual(0);
      expect(ms).toBeLessThan(100 * 2 ** n);
    });
    const retry = { maxAttempts: 31, backoffMs: 500, maxBackoffMs: BACKOFF_CAP_MS };
    expect(backoffDelay(retry, 30, () => 0.999999)).toBeLessThan(BACKOFF_CAP_MS);
    expect(backoffDelay(retry, 30, () => 0.999999)).toBeGreaterThanOrEqual(BACKOFF_CAP_MS - 1);
  });

  it("when every endpoint fails, the error carries the total attempts", async () => {
    a.setDefault({ status: 500 });
    b.setDefault({ status: 502 });
    const err = await failure(model(twoEndpoints()).generate(req));
    expect(err.category).toBe("LLM");
    expect(err.endpoint).toBe("endpoint 2");
    expect(err.attempts).toBe(6);
    expect(sleeps).toHaveLength(4);
  });

  it("400 fails at once with BUSINESS: no retry, no fallback", async () => {
    a.script({ status: 400, message: "messages: bad role" });
    const err = await failure(model(twoEndpoints()).generate(req));
    expect(err).toMatchObject({ category: "BUSINESS", code: "bad_request", status: 400, retryable: false, attempts: 1 });
    expect(err.message).toContain("bad role");
    expect(sleeps).toEqual([]);
    expect(b.requests).toHaveLength(0);
  });

  it("401, 404 and 422 are BUSINESS too", async () => {
    for (const [status, code] of [
      [401, "unauthorized"],
      [404, "not_found"],
      [422, "unprocessable"],
    ] as const) {
      a.script({ status });
      expect(await failure(model().generate(req))).toMatchObject({ category: "BUSINESS", code, attempts: 1 });
    }
  });

  it("context length, 413 and insufficient_quota are RESOURCE_LIMIT, not tried on endpoint 2", async () => {
    a.script(
      { status: 400, message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.", code: "context_length_exceeded" },
      { status: 413, message: "payload too large" },
      { status: 429, message: "You exceeded your current quota", code: "insufficient_quota" },
      { status: 400, message: "the request exceeds the available context size, try increasing it" }, // llama.cpp wording
    );
    const m = model(twoEndpoints());
    expect(await failure(m.generate(req))).toMatchObject({ category: "RESOURCE_LIMIT", code: "context_length", attempts: 1 });
    expect(await failure(m.generate(req))).toMatchObject({ category: "RESOURCE_LIMIT", code: "too_large" });
    expect(await failure(m.generate(req))).toMatchObject({ category: "RESOURCE_LIMIT", code: "quota" });
    expect(await failure(m.generate(req))).toMatchObject({ category: "RESOURCE_LIMIT", code: "context_length" });
    expect(b.requests).toHaveLength(0);
    expect(sleeps).toEqual([]);
  });

  it("a garbage body is LLM bad_response and is retried", async () => {
    a.script({ garbage: true });
    const out = await model().generate(req);
    expect(out.text).toBe("ok");
    expect(out.attempts).toBe(2);
    expect(sleeps).toEqual([50]);
    a.script({ garbage: true });
    const err = await failure(model(config({ SWITCHYARD_LLM_MAX_RETRIES: "0" })).generate(req));
    expect(err).toMatchObject({ category: "LLM", code: "bad_response", retryable: true });
  });

  it("a reply slower than the per-attempt timeout is LLM timeout, and is retried", async () => {
    const cfg = config({ SWITCHYARD_LLM_TIMEOUT_MS: "150" });
    a.script({ delayMs: 1000, reply: "too late" }, { reply: "in time" });
    const out = await model(cfg).generate(req);
    expect(out.text).toBe("in time");
    expect(out.attempts).toBe(2);
    a.setDefault({ delayMs: 1000 });
    const err = await failure(model({ ...cfg, retry: { ...cfg.retry, maxAttempts: 2 } }).generate(req));
    expect(err).toMatchObject({ category: "LLM", code: "timeout", attempts: 2 });
  });

  it("for streams the timeout restarts per chunk: a long but live stream is not cut, a silent one is", async () => {
    // wide margins, so that a busy machine's pauses do not decide it: 40 chunks 50 ms apart (~2 s in
    // all, longer than the timeout) against a 1.5 s timeout per chunk
    const m = model(config({ SWITCHYARD_LLM_TIMEOUT_MS: "1500", SWITCHYARD_LLM_MAX_RETRIES: "0" }));
    const reply = Array.from({ length: 40 }, (_, i) => `w${i}`).join(" ");
    a.script({ reply, chunkDelayMs: 50 });
    expect((await m.generate({ ...req, onText: () => {} })).text).toBe(reply);
    a.script({ hang: true });
    expect(await failure(m.generate({ ...req, onText: () => {} }))).toMatchObject({ category: "LLM", code: "timeout" });
  });

  it("a refusal is BUSINESS refused, never retried (plain, streamed, content filter)", async () => {
    a.script({ refusal: "I can't help with that." }, { refusal: "No." }, { reply: "", finishReason: "content_filter" });
    const m = model(twoEndpoints());
    const plain = await failure(m.generate(req));
    expect(plain).toMatchObject({ category: "BUSINESS", code: "refused", attempts: 1 });
    expect(plain.message).toContain("I can't help with that.");
    expect(await failure(m.generate({ ...req, onText: () => {} }))).toMatchObject({ category: "BUSINESS", code: "refused" });
    expect(await failure(m.generate(req))).toMatchObject({ category: "BUSINESS", code: "refused" });
    expect(sleeps).toEqual([]);
    expect(b.requests).toHaveLength(0);
  });

  it("a stream cut before [DONE] is LLM bad_response; a retry then succeeds", async () => {
    a.script({ cutStream: true, reply: "one two three four five six" });
    const err = await failure(model(config({ SWITCHYARD_LLM_MAX_RETRIES: "0" })).generate({ ...req, onText: () => {} }));
    expect(err).toMatchObject({ category: "LLM", code: "bad_response" });
    a.script({ cutStream: true, reply: "one two three four" }, { reply: "whole" });
    const out = await model().generate({ ...req, onText: () => {} });
    expect(out.text).toBe("whole");
    expect(out.attempts).toBe(2);
  });

  it("a plain body cut mid-way is LLM bad_response", async () => {
    a.script({ cutStream: true, reply: "x".repeat(2000) });
    const err = await failure(model(config({ SWITCHYARD_LLM_MAX_RETRIES: "0" })).generate(req));
    expect(err).toMatchObject({ category: "LLM", code: "bad_response" });
  });

  it("connection refused is NETWORK, retried, then falls back", async () => {
    const cfg = loadEndpoints({
      OPENAI_BASE_URL: `http://127.0.0.1:${closedPort}/v1`,
      SWITCHYARD_LLM_ENDPOINTS: JSON.stringify([{ name: "local b", baseURL: b.url, model: "fake-b" }]),
    });
    const out = await model(cfg).generate(req);
    expect(out.adapter).toBe("fake-b @ local b");
    expect(out.attempts).toBe(4);
    const err = await failure(model({ ...cfg, endpoints: cfg.endpoints.slice(0, 1) }).generate(req));
    expect(err).toMatchObject({ category: "NETWORK", code: "connection", attempts: 3 });
    expect(err.message).toContain("ECONNREFUSED");
  });

  it("the caller's abort stops a hanging request without retrying", async () => {
    a.script({ hang: true });
    const ctrl = new AbortController();
    const call = model(twoEndpoints()).generate({ ...req, signal: ctrl.signal }).catch((e: Error) => e);
    // aborted once the request hangs at the endpoint (one that did not stop would hang the test until vitest's timeout)
    await vi.waitFor(() => expect(a.requests).toHaveLength(1));
    ctrl.abort();
    const e = await call;
    expect((e as Error).name).toBe("AbortError");
    expect(a.requests).toHaveLength(1);
    expect(b.requests).toHaveLength(0);
    expect(sleeps).toEqual([]);
  });

  it("an abort during the backoff wait stops too", async () => {
    a.script({ status: 500 });
    const ctrl = new AbortController();
    const m = model(twoEndpoints(), { sleep: () => (ctrl.abort(), new Promise(() => {})) });
    const e = await m.generate({ ...req, signal: ctrl.signal }).catch((e: Error) => e);
    expect((e as Error).name).toBe("AbortError");
    expect(a.requests).toHaveLength(1);
    expect(b.requests).toHaveLength(0);
  });
});

describe("generateObject", () => {
  const Plan = z.object({ title: z.string(), steps: z.array(z.string()) });
  const objReq = { ...req, schema: Plan, schemaName: "plan", offline: () => ({ title: "", steps: [] }) };

  it("returns a validated object, sending the zod schema as json_schema", async () => {
    a.script({ reply: { title: "Greet", steps: ["wave", "smile"] } });
    const texts: string[] = [];
    const out = await model().generateObject({ ...objReq, onText: (t) => texts.push(t) });
    expect(out.object).toEqual({ title: "Greet", steps: ["wave", "smile"] });
    expect(JSON.parse(out.text)).toEqual(out.object);
    expect(texts).toEqual([out.text]);
    const format = a.requests[0].body.response_format;
    expect(format.type).toBe("json_schema");
    expect(format.json_schema).toMatchObject({ name: "plan", strict: true });
    expect(format.json_schema.schema.required).toEqual(["title", "steps"]);
  });

  it("a schema strict structured outputs cannot express (optional fields, defaults) goes as a non-strict json_schema", async () => {
    const Loose = z.object({ title: z.string(), note: z.string().optional(), tags: z.array(z.string()).default([]) });
    a.script({ reply: { title: "Greet" } });
    const out = await model().generateObject({ ...req, schema: Loose, schemaName: "loose", offline: () => ({ title: "", tags: [] }) });
    expect(out.object).toEqual({ title: "Greet", tags: [] });
    const format = a.requests[0].body.response_format;
    expect(format).toMatchObject({ type: "json_schema", json_schema: { name: "loose", strict: false } });
    expect(format.json_schema.schema.properties.note).toEqual({ type: "string" });
    expect(format.json_schema.schema.required).toEqual(["title"]);
  });

  it("repairs once: the second request carries the validation error", async () => {
    a.script({ reply: { title: 5, steps: ["a"] } }, { reply: { title: "Fixed", steps: ["a"] } });
    const out = await model().generateObject(objReq);
    expect(out.object.title).toBe("Fixed");
    expect(out.attempts).toBe(2);
    const second = a.requests[1].body.messages;
    expect(second).toHaveLength(3);
    expect(second[1]).toEqual({ role: "assistant", content: '{"title":5,"steps":["a"]}' });
    expect(second[2].content).toContain("title");
    expect(second[2].content).toMatch(/expected string/i);
    expect(sleeps).toEqual([]);
  });

  it("a reply that is not JSON gets the parse error and a second chance", async () => {
    a.script({ reply: "Sure! Here is the plan: title Greet" }, { reply: "```json\n{\"title\":\"Greet\",\"steps\":[]}\n```" });
    const out = await model().generateObject(objReq);
    expect(out.object).toEqual({ title: "Greet", steps: [] });
    expect(a.requests[1].body.messages.at(-1).content).toMatch(/not JSON/);
  });

  it("malformed after the repair: the exchange is retried with backoff, then LLM invalid_output (retries spent)", async () => {
    a.setDefault({ reply: { title: 5 } });
    const two = twoEndpoints();
    const cfg = { ...two, retry: { ...two.retry, maxAttempts: 3 } };
    const err = await failure(model(cfg).generateObject(objReq));
    // three exchanges (the first and two retries) of request + repair each, all on endpoint a
    expect(err).toMatchObject({ category: "LLM", code: "invalid_output", retryable: false, attempts: 6 });
    expect(a.requests).toHaveLength(6);
    expect(b.requests).toHaveLength(0);
    expect(sleeps).toHaveLength(2);
  });

  it("a retried exchange that then validates returns the object", async () => {
    a.script({ reply: { title: 5 } }, { reply: { title: 6 } }, { reply: { title: "Ok", steps: [] } });
    const one = config();
    const out = await model({ ...one, retry: { ...one.retry, maxAttempts: 2 } }).generateObject(objReq);
    expect(out.object).toEqual({ title: "Ok", steps: [] });
    expect(a.requests).toHaveLength(3);
    // the retry starts over: no repair messages carried over
    expect(a.requests[2].body.messages.at(-1).role).toBe("user");
    expect(a.requests[2].body.messages).toHaveLength(a.requests[0].body.messages.length);
    expect(sleeps).toHaveLength(1);
  });

  it("a refusal is BUSINESS refused", async () => {
    a.script({ refusal: "I won't plan that." });
    expect(await failure(model().generateObject(objReq))).toMatchObject({ category: "BUSINESS", code: "refused", attempts: 1 });
  });
});

describe("embeddings", () => {
  it("embeds in batches of at most 128, in order, as floats", async () => {
    const m = model(config({ SWITCHYARD_EMBEDDINGS_MODEL: "fake-embed" }));
    const texts = Array.from({ length: 300 }, (_, i) => `text number ${i}`);
    const out = await m.embed!(texts);
    expect(out.vectors).toHaveLength(300);
    expect(out.adapter).toBe("fake-embed @ embeddings");
    expect(a.requests.map((r) => r.body.input.length)).toEqual([128, 128, 44]);
    expect(a.requests.every((r) => r.path === "/v1/embeddings" && r.body.encoding_format === "float")).toBe(true);
    const single = await m.embed!(["text number 299"]);
    expect(out.vectors[299]).toEqual(single.vectors[0]);
    expect(out.usage.estimated).toBe(false);
    expect(out.usage.promptTokens).toBeGreaterThan(0);
  });

  it("retries embeddings like completions", async () => {
    a.script({ status: 429, retryAfter: 1 });
    const out = await model(config({ SWITCHYARD_EMBEDDINGS_MODEL: "fake-embed" })).embed!(["a"]);
    expect(out.vectors).toHaveLength(1);
    expect(sleeps).toEqual([1000]);
  });

  it("has no embed when no embeddings model is configured", () => {
    expect(model().embed).toBeUndefined();
  });
});

describe("testConnection and Azure", () => {
  it("reports ok with latency, or the classified error", async () => {
    const cfg = loadEndpoints({
      OPENAI_BASE_URL: a.url,
      SWITCHYARD_LLM_ENDPOINTS: JSON.stringify([{ name: "down", baseURL: `http://127.0.0.1:${closedPort}/v1`, model: "m" }]),
    });
    const m = model(cfg);
    const ok = await m.testConnection("endpoint 1");
    expect(ok).toMatchObject({ ok: true, model: "gpt-4o-mini" });
    expect(a.requests[0].body.max_tokens).toBe(1);
    const down = await m.testConnection("down");
    expect(down).toMatchObject({ ok: false, category: "NETWORK" });
    expect(down.error).toContain("ECONNREFUSED");
    expect(await m.testConnection("nope")).toMatchObject({ ok: false });
  });

  it("talks to Azure deployments with api-version and the api-key header", async () => {
    const cfg = loadEndpoints({
      SWITCHYARD_LLM_ENDPOINTS: JSON.stringify([
        { name: "azure", baseURL: a.origin, apiKey: "azure-secret-key-123456", model: "gpt-4o", azure: { apiVersion: "2024-10-21", deployment: "dep1" } },
      ]),
    });
    const out = await model(cfg).generate(req);
    expect(out.adapter).toBe("gpt-4o @ azure");
    expect(a.requests[0].path).toBe("/openai/deployments/dep1/chat/completions?api-version=2024-10-21");
    expect(a.requests[0].headers["api-key"]).toBe("azure-secret-key-123456");
  });
});

describe("configuration", () => {
  it("reads endpoint 1, SWITCHYARD_LLM_ENDPOINTS in order, embeddings and knobs", () => {
    const cfg = loadEndpoints({
      OPENAI_API_KEY: "sk-proj-abcdefghijklmnop1234",
      SWITCHYARD_LLM_ENDPOINTS: JSON.stringify([
        { baseURL: "http://localhost:11434/v1/", model: "llama3.1" },
        { name: "vllm", baseURL: "http://gpu:8000/v1", apiKey: "token-abcdefghijklmnop", model: "qwen" },
      ]),
      SWITCHYARD_EMBEDDINGS_MODEL: "text-embedding-3-small",
      SWITCHYARD_LLM_TIMEOUT_MS: "5000",
      SWITCHYARD_LLM_MAX_RETRIES: "0",
    });
    expect(cfg.endpoints).toEqual([
      { name: "endpoint 1", baseURL: "https://api.openai.com/v1", apiKey: "sk-proj-abcdefghijklmnop1234", model: "gpt-4o-mini" },
      { name: "endpoint 2", baseURL: "http://localhost:11434/v1", apiKey: "not-needed", model: "llama3.1" },
      { name: "vllm", baseURL: "http://gpu:8000/v1", apiKey: "token-abcdefghijklmnop", model: "qwen" },
    ]);
    expect(cfg.embeddings).toEqual({ name: "embeddings", baseURL: "https://api.openai.com/v1", apiKey: "sk-proj-abcdefghijklmnop1234", model: "text-embedding-3-small" });
    expect(cfg).toMatchObject({ timeoutMs: 5000, retry: { maxAttempts: 1, backoffMs: 500 } });
  });

  it("has no endpoints without configuration, and defaults the knobs", () => {
    expect(loadEndpoints({})).toEqual({ endpoints: [], embeddings: undefined, timeoutMs: 60_000, retry: { maxAttempts: 3, backoffMs: 500, maxBackoffMs: 30_000 } });
  });

  it("never sends endpoint 1's key to a different embeddings host", () => {
    const cfg = loadEndpoints({ OPENAI_API_KEY: "sk-secret-abcdefghijkl", SWITCHYARD_EMBEDDINGS_MODEL: "nomic", SWITCHYARD_EMBEDDINGS_BASE_URL: "http://localhost:11434/v1" });
    expect(cfg.embeddings).toMatchObject({ baseURL: "http://localhost:11434/v1", apiKey: "not-needed" });
  });

  it("rejects malformed SWITCHYARD_LLM_ENDPOINTS with a clear message", () => {
    const load = (v: string) => () => loadEndpoints({ SWITCHYARD_LLM_ENDPOINTS: v });
    expect(load("[{ baseURL: ")).toThrow(/SWITCHYARD_LLM_ENDPOINTS is not valid JSON/);
    expect(load('{"baseURL":"http://x","model":"m"}')).toThrow(/SWITCHYARD_LLM_ENDPOINTS is invalid.*expected array/);
    expect(load('[{"model":"m"}]')).toThrow(/SWITCHYARD_LLM_ENDPOINTS is invalid.*\[0\.baseURL\]/);
    expect(load('[{"baseURL":"not a url","model":"m"}]')).toThrow(/\[0\.baseURL\].*URL/i);
    expect(load('[{"baseURL":"http://x","model":"m","azure":{"apiVersion":"v","deployment":"d"}}]')).toThrow(/azure endpoint needs an apiKey/);
    expect(load('[{"name":"a","baseURL":"http://x","model":"m"},{"name":"a","baseURL":"http://y","model":"m"}]')).toThrow(/"a" is used twice/);
    expect(() => loadEndpoints({ SWITCHYARD_LLM_MAX_RETRIES: "-1" })).toThrow(/SWITCHYARD_LLM_MAX_RETRIES/);
    expect(() => loadEndpoints({ OPENAI_BASE_URL: "localhost:1234" })).toThrow(/OPENAI_BASE_URL/);
  });

  it("describeEndpoints masks keys and never contains them", () => {
    const keys = ["sk-proj-abcdefghijklmnopabcd", "token-vllm-zyxwvutsrq9876", "embed-key-1234567890qrst", "short-key"];
    const cfg = loadEndpoints({
      OPENAI_API_KEY: keys[0],
      SWITCHYARD_LLM_ENDPOINTS: JSON.stringify([
        { name: "vllm", baseURL: "http://user:pw-secret@gpu:8000/v1", apiKey: keys[1], model: "qwen" },
        { name: "short", baseURL: "http://h/v1", apiKey: keys[3], model: "m" },
        { name: "ollama", baseURL: "http://localhost:11434/v1", model: "llama3.1" },
      ]),
      SWITCHYARD_EMBEDDINGS_MODEL: "e",
      SWITCHYARD_EMBEDDINGS_API_KEY: keys[2],
    });
    const info = describeEndpoints(cfg);
    const shown = JSON.stringify(info);
    for (const k of keys) expect(shown).not.toContain(k);
    expect(shown).not.toContain("pw-secret");
    expect(info.endpoints[0]).toEqual({ name: "endpoint 1", baseURL: "https://api.openai.com/v1", model: "gpt-4o-mini", keySet: true, maskedKey: "sk-…abcd" });
    expect(info.endpoints[1]).toMatchObject({ keySet: true, maskedKey: "tok…9876", baseURL: "http://gpu:8000/v1" });
    expect(info.endpoints[2]).toMatchObject({ keySet: true, maskedKey: "…" });
    expect(info.endpoints[3]).toMatchObject({ keySet: false, maskedKey: null });
    expect(info.embeddings).toMatchObject({ keySet: true, maskedKey: "emb…qrst" });
  });
});
