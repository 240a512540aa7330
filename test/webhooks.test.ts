// Outgoing webhooks (lib/hooks/webhooks.ts): swiss-army runs on SQLite with a simulated clock
// post their hook events to a local receiver. Signatures, event filters, retries with backoff
// (durable across a restart), permanent failures, and the /api/webhooks routes' validation.
import dns from "node:dns";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { migrateDatabase } from "../lib/db/migrations";
import { ManualClock } from "../lib/engine/clock";
import { hookEvents } from "../lib/engine/hooks";
import { blockedAddress, guardedLookup } from "../lib/hooks/egress";
import { matchesEvent, signBody, verifySignature, type DeliveryView, type WebhookPayload } from "../lib/hooks/webhooks";
import { createRuntime, type Runtime } from "../lib/runtime";
import { inState, tempDbUrl } from "./helpers";

const T0 = Date.UTC(2026, 0, 1);
const SECRET = "s3cret-s3cret-s3cret-XY";
const REQUEST = "Write a TypeScript function that retries a fetch with exponential backoff and jitter";

// ------------------------------------------------------------------ a local receiver

type Answer = "ok" | "hang" | 400 | 408 | 429 | 500;
interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: WebhookPayload;
}

class Receiver {
  requests: Received[] = [];
  /** answers for the next requests, in order; "ok" (200) once used up */
  plan: Answer[] = [];
  url = "";
  private server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      this.requests.push({ path: req.url ?? "", headers: req.headers, body, json: JSON.parse(body) as WebhookPayload });
      const answer = this.plan.shift() ?? "ok";
      if (answer === "hang") return; // never answers: the attempt times out
      res.writeHead(answer === "ok" ? 200 : answer, { "content-type": "text/plain" }).end(answer === "ok" ? "thanks" : `no (${answer})`);
    });
  });

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  at(path: string): Received[] {
    return this.requests.filter((r) => r.path === path);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

// ------------------------------------------------------------------ runtimes

type Rt = Runtime & { clock: ManualClock };
const open: { close(): Promise<void> }[] = [];
/** what the dispatchers logged (kept out of the test output; checked for secrets) */
const logged: string[] = [];

/** test/helpers' workflowRuntime, plus the webhook settings (tiny backoff, short timeout). */
async function hookRuntime(opts: { url?: string; clock?: ManualClock; backoffMs?: number[]; timeoutMs?: number; start?: boolean } = {}): Promise<Rt> {
  const rt = await createRuntime({
    url: opts.url ?? tempDbUrl("webhooks"),
    clock: opts.clock ?? new ManualClock(T0),
    env: {} as NodeJS.ProcessEnv,
    migrate: migrateDatabase,
    serviceChoresMs: 0,
    seedGuide: false,
    webhooks: {
      backoffMs: opts.backoffMs ?? [20, 40, 80],
      // generous: a busy machine's slow answer must not look like a receiver that hangs
      timeoutMs: opts.timeoutMs ?? 10_000,
      pollMs: 10,
      start: opts.start,
      log: (level, message, data) => void logged.push(`${level} ${message} ${data === undefined ? "" : JSON.stringify(data)}`),
    },
  });
  open.push(rt);
  return rt as Rt;
}

async function receiver(): Promise<Receiver> {
  const r = await new Receiver().start();
  open.push(r);
  return r;
}

afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

afterAll(() => {
  // failures were logged (500s, 400, a timeout), never with the secret
  expect(logged.some((l) => l.includes("HTTP 500"))).toBe(true);
  expect(logged.some((l) => l.includes("timed out after 1500 ms"))).toBe(true);
  for (const l of logged) expect(l).not.toContain("s3cret");
});

/** A swiss-army run driven to HUMAN_REVIEW (six state changes), its hook deliveries written and first attempts made. */
async function runToReview(rt: Rt): Promise<string> {
  const { run } = await rt.engine.start("swiss-army", { request: REQUEST });
  await rt.engine.waitFor(run.id, inState("HUMAN_REVIEW"));
  await rt.webhooks.idle();
  return run.id;
}

/** Move the simulated clock in small steps (retries fall due) until `ok`. */
async function until(rt: Rt, get: () => Promise<DeliveryView[]>, ok: (ds: DeliveryView[]) => boolean, stepMs = 10): Promise<DeliveryView[]> {
  const end = Date.now() + 10_000;
  for (;;) {
    await rt.webhooks.idle();
    const ds = await get();
    if (ok(ds)) return ds;
    if (Date.now() > end) throw new Error(`deliveries never settled: ${JSON.stringify(ds.map((d) => [d.status, d.attempts, d.lastError]))}`);
    rt.clock.advance(stepMs);
    await rt.webhooks.tick();
  }
}

const verifies = (r: Received, secret = SECRET, body = r.body) => verifySignature(secret, r.headers["x-switchyard-signature"] as string, r.headers["x-switchyard-timestamp"] as string, body);

// ------------------------------------------------------------------ signing and filters

describe("signatures", () => {
  it("signBody/verifySignature: HMAC-SHA256 over `${timestamp}.${body}`, with an optional tolerance", () => {
    const body = '{"a":1}';
    const sig = signBody(SECRET, 1000, body);
    expect(sig).toMatch(/^[0-9a-f]{64}$/);
    expect(verifySignature(SECRET, `sha256=${sig}`, "1000", body)).toBe(true);
    expect(verifySignature(SECRET, sig, 1000, body)).toBe(true);
    expect(verifySignature("another-secret-entirely", `sha256=${sig}`, "1000", body)).toBe(false);
    expect(verifySignature(SECRET, `sha256=${sig}`, "1001", body)).toBe(false);
    expect(verifySignature(SECRET, `sha256=${sig}`, "1000", '{"a":2}')).toBe(false);
    expect(verifySignature(SECRET, "sha256=zz", "1000", body)).toBe(false);
    expect(verifySignature(SECRET, undefined, "1000", body)).toBe(false);
    expect(verifySignature(SECRET, `sha256=${sig}`, "1000", body, 5_000, 4_000)).toBe(true);
    expect(verifySignature(SECRET, `sha256=${sig}`, "1000", body, 5_000, 7_000)).toBe(false);
  });

  it("every delivery is POSTed with the headers and a body signed with the webhook's secret", async () => {
    const rx = await receiver();
    const rt = await hookRuntime();
    const hook = await rt.webhooks.createWebhook({ workflow: "swiss-army", url: `${rx.url}/hook`, secret: SECRET, events: ["on_transition"] });
    const runId = await runToReview(rt);
    // *>IDLE, IDLE>REQUEST_RECEIVED, …, CONTEXT_UPDATE>HUMAN_REVIEW (the EXECUTING self-transitions change no state)
    expect(rx.requests).toHaveLength(6);
    const seqs = rx.requests.map((r) => r.json.seq).sort((a, b) => a - b);
    expect(new Set(seqs).size).toBe(6);
    for (const r of rx.requests) {
      expect(r.headers["content-type"]).toBe("application/json");
      expect(r.headers["user-agent"]).toBe("Switchyard-Webhooks/1");
      expect(r.headers["x-switchyard-event"]).toBe("on_transition");
      expect(r.headers["x-switchyard-delivery"]).toBe(r.json.deliveryId);
      expect(r.headers["x-switchyard-timestamp"]).toBe(String(T0));
      expect(r.headers["x-switchyard-signature"]).toMatch(/^sha256=[0-9a-f]{64}$/);
      expect(verifies(r)).toBe(true);
      expect(verifies(r, "not-the-secret-at-all")).toBe(false);
      expect(verifies(r, SECRET, r.body.replace('"on_transition"', '"on_enter"'))).toBe(false);
      expect(r.json).toMatchObject({ hook: "on_transition", webhookId: hook.id, runId, workflow: "swiss-army", stage: null });
      expect(Object.keys(r.json).sort()).toEqual(["at", "deliveryId", "event", "from", "hook", "reason", "runId", "seq", "stage", "to", "webhookId", "workflow"]);
    }
    const last = rx.requests.find((r) => r.json.to.includes("HUMAN_REVIEW"))!;
    expect(last.json).toMatchObject({ from: ["CONTEXT_UPDATE"], to: ["HUMAN_REVIEW"], reason: "Context saved" });
    const ds = await rt.webhooks.deliveries(hook.id, 100);
    expect(ds).toHaveLength(6);
    for (const d of ds) expect(d).toMatchObject({ status: "delivered", attempts: 1, lastStatus: 200, lastError: null, nextAt: null, runId, hook: "on_transition" });
  });

  it("matchesEvent: bare hooks, and STAGE as the id path or its last segment", () => {
    const [exit, transition, enter] = hookEvents({ id: "r", workflow: "w" }, { seq: 1, from: "IDLE", to: "ModelRuntime.CacheHit", event: "E", reason: "", at: "" });
    expect(matchesEvent(["on_transition"], transition!)).toBe(true);
    expect(matchesEvent(["on_enter"], transition!)).toBe(false);
    expect(matchesEvent(["on_exit"], exit!)).toBe(true);
    expect(matchesEvent(["on_enter:CacheHit"], enter!)).toBe(true);
    expect(matchesEvent(["on_enter:ModelRuntime.CacheHit"], enter!)).toBe(true);
    expect(matchesEvent(["on_enter:ModelRuntime"], enter!)).toBe(false);
    expect(matchesEvent(["on_exit:CacheHit"], enter!)).toBe(false);
    expect(matchesEvent(["on_exit:IDLE"], exit!)).toBe(true);
  });

  it("sends only the events a webhook selects, for its workflow or every workflow", async () => {
    const rx = await receiver();
    const rt = await hookRuntime();
    const add = (path: string, workflow: string, events: string[]) => rt.webhooks.createWebhook({ workflow, url: `${rx.url}/${path}`, secret: SECRET, events });
    await add("review", "swiss-army", ["on_enter:HUMAN_REVIEW"]);
    await add("two", "swiss-army", ["on_exit:EXECUTING", "on_enter:CONTEXT_SEARCH", "on_enter:CONTEXT_SEARCH"]);
    await add("other", "deep-research", ["on_transition", "on_enter", "on_exit"]);
    await add("all", "*", ["on_enter"]);
    await add("none", "swiss-army", ["on_enter:NO_SUCH_STATE"]);
    await runToReview(rt);
    expect(rx.at("/review").map((r) => [r.json.hook, r.json.stage])).toEqual([["on_enter", "HUMAN_REVIEW"]]);
    expect(rx.at("/two").map((r) => `${r.json.hook}:${r.json.stage}`).sort()).toEqual(["on_enter:CONTEXT_SEARCH", "on_exit:EXECUTING"]);
    expect(rx.at("/other")).toEqual([]);
    expect(rx.at("/none")).toEqual([]);
    expect(rx.at("/all").map((r) => r.json.stage).sort()).toEqual(["CONTEXT_SEARCH", "CONTEXT_UPDATE", "EXECUTING", "HUMAN_REVIEW", "IDLE", "REQUEST_RECEIVED"]);
    for (const r of rx.requests) expect(verifies(r)).toBe(true);
  });
});

// ------------------------------------------------------------------ retries

describe("retries", () => {
  it("retries after 500s with backoff and ends delivered, attempts counted", async () => {
    const rx = await receiver();
    rx.plan = [500, 500];
    const rt = await hookRuntime();
    const hook = await rt.webhooks.createWebhook({ workflow: "swiss-army", url: rx.url, secret: SECRET, events: ["on_enter:HUMAN_REVIEW"] });
    await runToReview(rt);
    let [d] = await rt.webhooks.deliveries(hook.id, 10);
    expect(d).toMatchObject({ status: "pending", attempts: 1, lastStatus: 500, lastError: "HTTP 500: no (500)" });
    expect(Date.parse(d!.nextAt!)).toBe(T0 + 20);
    // not due yet: nothing is sent
    await rt.webhooks.tick();
    await rt.webhooks.idle();
    expect(rx.requests).toHaveLength(1);
    [d] = await until(rt, () => rt.webhooks.deliveries(hook.id, 10), (ds) => ds[0]!.status !== "pending");
    expect(d).toMatchObject({ status: "delivered", attempts: 3, lastStatus: 200, lastError: null, nextAt: null });
    expect(rx.requests).toHaveLength(3);
    expect(new Set(rx.requests.map((r) => r.headers["x-switchyard-delivery"]))).toEqual(new Set([d!.id]));
    expect(new Set(rx.requests.map((r) => r.body)).size).toBe(1);
    for (const r of rx.requests) expect(verifies(r)).toBe(true);
    // the retries went out after 20 and 40 more simulated ms
    const times = rx.requests.map((r) => Number(r.headers["x-switchyard-timestamp"]) - T0);
    expect(times[0]).toBe(0);
    expect(times[1]).toBeGreaterThanOrEqual(20);
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(40);
  });

  it("fails for good once the backoff list is used up; a redelivery starts over", async () => {
    const rx = await receiver();
    rx.plan = [500, 500, 500, 500, 500, 500];
    const rt = await hookRuntime();
    const hook = await rt.webhooks.createWebhook({ workflow: "swiss-army", url: rx.url, secret: SECRET, events: ["on_enter:HUMAN_REVIEW"] });
    await runToReview(rt);
    let [d] = await until(rt, () => rt.webhooks.deliveries(hook.id, 10), (ds) => ds[0]!.status !== "pending");
    // the first attempt and one per backoff entry [20, 40, 80]
    expect(d).toMatchObject({ status: "failed", attempts: 4, lastStatus: 500, nextAt: null, deliveredAt: null });
    expect(rx.requests).toHaveLength(4);
    rt.clock.advance(10_000);
    await rt.webhooks.tick();
    await rt.webhooks.idle();
    expect(rx.requests).toHaveLength(4);

    rx.plan = [];
    const again = await rt.webhooks.redeliver(d!.id);
    expect(again).toMatchObject({ id: d!.id, status: "pending", attempts: 0 });
    await rt.webhooks.idle();
    [d] = await rt.webhooks.deliveries(hook.id, 10);
    expect(d).toMatchObject({ status: "delivered", attempts: 1, lastStatus: 200 });
    expect(rx.requests).toHaveLength(5);
    expect(rx.requests[4]!.headers["x-switchyard-delivery"]).toBe(d!.id);
  });

  it("does not retry a 400; retries 408 and 429", async () => {
    const rx = await receiver();
    rx.plan = [400, 429, 408];
    const rt = await hookRuntime();
    const h400 = await rt.webhooks.createWebhook({ workflow: "swiss-army", url: `${rx.url}/a`, secret: SECRET, events: ["on_enter:HUMAN_REVIEW"] });
    const runId = await runToReview(rt);
    const [d] = await rt.webhooks.deliveries(h400.id, 10);
    expect(d).toMatchObject({ status: "failed", attempts: 1, lastStatus: 400, lastError: "HTTP 400: no (400)", nextAt: null });
    rt.clock.advance(10_000);
    await rt.webhooks.tick();
    await rt.webhooks.idle();
    expect(rx.requests).toHaveLength(1);

    // 429 and 408 are transient: retried, then delivered
    const h429 = await rt.webhooks.createWebhook({ workflow: "swiss-army", url: `${rx.url}/b`, secret: SECRET, events: ["on_exit:HUMAN_REVIEW"] });
    const review = await rt.engine.getRun(runId);
    await rt.engine.decide(review.reviewId!, { decision: "approve" });
    await rt.webhooks.idle();
    const [e] = await until(rt, () => rt.webhooks.deliveries(h429.id, 10), (ds) => ds[0]?.status === "delivered");
    expect(e).toMatchObject({ attempts: 3, lastStatus: 200 });
    expect(rx.at("/b")).toHaveLength(3);
  });

  it("a receiver that hangs past the timeout counts as a failed attempt and is retried", async () => {
    const rx = await receiver();
    rx.plan = ["hang"];
    // the hang always runs into it; the retry's prompt answer must come in well before it
    const rt = await hookRuntime({ timeoutMs: 1_500 });
    const hook = await rt.webhooks.createWebhook({ workflow: "swiss-army", url: rx.url, secret: SECRET, events: ["on_enter:HUMAN_REVIEW"] });
    await runToReview(rt);
    let [d] = await rt.webhooks.deliveries(hook.id, 10);
    expect(d).toMatchObject({ status: "pending", attempts: 1, lastStatus: null, lastError: "timed out after 1500 ms" });
    [d] = await until(rt, () => rt.webhooks.deliveries(hook.id, 10), (ds) => ds[0]!.status !== "pending");
    expect(d).toMatchObject({ status: "delivered", attempts: 2, lastStatus: 200 });
    expect(rx.requests).toHaveLength(2);
  });

  it("a delivery left pending is sent by the next runtime on the same database", async () => {
    const rx = await receiver();
    rx.plan = [500];
    const url = tempDbUrl("webhooks-restart");
    const rt1 = await hookRuntime({ url, backoffMs: [60_000] });
    const hook = await rt1.webhooks.createWebhook({ workflow: "swiss-army", url: rx.url, secret: SECRET, events: ["on_enter:HUMAN_REVIEW"] });
    await runToReview(rt1);
    const [before] = await rt1.webhooks.deliveries(hook.id, 10);
    expect(before).toMatchObject({ status: "pending", attempts: 1, lastStatus: 500, nextAt: new Date(T0 + 60_000).toISOString() });
    await rt1.close();
    open.splice(open.indexOf(rt1), 1);
    expect(rx.requests).toHaveLength(1);

    // the process is back a minute later: start() picks the due delivery up without any new event
    const rt2 = await hookRuntime({ url, backoffMs: [60_000], clock: new ManualClock(T0 + 61_000) });
    const [after] = await until(rt2, () => rt2.webhooks.deliveries(hook.id, 10), (ds) => ds[0]!.status !== "pending");
    expect(after).toMatchObject({ id: before!.id, status: "delivered", attempts: 2, lastStatus: 200 });
    expect(rx.requests).toHaveLength(2);
    expect(rx.requests[1]!.body).toBe(rx.requests[0]!.body);
    expect(verifies(rx.requests[1]!)).toBe(true);
  });

  it("a runtime that does not start its dispatcher only records; the next one sends", async () => {
    const rx = await receiver();
    const url = tempDbUrl("webhooks-unstarted");
    const rt1 = await hookRuntime({ url, start: false });
    const hook = await rt1.webhooks.createWebhook({ workflow: "swiss-army", url: rx.url, secret: SECRET, events: ["on_enter"] });
    await runToReview(rt1);
    const pending = await rt1.webhooks.deliveries(hook.id, 100);
    expect(pending).toHaveLength(6);
    for (const d of pending) expect(d).toMatchObject({ status: "pending", attempts: 0 });
    // a pending delivery is already on its way: no redelivery
    await expect(rt1.webhooks.redeliver(pending[0]!.id)).rejects.toMatchObject({ status: 409 });
    await rt1.close();
    open.splice(open.indexOf(rt1), 1);
    expect(rx.requests).toHaveLength(0);

    const rt2 = await hookRuntime({ url });
    const done = await until(rt2, () => rt2.webhooks.deliveries(hook.id, 100), (ds) => ds.every((d) => d.status !== "pending"));
    for (const d of done) expect(d).toMatchObject({ status: "delivered", attempts: 1 });
    expect(rx.requests.map((r) => r.json.deliveryId).sort()).toEqual(pending.map((d) => d.id).sort());
  });
});

// ------------------------------------------------------------------ management

describe("management", () => {
  it("views never carry the secret", async () => {
    const rx = await receiver();
    const rt = await hookRuntime();
    const created = await rt.webhooks.createWebhook({ workflow: "*", url: rx.url, secret: SECRET, events: ["on_enter:HUMAN_REVIEW"] });
    expect(created).toMatchObject({ workflow: "*", url: rx.url, events: ["on_enter:HUMAN_REVIEW"], active: true, secretHint: "••••XY" });
    expect(created).not.toHaveProperty("secret");
    await runToReview(rt);
    const all = [created, await rt.webhooks.getWebhook(created.id), await rt.webhooks.listWebhooks(), await rt.webhooks.listWebhooks("swiss-army"), await rt.webhooks.deliveries(created.id, 10)];
    const text = JSON.stringify(all);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain("s3cret");
    expect(rx.requests[0]!.body).not.toContain("s3cret");
  });

  it("lists by workflow (its own and the \"*\" ones), deletes with the delivery log, validates input", async () => {
    const rt = await hookRuntime();
    const a = await rt.webhooks.createWebhook({ workflow: "swiss-army", url: "https://example.test/a", secret: SECRET, events: ["on_transition"] });
    const b = await rt.webhooks.createWebhook({ workflow: "*", url: "http://example.test/b", secret: SECRET, events: ["on_exit:IDLE"] });
    const c = await rt.webhooks.createWebhook({ workflow: "deep-research", url: "http://example.test/c", secret: SECRET, events: ["on_enter"] });
    const ids = (ws: { id: string }[]) => ws.map((w) => w.id).sort();
    expect(ids(await rt.webhooks.listWebhooks())).toEqual([a.id, b.id, c.id].sort());
    expect(ids(await rt.webhooks.listWebhooks("swiss-army"))).toEqual([a.id, b.id].sort());
    expect(ids(await rt.webhooks.listWebhooks("*"))).toEqual([b.id]);
    await rt.webhooks.deleteWebhook(c.id);
    await expect(rt.webhooks.deleteWebhook(c.id)).rejects.toMatchObject({ status: 404 });
    await expect(rt.webhooks.deliveries(c.id, 10)).rejects.toMatchObject({ status: 404 });
    await expect(rt.webhooks.redeliver("nope")).rejects.toMatchObject({ status: 404 });
    const bad = (patch: Record<string, unknown>) => rt.webhooks.createWebhook({ workflow: "swiss-army", url: "https://example.test", secret: SECRET, events: ["on_enter"], ...patch } as never);
    await expect(bad({ url: "ftp://example.test/x" })).rejects.toMatchObject({ status: 422, message: /url must be an absolute http/ });
    await expect(bad({ url: "example.test/x" })).rejects.toMatchObject({ status: 422 });
    await expect(bad({ secret: "short" })).rejects.toMatchObject({ status: 422, message: /at least 16/ });
    await expect(bad({ events: [] })).rejects.toMatchObject({ status: 422 });
    await expect(bad({ events: ["on_start"] })).rejects.toMatchObject({ status: 422, message: /"on_start" is not a hook event/ });
    await expect(bad({ events: ["on_transition:IDLE"] })).rejects.toMatchObject({ status: 422 });
    await expect(bad({ workflow: "../etc" })).rejects.toMatchObject({ status: 422 });
  });

  it("refuses link-local and metadata hosts: at creation (422), and at delivery at once, without retrying", async () => {
    const rt = await hookRuntime();
    const bad = (url: string) => rt.webhooks.createWebhook({ workflow: "swiss-army", url, secret: SECRET, events: ["on_enter"] });
    await expect(bad("http://169.254.169.254/latest/meta-data/")).rejects.toMatchObject({ status: 422, message: /url must not point at a link-local address/ });
    await expect(bad("http://[fe80::1]/x")).rejects.toMatchObject({ status: 422, message: /link-local/ });
    await expect(bad("http://[::ffff:169.254.169.254]/x")).rejects.toMatchObject({ status: 422 });
    await expect(bad("http://metadata.google.internal/computeMetadata/v1/")).rejects.toMatchObject({ status: 422, message: /metadata/ });
    await expect(bad("http://0.0.0.0:3000/")).rejects.toMatchObject({ status: 422 });
    // a webhook stored before the rule (or written around the API) is refused when it would be sent
    const hook = await rt.webhooks.createWebhook({ workflow: "swiss-army", url: "http://example.test/x", secret: SECRET, events: ["on_enter:HUMAN_REVIEW"] });
    await rt.db.webhook.update({ where: { id: hook.id }, data: { url: "http://169.254.169.254/latest/meta-data/" } });
    await runToReview(rt);
    const [d] = await rt.webhooks.deliveries(hook.id, 10);
    expect(d).toMatchObject({ status: "failed", attempts: 1, lastStatus: null, nextAt: null });
    expect(d!.lastError).toMatch(/169\.254\.169\.254: webhooks may not reach a link-local address/);
  });

  it("delivers to private and loopback receivers by name: each address a name resolves to is checked when connecting", async () => {
    const rx = await receiver();
    const rt = await hookRuntime();
    const hook = await rt.webhooks.createWebhook({ workflow: "swiss-army", url: rx.url.replace("127.0.0.1", "localhost"), secret: SECRET, events: ["on_enter:HUMAN_REVIEW"] });
    await runToReview(rt);
    expect((await rt.webhooks.deliveries(hook.id, 10))[0]).toMatchObject({ status: "delivered", lastStatus: 200 });
    // a name that resolves to link-local addresses only is refused; mixed answers keep the allowed ones
    const answer = (addresses: dns.LookupAddress[]) => vi.spyOn(dns, "lookup").mockImplementation(((_h: string, _o: unknown, cb: (e: null, a: dns.LookupAddress[]) => void) => cb(null, addresses)) as never);
    const look = (all: boolean) => new Promise<{ err: NodeJS.ErrnoException | null; address: unknown }>((resolve) => guardedLookup("receiver.test", { all }, (err, address) => resolve({ err, address })));
    answer([{ address: "169.254.169.254", family: 4 }]);
    expect((await look(false)).err).toMatchObject({ code: "EBLOCKED", message: "receiver.test resolves to 169.254.169.254: webhooks may not reach a link-local address (cloud metadata services live there)" });
    answer([{ address: "fe80::1", family: 6 }, { address: "10.1.2.3", family: 4 }]);
    expect(await look(false)).toEqual({ err: null, address: "10.1.2.3" });
    expect(await look(true)).toEqual({ err: null, address: [{ address: "10.1.2.3", family: 4 }] });
    vi.restoreAllMocks();
    expect(["10.0.0.1", "192.168.1.1", "127.0.0.1", "::1", "2001:db8::1", "fd12::1"].map(blockedAddress)).toEqual([null, null, null, null, null, null]);
    expect(["169.254.0.1", "0.0.0.0", "fe80::1", "febf::1", "fd00:ec2::254", "::", "::ffff:169.254.1.1", "::ffff:a9fe:a9fe", "0:0:0:0:0:ffff:a9fe:101"].every((a) => blockedAddress(a) !== null)).toBe(true);
  });

  it("deleting a webhook drops its pending deliveries", async () => {
    const rx = await receiver();
    const rt = await hookRuntime({ start: false });
    const hook = await rt.webhooks.createWebhook({ workflow: "swiss-army", url: rx.url, secret: SECRET, events: ["on_enter"] });
    await runToReview(rt);
    expect(await rt.webhooks.deliveries(hook.id, 100)).toHaveLength(6);
    await rt.webhooks.deleteWebhook(hook.id);
    expect(await rt.db.webhookDelivery.count({ where: { webhookId: hook.id } })).toBe(0);
    // and a new run's events no longer match it (the cached list was dropped)
    await runToReview(rt);
    expect(await rt.db.webhookDelivery.count()).toBe(0);
  });
});

// ------------------------------------------------------------------ routes

describe("/api/webhooks routes", () => {
  const dbUrl = tempDbUrl("webhooks-api");
  type Ctx = { params: Promise<{ id: string }> };
  type H = (req: Request, ctx: Ctx) => Promise<Response>;
  let list: { GET: H; POST: H };
  let one: { GET: H; DELETE: H };
  let deliveries: { GET: H };
  let redeliver: { POST: H };
  let rx: Receiver;
  let prevUrl: string | undefined;

  const ctx = (id: string): Ctx => ({ params: Promise.resolve({ id }) });
  const req = (path: string, init: RequestInit = {}) => new Request(`http://test${path}`, init);
  const post = (body: unknown) => req("/api/webhooks", { method: "POST", body: typeof body === "string" ? body : JSON.stringify(body), headers: { "content-type": "application/json" } });
  const valid = () => ({ workflow: "swiss-army", url: rx.url, secret: SECRET, events: ["on_enter:HUMAN_REVIEW"] });

  async function expectError(res: Response, status: number, text?: RegExp) {
    expect(res.status).toBe(status);
    const body = (await res.json()) as { error: string };
    expect(typeof body.error).toBe("string");
    if (text) expect(body.error).toMatch(text);
  }

  beforeAll(async () => {
    prevUrl = process.env.DATABASE_URL;
    process.env.DATABASE_URL = dbUrl;
    await migrateDatabase(dbUrl);
    list = (await import("../app/api/webhooks/route")) as never;
    one = (await import("../app/api/webhooks/[id]/route")) as never;
    deliveries = (await import("../app/api/webhooks/[id]/deliveries/route")) as never;
    redeliver = (await import("../app/api/webhooks/deliveries/[id]/redeliver/route")) as never;
    rx = await new Receiver().start();
  });

  afterAll(async () => {
    const { getRuntime } = await import("../lib/runtime");
    await (await getRuntime()).close();
    await rx.close();
    if (prevUrl === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = prevUrl;
  });

  it("POST creates (201, no secret), GET lists, DELETE removes (204, then 404)", async () => {
    const res = await list.POST(post(valid()), ctx(""));
    expect(res.status).toBe(201);
    const text = await res.text();
    expect(text).not.toContain(SECRET);
    const { webhook } = JSON.parse(text) as { webhook: { id: string; secretHint: string } };
    expect(webhook.secretHint).toBe("••••XY");
    expect(res.headers.get("location")).toBe(`/api/webhooks/${webhook.id}`);

    const got = await list.GET(req("/api/webhooks?workflow=swiss-army"), ctx(""));
    expect(got.status).toBe(200);
    const listed = await got.text();
    expect(listed).not.toContain(SECRET);
    expect((JSON.parse(listed) as { webhooks: { id: string }[] }).webhooks.map((w) => w.id)).toContain(webhook.id);
    expect(((await (await list.GET(req("/api/webhooks?workflow=deep-research"), ctx(""))).json()) as { webhooks: unknown[] }).webhooks).toEqual([]);

    expect((await one.GET(req(`/api/webhooks/${webhook.id}`), ctx(webhook.id))).status).toBe(200);
    const ds = await deliveries.GET(req(`/api/webhooks/${webhook.id}/deliveries?limit=5`), ctx(webhook.id));
    expect(ds.status).toBe(200);
    expect(await ds.json()).toEqual({ deliveries: [] });

    const del = await one.DELETE(req(`/api/webhooks/${webhook.id}`, { method: "DELETE" }), ctx(webhook.id));
    expect(del.status).toBe(204);
    await expectError(await one.DELETE(req(`/api/webhooks/${webhook.id}`, { method: "DELETE" }), ctx(webhook.id)), 404, /not found/);
    await expectError(await one.GET(req(`/api/webhooks/${webhook.id}`), ctx(webhook.id)), 404);
  });

  it("POST rejects bad input with a 4xx and a message", async () => {
    await expectError(await list.POST(post({ ...valid(), url: "ftp://example.test" }), ctx("")), 422, /url must be an absolute http/);
    await expectError(await list.POST(post({ ...valid(), url: "not a url" }), ctx("")), 422, /url/);
    await expectError(await list.POST(post({ ...valid(), secret: "too-short" }), ctx("")), 422, /secret must be at least 16 characters/);
    await expectError(await list.POST(post({ ...valid(), events: ["on_enter", "on_start"] }), ctx("")), 422, /"on_start" is not a hook event/);
    await expectError(await list.POST(post({ ...valid(), events: ["on_transition:IDLE"] }), ctx("")), 422, /not a hook event/);
    await expectError(await list.POST(post({ ...valid(), events: [] }), ctx("")), 422, /at least one hook event/);
    await expectError(await list.POST(post({ ...valid(), events: "on_enter" }), ctx("")), 422, /events/);
    await expectError(await list.POST(post({ ...valid(), workflow: "a/b" }), ctx("")), 422, /workflow/);
    await expectError(await list.POST(post({ url: rx.url }), ctx("")), 422, /workflow is required/);
    await expectError(await list.POST(post({ ...valid(), admin: true }), ctx("")), 422);
    await expectError(await list.POST(post("{not json"), ctx("")), 400, /malformed JSON/);
    await expectError(await list.POST(req("/api/webhooks", { method: "POST" }), ctx("")), 400);
    await expectError(await list.POST(post([1, 2]), ctx("")), 422);
  });

  it("GET/DELETE/deliveries/redeliver reject bad ids and queries", async () => {
    await expectError(await list.GET(req("/api/webhooks?workflow=a%20b"), ctx("")), 422);
    await expectError(await list.GET(req("/api/webhooks?color=red"), ctx("")), 422);
    await expectError(await one.DELETE(req("/api/webhooks/x", { method: "DELETE" }), ctx("no such id")), 422, /not a webhook id/);
    await expectError(await one.DELETE(req("/api/webhooks/x", { method: "DELETE" }), ctx("missing")), 404);
    await expectError(await deliveries.GET(req("/api/webhooks/missing/deliveries"), ctx("missing")), 404);
    const { webhook } = (await (await list.POST(post(valid()), ctx(""))).json()) as { webhook: { id: string } };
    await expectError(await deliveries.GET(req(`/api/webhooks/${webhook.id}/deliveries?limit=0`), ctx(webhook.id)), 422);
    await expectError(await deliveries.GET(req(`/api/webhooks/${webhook.id}/deliveries?limit=abc`), ctx(webhook.id)), 422);
    await expectError(await redeliver.POST(req("/api/webhooks/deliveries/missing/redeliver", { method: "POST" }), ctx("missing")), 404);
    await expectError(await redeliver.POST(req("/api/webhooks/deliveries/x/redeliver", { method: "POST" }), ctx("../x")), 422);
  });

  it("POST …/redeliver sends a failed delivery again (202), 409 while it is pending", async () => {
    const { getRuntime } = await import("../lib/runtime");
    const rt = await getRuntime();
    const { webhook } = (await (await list.POST(post(valid()), ctx(""))).json()) as { webhook: { id: string } };
    const now = new Date();
    await rt.db.webhookDelivery.create({
      data: { id: "d-failed", webhookId: webhook.id, runId: "run-x", hook: "on_enter", body: '{"hook":"on_enter"}', status: "failed", attempts: 6, lastStatus: 500, lastError: "HTTP 500", nextAt: null, createdAt: now },
    });
    await rt.db.webhookDelivery.create({
      data: { id: "d-pending", webhookId: webhook.id, runId: "run-x", hook: "on_enter", body: "{}", status: "pending", attempts: 1, nextAt: new Date(now.getTime() + 3_600_000), createdAt: now },
    });
    await expectError(await redeliver.POST(req("/api/webhooks/deliveries/d-pending/redeliver", { method: "POST" }), ctx("d-pending")), 409, /already pending/);
    const res = await redeliver.POST(req("/api/webhooks/deliveries/d-failed/redeliver", { method: "POST" }), ctx("d-failed"));
    expect(res.status).toBe(202);
    expect(((await res.json()) as { delivery: DeliveryView }).delivery).toMatchObject({ id: "d-failed", status: "pending", attempts: 0 });
    await rt.webhooks.idle();
    const listed = (await (await deliveries.GET(req(`/api/webhooks/${webhook.id}/deliveries`), ctx(webhook.id))).json()) as { deliveries: DeliveryView[] };
    expect(listed.deliveries.find((d) => d.id === "d-failed")).toMatchObject({ status: "delivered", attempts: 1, lastStatus: 200 });
    const sent = rx.requests.find((r) => r.headers["x-switchyard-delivery"] === "d-failed")!;
    expect(sent.body).toBe('{"hook":"on_enter"}');
    expect(verifies(sent)).toBe(true);
  });
});
