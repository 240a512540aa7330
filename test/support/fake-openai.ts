// A local OpenAI-compatible server for tests: real HTTP on 127.0.0.1, the real chat-completions
// protocol (JSON and server-sent events), embeddings and a model list. Each POST consumes the
// next scripted behaviour (or the default) and every request is recorded. An optional chaos mode
// fails a seeded random share of POSTs in every way a model endpoint fails (429 with and without
// Retry-After, 500/503, hangs, cut streams, garbage) and counts what it injected.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll } from "vitest";
import { loadEndpoints } from "../../lib/llm/endpoints";
import { OpenAiModel } from "../../lib/llm/openai";

export interface Behaviour {
  /** the assistant's content; an object is sent as its JSON; a function computes it from the request body */
  reply?: string | object | ((body: any) => string | object);
  /** an error status with OpenAI's error body */
  status?: number;
  message?: string;
  /** error.code in the body, e.g. "context_length_exceeded" */
  code?: string;
  /** Retry-After header, seconds */
  retryAfter?: number;
  /** retry-after-ms header */
  retryAfterMs?: number;
  /** 200 with a body that is not JSON */
  garbage?: boolean;
  /** wait before answering */
  delayMs?: number;
  /** streams: wait between events */
  chunkDelayMs?: number;
  refusal?: string;
  /** a stream (or body) that stops half-way, without [DONE] */
  cutStream?: boolean;
  /** never answer */
  hang?: boolean;
  /** send part of the reply (half the stream's events, or half the body), then go silent with the connection open */
  stall?: boolean;
  /** leave usage out of the reply (default: included) */
  noUsage?: boolean;
  finishReason?: string;
}

export interface RecordedRequest {
  method: string;
  /** path with query */
  path: string;
  headers: IncomingMessage["headers"];
  body: any;
}

/** The faults chaos mode injects. */
export const FAULT_KINDS = ["rate_limit", "rate_limit_retry_after", "server_500", "server_503", "hang", "stall", "cut_stream", "garbage"] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface Chaos {
  /** the share of POSTs that fail, in [0, 1]: round(rate × 20) of every 20 POSTs, at random positions */
  rate: number;
  /** seeds the random draws: the same seed gives the same sequence of faults, POST by POST */
  seed: number;
  /** the faults to draw from (default: all of FAULT_KINDS), from a shuffled bag so each comes about as often */
  kinds?: readonly FaultKind[];
  /** the Retry-After of rate_limit_retry_after, in seconds (default 1) */
  retryAfterS?: number;
}

const CHAOS_BLOCK = 20;

/** What chaos mode did: POSTs seen and faults injected by kind. */
export interface ChaosStats {
  posts: number;
  failed: number;
  byKind: Record<FaultKind, number>;
}

/** mulberry32: a small seeded PRNG in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function faultBehaviour(kind: FaultKind, chaos: Chaos, normal: Behaviour): Behaviour {
  switch (kind) {
    case "rate_limit":
      return { status: 429, message: "Rate limit reached (chaos)" };
    case "rate_limit_retry_after":
      return { status: 429, message: "Rate limit reached (chaos)", retryAfter: chaos.retryAfterS ?? 1 };
    case "server_500":
      return { status: 500, message: "upstream exploded (chaos)" };
    case "server_503":
      return { status: 503, message: "overloaded (chaos)" };
    case "hang":
      return { hang: true };
    case "stall":
      return { ...normal, stall: true, chunkDelayMs: undefined, delayMs: undefined };
    case "cut_stream":
      return { ...normal, cutStream: true, chunkDelayMs: undefined, delayMs: undefined };
    case "garbage":
      return { garbage: true };
  }
}

export interface FakeOpenAi {
  /** base URL for a client, ending in /v1 */
  url: string;
  /** the origin, for Azure-style paths */
  origin: string;
  port: number;
  requests: RecordedRequest[];
  /** queue behaviours, consumed one per POST */
  script(...behaviours: Behaviour[]): void;
  setDefault(b: Behaviour): void;
  /** fail a random share of POSTs (before the queue: a faulted POST leaves the queue as it is); null turns it off */
  chaos(c: Chaos | null): void;
  /** what chaos mode injected since it was set (or since reset) */
  chaosStats(): ChaosStats;
  /** forget the queue, the recorded requests, chaos mode and any changed default */
  reset(): void;
  close(): Promise<void>;
}

const tokensOf = (s: string) => Math.max(1, Math.ceil(s.length / 4));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = "";
    req.setEncoding("utf8");
    req.on("data", (c) => (data += c));
    req.on("end", () => resolve(data));
    req.on("error", reject);
  });
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/** A small deterministic vector per text. */
function vectorOf(text: string): number[] {
  const v = Array.from({ length: 8 }, () => 0);
  for (let i = 0; i < text.length; i++) v[i % 8] += text.charCodeAt(i) / 1000;
  return v.map((x) => Math.round(x * 1000) / 1000);
}

function errorReply(res: ServerResponse, b: Behaviour) {
  const status = b.status!;
  const headers: Record<string, string> = {};
  if (b.retryAfter !== undefined) headers["retry-after"] = String(b.retryAfter);
  if (b.retryAfterMs !== undefined) headers["retry-after-ms"] = String(b.retryAfterMs);
  const type = status === 429 ? "requests" : status >= 500 ? "server_error" : "invalid_request_error";
  json(res, status, { error: { message: b.message ?? `fake error ${status}`, type, param: null, code: b.code ?? null } }, headers);
}

/** Half a JSON body; then the connection dies (cut) or stays open in silence (stall). */
function halfBody(res: ServerResponse, text: string, cut: boolean) {
  res.writeHead(200, { "content-type": "application/json", "content-length": String(text.length) });
  res.write(text.slice(0, text.length >> 1));
  if (cut) setTimeout(() => res.socket?.destroy(), 10);
}

async function chat(res: ServerResponse, body: any, b: Behaviour, n: number) {
  const id = `chatcmpl-fake${n}`;
  const created = Math.floor(Date.now() / 1000);
  const model = body.model ?? "fake-model";
  const given: string | object | undefined = typeof b.reply === "function" ? b.reply(body) : b.reply;
  const content: string | null = b.refusal !== undefined ? null : typeof given === "object" ? JSON.stringify(given) : (given ?? "ok");
  const prompt = JSON.stringify(body.messages ?? []);
  const usage = { prompt_tokens: tokensOf(prompt), completion_tokens: tokensOf(content ?? b.refusal ?? ""), total_tokens: 0 };
  usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
  const finish = b.finishReason ?? "stop";

  if (!body.stream) {
    const reply = {
      id,
      object: "chat.completion",
      created,
      model,
      system_fingerprint: "fp_fake",
      choices: [{ index: 0, message: { role: "assistant", content, refusal: b.refusal ?? null }, logprobs: null, finish_reason: finish }],
      ...(b.noUsage ? {} : { usage }),
    };
    if (b.cutStream || b.stall) return halfBody(res, JSON.stringify(reply), !!b.cutStream);
    return json(res, 200, reply);
  }

  const withUsage = body.stream_options?.include_usage === true && !b.noUsage;
  const chunk = (delta: object, finish_reason: string | null) => ({
    id,
    object: "chat.completion.chunk",
    created,
    model,
    system_fingerprint: "fp_fake",
    choices: [{ index: 0, delta, logprobs: null, finish_reason }],
    ...(withUsage ? { usage: null } : {}),
  });
  const field = b.refusal !== undefined ? "refusal" : "content";
  const pieces = (b.refusal ?? content ?? "").split(/(?<= )/);
  const events: object[] = [chunk({ role: "assistant", content: "", refusal: null }, null), ...pieces.map((p) => chunk({ [field]: p }, null))];
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  const send = (e: object | string) => res.write(`data: ${typeof e === "string" ? e : JSON.stringify(e)}\n\n`);
  if (b.cutStream || b.stall) {
    events.slice(0, Math.max(2, events.length >> 1)).forEach(send);
    if (b.cutStream) res.end();
    return;
  }
  for (const e of events) {
    if (b.chunkDelayMs) await sleep(b.chunkDelayMs);
    if (res.destroyed) return;
    send(e);
  }
  send(chunk({}, finish));
  if (withUsage) send({ id, object: "chat.completion.chunk", created, model, system_fingerprint: "fp_fake", choices: [], usage });
  send("[DONE]");
  res.end();
}

function embeddings(res: ServerResponse, body: any, b: Behaviour) {
  const input: string[] = Array.isArray(body.input) ? body.input : [body.input];
  const data = input.map((text, index) => {
    const v = vectorOf(String(text));
    const embedding = body.encoding_format === "base64" ? Buffer.from(new Float32Array(v).buffer).toString("base64") : v;
    return { object: "embedding", index, embedding };
  });
  const prompt_tokens = input.reduce((n, t) => n + tokensOf(String(t)), 0);
  const reply = { object: "list", data, model: body.model ?? "fake-embed", ...(b.noUsage ? {} : { usage: { prompt_tokens, total_tokens: prompt_tokens } }) };
  if (b.cutStream || b.stall) return halfBody(res, JSON.stringify(reply), !!b.cutStream);
  json(res, 200, reply);
}

export async function start(defaultBehaviour: Behaviour = { reply: "ok" }): Promise<FakeOpenAi> {
  const queue: Behaviour[] = [];
  const requests: RecordedRequest[] = [];
  let fallback = defaultBehaviour;
  let count = 0;
  let chaos: { spec: Chaos; random: () => number; stats: ChaosStats; block: boolean[]; bag: FaultKind[] } | null = null;
  const emptyStats = (): ChaosStats => ({ posts: 0, failed: 0, byKind: Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number> });
  const shuffled = <T>(xs: T[], random: () => number): T[] => {
    for (let i = xs.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [xs[i], xs[j]] = [xs[j]!, xs[i]!];
    }
    return xs;
  };
  /** a fault for this POST, when chaos mode draws one: blocks of 20 POSTs with a fixed number of faults each */
  const drawFault = (normal: Behaviour): Behaviour | null => {
    if (!chaos) return null;
    const c = chaos;
    c.stats.posts++;
    if (!c.block.length) {
      const faults = Math.round(Math.min(1, Math.max(0, c.spec.rate)) * CHAOS_BLOCK);
      c.block = shuffled(Array.from({ length: CHAOS_BLOCK }, (_, i) => i < faults), c.random);
    }
    if (!c.block.shift()) return null;
    if (!c.bag.length) c.bag = shuffled([...(c.spec.kinds?.length ? c.spec.kinds : FAULT_KINDS)], c.random);
    const kind = c.bag.shift()!;
    c.stats.failed++;
    c.stats.byKind[kind]++;
    return faultBehaviour(kind, c.spec, normal);
  };

  const server = createServer(async (req, res) => {
    const raw = await readBody(req);
    let body: unknown = null;
    try {
      body = raw ? JSON.parse(raw) : null;
    } catch {
      body = raw;
    }
    const path = req.url ?? "/";
    requests.push({ method: req.method ?? "GET", path, headers: req.headers, body });
    const route = path.split("?")[0];

    if (req.method === "GET" && route.endsWith("/models")) {
      return json(res, 200, { object: "list", data: [{ id: "fake-model", object: "model", created: 0, owned_by: "fake" }] });
    }
    const isChat = route.endsWith("/chat/completions");
    if (req.method !== "POST" || (!isChat && !route.endsWith("/embeddings"))) {
      return json(res, 404, { error: { message: `no route ${req.method} ${route}`, type: "invalid_request_error", param: null, code: null } });
    }

    const fault = drawFault(queue[0] ?? fallback);
    const b = fault ?? queue.shift() ?? fallback;
    count++;
    if (b.hang) return; // the socket stays open until the client gives up or the server closes
    if (b.delayMs) await sleep(b.delayMs);
    if (res.destroyed) return;
    if (b.status) return errorReply(res, b);
    if (b.garbage) {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end("<html><body>502 Bad Gateway</body></html>{not json");
    }
    return isChat ? chat(res, body, b, count) : embeddings(res, body, b);
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}/v1`,
    origin,
    port,
    requests,
    script: (...bs) => void queue.push(...bs),
    setDefault: (b) => void (fallback = b),
    chaos: (c) => void (chaos = c ? { spec: c, random: seededRandom(c.seed), stats: emptyStats(), block: [], bag: [] } : null),
    chaosStats: () => (chaos ? structuredClone(chaos.stats) : emptyStats()),
    reset: () => {
      queue.length = 0;
      requests.length = 0;
      fallback = defaultBehaviour;
      chaos = null;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * One fake endpoint for a test file: started before its tests, closed after them; after each
 * test `afterEach` runs (close the test's runtime there) and the fake forgets its script, its
 * recorded requests and any changed default. The returned object stands for the started server.
 */
export function useFakeOpenAi(opts: { afterEach?: () => Promise<void> | void } = {}): FakeOpenAi {
  let server: FakeOpenAi | null = null;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(async () => {
    await server?.close();
  });
  afterEach(async () => {
    await opts.afterEach?.();
    server?.reset();
  });
  return new Proxy({} as FakeOpenAi, {
    get(_target, prop) {
      if (!server) throw new Error("the fake OpenAI server is started in beforeAll: use it inside a test");
      const value = (server as unknown as Record<string | symbol, unknown>)[prop];
      return typeof value === "function" ? value.bind(server) : value;
    },
  });
}

/** The OpenAI adapter pointed at a fake: model "fake-1", 1 ms backoff, sleeps skipped (or recorded); `env` overrides. */
export function fakeModel(fake: FakeOpenAi, env: Record<string, string> = {}, sleep: (ms: number) => Promise<void> = async () => {}): OpenAiModel {
  return new OpenAiModel(loadEndpoints({ OPENAI_BASE_URL: fake.url, OPENAI_MODEL: "fake-1", SWITCHYARD_LLM_BACKOFF_MS: "1", ...env }), { sleep });
}
