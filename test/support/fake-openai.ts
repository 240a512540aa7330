// A local OpenAI-compatible server for tests: real HTTP on 127.0.0.1, the real chat-completions
// protocol (JSON and server-sent events), embeddings and a model list. Each POST consumes the
// next scripted behaviour (or the default) and every request is recorded.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface Behaviour {
  /** the assistant's content; an object is sent as its JSON */
  reply?: string | object;
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
  /** forget the queue, the recorded requests and any changed default */
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

async function chat(res: ServerResponse, body: any, b: Behaviour, n: number) {
  const id = `chatcmpl-fake${n}`;
  const created = Math.floor(Date.now() / 1000);
  const model = body.model ?? "fake-model";
  const content = b.refusal !== undefined ? null : typeof b.reply === "object" ? JSON.stringify(b.reply) : (b.reply ?? "ok");
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
    if (b.cutStream) {
      // half a body, then the connection dies
      const text = JSON.stringify(reply);
      res.writeHead(200, { "content-type": "application/json", "content-length": String(text.length) });
      res.write(text.slice(0, text.length >> 1));
      setTimeout(() => res.socket?.destroy(), 10);
      return;
    }
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
  if (b.cutStream) {
    events.slice(0, Math.max(2, events.length >> 1)).forEach(send);
    res.end();
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
  json(res, 200, { object: "list", data, model: body.model ?? "fake-embed", ...(b.noUsage ? {} : { usage: { prompt_tokens, total_tokens: prompt_tokens } }) });
}

export async function start(defaultBehaviour: Behaviour = { reply: "ok" }): Promise<FakeOpenAi> {
  const queue: Behaviour[] = [];
  const requests: RecordedRequest[] = [];
  let fallback = defaultBehaviour;
  let count = 0;

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

    const b = queue.shift() ?? fallback;
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
    reset: () => {
      queue.length = 0;
      requests.length = 0;
      fallback = defaultBehaviour;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
