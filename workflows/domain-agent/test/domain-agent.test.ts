// Domain-agent (workflows/domain-agent/guide.md) through the real engine on SQLite: every row of the transition table (scripted steps
// where a row needs a particular verdict), the BOTH split as parallel regions, clarification with
// an answer and with a decline, the evaluation retry limit, and the observer's three triggers —
// and the offline steps end to end over a two-week log.
import { afterEach, describe, expect, it } from "vitest";
import { parseLog } from "../domains/parse";
import { getProfile, listEntries, listObservations, saveEntries, setProfileFacts } from "../domains/store";
import { ManualClock } from "../../../lib/engine/clock";
import type { RunView } from "../../../lib/engine/views";
import { addDays } from "../effects/window";
import type { AgentContext, Analysis, Evaluation, QueryPlan } from "../types";
import { hang, tempDbUrl, workflowRuntime, type Overrides, type RuntimeOverrides } from "../../../test/helpers";

const TODAY = "2026-11-23";
let rt: Awaited<ReturnType<typeof workflowRuntime>> | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
});

function agentRuntime(opts: RuntimeOverrides = {}) {
  return workflowRuntime("domain-agent", { clock: new ManualClock(Date.parse(`${TODAY}T08:00:00Z`)), ...opts });
}

const settled = (r: RunView) => r.status !== "running";
const ctxOf = (r: RunView) => r.context as AgentContext;

async function run(text: string, actors?: Overrides, config: Record<string, number> = {}) {
  rt ??= await agentRuntime({ actors });
  const { run } = await rt.engine.start("domain-agent", { text, today: TODAY, config });
  return rt.engine.waitFor(run.id, settled);
}

/** "FROM>TO: reason" for every recorded transition. */
async function path(runId: string): Promise<string[]> {
  return (await rt!.store.transitions(runId)).map((t) => `${t.from.join(",") || "*"}>${t.to.join(",")}: ${t.reason}`);
}

async function visited(runId: string): Promise<string[]> {
  return (await rt!.store.transitions(runId)).flatMap((t) => t.to);
}

/** Two weeks of log: last week rested, this week short nights, high stress, more load. */
function twoWeeks(): string {
  const lines: string[] = [];
  for (let i = 13; i >= 0; i--) {
    const day = addDays(TODAY, -i);
    const thisWeek = i <= 6;
    lines.push(`${day}: slept ${thisWeek ? 5.5 : 7.5} h, resting HR ${thisWeek ? 58 : 50}, HRV ${thisWeek ? 52 : 68}, soreness ${thisWeek ? 6 : 3}/10`);
    if (i % 2 === 0) lines.push(`${day}: ran ${thisWeek ? 14 : 8} km in ${thisWeek ? 80 : 45} min, RPE ${thisWeek ? 8 : 5}`);
    if (thisWeek && i % 3 === 0) lines.push(`${day}: slept badly again, stress 8/10 with the deadline`);
    lines.push(`${day}: protein ${thisWeek ? 90 : 130} g, 2400 kcal`);
  }
  return lines.join("\n");
}

async function seedLog(text = twoWeeks()) {
  rt ??= await agentRuntime();
  const entries = parseLog(text, { today: TODAY });
  await saveEntries(rt.db, "seed", entries, entries.map(() => null), rt.clock.now());
  return entries;
}

// scripted steps for rows that need a particular verdict
const plan = (decision: QueryPlan["decision"], extra: Partial<QueryPlan> = {}) => ({ decision, reason: `scripted ${decision}`, focus: ["recovery"], domains: ["recovery"], widen: 0, metrics: ["resting_hr"], terms: [], causal: false, round: 1, adapter: "test", window: { from: addDays(TODAY, -6), to: TODAY, baselineFrom: addDays(TODAY, -13), baselineTo: addDays(TODAY, -7), label: "this week" }, ...extra }) as QueryPlan;
const analysis = (verdict: Analysis["verdict"], gap: Analysis["gap"] = null): Analysis => ({ verdict, findings: [], gap, reason: `scripted ${verdict}`, adapter: "test" });
const evaluation = (verdict: Evaluation["verdict"]): Evaluation => ({ verdict, score: verdict === "PASS" ? 1 : 0, reasons: [`scripted ${verdict}`], adapter: "test" });
function sequence<T>(...outs: T[]) {
  let i = 0;
  return async () => outs[Math.min(i++, outs.length - 1)];
}

describe("domain-agent: the seed's transition table", () => {
  it("ROUTE → BUILD_CONTEXT → PLAN → RETRIEVE → ANALYZE → SYNTHESIZE → EVALUATE → OBSERVE → COMPLETE (a QUERY)", async () => {
    await seedLog();
    const r = await run("How did I sleep this week?");
    expect(r.status).toBe("completed");
    expect(await path(r.id)).toEqual([
      "*>ROUTE: run started",
      "ROUTE>BUILD_CONTEXT: Always (domains selected)",
      "BUILD_CONTEXT>PLAN: input_type == QUERY",
      "PLAN>RETRIEVE: Normal",
      "RETRIEVE>ANALYZE: Always",
      "ANALYZE>SYNTHESIZE: Sufficient",
      "SYNTHESIZE>EVALUATE: Always",
      "EVALUATE>OBSERVE: verdict == PASS",
      "OBSERVE>COMPLETE: Always",
    ]);
    const c = ctxOf(r);
    expect(c.inputType).toBe("QUERY");
    expect(c.domains).toEqual(["sleep"]);
    expect(c.answer?.text).toMatch(/Sleep averaged 5\.5 h over this week \(7 values\) vs 7\.5 h/);
    expect(c.answer?.citations.length).toBeGreaterThan(0);
    expect(c.observation?.triggers).toEqual(["post_query"]);
  });

  it("BUILD_CONTEXT → PARSE → STORE → OBSERVE (a LOG), entries stored with day, metrics, units and domains", async () => {
    const r = await run("ran 8 km, legs heavy, slept 6 h\nyesterday: 2 beers, protein 80 g");
    expect(r.status).toBe("completed");
    expect(await path(r.id)).toEqual([
      "*>ROUTE: run started",
      "ROUTE>BUILD_CONTEXT: Always (domains selected)",
      "BUILD_CONTEXT>PARSE: input_type == LOG",
      "PARSE>STORE: Always",
      "STORE>OBSERVE: Always (check significant log)",
      "OBSERVE>COMPLETE: Always",
    ]);
    const entries = await listEntries(rt!.db, { runId: r.id });
    expect(entries.map((e) => e.day).sort()).toEqual([addDays(TODAY, -1), TODAY]);
    const today = entries.find((e) => e.day === TODAY)!;
    expect(today.metrics).toEqual(expect.arrayContaining([expect.objectContaining({ name: "distance_km", value: 8, unit: "km" }), expect.objectContaining({ name: "sleep_hours", value: 6, unit: "h" })]));
    expect(today.domains).toEqual(expect.arrayContaining(["training", "recovery", "sleep"]));
    expect(ctxOf(r).observation).toMatchObject({ triggers: [], decision: "skip" });
  });

  it("PLAN → EXPAND_DOMAIN → BUILD_CONTEXT (proactive), ANALYZE → EXPAND_DOMAIN (gap outside expertise), then a cited answer", async () => {
    await seedLog();
    const r = await run("Why is my recovery worse this week?");
    expect(r.status).toBe("completed");
    const p = await path(r.id);
    expect(p).toContain("PLAN>EXPAND_DOMAIN: Domain gap (proactive)");
    expect(p).toContain("ANALYZE>EXPAND_DOMAIN: Domain gap detected (gap.outside_current_expertise)");
    expect(p.filter((x) => x === "EXPAND_DOMAIN>BUILD_CONTEXT: Always (rebuild with new domains)")).toHaveLength(2);
    const c = ctxOf(r);
    expect(c.expansions.map((e) => [e.from, e.domains])).toEqual([
      ["PLAN", ["sleep", "training", "nutrition"]],
      ["ANALYZE", ["mood"]],
    ]);
    expect(c.domains).toEqual(["recovery", "sleep", "training", "nutrition", "mood"]);
    expect(c.domainContext?.expertise.map((e) => e.domain)).toEqual(c.domains);
    expect(c.evaluation?.verdict).toBe("PASS");
    expect(c.answer?.text).toMatch(/Your recovery is worse over this week/);
    expect(c.answer?.text).toMatch(/Likely contributors:[\s\S]*Sleep averaged 5\.5 h/);
    expect(c.answer?.text).toMatch(/Stress averaged 8/);
  });

  it("ANALYZE → PLAN when insufficient (re-plan with a wider window), then synthesizes with what there is at the limit", async () => {
    rt = await agentRuntime();
    await seedLog(`${addDays(TODAY, -20)}: slept 7 h`);
    const r = await run("How did I sleep this week?", undefined, { maxReplans: 2 });
    const p = await path(r.id);
    // this week (7 days) and 14 days find nothing; the second re-plan (28 days) reaches the entry
    expect(p.filter((x) => x === "ANALYZE>PLAN: Insufficient (re-plan)")).toHaveLength(2);
    const c = ctxOf(r);
    expect(c.replans).toBe(2);
    expect(c.plan?.window.label).toBe("the last 28 days");
    expect(c.partial).toBe(false);
    expect(c.answer?.text).toMatch(/Sleep averaged 7 h over the last 28 days \(1 value\)/);
    expect(r.status).toBe("completed");
  });

  it("ANALYZE → SYNTHESIZE (partial) when re-plans run out", async () => {
    const r = await run("How did I sleep this week?", undefined, { maxReplans: 1 });
    const p = await path(r.id);
    expect(p).toContain("ANALYZE>PLAN: Insufficient (re-plan)");
    expect(p).toContain("ANALYZE>SYNTHESIZE: Insufficient, re-plan limit reached (partial)");
    const c = ctxOf(r);
    expect(c.partial).toBe(true);
    expect(c.answer?.text).toMatch(/^\*\*Partial answer:\*\*/);
    expect(c.answer?.text).toMatch(/I found no sleep entries/);
  });

  it("PLAN → SYNTHESIZE when the global context already answers", async () => {
    rt = await agentRuntime();
    await setProfileFacts(rt.db, [{ key: "max_hr", value: "188" }], { source: "user", reason: "test" }, rt.clock.now());
    const r = await run("What is my max heart rate?");
    expect(await path(r.id)).toContain("PLAN>SYNTHESIZE: Already sufficient");
    expect(ctxOf(r).answer?.text).toMatch(/max hr: 188 \[global context\]/);
    expect(ctxOf(r).evaluation?.verdict).toBe("PASS");
  });

  it("PLAN → CLARIFY → WAIT_USER → ANALYZE when the person answers; the observer stores the answer (user_correction)", async () => {
    await seedLog();
    const r = await run("Am I eating enough protein this week?");
    expect(r.status).toBe("waiting");
    expect(r.state).toEqual(["WAIT_USER"]);
    expect(await path(r.id)).toEqual(expect.arrayContaining(["PLAN>CLARIFY: Non-retrievable gaps", "CLARIFY>WAIT_USER: Always"]));
    const review = (await rt!.store.listReviews({ runId: r.id, status: "pending" }))[0]!;
    expect(review.kind).toBe("clarification");
    expect(review.prompt).toMatch(/body weight/);
    await rt!.engine.decide(review.id, { decision: "answer", feedback: "about 75 kg", reviewer: "me" });
    const done = await rt!.engine.waitFor(r.id, settled);
    expect(done.status).toBe("completed");
    const p = await path(r.id);
    expect(p).toContain("WAIT_USER>ANALYZE: User provided info");
    const c = ctxOf(done);
    expect(c.clarification).toMatchObject({ need: "body_weight_kg", answer: "about 75 kg" });
    expect(c.answer?.text).toMatch(/^\*\*Short answer:\*\* not quite — Protein averaged 1\.2 g per kg of body weight \(75 kg\)/);
    // cited entries name their day once
    expect(c.answer?.text).toMatch(/\n1\. 2026-11-23 — protein 90 g, 2400 kcal/);
    expect(c.observation?.triggers).toEqual(["post_query", "user_correction"]);
    expect(c.observation?.decision).toBe("update");
    expect((await getProfile(rt!.db)).body_weight_kg).toBe("75");
  });

  it("WAIT_USER → SYNTHESIZE when the person declines: the answer says it rests on the log alone", async () => {
    await seedLog();
    const r = await run("Am I eating enough protein this week?");
    const review = (await rt!.store.listReviews({ runId: r.id, status: "pending" }))[0]!;
    await rt!.engine.send(r.id, { type: "DECLINE" });
    const done = await rt!.engine.waitFor(r.id, settled);
    expect(await path(r.id)).toContain("WAIT_USER>SYNTHESIZE: User declined");
    expect(ctxOf(done).answer?.text).toMatch(/You chose not to answer/);
    expect((await rt!.store.getReview(review.id))?.status).toBe("decided");
    expect((await getProfile(rt!.db)).body_weight_kg).toBeUndefined();
  });

  it("an empty answer is refused (422-class error), the run stays waiting", async () => {
    await seedLog();
    const r = await run("Am I eating enough protein this week?");
    const review = (await rt!.store.listReviews({ runId: r.id, status: "pending" }))[0]!;
    await expect(rt!.engine.decide(review.id, { decision: "answer", feedback: "   " })).rejects.toThrow(/an answer is required/);
    expect((await rt!.engine.getRun(r.id)).status).toBe("waiting");
  });

  it("EVALUATE → PLAN while retry_count < max, then → OBSERVE as partial at the limit", async () => {
    rt = await agentRuntime({ actors: { evaluate: sequence(evaluation("FAIL")) } });
    await seedLog();
    const r = await run("How did I sleep this week?", { evaluate: sequence(evaluation("FAIL")) }, { maxEvalRetries: 2 });
    const p = await path(r.id);
    expect(p.filter((x) => x === "EVALUATE>PLAN: verdict == FAIL, retry_count < max (retry)")).toHaveLength(2);
    expect(p).toContain("EVALUATE>OBSERVE: verdict == FAIL, retry_count >= max (partial)");
    const c = ctxOf(r);
    expect(c.retryCount).toBe(2);
    expect(c.partial).toBe(true);
    expect(r.status).toBe("completed");
  });

  it("EVALUATE → PLAN once, then PASS", async () => {
    rt = await agentRuntime({ actors: { evaluate: sequence(evaluation("FAIL"), evaluation("PASS")) } });
    await seedLog();
    const r = await run("How did I sleep this week?", { evaluate: sequence(evaluation("FAIL"), evaluation("PASS")) });
    const p = await path(r.id);
    expect(p.filter((x) => x.startsWith("EVALUATE>PLAN"))).toHaveLength(1);
    expect(p).toContain("EVALUATE>OBSERVE: verdict == PASS");
    expect(ctxOf(r).partial).toBe(false);
  });

  it("expansion is bounded: a planner that always asks for more domains stops at maxExpansions", async () => {
    const asks = ["sleep", "training", "nutrition", "mood"];
    let i = 0;
    const r = await run("How is my recovery?", { plan: async () => plan("EXPAND_DOMAIN", { expand: [asks[i++ % asks.length]!] }) }, { maxExpansions: 2 });
    const p = await path(r.id);
    expect(p.filter((x) => x.startsWith("PLAN>EXPAND_DOMAIN"))).toHaveLength(2);
    expect(p).toContain("PLAN>RETRIEVE: Normal");
    expect(ctxOf(r).domains).toEqual(["recovery", "sleep", "training"]);
  });

  it("a scripted gap from ANALYZE loads the suspected domain and rebuilds the context", async () => {
    const r = await run("How is my recovery?", { analyze: sequence(analysis("SUFFICIENT", { outside_current_expertise: true, suspected_domain: "nutrition", description: "low protein" }), analysis("SUFFICIENT")) });
    expect(await path(r.id)).toEqual(expect.arrayContaining(["ANALYZE>EXPAND_DOMAIN: Domain gap detected (gap.outside_current_expertise)", "EXPAND_DOMAIN>BUILD_CONTEXT: Always (rebuild with new domains)", "BUILD_CONTEXT>PLAN: input_type == QUERY"]));
    expect(ctxOf(r).expansions).toEqual([{ from: "ANALYZE", domains: ["nutrition"], reason: "low protein" }]);
  });

  it("a failing step ends in FAILED with the error and what was produced kept", async () => {
    const r = await run("How did I sleep this week?", { retrieve: async () => Promise.reject(new Error("database gone")) });
    expect(r.status).toBe("failed");
    expect(r.state).toEqual(["FAILED"]);
    // not a model error (no LLM/NETWORK category): the run fails rather than asking a person
    expect(ctxOf(r).error).toEqual({ state: "RETRIEVE", retry: "RETRIEVE", message: "database gone" });
    expect(ctxOf(r).plan?.decision).toBe("RETRIEVE");
  });
});

describe("domain-agent: BOTH runs the log branch and the query branch as parallel regions", () => {
  it("BUILD_CONTEXT → BOTH_SPLIT with PARSE and PLAN active at once; both finish before OBSERVE", async () => {
    await seedLog();
    const r0 = await rt!.engine.start("domain-agent", { text: "slept 4 h, resting HR 66\nwhy is my sleep worse this week?", today: TODAY });
    const done = await rt!.engine.waitFor(r0.run.id, settled);
    const steps = await rt!.store.transitions(done.id);
    const split = steps.find((t) => t.reason === "input_type == BOTH (PLAN + PARSE in parallel)")!;
    expect(split.to.sort()).toEqual(["BOTH_SPLIT.PARSE_BRANCH.PARSE", "BOTH_SPLIT.PLAN_BRANCH.PLAN"]);
    const all = steps.flatMap((t) => t.to);
    expect(all).toEqual(expect.arrayContaining(["BOTH_SPLIT.PARSE_BRANCH.STORE", "BOTH_SPLIT.PARSE_BRANCH.LOGGED", "BOTH_SPLIT.PLAN_BRANCH.ANSWERED", "OBSERVE", "COMPLETE"]));
    expect(steps.find((t) => t.reason === "Both branches done")?.to).toEqual(["OBSERVE"]);
    const c = ctxOf(done);
    expect(c.inputType).toBe("BOTH");
    expect(c.stored?.ids).toHaveLength(1);
    // the night just logged is significant (4 h): the observer was triggered by it
    expect(c.observation?.triggers).toEqual(expect.arrayContaining(["post_query", "significant_log"]));
    expect((await getProfile(rt!.db)).watch_sleep).toMatch(/short night \(4 h\)/);
    expect(done.status).toBe("completed");
    // usage is recorded against the state that made the call, not both regions' leaves
    const calls = await rt!.db.modelCall.findMany({ where: { runId: done.id } });
    expect(calls.map((c) => c.state)).toEqual(expect.arrayContaining(["ROUTE", "BOTH_SPLIT.PLAN_BRANCH.PLAN", "BOTH_SPLIT.PLAN_BRANCH.SYNTHESIZE", "BOTH_SPLIT.PLAN_BRANCH.EVALUATE", "OBSERVE"]));
    // offline, nothing claims model work: each offline answer is one offline row, with no tokens
    expect(calls.every((c) => c.adapter === "offline engine" && c.promptTokens === 0 && c.completionTokens === 0)).toBe(true);
    expect(calls.every((c) => !c.state?.includes(","))).toBe(true);
  });

  it("a clarification inside the query region waits while the log branch has finished", async () => {
    await seedLog();
    const { run: r } = await rt!.engine.start("domain-agent", { text: "protein 70 g today\nam I eating enough protein this week?", today: TODAY });
    const w = await rt!.engine.waitFor(r.id, settled);
    expect(w.status).toBe("waiting");
    expect(w.state.sort()).toEqual(["BOTH_SPLIT.PARSE_BRANCH.LOGGED", "BOTH_SPLIT.PLAN_BRANCH.WAIT_USER"]);
    expect(await listEntries(rt!.db, { runId: r.id })).toHaveLength(1);
    await rt!.engine.send(r.id, { type: "ANSWER", answer: "70 kg" });
    const done = await rt!.engine.waitFor(r.id, settled);
    expect(done.status).toBe("completed");
    expect(await visited(r.id)).toEqual(expect.arrayContaining(["BOTH_SPLIT.PLAN_BRANCH.ANALYZE", "OBSERVE", "COMPLETE"]));
  });

  it("domain expansion inside the query region rebuilds the region's own context; the log branch is untouched", async () => {
    await seedLog();
    const { run: r } = await rt!.engine.start("domain-agent", { text: "resting HR 60 this morning\nwhy is my recovery worse this week?", today: TODAY });
    const done = await rt!.engine.waitFor(r.id, settled);
    const p = await path(r.id);
    expect(p).toContain("BOTH_SPLIT.PLAN_BRANCH.PLAN>BOTH_SPLIT.PLAN_BRANCH.EXPAND_DOMAIN: Domain gap (proactive)");
    expect(p).toContain("BOTH_SPLIT.PLAN_BRANCH.BUILD_CONTEXT>BOTH_SPLIT.PLAN_BRANCH.PLAN: Rebuilt: plan again");
    expect(done.status).toBe("completed");
  });
});

describe("domain-agent: the observer", () => {
  it("a correction in the input updates the global context and records why", async () => {
    const r = await run("Actually my max HR is 192.");
    const c = ctxOf(r);
    expect(c.route?.corrections).toEqual([{ key: "max_hr", value: "192", text: "Actually my max HR is 192." }]);
    expect(c.observation).toMatchObject({ triggers: ["user_correction"], decision: "update" });
    expect((await getProfile(rt!.db)).max_hr).toBe("192");
    const [obs] = await listObservations(rt!.db, { runId: r.id });
    expect(obs).toMatchObject({ decision: "update", triggers: ["user_correction"], changes: [{ key: "max_hr", from: null, to: "192" }] });
    expect(obs!.reason).toMatch(/you said “Actually my max HR is 192\.”/);
  });

  it("skips, with a reason, when a trigger fires but nothing new was learned", async () => {
    await run("Actually my max HR is 192.");
    const r = await run("Actually my max HR is 192.");
    expect(ctxOf(r).observation).toMatchObject({ decision: "skip" });
    expect(ctxOf(r).observation?.reason).toMatch(/nothing durable|already set/);
  });

  it("a post-query observation learns baselines from the entries it looked at", async () => {
    await seedLog();
    const r = await run("How was my resting heart rate in the last 14 days?");
    expect(ctxOf(r).observation?.decision).toBe("update");
    expect((await getProfile(rt!.db)).resting_hr_baseline).toBe("54");
  });
});

describe("domain-agent: restarts", () => {
  it("a clarification waiting in a BOTH run survives a restart; the log is stored once and the answer completes the run", async () => {
    const url = tempDbUrl();
    const a = await agentRuntime({ url });
    const { run: r } = await a.engine.start("domain-agent", { text: "protein 70 g, 2100 kcal\nam I eating enough protein this week?", today: TODAY });
    const w = await a.engine.waitFor(r.id, settled);
    expect(w.state.sort()).toEqual(["BOTH_SPLIT.PARSE_BRANCH.LOGGED", "BOTH_SPLIT.PLAN_BRANCH.WAIT_USER"]);
    await a.close();

    rt = await agentRuntime({ url });
    const back = await rt.engine.getRun(r.id);
    expect(back.status).toBe("waiting");
    const review = (await rt.store.listReviews({ runId: r.id, status: "pending" }))[0]!;
    await rt.engine.decide(review.id, { decision: "answer", feedback: "68 kg" });
    const done = await rt.engine.waitFor(r.id, settled);
    expect(done.status).toBe("completed");
    expect(await listEntries(rt.db, { runId: r.id })).toHaveLength(1);
    const seqs = (await rt.store.transitions(r.id)).map((t) => t.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect((await getProfile(rt.db)).body_weight_kg).toBe("68");
  });

  it("a run stopped mid-step resumes that step after a restart and finishes", async () => {
    const url = tempDbUrl();
    const first = await agentRuntime({ url, actors: { analyze: hang() } });
    const entries = parseLog(twoWeeks(), { today: TODAY });
    await saveEntries(first.db, "seed", entries, entries.map(() => null), first.clock.now());
    const { run: r } = await first.engine.start("domain-agent", { text: "How did I sleep this week?", today: TODAY });
    await first.engine.waitFor(r.id, (x) => x.state.includes("ANALYZE"));
    await first.close();

    rt = await agentRuntime({ url });
    const done = await rt.engine.waitFor(r.id, settled);
    expect(done.status).toBe("completed");
    expect(ctxOf(done).answer?.text).toMatch(/Sleep averaged 5\.5 h/);
    expect((await path(r.id)).filter((x) => x === "RETRIEVE>ANALYZE: Always")).toHaveLength(1);
  });
});
