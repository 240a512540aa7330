// Per-state alerts (lib/alerts): rule validation, the pure evaluation functions at any `now`,
// and the monitor on runs of the loop fixture with a simulated clock — dwell, failure rate, waiting time
// and the metrics tables' thresholds open one alert per breach and resolve it when the value clears —
// the "on_alert" webhook body, and the /api/alerts routes' validation.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { AlertMonitor, alertIntervalFromEnv, type EvaluationReport } from "../lib/alerts/monitor";
import { evaluateDwell, evaluateFailureRate, evaluateSeedMetric, evaluateWaiting, failureStatesOf, isFailure, type Exit } from "../lib/alerts/evaluate";
import { AlertRuleInput } from "../lib/alerts/rules";
import { migrateDatabase } from "../lib/db/migrations";
import type { ManualClock } from "../lib/engine/clock";
import { deriveGraph } from "../lib/graph/derive";
import { builtInWorkflows } from "../lib/machines/registry";
import { verifySignature, type AlertWebhookPayload } from "../lib/hooks/webhooks";
import { loop, type LoopContext } from "./fixtures/workflows/loop/machine";
import { nestMachine } from "./fixtures/workflows/nest/machine";
import type { Runtime } from "../lib/runtime";
import { fail, flush, hang, inState, loopRuntime, tempDbUrl } from "./helpers";

const REQUEST = "Summarise the release notes of the last three versions";
const SECRET = "alert-secret-alert-secret";
const MIN = 60_000;
const HOUR = 3_600_000;

type Rt = Runtime & { clock: ManualClock };
let rt: Rt | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
});

/** the loop fixture on a fresh database; the monitor's own timer is stopped so each test drives evaluateOnce itself. */
async function alertRuntime(opts: Parameters<typeof loopRuntime>[0] = {}): Promise<Rt> {
  rt = await loopRuntime(opts);
  await rt.alerts.stop();
  return rt;
}

/** A webhook receiver on the dispatcher's injectable fetch. */
function recorder() {
  const calls: { url: string; headers: Record<string, string>; body: string }[] = [];
  const fetch = (async (url: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: String(url), headers: init?.headers as Record<string, string>, body: String(init?.body) });
    return new Response("ok", { status: 200 });
  }) as typeof globalThis.fetch;
  return { calls, fetch, alerts: (path: string) => calls.filter((c) => c.url.endsWith(path)).map((c) => JSON.parse(c.body) as AlertWebhookPayload) };
}

const exit = (at: number, durationMs: number, event = "xstate.done.actor.x", to = ["IDLE"]): Exit => ({ at, durationMs, event, to });

// ------------------------------------------------------------------ rules

describe("alert rules", () => {
  const issues = (input: unknown) => {
    const r = AlertRuleInput.safeParse(input);
    return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
  };

  it("accepts a rule on a state by id or seed name, with a 1 h window and enabled by default", () => {
    expect(AlertRuleInput.parse({ workflow: "loop", state: "FETCH", metric: "dwell", threshold: 3_000 })).toEqual({
      workflow: "loop",
      state: "FETCH",
      metric: "dwell",
      threshold: 3_000,
      windowMs: HOUR,
      enabled: true,
    });
    // a nested state by its seed name, or by its own key, comes out as its full id
    expect(AlertRuleInput.parse({ workflow: "nest", state: "CacheStore", metric: "failure_rate", threshold: 0.2, windowMs: 10 * MIN }).state).toBe("BUILD.LEFT.Store");
    expect(AlertRuleInput.parse({ workflow: "nest", state: "approval", metric: "waiting", threshold: HOUR }).state).toBe("PLAN.approval");
  });

  it("rejects unknown workflows, states and metrics, thresholds out of range, and states the metric cannot be measured on", () => {
    expect(issues({ workflow: "no-such", state: "IDLE", metric: "dwell", threshold: 1 })).toEqual(['workflow: unknown workflow "no-such"']);
    expect(issues({ workflow: "loop", state: "NOPE", metric: "dwell", threshold: 1 })[0]).toMatch(/^state: workflow loop has no state "NOPE"; dwell can be watched on IDLE, FETCH/);
    expect(issues({ workflow: "loop", state: "IDLE", metric: "latency", threshold: 1 })[0]).toMatch(/^metric: metric must be "dwell", "failure_rate" or "waiting"/);
    expect(issues({ workflow: "loop", state: "IDLE", metric: "failure_rate", threshold: 1.5 })).toEqual(["threshold: a failure_rate threshold is a share between 0 and 1 (0.2 = 20%)"]);
    expect(issues({ workflow: "loop", state: "IDLE", metric: "dwell", threshold: -5 })[0]).toMatch(/^threshold: a dwell threshold is a duration in milliseconds/);
    expect(issues({ workflow: "loop", state: "IDLE", metric: "dwell", threshold: 2.5 })[0]).toMatch(/whole number of milliseconds/);
    expect(issues({ workflow: "loop", state: "IDLE", metric: "dwell", threshold: "5s" })[0]).toMatch(/^threshold: threshold must be a number/);
    expect(issues({ workflow: "loop", state: "IDLE", metric: "dwell", threshold: 5, windowMs: 10 })[0]).toMatch(/^windowMs: windowMs must be at least 1000 ms/);
    expect(issues({ workflow: "loop", state: "IDLE", metric: "dwell", threshold: 5, extra: 1 })[0]).toMatch(/extra/);
    expect(issues({ workflow: "loop", state: "IDLE", metric: "waiting", threshold: 5 })).toEqual(["state: runs wait for a person only in review states; pick one of ERROR, REVIEW"]);
    expect(issues({ workflow: "nest", state: "PLAN", metric: "dwell", threshold: 5 })[0]).toMatch(/PLAN is a group of states \(compound\)/);
    expect(issues({ workflow: "nest", state: "BUILD", metric: "dwell", threshold: 5 })[0]).toMatch(/BUILD is a group of states \(parallel\)/);
    expect(issues({ workflow: "nest", state: "DONE", metric: "dwell", threshold: 5 })[0]).toMatch(/DONE is a final state: runs never leave it/);
    expect(issues({ workflow: "nest", state: "CallModel", metric: "dwell", threshold: 5 })[0]).toMatch(/"CallModel" names several states .*use the full id/);
    expect(issues({ workflow: "nest", state: "drafting", metric: "waiting", threshold: 5 })).toEqual(["state: runs wait for a person only in review states; pick one of PLAN.approval"]);
    expect(issues({ workflow: "hello", state: "GREETING", metric: "waiting", threshold: 5 })[0]).toMatch(/review states, and workflow hello has none/);
    expect(issues({})).toEqual(expect.arrayContaining([expect.stringMatching(/^workflow: workflow is required/), expect.stringMatching(/^state: state is required/)]));
  });

  it("the monitor refuses an invalid rule with a 422 and stores nothing", async () => {
    const r = await alertRuntime();
    await expect(r.alerts.createRule({ workflow: "loop", state: "NOPE", metric: "dwell", threshold: 1 })).rejects.toMatchObject({ status: 422, message: /invalid alert rule: state: workflow loop has no state "NOPE"/ });
    expect(await r.alerts.listRules()).toEqual([]);
  });

  it("SWITCHYARD_ALERT_INTERVAL_MS: 15 s by default, 0 turns evaluation off, anything else is refused", () => {
    const env = (v: Record<string, string>) => v as unknown as NodeJS.ProcessEnv;
    expect(alertIntervalFromEnv(env({}))).toBe(15_000);
    expect(alertIntervalFromEnv(env({ SWITCHYARD_ALERT_INTERVAL_MS: "2000" }))).toBe(2_000);
    expect(alertIntervalFromEnv(env({ SWITCHYARD_ALERT_INTERVAL_MS: "0" }))).toBe(0);
    expect(() => alertIntervalFromEnv(env({ SWITCHYARD_ALERT_INTERVAL_MS: "soon" }))).toThrow(/SWITCHYARD_ALERT_INTERVAL_MS/);
    expect(() => alertIntervalFromEnv(env({ SWITCHYARD_ALERT_INTERVAL_MS: "-1" }))).toThrow(/SWITCHYARD_ALERT_INTERVAL_MS/);
  });
});

// ------------------------------------------------------------------ pure evaluation

describe("evaluation (pure, at any now)", () => {
  const now = Date.UTC(2026, 0, 1, 12);

  it("dwell: the p95 of visits that ended within the window", () => {
    const exits = [...Array.from({ length: 19 }, (_, i) => exit(now - i * MIN, 100)), exit(now - 30 * MIN, 9_000), exit(now - 2 * HOUR, 60_000)];
    const r = evaluateDwell(exits, { state: "S", threshold: 5_000, windowMs: HOUR, now });
    expect(r).toMatchObject({ value: 100, breached: false, samples: 20 });
    const slow = [exit(now - MIN, 6_000), exit(now - 2 * MIN, 100)];
    expect(evaluateDwell(slow, { state: "S", threshold: 5_000, windowMs: HOUR, now })).toMatchObject({ value: 6_000, breached: true, samples: 2, message: "S: p95 dwell 6.0 s over 2 visits in the last 1 h (above 5 s)" });
    // the same visits, an hour later: out of the window
    expect(evaluateDwell(slow, { state: "S", threshold: 5_000, windowMs: HOUR, now: now + HOUR })).toMatchObject({ value: 0, breached: false, samples: 0 });
    // exactly at the threshold is not a breach
    expect(evaluateDwell([exit(now, 5_000)], { state: "S", threshold: 5_000, windowMs: HOUR, now }).breached).toBe(false);
  });

  it("failure rate: error exits and exits into failure states, over all exits but aborts", () => {
    // tagged "failed" (nest's FAILED) or "error" (loop's ERROR), or a final state named for a failure
    expect([...failureStatesOf(deriveGraph(nestMachine).states)]).toEqual(["FAILED"]);
    expect([...failureStatesOf(deriveGraph(loop.machine).states)]).toEqual(["ERROR"]);
    const named = [
      { id: "RUN.CHECK.FormatError", type: "final", tags: [] },
      { id: "RUN.Over", name: "WorkflowFailed", type: "final", tags: [] },
      { id: "RUN.Done", type: "final", tags: [] },
      { id: "RUN.ErrorPage", type: "atomic", tags: [] },
    ];
    expect([...failureStatesOf(named)].sort()).toEqual(["RUN.CHECK.FormatError", "RUN.Over"]);
    const failureStates = new Set(["ERROR", "Failed"]);
    expect(isFailure({ event: "xstate.error.actor.execute", to: ["IDLE"] }, failureStates)).toBe(true);
    expect(isFailure({ event: "xstate.done.actor.x", to: ["Failed"] }, failureStates)).toBe(true);
    expect(isFailure({ event: "xstate.done.actor.x", to: ["Done"] }, failureStates)).toBe(false);
    const exits = [
      exit(now - MIN, 10, "xstate.error.actor.execute"),
      exit(now - 2 * MIN, 10, "NEXT", ["Failed"]),
      exit(now - 3 * MIN, 10),
      exit(now - 4 * MIN, 10),
      exit(now - 5 * MIN, 10, "ABORT", ["Failed"]),
      exit(now - 3 * HOUR, 10, "xstate.error.actor.execute"),
    ];
    const r = evaluateFailureRate(exits, { state: "S", threshold: 0.25, windowMs: HOUR, now, failureStates });
    expect(r).toMatchObject({ value: 0.5, breached: true, samples: 4, message: "S: 2 of 4 visits failed (50%) in the last 1 h (above 25%)" });
    expect(evaluateFailureRate(exits, { state: "S", threshold: 0.5, windowMs: HOUR, now, failureStates }).breached).toBe(false);
    expect(evaluateFailureRate([], { state: "S", threshold: 0, windowMs: HOUR, now, failureStates })).toMatchObject({ value: 0, breached: false, samples: 0 });
  });

  it("waiting: the longest current wait of a pending review", () => {
    const pending = [
      { runId: "aaaaaaaa-1", createdAt: now - 10 * MIN },
      { runId: "bbbbbbbb-2", createdAt: now - 90 * MIN },
    ];
    expect(evaluateWaiting(pending, { state: "REVIEW", threshold: HOUR, now })).toEqual({
      value: 90 * MIN,
      breached: true,
      samples: 2,
      message: "REVIEW: run bbbbbbbb has waited 1 h 30 min for a review (above 1 h); 1 more waiting",
    });
    expect(evaluateWaiting(pending, { state: "REVIEW", threshold: 2 * HOUR, now }).breached).toBe(false);
    expect(evaluateWaiting([], { state: "REVIEW", threshold: 1, now })).toMatchObject({ value: 0, breached: false, samples: 0 });
  });

  it("seed metrics: breached when the table's verdict is alert, with the number behind it", () => {
    const spec = loop.metrics!.find((m) => m.metric === "Success rate")!;
    const t = (reason: string) => ({ runId: "r", seq: 1, from: ["WORK"], to: ["IDLE"], event: "x", reason, at: now, durationMs: 10, payload: null });
    const bad = evaluateSeedMetric(spec, [t("Work done"), t("Work failed"), t("Work failed")]);
    expect(bad).toMatchObject({ breached: true, verdict: "alert", threshold: 0.6, samples: 3 });
    expect(bad.value).toBeCloseTo(1 / 3);
    expect(bad.message).toBe("WORK: success rate 33% (alert <60%; 1 of 3)");
    expect(evaluateSeedMetric(spec, [t("Work done")])).toMatchObject({ breached: false, verdict: "ok", value: 1 });
    const fetchTime = loop.metrics!.find((m) => m.metric === "Fetch time")!;
    expect(evaluateSeedMetric(fetchTime, [{ ...t("x"), from: ["FETCH"], durationMs: 7_000 }])).toMatchObject({ breached: true, value: 7_000, threshold: 3_000 });
  });
});

// ------------------------------------------------------------------ the monitor on real runs

describe("the alert monitor (the loop fixture, simulated clock)", () => {
  it("dwell: a breach opens one alert, re-evaluation opens no second one, and it resolves once the window moves past the slow visit", async () => {
    const r = await alertRuntime({ actors: { fetch: hang() } });
    const rule = await r.alerts.createRule({ workflow: "loop", state: "FETCH", metric: "dwell", threshold: 2_000, windowMs: HOUR });
    const { run } = await r.engine.start("loop", { request: REQUEST });
    await r.engine.waitFor(run.id, inState("FETCH"));
    expect((await r.alerts.evaluateOnce()).opened.filter((a) => a.ruleId === rule.id)).toEqual([]);
    r.clock.advance(5_000); // the fetch times out after 5 s
    await r.engine.waitFor(run.id, inState("REVIEW"));

    const first = await r.alerts.evaluateOnce();
    const mine = first.opened.filter((a) => a.ruleId === rule.id);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ source: "rule", workflow: "loop", state: "FETCH", stateName: "FETCH", metric: "dwell", value: 5_000, threshold: 2_000, status: "open", resolvedAt: null });
    expect(mine[0]!.message).toMatch(/^FETCH: p95 dwell 5\.0 s over 1 visit in the last 1 h \(above 2 s\)$/);

    // evaluated again (and twice at once): still the one alert
    r.clock.advance(MIN);
    const again = await Promise.all([r.alerts.evaluateOnce(), r.alerts.evaluateOnce()]);
    expect(again.flatMap((x) => x.opened).filter((a) => a.ruleId === rule.id)).toEqual([]);
    // another monitor on the same database (another process) does not open a duplicate either
    const other = new AlertMonitor({ db: r.db, store: r.store, clock: r.clock });
    await Promise.all([other.evaluateOnce(), r.alerts.evaluateOnce()]);
    const open = (await r.alerts.listAlerts({ status: "open" })).filter((a) => a.ruleId === rule.id);
    expect(open).toHaveLength(1);
    expect(open[0]!.id).toBe(mine[0]!.id);
    expect(await r.alerts.openByState("loop")).toMatchObject({ FETCH: expect.stringContaining("p95 dwell 5.0 s") });

    // an hour later the slow visit has left the window
    r.clock.advance(HOUR);
    const later = await r.alerts.evaluateOnce();
    expect(later.resolved.filter((a) => a.ruleId === rule.id)).toEqual([expect.objectContaining({ id: mine[0]!.id, status: "resolved", resolvedAt: new Date(r.clock.now()).toISOString() })]);
    expect((await r.alerts.listAlerts({ status: "open" })).filter((a) => a.ruleId === rule.id)).toEqual([]);
    expect((await r.alerts.listAlerts({ status: "resolved", workflow: "loop" })).map((a) => a.id)).toContain(mine[0]!.id);
    expect((await r.alerts.evaluateOnce()).resolved.filter((a) => a.ruleId === rule.id)).toEqual([]);
  });

  it("waiting: opens once a review has waited longer than the threshold, goes to on_alert webhooks, resolves when decided", async () => {
    const rx = recorder();
    const r = await alertRuntime({ webhooks: { fetch: rx.fetch, pollMs: 10 } });
    await r.webhooks.createWebhook({ workflow: "loop", url: "http://hooks.test/alerts", secret: SECRET, events: ["on_alert"] });
    await r.webhooks.createWebhook({ workflow: "*", url: "http://hooks.test/review-alerts", secret: SECRET, events: ["on_alert:REVIEW"] });
    await r.webhooks.createWebhook({ workflow: "loop", url: "http://hooks.test/executing-alerts", secret: SECRET, events: ["on_alert:WORK"] });
    await r.webhooks.createWebhook({ workflow: "loop", url: "http://hooks.test/transitions", secret: SECRET, events: ["on_transition", "on_enter", "on_exit"] });
    await r.webhooks.createWebhook({ workflow: "hello", url: "http://hooks.test/other", secret: SECRET, events: ["on_alert"] });
    const rule = await r.alerts.createRule({ workflow: "loop", state: "REVIEW", metric: "waiting", threshold: 10 * MIN });
    expect(rule).toMatchObject({ state: "REVIEW", metric: "waiting", threshold: 600_000, enabled: true, summary: "a review waits longer than 10 min" });

    const { run } = await r.engine.start("loop", { request: REQUEST });
    const waiting = await r.engine.waitFor(run.id, inState("REVIEW"));
    const ours = (rep: EvaluationReport) => rep.opened.filter((a) => a.ruleId === rule.id);
    expect(ours(await r.alerts.evaluateOnce())).toEqual([]);
    r.clock.advance(10 * MIN); // exactly the threshold: not yet
    expect(ours(await r.alerts.evaluateOnce())).toEqual([]);
    r.clock.advance(1);
    const opened = ours(await r.alerts.evaluateOnce());
    expect(opened).toEqual([expect.objectContaining({ state: "REVIEW", metric: "waiting", value: 10 * MIN + 1, threshold: 10 * MIN, status: "open" })]);
    expect(opened[0]!.message).toBe(`REVIEW: run ${run.id.slice(0, 8)} has waited 10 min for a review (above 10 min)`);
    // the value follows the wait while the alert is open
    r.clock.advance(5 * MIN);
    await r.alerts.evaluateOnce();
    expect((await r.alerts.listAlerts({ status: "open" })).find((a) => a.ruleId === rule.id)).toMatchObject({ value: 15 * MIN + 1 });

    await r.engine.decide(waiting.reviewId!, { decision: "approve", reviewer: "ana" });
    const after = await r.alerts.evaluateOnce();
    expect(after.resolved.filter((a) => a.ruleId === rule.id)).toEqual([expect.objectContaining({ id: opened[0]!.id, status: "resolved", value: 0 })]);

    await r.webhooks.idle();
    const bodies = rx.alerts("/alerts").filter((b) => b.ruleId === rule.id);
    expect(bodies.map((b) => b.status)).toEqual(["open", "resolved"]);
    expect(bodies[0]).toMatchObject({
      hook: "on_alert",
      alertId: opened[0]!.id,
      source: "rule",
      workflow: "loop",
      state: "REVIEW",
      metric: "waiting",
      value: 10 * MIN + 1,
      threshold: 10 * MIN,
      status: "open",
      resolvedAt: null,
    });
    expect(bodies[0]!.message).toContain("has waited 10 min for a review");
    expect(bodies[1]).toMatchObject({ status: "resolved", value: 0, resolvedAt: expect.any(String) });
    expect(bodies[1]!.message).toMatch(/^cleared: REVIEW: no run is waiting for a review$/);
    for (const k of ["workflow", "state", "metric", "value", "threshold", "message", "status"]) expect(bodies[0]).toHaveProperty(k);
    // signed like every delivery, and labelled as an alert
    const call = rx.calls.find((c) => c.url.endsWith("/alerts"))!;
    expect(call.headers["x-switchyard-event"]).toBe("on_alert");
    expect(verifySignature(SECRET, call.headers["x-switchyard-signature"], call.headers["x-switchyard-timestamp"], call.body)).toBe(true);
    // the state filter and the workflow filter apply; hook-event webhooks get no alerts
    expect(rx.alerts("/review-alerts").filter((b) => b.ruleId === rule.id).map((b) => b.status)).toEqual(["open", "resolved"]);
    expect(rx.alerts("/executing-alerts").filter((b) => b.state !== "WORK")).toEqual([]);
    expect(rx.alerts("/other")).toEqual([]);
    expect(rx.alerts("/transitions").some((b) => (b.hook as string) === "on_alert")).toBe(false);
    // the delivery log shows them
    const hooks = await r.webhooks.listWebhooks("loop");
    const log = await r.webhooks.deliveries(hooks.find((h) => h.url.endsWith("/alerts"))!.id);
    expect(log.filter((d) => (d.payload as AlertWebhookPayload).ruleId === rule.id)).toEqual([
      expect.objectContaining({ hook: "on_alert", runId: "", status: "delivered" }),
      expect.objectContaining({ hook: "on_alert", runId: "", status: "delivered" }),
    ]);
  });

  it("failure rate and the metrics tables' thresholds: failed executions open a rule alert and the seed's success-rate alert", async () => {
    const r = await alertRuntime({ actors: { work: fail("model down") } });
    const rule = await r.alerts.createRule({ workflow: "loop", state: "WORK", metric: "failure_rate", threshold: 0.5 });
    const ok = await r.alerts.createRule({ workflow: "loop", state: "FETCH", metric: "failure_rate", threshold: 0 });
    for (let i = 0; i < 3; i++) {
      const { run } = await r.engine.start("loop", { request: `Write a Go program number ${i} that counts words in a file` });
      await r.engine.waitFor(run.id, (x) => inState("IDLE")(x) && (x.context as LoopContext).last !== null);
    }
    const rep = await r.alerts.evaluateOnce();
    const byRule = new Map(rep.opened.map((a) => [a.ruleId, a]));
    expect(byRule.get(rule.id)).toMatchObject({ metric: "failure_rate", value: 1, threshold: 0.5, message: "WORK: 3 of 3 visits failed (100%) in the last 1 h (above 50%)" });
    expect(byRule.has(ok.id)).toBe(false);
    const seed = byRule.get("seed:loop:WORK:Success rate");
    expect(seed).toMatchObject({ source: "seed", workflow: "loop", state: "WORK", metric: "Success rate", value: 0, threshold: 0.6, status: "open" });
    expect(seed!.message).toBe("WORK: success rate 0% (alert <60%; 0 of 3)");
    // seed rows that are not at "alert" open nothing
    expect(rep.opened.filter((a) => a.source === "seed").map((a) => a.metric)).not.toContain("Fetch time");
    expect(await r.alerts.openByState("loop")).toHaveProperty("WORK");
    // re-evaluation: no duplicates
    expect((await r.alerts.evaluateOnce()).opened).toEqual([]);
    // deleting a rule resolves its alert at once; a second delete is a 404
    await r.alerts.deleteRule(rule.id);
    expect((await r.alerts.listAlerts({ status: "open" })).map((a) => a.ruleId)).not.toContain(rule.id);
    expect((await r.alerts.listAlerts({ status: "resolved" })).find((a) => a.ruleId === rule.id)!.message).toMatch(/^rule deleted: /);
    await expect(r.alerts.deleteRule(rule.id)).rejects.toMatchObject({ status: 404 });
  });

  /** A 1 s dwell rule on FETCH, and a run whose fetch timed out there after 5 s (a breach). */
  async function slowSearchBreach() {
    const r = await alertRuntime({ actors: { fetch: hang() } });
    const rule = await r.alerts.createRule({ workflow: "loop", state: "FETCH", metric: "dwell", threshold: 1_000 });
    const { run } = await r.engine.start("loop", { request: REQUEST });
    await r.engine.waitFor(run.id, inState("FETCH"));
    r.clock.advance(5_000);
    await r.engine.waitFor(run.id, inState("REVIEW"));
    return { r, rule };
  }

  it("an alert whose rule disappeared without the API (disabled, or deleted by another process) resolves on the next evaluation", async () => {
    const { r, rule } = await slowSearchBreach();
    expect((await r.alerts.evaluateOnce()).opened.map((a) => a.ruleId)).toContain(rule.id);
    await r.db.alertRule.update({ where: { id: rule.id }, data: { enabled: false } });
    const rep = await r.alerts.evaluateOnce();
    expect(rep.resolved.find((a) => a.ruleId === rule.id)!.message).toMatch(/^no longer watched/);
  });

  it("a rule deleted while an evaluation runs opens no alert (none is left open, none is sent)", async () => {
    const { r, rule } = await slowSearchBreach();
    const sent: string[] = [];
    const monitor = new AlertMonitor({ db: r.db, store: r.store, clock: r.clock, notify: async (a) => void sent.push(`${a.ruleId} ${a.status}`) });
    // the rule is deleted after the evaluation read the rules and before it opens the breach's alert
    const m = monitor as unknown as { ruleTargets(now: number): Promise<unknown[]> };
    const read = m.ruleTargets.bind(monitor);
    m.ruleTargets = async (now) => {
      const targets = await read(now);
      await monitor.deleteRule(rule.id);
      return targets;
    };
    const rep = await monitor.evaluateOnce();
    expect(rep.opened.map((a) => a.ruleId)).not.toContain(rule.id);
    expect((await monitor.listAlerts({})).map((a) => a.ruleId)).not.toContain(rule.id);
    expect(sent.filter((x) => x.startsWith(rule.id))).toEqual([]);
  });

  it("start() evaluates on the injected clock's interval; stop() ends it", async () => {
    rt = await loopRuntime({ actors: { fetch: hang() } });
    const r = rt;
    expect(r.alerts.started).toBe(true);
    expect(r.alerts.intervalMs).toBe(15_000);
    const rule = await r.alerts.createRule({ workflow: "loop", state: "FETCH", metric: "dwell", threshold: 1_000 });
    const { run } = await r.engine.start("loop", { request: REQUEST });
    await r.engine.waitFor(run.id, inState("FETCH"));
    r.clock.advance(5_000);
    await r.engine.waitFor(run.id, inState("REVIEW"));
    expect(await r.alerts.listAlerts({ status: "open" })).toEqual([]); // nothing evaluated yet
    r.clock.advance(10_000); // 15 s after the start: the first evaluation
    await r.alerts.idle();
    expect((await r.alerts.listAlerts({ status: "open" })).map((a) => a.ruleId)).toContain(rule.id);
    // hours at once fire one evaluation, not one per interval: the slow visit leaves the window
    r.clock.advance(2 * HOUR);
    await r.alerts.idle();
    await flush();
    expect((await r.alerts.listAlerts({ status: "open" })).map((a) => a.ruleId)).not.toContain(rule.id);
    await r.alerts.stop();
    expect(r.alerts.started).toBe(false);
  });

  it("SWITCHYARD_ALERT_INTERVAL_MS=0 leaves the monitor off", async () => {
    rt = await loopRuntime({ env: { SWITCHYARD_ALERT_INTERVAL_MS: "0" } as unknown as NodeJS.ProcessEnv });
    expect(rt.alerts.started).toBe(false);
    // evaluated on demand all the same: every metrics-table row of every workflow in the catalog
    expect((await rt.alerts.evaluateOnce()).evaluated).toBe(builtInWorkflows().reduce((n, w) => n + (w.metrics?.length ?? 0), 0));
  });
});

// ------------------------------------------------------------------ the API

describe("/api/alerts routes", () => {
  const dbUrl = tempDbUrl("alerts-api");
  type Ctx = { params: Promise<{ id: string }> };
  type H = (req: Request, ctx: Ctx) => Promise<Response>;
  let alerts: { GET: H };
  let rules: { GET: H; POST: H };
  let one: { DELETE: H };
  let prevUrl: string | undefined;

  const ctx = (id = ""): Ctx => ({ params: Promise.resolve({ id }) });
  const get = (path: string) => new Request(`http://test${path}`);
  const post = (body: unknown, type = "application/json") => new Request("http://test/api/alerts/rules", { method: "POST", body: typeof body === "string" ? body : JSON.stringify(body), headers: { "content-type": type } });
  const del = (id: string) => new Request(`http://test/api/alerts/rules/${id}`, { method: "DELETE" });

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
    alerts = (await import("../app/api/alerts/route")) as never;
    rules = (await import("../app/api/alerts/rules/route")) as never;
    one = (await import("../app/api/alerts/rules/[id]/route")) as never;
  });

  afterAll(async () => {
    const { getRuntime } = await import("../lib/runtime");
    await (await getRuntime()).close();
    if (prevUrl === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = prevUrl;
  });

  it("GET /api/alerts: { alerts }, filtered by status and workflow; bad queries → 422", async () => {
    const res = await alerts.GET(get("/api/alerts?status=open&workflow=loop"), ctx());
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ alerts: [] });
    expect((await alerts.GET(get("/api/alerts"), ctx())).status).toBe(200);
    await expectError(await alerts.GET(get("/api/alerts?status=sleeping"), ctx()), 422, /status must be "open" or "resolved"/);
    await expectError(await alerts.GET(get("/api/alerts?workflow=../x"), ctx()), 422, /workflow/);
    await expectError(await alerts.GET(get("/api/alerts?limit=0"), ctx()), 422, /limit/);
    await expectError(await alerts.GET(get("/api/alerts?limit=abc"), ctx()), 422, /limit/);
    await expectError(await alerts.GET(get("/api/alerts?bogus=1"), ctx()), 422);
  });

  it("POST /api/alerts/rules: 201 with the rule; malformed or invalid bodies → 4xx with a message", async () => {
    await expectError(await rules.POST(post("{nope"), ctx()), 400, /malformed JSON/);
    await expectError(await rules.POST(post(""), ctx()), 400, /empty/);
    await expectError(await rules.POST(post("[]"), ctx()), 422);
    await expectError(await rules.POST(post("workflow=loop", "application/x-www-form-urlencoded"), ctx()), 415);
    await expectError(await rules.POST(post({}), ctx()), 422, /workflow is required/);
    await expectError(await rules.POST(post({ workflow: "no-such", state: "IDLE", metric: "dwell", threshold: 1_000 }), ctx()), 422, /unknown workflow "no-such"/);
    await expectError(await rules.POST(post({ workflow: "loop", state: "NOPE", metric: "dwell", threshold: 1_000 }), ctx()), 422, /has no state "NOPE"/);
    await expectError(await rules.POST(post({ workflow: "loop", state: "IDLE", metric: "speed", threshold: 1_000 }), ctx()), 422, /metric/);
    await expectError(await rules.POST(post({ workflow: "loop", state: "WORK", metric: "failure_rate", threshold: 2 }), ctx()), 422, /between 0 and 1/);
    await expectError(await rules.POST(post({ workflow: "loop", state: "IDLE", metric: "waiting", threshold: 1_000 }), ctx()), 422, /review states/);
    await expectError(await rules.POST(post({ workflow: "loop", state: "IDLE", metric: "dwell", threshold: 1_000, extra: true }), ctx()), 422);
    await expectError(await rules.POST(post({ workflow: "loop", state: "IDLE", metric: "dwell", threshold: 1_000, enabled: "yes" }), ctx()), 422, /enabled/);
    expect(await (await rules.GET(get("/api/alerts/rules"), ctx())).json()).toEqual({ rules: [] });

    const res = await rules.POST(post({ workflow: "loop", state: "REVIEW", metric: "waiting", threshold: HOUR }), ctx());
    expect(res.status).toBe(201);
    const { rule } = (await res.json()) as { rule: { id: string } };
    expect(rule).toMatchObject({ workflow: "loop", state: "REVIEW", stateName: "REVIEW", metric: "waiting", threshold: HOUR, windowMs: HOUR, enabled: true, summary: "a review waits longer than 1 h" });
    expect(res.headers.get("location")).toBe(`/api/alerts/rules/${rule.id}`);
    const listed = (await (await rules.GET(get("/api/alerts/rules?workflow=loop"), ctx())).json()) as { rules: { id: string }[] };
    expect(listed.rules.map((r) => r.id)).toEqual([rule.id]);
    expect(await (await rules.GET(get("/api/alerts/rules?workflow=hello"), ctx())).json()).toEqual({ rules: [] });
    await expectError(await rules.GET(get("/api/alerts/rules?workflow=loop&x=1"), ctx()), 422);
  });

  it("DELETE /api/alerts/rules/{id}: 204, then 404; a malformed id → 422", async () => {
    const created = (await (await rules.POST(post({ workflow: "loop", state: "WORK", metric: "dwell", threshold: 30_000 }), ctx())).json()) as { rule: { id: string } };
    await expectError(await one.DELETE(del("missing"), ctx("missing")), 404, /alert rule missing not found/);
    await expectError(await one.DELETE(del("../etc"), ctx("../etc")), 422);
    const res = await one.DELETE(del(created.rule.id), ctx(created.rule.id));
    expect(res.status).toBe(204);
    await expectError(await one.DELETE(del(created.rule.id), ctx(created.rule.id)), 404);
  });
});
