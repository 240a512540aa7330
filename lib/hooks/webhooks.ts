// Outgoing webhooks (hooks, user-configurable: docs/guide/15-conversation-and-your-own-workflows.md): the hook events of every commit the
// engine makes (lib/engine/hooks.ts) are matched against the active webhooks, and one pending
// WebhookDelivery row per match is written IN THE COMMIT ITSELF (the engine asks plan() before
// it commits), so no crash can fall between a transition and its deliveries. After the commit
// each delivery is POSTed, signed with the webhook's secret. Failed attempts are retried with
// backoff from the database, so a delivery pending when the process stopped goes out after a
// restart. No Next.js here; the API reaches it as getRuntime().webhooks.
//
// The webhooks a commit is matched against are the active ones as this process last read them
// (at most 5 seconds old; a webhook created or deleted here is seen by the next commit).
//
// Alerts (lib/alerts) go out the same way: a webhook subscribed to "on_alert" (or
// "on_alert:STATE") receives each alert of its workflow when it opens and when it resolves.
//
// Receivers verify a request with verifySignature(secret, x-switchyard-signature,
// x-switchyard-timestamp, rawBody): the signature is HMAC-SHA256 over `${timestamp}.${body}`.
// Delivery is at-least-once and unordered: a receiver dedupes on x-switchyard-delivery (the
// same id on every retry and redelivery) and orders by the body's seq.
import { createHash, createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import type { Db } from "../db/client";
import type { Webhook, WebhookDelivery } from "../db/generated/sqlite/client";
import type { Clock } from "../engine/clock";
import { ConflictError, InvalidError, NotFoundError } from "../engine/errors";
import { hookEventsOf, type HookEvent, type StateHooks } from "../engine/hooks";
import type { DeliveryRow, TransitionRow } from "../engine/store/types";
import { nextWait, scheduleRetry, type RetryPolicy } from "../engine/retry";
import { blockedUrl, egressFetch } from "./egress";
import { escalationOf } from "../reviews/routing";

export const DEFAULT_BACKOFF_MS = [1_000, 5_000, 30_000, 120_000, 600_000];
export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_POLL_MS = 1_000;
export const USER_AGENT = "Switchyard-Webhooks/1";
/** how long the list of active webhooks is reused before it is read again (ms) */
const CACHE_MS = 5_000;
/** due deliveries picked per poll, and attempts in flight at most */
const MAX_IN_FLIGHT = 16;
/** an attempt's claim on a delivery outlives its timeout by this much (ms), then it is due again */
const LEASE_MARGIN_MS = 30_000;
/** the most of a failed response's body kept in lastError */
const ERROR_SNIPPET = 300;

// ------------------------------------------------------------------ signing

/** Hex HMAC-SHA256 of `${timestamp}.${body}` with the webhook's secret. */
export function signBody(secret: string, timestamp: string | number, body: string): string {
  return createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");
}

/**
 * Check a delivery's signature: `header` is x-switchyard-signature ("sha256=<hex>", the prefix
 * optional), `timestamp` x-switchyard-timestamp (unix ms), `body` the raw request body. With
 * `toleranceMs`, a timestamp further than that from `now` fails too (replay protection).
 */
export function verifySignature(secret: string, header: string | null | undefined, timestamp: string | number | null | undefined, body: string, toleranceMs?: number, now: number = Date.now()): boolean {
  if (!header || timestamp === null || timestamp === undefined || timestamp === "") return false;
  const ts = String(timestamp);
  if (!/^\d{1,16}$/.test(ts)) return false;
  if (toleranceMs !== undefined && Math.abs(now - Number(ts)) > toleranceMs) return false;
  const given = header.startsWith("sha256=") ? header.slice("sha256=".length) : header;
  if (!/^[0-9a-f]{64}$/i.test(given)) return false;
  const expected = Buffer.from(signBody(secret, ts, body), "hex");
  const actual = Buffer.from(given, "hex");
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

// ------------------------------------------------------------------ input

const EVENT_FORM = /^(?:on_transition|on_enter|on_exit|on_alert|on_review_escalated|(?:on_enter|on_exit|on_alert|on_review_escalated):[^\s:,]{1,200})$/;
const EVENT_HELP = 'use "on_transition", "on_enter", "on_exit", "on_alert", "on_review_escalated", or one of them but on_transition with ":STAGE"';

export const WebhookFields = {
  workflow: z
    .string({ error: 'workflow is required (a workflow id, or "*" for every workflow)' })
    .trim()
    .max(100, "workflow is longer than 100 characters")
    .regex(/^(?:\*|[A-Za-z0-9][A-Za-z0-9._-]*)$/, 'workflow must be a workflow id or "*"'),
  url: z
    .string({ error: "url is required" })
    .trim()
    .max(2_000, "url is longer than 2,000 characters")
    .refine((u) => {
      try {
        const p = new URL(u);
        return (p.protocol === "http:" || p.protocol === "https:") && p.hostname !== "";
      } catch {
        return false;
      }
    }, "url must be an absolute http:// or https:// URL")
    .superRefine((u, ctx) => {
      const why = blockedUrl(u);
      if (why) ctx.addIssue({ code: "custom", message: `url must not point at ${why}` });
    }),
  secret: z.string({ error: "secret is required (16 characters or more)" }).min(16, "secret must be at least 16 characters").max(500, "secret is longer than 500 characters"),
  events: z
    .array(z.string().trim().regex(EVENT_FORM, { error: (i) => `${JSON.stringify(i.input)} is not a hook event: ${EVENT_HELP}` }), { error: `events must be a list of hook events (${EVENT_HELP})` })
    .min(1, `events must name at least one hook event (${EVENT_HELP})`)
    .max(50, "at most 50 events")
    .transform((xs) => [...new Set(xs)]),
};

export const WebhookInput = z.object(WebhookFields);
export type WebhookInput = z.input<typeof WebhookInput>;

// ------------------------------------------------------------------ views

export interface WebhookView {
  id: string;
  workflow: string;
  url: string;
  events: string[];
  active: boolean;
  /** "••••" and the secret's last two characters; the secret itself never leaves the server */
  secretHint: string;
  createdAt: string;
}

export type DeliveryStatus = "pending" | "delivered" | "failed";

export interface DeliveryView {
  id: string;
  webhookId: string;
  runId: string;
  hook: string;
  status: DeliveryStatus;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  nextAt: string | null;
  createdAt: string;
  deliveredAt: string | null;
  /** the JSON body sent */
  payload: unknown;
}

/** The JSON body of a delivery: the hook event, and which delivery of which webhook it is. */
export type WebhookPayload = HookEvent & { deliveryId: string; webhookId: string };

/** An alert that opened or resolved (lib/alerts/monitor.ts), as the webhooks send it. */
export interface AlertNotice {
  alertId: string;
  /** a user rule's id, or "seed:<workflow>:<state>:<metric>" */
  ruleId: string;
  source: "rule" | "seed";
  workflow: string;
  /** the state's id */
  state: string;
  /** dwell | failure_rate | waiting, or a seed metric's name */
  metric: string;
  value: number;
  threshold: number;
  message: string;
  /** open: the threshold was just breached; resolved: the value cleared (or the rule went away) */
  status: "open" | "resolved";
  openedAt: string;
  resolvedAt: string | null;
}

/**
 * The JSON body of an "on_review_escalated" delivery: a review whose deadline passed was re-routed
 * (`from` and `to`: the groups), planned from the escalation's timeline row in the same commit.
 */
export interface ReviewEscalatedPayload {
  hook: "on_review_escalated";
  deliveryId: string;
  webhookId: string;
  reviewId: string;
  runId: string;
  workflow: string;
  state: string;
  from: string[];
  to: string[];
  dueAt: string;
  at: string;
}

/** Does one of a webhook's patterns select an escalation of a review of `state` ("on_review_escalated", or with ":STATE")? */
export function matchesEscalation(patterns: string[], state: string): boolean {
  const last = state.split(".").pop();
  return patterns.some((p) => p === "on_review_escalated" || p === `on_review_escalated:${state}` || p === `on_review_escalated:${last}`);
}

/** The "on_alert" hook event: an AlertNotice and when it was sent. */
export type AlertHookEvent = AlertNotice & { hook: "on_alert"; at: string };

/** The JSON body of an alert delivery (its delivery row's runId is ""). */
export type AlertWebhookPayload = AlertHookEvent & { deliveryId: string; webhookId: string };

type AnyHookEvent = HookEvent | AlertHookEvent;

function parseEvents(s: string): string[] {
  try {
    const v = JSON.parse(s) as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
  } catch {
    return [];
  }
}

export function webhookView(w: Webhook): WebhookView {
  return {
    id: w.id,
    workflow: w.workflow,
    url: w.url,
    events: parseEvents(w.events),
    active: w.active,
    secretHint: `••••${w.secret.slice(-2)}`,
    createdAt: w.createdAt.toISOString(),
  };
}

export function deliveryView(d: WebhookDelivery): DeliveryView {
  let payload: unknown = d.body;
  try {
    payload = JSON.parse(d.body);
  } catch {
    // kept as text
  }
  return {
    id: d.id,
    webhookId: d.webhookId,
    runId: d.runId,
    hook: d.hook,
    status: d.status as DeliveryStatus,
    attempts: d.attempts,
    lastStatus: d.lastStatus,
    lastError: d.lastError,
    nextAt: d.nextAt?.toISOString() ?? null,
    createdAt: d.createdAt.toISOString(),
    deliveredAt: d.deliveredAt?.toISOString() ?? null,
    payload,
  };
}

/**
 * Does one of a webhook's event patterns select this hook event? STAGE is the state's id path or
 * its last segment (for on_alert, the alert's state).
 */
export function matchesEvent(patterns: string[], e: HookEvent | AlertHookEvent): boolean {
  const at = e.hook === "on_alert" ? e.state : e.stage;
  for (const p of patterns) {
    if (p === e.hook) return true;
    const colon = p.indexOf(":");
    if (colon < 0 || p.slice(0, colon) !== e.hook || at === null) continue;
    const stage = p.slice(colon + 1);
    if (stage === at || stage === at.split(".").pop()) return true;
  }
  return false;
}

// ------------------------------------------------------------------ dispatcher

export interface WebhookDispatcherOptions {
  db: Db;
  clock: Clock;
  fetch?: typeof fetch;
  /** the wait before each retry; when the list is used up the delivery fails (default DEFAULT_BACKOFF_MS) */
  backoffMs?: number[];
  /** per attempt (ms) */
  timeoutMs?: number;
  /** how often due retries are looked for (ms) */
  pollMs?: number;
  log?: (level: "info" | "warn" | "error", message: string, data?: unknown) => void;
}

export class WebhookDispatcher {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly fetchFn: typeof fetch;
  /** a retry after each wait of the schedule, then the delivery fails */
  readonly retry: RetryPolicy;
  readonly timeoutMs: number;
  readonly pollMs: number;
  private readonly logFn: NonNullable<WebhookDispatcherOptions["log"]>;
  private cache: { until: number; list: Promise<(Webhook & { patterns: string[] })[]>; known?: (Webhook & { patterns: string[] })[] } | null = null;
  private detachHooks: (() => void) | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;
  private running = false;
  private ticking: Promise<number> | null = null;
  /** delivery id → its attempt in progress (never two at once for one delivery) */
  private inflight = new Map<string, Promise<void>>();
  /** hook events being written as deliveries */
  private writes = new Set<Promise<void>>();

  constructor(opts: WebhookDispatcherOptions) {
    this.db = opts.db;
    this.clock = opts.clock;
    this.fetchFn = opts.fetch ?? egressFetch;
    this.retry = scheduleRetry(opts.backoffMs ?? DEFAULT_BACKOFF_MS);
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.pollMs = opts.pollMs ?? DEFAULT_POLL_MS;
    this.logFn = opts.log ?? ((level, m, d) => level !== "info" && console.error(`[webhooks] ${m}`, d ?? ""));
  }

  // ---------------------------------------------------------------- lifecycle

  /**
   * Plan the deliveries of every commit's hook events (written in the commit), and send them once
   * committed. Before start() and after stop() they are only recorded (pending).
   */
  attach(hooks: StateHooks): () => void {
    this.detachHooks?.();
    hooks.plan({
      plan: (run, transitions) => this.plan(run, transitions),
      committed: (rows) => {
        if (this.running) for (const r of rows) this.attempt(r.id);
      },
    });
    const off = () => hooks.plan(null);
    this.detachHooks = off;
    return off;
  }

  /** Send: new deliveries at once, and due ones (retries, and those left pending by an earlier process) every pollMs. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.timer = setInterval(() => void this.tick(), this.pollMs);
    this.timer.unref?.();
    void this.tick();
  }

  /** Stop sending and wait for the attempts in flight. Hook events still fire are recorded as pending. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.idle();
  }

  /** Wait until no delivery is being written, looked up or attempted. */
  async idle(): Promise<void> {
    while (this.writes.size || this.inflight.size || this.ticking) {
      await Promise.allSettled([...this.writes, ...this.inflight.values(), ...(this.ticking ? [this.ticking] : [])]);
    }
  }

  get started(): boolean {
    return this.running;
  }

  /** Attempt the pending deliveries that are due now; resolves with how many were started. */
  tick(): Promise<number> {
    if (!this.running) return Promise.resolve(0);
    this.ticking ??= this.pickDue()
      .catch((e) => {
        this.logFn("error", "could not read due deliveries", errorText(e));
        return 0;
      })
      .finally(() => {
        this.ticking = null;
      });
    return this.ticking;
  }

  private async pickDue(): Promise<number> {
    const room = MAX_IN_FLIGHT - this.inflight.size;
    if (room <= 0) return 0;
    const due = await this.db.webhookDelivery.findMany({
      where: { status: "pending", nextAt: { lte: new Date(this.clock.now()) }, ...(this.inflight.size ? { id: { notIn: [...this.inflight.keys()] } } : {}) },
      orderBy: { nextAt: "asc" },
      take: room,
      select: { id: true },
    });
    let started = 0;
    for (const d of due) {
      if (!this.running || this.inflight.has(d.id)) continue;
      this.attempt(d.id);
      started++;
    }
    return started;
  }

  // ---------------------------------------------------------------- hook events → deliveries

  private onHook(e: AnyHookEvent): Promise<void> {
    // most events match no webhook: when the (fresh) cached list says so, nothing is written or awaited
    const known = this.cache && this.cache.until > performance.now() ? this.cache.known : undefined;
    if (known && !known.some((w) => this.wants(w, e))) return Promise.resolve();
    const what = () => (e.hook === "on_alert" ? `alert ${e.alertId} (${e.status})` : `run ${e.runId} (${e.hook})`);
    const p: Promise<void> = this.record(e)
      .then((ids) => {
        if (this.running) for (const id of ids) this.attempt(id);
      })
      .catch((err) => this.logFn("error", `could not record webhook deliveries for ${what()}`, errorText(err)))
      .finally(() => this.writes.delete(p));
    this.writes.add(p);
    return p;
  }

  /**
   * An alert opened or resolved: one delivery per active webhook of its workflow (or "*") that
   * subscribes to "on_alert" (or "on_alert:STATE"). Resolves once the deliveries are recorded
   * (their attempts go on in the background, like the hook events').
   */
  notifyAlert(alert: AlertNotice): Promise<void> {
    return this.onHook({ hook: "on_alert", ...alert, at: new Date(this.clock.now()).toISOString() });
  }

  private async record(e: AnyHookEvent): Promise<string[]> {
    const hooks = (await this.activeWebhooks()).filter((w) => this.wants(w, e));
    if (hooks.length === 0) return [];
    const now = new Date(this.clock.now());
    const rows = hooks.map((w) => {
      const id = randomUUID();
      if (e.hook === "on_alert") {
        const payload: AlertWebhookPayload = { ...e, deliveryId: id, webhookId: w.id };
        return { id, webhookId: w.id, runId: "", hook: e.hook, body: JSON.stringify(payload), status: "pending", attempts: 0, nextAt: now, createdAt: now };
      }
      const payload: WebhookPayload = {
        hook: e.hook,
        deliveryId: id,
        webhookId: w.id,
        runId: e.runId,
        workflow: e.workflow,
        seq: e.seq,
        stage: e.stage,
        from: e.from,
        to: e.to,
        event: e.event,
        reason: e.reason,
        at: e.at,
      };
      return { id, webhookId: w.id, runId: e.runId, hook: e.hook, body: JSON.stringify(payload), status: "pending", attempts: 0, nextAt: now, createdAt: now };
    });
    await this.db.webhookDelivery.createMany({ data: rows });
    return rows.map((r) => r.id);
  }

  /**
   * The deliveries of one commit's transitions: one per active webhook and hook event it selects.
   * A Promise only when the list of webhooks must be read first (once per few seconds).
   */
  private plan(run: { id: string; workflow: string }, transitions: TransitionRow[]): DeliveryRow[] | Promise<DeliveryRow[]> {
    const known = this.cache && this.cache.until > performance.now() ? this.cache.known : undefined;
    if (known) return this.deliveriesFor(known, run, transitions);
    return this.activeWebhooks().then((list) => this.deliveriesFor(list, run, transitions));
  }

  private deliveriesFor(all: (Webhook & { patterns: string[] })[], run: { id: string; workflow: string }, transitions: TransitionRow[]): DeliveryRow[] {
    const hooks = all.filter((w) => w.workflow === "*" || w.workflow === run.workflow);
    if (hooks.length === 0) return [];
    const now = this.clock.now();
    const rows: DeliveryRow[] = [];
    for (const t of transitions) {
      const escalated = escalationOf(t);
      if (escalated) {
        for (const w of hooks) {
          if (!matchesEscalation(w.patterns, escalated.state)) continue;
          const id = deliveryId(`${run.id}:${t.seq}:${w.id}:on_review_escalated`);
          const payload: ReviewEscalatedPayload = { hook: "on_review_escalated", deliveryId: id, webhookId: w.id, reviewId: escalated.reviewId, runId: run.id, workflow: run.workflow, state: escalated.state, from: escalated.from, to: escalated.to, dueAt: escalated.dueAt, at: new Date(t.at).toISOString() };
          rows.push({ id, webhookId: w.id, runId: run.id, hook: payload.hook, body: JSON.stringify(payload), createdAt: now });
        }
        continue;
      }
      for (const e of hookEventsOf(run, t)) {
        for (const w of hooks) {
          if (!matchesEvent(w.patterns, e)) continue;
          // the same commit planned again (after a failed write) makes the same rows
          const id = deliveryId(`${e.runId}:${e.seq}:${w.id}:${e.hook}:${e.stage ?? ""}`);
          const payload: WebhookPayload = { hook: e.hook, deliveryId: id, webhookId: w.id, runId: e.runId, workflow: e.workflow, seq: e.seq, stage: e.stage, from: e.from, to: e.to, event: e.event, reason: e.reason, at: e.at };
          rows.push({ id, webhookId: w.id, runId: e.runId, hook: e.hook, body: JSON.stringify(payload), createdAt: now });
        }
      }
    }
    return rows;
  }

  private wants(w: { workflow: string; patterns: string[] }, e: AnyHookEvent): boolean {
    return (w.workflow === "*" || w.workflow === e.workflow) && matchesEvent(w.patterns, e);
  }

  /** Active webhooks, read at most every few seconds (and at once after a change made here). */
  private activeWebhooks(): Promise<(Webhook & { patterns: string[] })[]> {
    const now = performance.now();
    if (this.cache && this.cache.until > now) return this.cache.list;
    const list = this.db.webhook.findMany({ where: { active: true } }).then((ws) => ws.map((w) => ({ ...w, patterns: parseEvents(w.events) })));
    const entry: NonNullable<typeof this.cache> = { until: now + CACHE_MS, list };
    this.cache = entry;
    list.then((ws) => (entry.known = ws), () => {});
    list.catch(() => {
      if (this.cache === entry) this.cache = null;
    });
    return list;
  }

  private invalidate(): void {
    this.cache = null;
  }

  // ---------------------------------------------------------------- attempts

  /** Attempt one delivery unless an attempt of it is already in flight here. */
  private attempt(id: string): Promise<void> {
    const current = this.inflight.get(id);
    if (current) return current;
    const p = this.deliver(id)
      .catch((e) => this.logFn("error", `webhook delivery ${id} could not be attempted`, errorText(e)))
      .finally(() => this.inflight.delete(id));
    this.inflight.set(id, p);
    return p;
  }

  private async deliver(id: string): Promise<void> {
    const now = this.clock.now();
    const row = await this.db.webhookDelivery.findUnique({ where: { id } });
    if (!row || row.status !== "pending" || (row.nextAt && row.nextAt.getTime() > now)) return;
    const hook = await this.db.webhook.findUnique({ where: { id: row.webhookId } });
    if (!hook || !hook.active) {
      await this.db.webhookDelivery.updateMany({
        where: { id, status: "pending", attempts: row.attempts },
        data: { status: "failed", nextAt: null, lastError: hook ? "the webhook is inactive" : "the webhook was deleted" },
      });
      return;
    }
    // Claim it: push nextAt past this attempt's timeout, on the condition that nobody else has
    // (another process polling the same database, or a concurrent claim). A claim left by a
    // process that died mid-attempt expires, and the delivery is due again.
    const claim = await this.db.webhookDelivery.updateMany({
      where: { id, status: "pending", attempts: row.attempts, OR: [{ nextAt: null }, { nextAt: { lte: new Date(now) } }] },
      data: { nextAt: new Date(now + this.timeoutMs + LEASE_MARGIN_MS) },
    });
    if (claim.count === 0) return;

    const outcome = await this.post(hook, row);
    const attempts = row.attempts + 1;
    const at = this.clock.now();
    let data: Partial<WebhookDelivery>;
    if (outcome.ok) {
      data = { status: "delivered", attempts, lastStatus: outcome.status, lastError: null, nextAt: null, deliveredAt: new Date(at) };
    } else {
      // A 4xx other than 408 (timeout) and 429 (rate limited) is the receiver refusing this
      // request itself (bad signature, unknown route, gone): the same signed body would be
      // refused again, so it is not retried and fails at once. Everything else — 5xx, 3xx
      // (redirects are not followed), network errors, timeouts — is retried with backoff.
      // a host webhooks may not reach (egress.ts) is refused again on retry: fails at once too
      const permanent = outcome.blocked === true || (outcome.status !== null && outcome.status >= 400 && outcome.status < 500 && outcome.status !== 408 && outcome.status !== 429);
      const wait = permanent ? undefined : nextWait(this.retry, attempts);
      data =
        wait === undefined
          ? { status: "failed", attempts, lastStatus: outcome.status, lastError: outcome.error, nextAt: null }
          : { status: "pending", attempts, lastStatus: outcome.status, lastError: outcome.error, nextAt: new Date(at + wait) };
      this.logFn("warn", `webhook delivery ${id} to webhook ${hook.id} failed (attempt ${attempts}${wait === undefined ? ", giving up" : `, retry in ${wait} ms`}): ${outcome.error}`);
    }
    const saved = await this.db.webhookDelivery.updateMany({ where: { id, status: "pending", attempts: row.attempts }, data });
    if (saved.count === 0) this.logFn("warn", `webhook delivery ${id} changed while it was being attempted; outcome not recorded`);
  }

  private async post(hook: Webhook, row: WebhookDelivery): Promise<{ ok: boolean; status: number | null; error: string | null; blocked?: boolean }> {
    const timestamp = String(this.clock.now());
    const headers = {
      "content-type": "application/json",
      "user-agent": USER_AGENT,
      "x-switchyard-event": row.hook,
      "x-switchyard-delivery": row.id,
      "x-switchyard-timestamp": timestamp,
      "x-switchyard-signature": `sha256=${signBody(hook.secret, timestamp, row.body)}`,
    };
    const signal = AbortSignal.timeout(this.timeoutMs);
    try {
      const res = await this.fetchFn(hook.url, { method: "POST", headers, body: row.body, signal, redirect: "manual" });
      if (res.status >= 200 && res.status < 300) {
        await res.body?.cancel().catch(() => {});
        return { ok: true, status: res.status, error: null };
      }
      const snippet = await readSnippet(res);
      return { ok: false, status: res.status, error: `HTTP ${res.status}${snippet ? `: ${snippet}` : ""}` };
    } catch (e) {
      if (signal.aborted) return { ok: false, status: null, error: `timed out after ${this.timeoutMs} ms` };
      const refused = refusal(e);
      return { ok: false, status: null, error: refused?.message ?? errorText(e), blocked: refused !== null };
    }
  }

  // ---------------------------------------------------------------- management (the API)

  async createWebhook(input: WebhookInput): Promise<WebhookView> {
    const parsed = WebhookInput.safeParse(input);
    if (!parsed.success) throw new InvalidError(`invalid webhook: ${parsed.error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; ")}`, parsed.error.issues);
    const { workflow, url, secret, events } = parsed.data;
    const row = await this.db.webhook.create({
      data: { id: randomUUID(), workflow, url, secret, events: JSON.stringify(events), active: true, createdAt: new Date(this.clock.now()) },
    });
    this.invalidate();
    return webhookView(row);
  }

  /** All webhooks, or those that fire for `workflow` (its own and the "*" ones), newest first. */
  async listWebhooks(workflow?: string): Promise<WebhookView[]> {
    const where = workflow === undefined ? {} : workflow === "*" ? { workflow: "*" } : { workflow: { in: [workflow, "*"] } };
    const rows = await this.db.webhook.findMany({ where, orderBy: [{ createdAt: "desc" }, { id: "asc" }] });
    return rows.map(webhookView);
  }

  async getWebhook(id: string): Promise<WebhookView> {
    const row = await this.db.webhook.findUnique({ where: { id } });
    if (!row) throw new NotFoundError(`webhook ${id} not found`);
    return webhookView(row);
  }

  /** Delete a webhook and its delivery log (its pending deliveries are not sent). */
  async deleteWebhook(id: string): Promise<void> {
    const [, gone] = await this.db.$transaction([this.db.webhookDelivery.deleteMany({ where: { webhookId: id } }), this.db.webhook.deleteMany({ where: { id } })]);
    this.invalidate();
    if (gone.count === 0) throw new NotFoundError(`webhook ${id} not found`);
  }

  /** A webhook's deliveries, newest first. */
  async deliveries(webhookId: string, limit = 50): Promise<DeliveryView[]> {
    const hook = await this.db.webhook.findUnique({ where: { id: webhookId }, select: { id: true } });
    if (!hook) throw new NotFoundError(`webhook ${webhookId} not found`);
    const rows = await this.db.webhookDelivery.findMany({ where: { webhookId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: Math.max(1, Math.min(limit, 1_000)) });
    return rows.map(deliveryView);
  }

  async delivery(id: string): Promise<DeliveryView> {
    const row = await this.db.webhookDelivery.findUnique({ where: { id } });
    if (!row) throw new NotFoundError(`delivery ${id} not found`);
    return deliveryView(row);
  }

  /**
   * Send a delivered or failed delivery again: it becomes pending with a fresh retry schedule
   * (attempts back to 0), keeping its id and body. A pending one is already on its way (409).
   */
  async redeliver(deliveryId: string): Promise<DeliveryView> {
    const row = await this.db.webhookDelivery.findUnique({ where: { id: deliveryId } });
    if (!row) throw new NotFoundError(`delivery ${deliveryId} not found`);
    if (row.status === "pending" || this.inflight.has(deliveryId)) throw new ConflictError(`delivery ${deliveryId} is already pending`, deliveryView(row));
    const hook = await this.db.webhook.findUnique({ where: { id: row.webhookId }, select: { active: true } });
    if (!hook) throw new NotFoundError(`the webhook of delivery ${deliveryId} was deleted`);
    if (!hook.active) throw new ConflictError(`the webhook of delivery ${deliveryId} is inactive`);
    const now = new Date(this.clock.now());
    const res = await this.db.webhookDelivery.updateMany({
      where: { id: deliveryId, status: row.status, attempts: row.attempts },
      data: { status: "pending", attempts: 0, nextAt: now, deliveredAt: null },
    });
    if (res.count === 0) throw new ConflictError(`delivery ${deliveryId} changed meanwhile; try again`);
    if (this.running) this.attempt(deliveryId);
    return deliveryView({ ...row, status: "pending", attempts: 0, nextAt: now, deliveredAt: null });
  }
}

/** A UUID-shaped delivery id derived from its idempotency key (run, seq, webhook, hook event). */
function deliveryId(key: string): string {
  const h = createHash("sha256").update(key).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

async function readSnippet(res: Response): Promise<string> {
  try {
    const reader = res.body?.getReader();
    if (!reader) return "";
    const chunks: Uint8Array[] = [];
    let size = 0;
    while (size < ERROR_SNIPPET) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
    await reader.cancel().catch(() => {});
    const text = Buffer.concat(chunks).toString("utf8").replace(/\s+/g, " ").trim();
    return text.length > ERROR_SNIPPET ? `${text.slice(0, ERROR_SNIPPET)}…` : text;
  } catch {
    return "";
  }
}

/** The refusal behind a failed delivery (egress.ts: its host is one webhooks may not reach), thrown directly or as fetch's cause. */
function refusal(e: unknown): Error | null {
  for (const x of [e, (e as { cause?: unknown } | null)?.cause]) if (x instanceof Error && (x as { code?: string }).code === "EBLOCKED") return x;
  return null;
}

function errorText(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const cause = (e as { cause?: unknown }).cause;
  const detail = cause instanceof Error ? ((cause as { code?: string }).code ?? cause.message) : undefined;
  return detail ? `${e.message} (${detail})` : e.message;
}
