// The alert monitor: on an interval of the injected clock it evaluates every enabled rule
// (rules.ts, evaluate.ts) and every row of each workflow's metrics table, opens an Alert row for each
// new breach, keeps an open alert's value current, and resolves it once the value clears. Each
// open and resolve goes to `notify` (the runtime hands it to the webhooks as "on_alert").
// No Next.js here; the app reaches it as getRuntime().alerts.
import { randomUUID } from "node:crypto";
import type { Db } from "../db/client";
import type { Alert } from "../db/generated/sqlite/client";
import type { Clock } from "../engine/clock";
import { InvalidError, NotFoundError } from "../engine/errors";
import type { RunStore, TransitionRow } from "../engine/store/types";
import { deriveGraph } from "../graph/derive";
import type { AlertNotice } from "../hooks/webhooks";
import { findWorkflow, listWorkflows } from "../machines/registry";
import type { WorkflowDefinition } from "../machines/types";
import { evaluateRule, evaluateSeedMetric, failureStatesOf, type Evaluation, type RuleData } from "./evaluate";
import { exitsByState } from "../metrics/state-metrics";
import { IMPORTED_PREFIX } from "../engine/imported";

const logError = (m: string, d?: unknown) => console.error(`[alerts] error: ${m}`, d ?? "");
import { AlertRuleInput, alertsByState, alertView, ruleView, SEED_RULE_PREFIX, seedRuleId, type AlertRuleView, type AlertStatus, type AlertView } from "./rules";

export const DEFAULT_ALERT_INTERVAL_MS = 15_000;
/** transitions read per state for a rule: the newest within its window, at most this many */
const RULE_EXITS = 5_000;

export interface AlertMonitorOptions {
  db: Db;
  store: RunStore;
  clock: Clock;
  /** how often evaluateOnce runs after start() (ms) */
  intervalMs?: number;
  /** an alert opened or resolved (the webhooks); a failure is logged and does not stop the evaluation */
  notify?: (alert: AlertNotice) => void | Promise<void>;
}

/** What one evaluation found and changed. */
export interface EvaluationReport {
  at: string;
  /** rules and seed metrics evaluated */
  evaluated: number;
  opened: AlertView[];
  resolved: AlertView[];
  /** alerts open after it */
  open: number;
}

interface Target {
  ruleId: string;
  workflow: string;
  state: string;
  metric: string;
  threshold: number;
  result: Evaluation;
}

export class AlertMonitor {
  private readonly db: Db;
  private readonly store: RunStore;
  private readonly clock: Clock;
  readonly intervalMs: number;
  private readonly notify: AlertMonitorOptions["notify"];
  private running = false;
  private timer: unknown = null;
  /** evaluations run one at a time, in call order */
  private chain: Promise<unknown> = Promise.resolve();
  private busy = 0;

  constructor(opts: AlertMonitorOptions) {
    this.db = opts.db;
    this.store = opts.store;
    this.clock = opts.clock;
    this.intervalMs = opts.intervalMs ?? DEFAULT_ALERT_INTERVAL_MS;
    this.notify = opts.notify;
  }

  // ---------------------------------------------------------------- lifecycle

  /** Evaluate every intervalMs of the clock (the first time one interval from now). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.arm();
  }

  /** Stop evaluating and wait for the evaluation in progress. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
    await this.idle();
  }

  get started(): boolean {
    return this.running;
  }

  /** Wait until no evaluation is running or queued. */
  async idle(): Promise<void> {
    while (this.busy > 0) await this.chain.catch(() => {});
  }

  private arm(): void {
    if (!this.running) return;
    // re-armed only once the evaluation is done: a simulated clock moved by hours fires one
    // evaluation, not one per interval, and a slow evaluation never piles up behind itself
    this.timer = this.clock.setTimeout(() => {
      this.timer = null;
      if (!this.running) return;
      const p = this.busy > 0 ? this.chain : this.evaluateOnce();
      void p.catch((e) => logError("alert evaluation failed", errorText(e))).finally(() => this.arm());
    }, this.intervalMs);
  }

  // ---------------------------------------------------------------- evaluation

  /**
   * Evaluate every enabled rule and every seed metric now (at the clock's time): open an alert
   * per new breach (never a second open one for the same rule), update the open ones, resolve
   * those that cleared or whose rule is gone. Calls made meanwhile run after it, in order.
   */
  evaluateOnce(): Promise<EvaluationReport> {
    this.busy++;
    const p = this.chain.catch(() => {}).then(() => this.evaluate());
    this.chain = p.finally(() => this.busy--);
    return p;
  }

  private async evaluate(): Promise<EvaluationReport> {
    const now = this.clock.now();
    const targets = [...(await this.ruleTargets(now)), ...(await this.seedTargets())];
    const open = await this.db.alert.findMany({ where: { status: "open" } });
    const openByRule = new Map(open.map((a) => [a.ruleId, a]));
    const report: EvaluationReport = { at: new Date(now).toISOString(), evaluated: targets.length, opened: [], resolved: [], open: 0 };
    const seen = new Set<string>();
    for (const t of targets) {
      seen.add(t.ruleId);
      const current = openByRule.get(t.ruleId);
      if (t.result.breached && !current) {
        const created = await this.open(t, now);
        if (created) report.opened.push(created);
      } else if (t.result.breached && current) {
        if (current.value !== t.result.value || current.message !== t.result.message) {
          await this.db.alert.updateMany({ where: { id: current.id, status: "open" }, data: { value: t.result.value, message: t.result.message } });
        }
      } else if (current) {
        const resolved = await this.resolve(current, now, { value: t.result.value, message: `cleared: ${t.result.message}` });
        if (resolved) report.resolved.push(resolved);
      }
    }
    // open alerts nobody evaluates any more: their rule was deleted or disabled, or the metric is gone
    for (const a of open) {
      if (seen.has(a.ruleId)) continue;
      const resolved = await this.resolve(a, now, { message: `no longer watched (the rule was removed or disabled): ${a.message}` });
      if (resolved) report.resolved.push(resolved);
    }
    report.open = await this.db.alert.count({ where: { status: "open" } });
    return report;
  }

  private async ruleTargets(now: number): Promise<Target[]> {
    const rules = await this.db.alertRule.findMany({ where: { enabled: true }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
    // one read per state and window (exits) or per state (pending reviews), shared by its rules
    const reads = new Map<string, Promise<RuleData["exits"] | RuleData["pending"]>>();
    const once = <T>(key: string, read: () => Promise<T>) => {
      if (!reads.has(key)) reads.set(key, read() as Promise<never>);
      return reads.get(key) as Promise<T>;
    };
    const out: Target[] = [];
    for (const r of rules) {
      const def = findWorkflow(r.workflow);
      if (!def) continue; // its open alerts resolve as "no longer watched"
      const failureStates = failureStatesOf(deriveGraph(def.machine).states);
      const data: RuleData =
        r.metric === "waiting"
          ? {
              exits: [],
              failureStates,
              pending: await once(`pending\u0000${r.workflow}\u0000${r.state}`, async () => {
                const rows = await this.db.review.findMany({ where: { workflow: r.workflow, state: r.state, status: "pending", NOT: { runId: { startsWith: IMPORTED_PREFIX } } }, select: { runId: true, createdAt: true } });
                // a replay's review (decisions: "ask") is not the workflow's work waiting (lib/change)
                const replays = rows.length ? new Set((await this.db.run.findMany({ where: { id: { in: [...new Set(rows.map((p) => p.runId))] }, replayOf: { not: null } }, select: { id: true } })).map((x) => x.id)) : new Set<string>();
                return rows.filter((p) => !replays.has(p.runId)).map((p) => ({ runId: p.runId, createdAt: p.createdAt.getTime() }));
              }),
            }
          : { pending: [], failureStates, exits: await once(`exits\u0000${r.workflow}\u0000${r.state}\u0000${r.windowMs}`, () => this.store.transitionsLeaving(r.workflow, r.state, RULE_EXITS, now - r.windowMs)) };
      out.push({ ruleId: r.id, workflow: r.workflow, state: r.state, metric: r.metric, threshold: r.threshold, result: evaluateRule(r, data, now) });
    }
    return out;
  }

  /** The workflows' metrics tables: a row whose verdict is "alert" is a breach (the exits the metrics page reads). */
  private async seedTargets(): Promise<Target[]> {
    const out: Target[] = [];
    for (const def of listWorkflows()) {
      if (!def.metrics?.length) continue;
      const exits = await exitsByState(this.store, def);
      for (const spec of def.metrics) {
        const state = spec.compute.state;
        const result = evaluateSeedMetric(spec, exits.get(state)!);
        out.push({ ruleId: seedRuleId(def.id, state, spec.metric), workflow: def.id, state, metric: spec.metric, threshold: result.threshold, result });
      }
    }
    return out;
  }

  /** Open an alert unless one is open for the rule already (checked in the same transaction). */
  private async open(t: Target, now: number): Promise<AlertView | null> {
    const row = await this.db.$transaction(async (tx) => {
      const existing = await tx.alert.findFirst({ where: { ruleId: t.ruleId, status: "open" }, select: { id: true } });
      if (existing) return null;
      // a rule deleted or disabled since this evaluation read it opens nothing (else an alert would
      // open, and be sent, after deleteRule had resolved the rule's alerts)
      if (!t.ruleId.startsWith(SEED_RULE_PREFIX) && !(await tx.alertRule.findFirst({ where: { id: t.ruleId, enabled: true }, select: { id: true } }))) return null;
      return tx.alert.create({
        data: {
          id: randomUUID(),
          ruleId: t.ruleId,
          workflow: t.workflow,
          state: t.state,
          metric: t.metric,
          value: t.result.value,
          threshold: t.threshold,
          message: t.result.message,
          status: "open",
          openedAt: new Date(now),
          resolvedAt: null,
        },
      });
    });
    if (!row) return null;
    const view = alertView(row);
    await this.send(view);
    return view;
  }

  private async resolve(a: Alert, now: number, change: { value?: number; message: string }): Promise<AlertView | null> {
    const data = { status: "resolved", resolvedAt: new Date(now), message: change.message, ...(change.value !== undefined ? { value: change.value } : {}) };
    const res = await this.db.alert.updateMany({ where: { id: a.id, status: "open" }, data });
    if (res.count === 0) return null; // resolved meanwhile (another process, or a deleted rule)
    const view = alertView({ ...a, ...data });
    await this.send(view);
    return view;
  }

  private async send(a: AlertView): Promise<void> {
    if (!this.notify) return;
    try {
      await this.notify(alertNotice(a));
    } catch (e) {
      logError(`could not send alert ${a.id} (${a.status})`, errorText(e));
    }
  }

  // ---------------------------------------------------------------- rules and alerts (the API, the UI)

  /** Validate (422 with the issues) and store a rule; it is evaluated from the next evaluation on. */
  async createRule(input: unknown): Promise<AlertRuleView> {
    const parsed = AlertRuleInput.safeParse(input);
    if (!parsed.success) throw new InvalidError(`invalid alert rule: ${parsed.error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; ")}`, parsed.error.issues);
    const r = parsed.data;
    const row = await this.db.alertRule.create({
      data: { id: randomUUID(), workflow: r.workflow, state: r.state, metric: r.metric, threshold: r.threshold, windowMs: r.windowMs, enabled: r.enabled, createdAt: new Date(this.clock.now()) },
    });
    return ruleView(row);
  }

  /** Rules, oldest first; of one workflow with `workflow`. */
  async listRules(workflow?: string): Promise<AlertRuleView[]> {
    const rows = await this.db.alertRule.findMany({ where: workflow ? { workflow } : {}, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
    return rows.map(ruleView);
  }

  /** Delete a rule (404 when unknown); its open alert resolves at once (and is sent as resolved). */
  async deleteRule(id: string): Promise<void> {
    const gone = await this.db.alertRule.deleteMany({ where: { id } });
    if (gone.count === 0) throw new NotFoundError(`alert rule ${id} not found`);
    const now = this.clock.now();
    for (const a of await this.db.alert.findMany({ where: { ruleId: id, status: "open" } })) {
      await this.resolve(a, now, { message: `rule deleted: ${a.message}` });
    }
  }

  /** Alerts, newest first (open ones by when they opened). */
  async listAlerts(q: { status?: AlertStatus; workflow?: string; limit?: number } = {}): Promise<AlertView[]> {
    const rows = await this.db.alert.findMany({
      where: { ...(q.status ? { status: q.status } : {}), ...(q.workflow ? { workflow: q.workflow } : {}) },
      orderBy: [{ openedAt: "desc" }, { id: "asc" }],
      take: Math.max(1, Math.min(q.limit ?? 100, 1_000)),
    });
    return rows.map(alertView);
  }

  async countOpen(): Promise<number> {
    return this.db.alert.count({ where: { status: "open" } });
  }

  /** The open alerts of a workflow per state id (the diagram's badges). */
  async openByState(workflow: string): Promise<Record<string, string>> {
    return alertsByState(await this.listAlerts({ status: "open", workflow }));
  }
}

export function alertNotice(a: AlertView): AlertNotice {
  return {
    alertId: a.id,
    ruleId: a.ruleId,
    source: a.source,
    workflow: a.workflow,
    state: a.state,
    metric: a.metric,
    value: a.value,
    threshold: a.threshold,
    message: a.message,
    status: a.status,
    openedAt: a.openedAt,
    resolvedAt: a.resolvedAt,
  };
}

/** SWITCHYARD_ALERT_INTERVAL_MS: a positive whole number of ms; "0" turns the monitor off. */
export function alertIntervalFromEnv(env: NodeJS.ProcessEnv): number {
  const v = env.SWITCHYARD_ALERT_INTERVAL_MS?.trim();
  if (!v) return DEFAULT_ALERT_INTERVAL_MS;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`SWITCHYARD_ALERT_INTERVAL_MS must be a whole number of milliseconds (0 turns alert evaluation off); got "${v}"`);
  return n;
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
