// Model endpoint faults: two local OpenAI-compatible servers, each failing 30% of its
// POSTs in every way a model endpoint fails (429 with and without Retry-After, 500, 503, hangs
// and stalled replies that become timeouts, cut streams, 200s of garbage), behind every built-in
// workflow that calls the model. Two model configurations: "retry+fallback" (one retry per endpoint, then the next
// endpoint) and "fallback only" (no retry: the second endpoint is the only second chance), so
// that runs both get through and fail. Every run must reach a terminal state or wait where it
// should within the deadline (none hangs); a run that failed carries a classified error and
// keeps what it produced before the failure; transition seqs stay contiguous. The seed is
// printed: SWITCHYARD_CHAOS_SEED=<n> reproduces the fault sequence (which run meets which fault
// still depends on timing: many runs share the two servers). Under load the adapter also times
// out on requests that were never faulted; that is one more fault it must get through.
//
// conversation is left out: it has no effects and never calls the model.
//
// vitest: isolate — its 800 ms per-attempt timeouts are part of what it tests, so it runs on its
// own (a worker thread, vitest.config.ts), whose event loop no earlier test file's timers share.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { offlinePlan } from "../workflows/deep-research/effects/offline";
import { ManualClock } from "../lib/engine/clock";
import type { RunView } from "../lib/engine/views";
import { deriveGraph } from "../lib/graph/derive";
import { loadEndpoints } from "../lib/llm/endpoints";
import { OpenAiModel } from "../lib/llm/openai";
import type { AgentContext } from "../workflows/domain-agent/types";
import type { ResearchContext } from "../workflows/deep-research/types";
import type { ModesContext } from "../workflows/processing-modes/types";
import { findWorkflow } from "../lib/machines/registry";
import type { SwissContext } from "../workflows/swiss-army/types";
import type { Runtime } from "../lib/runtime";
import { workflowRuntime } from "./helpers";
import { FAULT_KINDS, seededRandom, start, type ChaosStats, type FakeOpenAi } from "./support/fake-openai";

const SEED = Number(process.env.SWITCHYARD_CHAOS_SEED || 20261123);
const RATE = Number(process.env.SWITCHYARD_CHAOS_RATE || 0.3);
/** per attempt: a hung request becomes a timeout this fast */
const TIMEOUT_MS = 800;
/** every run settles well within this, or it hangs (a hang detector, generous for a busy machine: a round takes seconds) */
const DEADLINE_MS = 60_000;
/** the whole mix is launched this many times in a row (one seeded fault sequence throughout) */
const ROUNDS = 3;
const TODAY = "2026-11-23";
/** the model port's error categories (lib/llm/errors.ts) other than UNKNOWN */
const CLASSIFIED = ["NETWORK", "LLM", "BUSINESS", "RESOURCE_LIMIT"];
const TERMINAL = ["completed", "failed", "aborted"];
const STAGES = ["ProblemAnalysis", "MultiPerspective", "DeepReasoning", "SynthesisAndReflection", "FinalAnswer"];

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

// ---- what the model answers when it answers -------------------------------------------------------

const QUERY = "How did I sleep this week?";
const LOG = "2026-11-22: ran 8 km easy, slept 6 h";
const BOTH_LOG = "slept 5 h last night, legs heavy.";
const BOTH_QUERY = "why is my recovery worse this week?";

const ROUTES: Record<string, object> = {
  [QUERY]: { inputType: "QUERY", domains: ["sleep"], confidence: 0.9, logText: "", queryText: QUERY, corrections: [], reason: "a question about sleep" },
  [LOG]: { inputType: "LOG", domains: ["training", "sleep"], confidence: 0.9, logText: LOG, queryText: "", corrections: [], reason: "a log line" },
  [`${BOTH_LOG} ${BOTH_QUERY}`]: { inputType: "BOTH", domains: ["sleep", "recovery"], confidence: 0.85, logText: BOTH_LOG, queryText: BOTH_QUERY, corrections: [], reason: "a log line and a question" },
};

function lastUser(body: any): string {
  const users = ((body?.messages ?? []) as { role: string; content: unknown }[]).filter((m) => m.role === "user");
  const c = users.at(-1)?.content;
  return typeof c === "string" ? c : JSON.stringify(c ?? "");
}

/** A valid reply to any request the built-in workflows make: by the JSON schema's name, else text. */
function answer(body: any): string | object {
  const name: string | undefined = body?.response_format?.json_schema?.name;
  const prompt = lastUser(body);
  switch (name) {
    case "routing":
      return { mode: "CHAT", confidence: 0.8, reason: "small talk" };
    case "search_queries":
      return { queries: ["durable timers workflow engine", "timer persistence restart"] };
    case "code":
      return { language: "javascript", code: "const answer = 6 * 7;\nconsole.log(answer);\nanswer" };
    case "research_plan":
      return offlinePlan(/^Topic: (.*)$/m.exec(prompt)?.[1] ?? prompt);
    case "reflection":
      return { round: 1, gaps: [], conflicts: [], notes: "coverage is sufficient" };
    case "route":
      return ROUTES[prompt] ?? ROUTES[QUERY]!;
    case "plan":
      return { decision: "RETRIEVE", reason: "look at this week vs the week before", expand: null, gap: null };
    case "analysis":
      return { verdict: "SUFFICIENT", gap: null, reason: "the findings answer it" };
    case "evaluation":
      return { verdict: "PASS", score: 0.9, reasons: ["answers the question"] };
    case "observation":
      return { decision: "skip", reason: "nothing durable learned", changes: [] };
  }
  return `Here is the answer, from the context where it helps [1]. It holds up under retries and fallback.`;
}

// ---- the runs ---------------------------------------------------------------------------------------

interface Launch {
  workflow: string;
  label: string;
  input: Record<string, unknown>;
}

const LAUNCHES: Launch[] = [
  { workflow: "swiss-army", label: "swiss: retry fn", input: { request: "Write a TypeScript function that retries a fetch with exponential backoff" } },
  { workflow: "swiss-army", label: "swiss: resume", input: { request: "Explain how Switchyard resumes runs after a restart" } },
  { workflow: "swiss-army", label: "swiss: checklist", input: { request: "Draft a checklist for reviewing a pull request that adds a database migration" } },
  { workflow: "domain-agent", label: "agent: QUERY", input: { text: QUERY, today: TODAY } },
  { workflow: "domain-agent", label: "agent: LOG", input: { text: LOG, today: TODAY } },
  { workflow: "domain-agent", label: "agent: BOTH", input: { text: `${BOTH_LOG} ${BOTH_QUERY}`, today: TODAY } },
  { workflow: "processing-modes", label: "modes: CHAT", input: { query: "hello there, how are you today?", mode: "CHAT" } },
  { workflow: "processing-modes", label: "modes: routed", input: { query: "hi! what's new with you?" } },
  { workflow: "processing-modes", label: "modes: KNOWLEDGE", input: { query: "How does Switchyard resume runs after a restart?", mode: "KNOWLEDGE" } },
  { workflow: "processing-modes", label: "modes: SEARCH", input: { query: "durable timers in workflow engines", mode: "SEARCH" } },
  { workflow: "processing-modes", label: "modes: THINKING", input: { query: "Should a retry loop honour Retry-After over its own backoff?", mode: "THINKING" } },
  { workflow: "processing-modes", label: "modes: CODE", input: { query: "compute six times seven and print it", mode: "CODE" } },
  { workflow: "processing-modes", label: "modes: DEEP_RESEARCH", input: { query: "How do durable timers survive restarts?", mode: "DEEP_RESEARCH", config: { backoffBaseMs: 200 } } },
  { workflow: "deep-research", label: "research: resume", input: { topic: "How does Switchyard resume runs after a restart?" } },
  { workflow: "deep-research", label: "research: backoff", input: { topic: "What makes retry with exponential backoff safe?" } },
];

interface Tracked extends Launch {
  id: string;
  profile: string;
  startedAt: number;
  /** wall time from start to settled */
  settledMs: number | null;
  final: RunView | null;
  /** how it settled: completed, failed, aborted, idle (swiss-army after its cycle), error-waiting (deep-research ERROR) */
  outcome: string | null;
  /** deep-research: the ERROR reviews it was sent back from */
  errorRetries: number;
}

/** deep-research runs seen in ERROR (top-level and processing-modes children), checked when seen */
interface ErrorSighting {
  runId: string;
  seq: number;
  profile: string;
  error: ResearchContext["error"];
  plan: boolean;
  facts: number;
  artifacts: string[];
}

interface Profile {
  name: string;
  maxRetries: number;
  rt: Runtime & { clock: ManualClock };
  /** waits the adapter asked for (backoff or Retry-After), in ms */
  waits: number[];
  runs: Tracked[];
}

const graphs = new Map<string, ReturnType<typeof deriveGraph>>();
/** a review state's decisions, as the UI offers them */
function decisionsOf(workflow: string, state: string): string[] {
  if (!graphs.has(workflow)) graphs.set(workflow, deriveGraph(findWorkflow(workflow)!.machine));
  return graphs.get(workflow)!.states.find((s) => s.id === state)?.decisions ?? [];
}

let a: FakeOpenAi;
let b: FakeOpenAi;
const profiles: Profile[] = [];

beforeAll(async () => {
  [a, b] = await Promise.all([start({ reply: answer }), start({ reply: answer })]);
  a.chaos({ rate: RATE, seed: SEED, retryAfterS: 1 });
  b.chaos({ rate: RATE, seed: SEED + 1, retryAfterS: 1 });
  const env = {
    OPENAI_BASE_URL: a.url,
    OPENAI_MODEL: "fake-a",
    SWITCHYARD_LLM_ENDPOINTS: JSON.stringify([{ name: "endpoint 2", baseURL: b.url, model: "fake-b" }]),
    SWITCHYARD_LLM_TIMEOUT_MS: String(TIMEOUT_MS),
    SWITCHYARD_LLM_BACKOFF_MS: "20",
  };
  for (const [name, maxRetries] of [["retry+fallback", 1], ["fallback only", 0]] as const) {
    const waits: number[] = [];
    // real time, scaled down: a Retry-After of 1 s is honoured as a 100 ms wait (and recorded as asked)
    const model = new OpenAiModel(loadEndpoints({ ...env, SWITCHYARD_LLM_MAX_RETRIES: String(maxRetries) }), {
      sleep: (ms) => {
        waits.push(ms);
        return sleep(Math.ceil(ms / 10));
      },
      random: seededRandom(SEED + 7),
    });
    const rt = await workflowRuntime("swiss-army", { model, clock: new ManualClock(Date.parse(`${TODAY}T09:00:00Z`)) });
    // seed and index the shipped guide now, so that its one-off cost does not stall the first model calls into timeouts
    await (await rt.knowledgeReady()).search("warm up the index", { limit: 1 });
    profiles.push({ name, maxRetries, rt, waits, runs: [] });
  }
}, 60_000);

afterAll(async () => {
  for (const p of profiles) await p.rt.close();
  await Promise.all([a?.close(), b?.close()]);
});

/** Workflows whose model errors (after the port's retries) wait in a top-level ERROR for a person. */
const ASKS_ON_MODEL_ERROR = new Set(["domain-agent", "swiss-army", "processing-modes"]);

/** Settled: finished, or waiting where it should (swiss-army back in IDLE after its cycle, deep-research in ERROR after one retry). */
function settledAs(t: Tracked, r: RunView): string | null {
  if (TERMINAL.includes(r.status)) return r.status;
  if (r.workflow === "swiss-army" && r.status === "waiting" && r.state.length === 1 && r.state[0] === "IDLE" && (r.context as SwissContext).last) return "idle";
  if (r.workflow === "deep-research" && r.status === "waiting" && r.state.includes("ERROR") && t.errorRetries >= 1) return "error-waiting";
  // domain-agent: a model error after the port's retries waits in ERROR for a person (retry or abort)
  // domain-agent and swiss-army: a model error after the port's retries waits in ERROR for a person (retry or abort)
  if (ASKS_ON_MODEL_ERROR.has(r.workflow) && r.status === "waiting" && r.state.length === 1 && r.state[0] === "ERROR" && t.errorRetries >= 1) return "error-waiting";
  return null;
}

/**
 * Wakes the driver when the engine commits something (any run's message on the bus, children's
 * included): `next(ms)` resolves at once when a message came since the last call, else at the next
 * one, or after `ms` at the latest. A passive listener: it does not count as watching a run.
 */
function busWake(rt: Runtime) {
  let dirty = false;
  let wake: (() => void) | null = null;
  const stop = rt.engine.bus.subscribe(
    "*",
    () => {
      dirty = true;
      wake?.();
    },
    { passive: true },
  );
  return {
    next(ms: number): Promise<void> {
      if (dirty) {
        dirty = false;
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => done(), ms);
        const done = () => {
          clearTimeout(timer);
          wake = null;
          dirty = false;
          resolve();
        };
        wake = done;
      });
    },
    stop,
  };
}

/** how long the driver waits for the bus before it looks anyway (a safety net: every change it acts on comes with a bus message) */
const QUIET_MS = 1_000;
/** while a run waits on the simulated clock (processing-modes' retry_with_backoff), the clock moves 100 ms this often */
const TICK_MS = 30;

/** Drive one profile's runs like a reviewer would, until every run settles or the deadline passes: each time the engine commits something, not every 30 ms. */
async function drive(p: Profile, runs: Tracked[], sightings: ErrorSighting[], problems: string[]): Promise<void> {
  const { rt } = p;
  const byId = new Map(runs.map((t) => [t.id, t]));
  const deadline = Date.now() + DEADLINE_MS;
  const bus = busWake(rt);
  let ticking = false;
  try {
    for (let first = true; Date.now() < deadline; first = false) {
      if (!first) await bus.next(ticking ? TICK_MS : QUIET_MS);
      for (const review of await rt.store.listReviews({ status: "pending" })) {
        const run = await rt.engine.getRun(review.runId);
        const tracked = byId.get(run.id);
        if (run.workflow === "deep-research" && run.state.includes("ERROR")) {
          const c = run.context as ResearchContext;
          if (!sightings.some((x) => x.runId === run.id && x.seq === run.seq)) {
            sightings.push({ runId: run.id, seq: run.seq, profile: p.name, error: c.error, plan: !!c.plan, facts: c.facts.length, artifacts: (await rt.store.artifacts(run.id)).map((x) => x.name) });
          }
          // a top-level run: the reviewer retries once, then leaves it waiting for intervention
          if (!tracked || tracked.errorRetries >= 1) continue;
          tracked.errorRetries++;
        }
        // domain-agent's ERROR (a model error after the port's retries): the reviewer retries once, then leaves it
        if (ASKS_ON_MODEL_ERROR.has(run.workflow) && run.state.includes("ERROR")) {
          if (!tracked || tracked.errorRetries >= 1) continue;
          tracked.errorRetries++;
        }
        const decision = decisionsOf(run.workflow, review.state)[0];
        if (!decision) {
          problems.push(`${run.id}: review in ${review.state} has no decisions`);
          continue;
        }
        await rt.engine.decide(review.id, { decision }).catch((e: Error) => {
          // the run moved on between the listing and the decision: the next round sees the new state
          if (e.name !== "ConflictError") problems.push(`${run.id}: deciding ${review.state} → ${decision}: ${e.name}: ${e.message}`);
        });
      }
      const views = await Promise.all(runs.map((t) => rt.engine.getRun(t.id)));
      // processing-modes' retry_with_backoff (ErrorClassify → RetryableExec) waits on the simulated clock (a 200 ms base here)
      ticking = views.some((r) => r.state.some((s) => s.endsWith("ErrorClassify.ErrorHandling")));
      if (ticking) rt.clock.advance(100);
      for (const [i, t] of runs.entries()) {
        if (t.outcome) continue;
        const outcome = settledAs(t, views[i]!);
        if (outcome) Object.assign(t, { outcome, final: views[i], settledMs: Date.now() - t.startedAt });
      }
      if (runs.every((t) => t.outcome)) return;
    }
  } finally {
    bus.stop();
  }
  for (const t of runs) if (!t.outcome) t.final = await rt.engine.getRun(t.id);
}

const count = <T>(xs: T[], f: (x: T) => boolean) => xs.filter(f).length;

describe("model endpoint faults", () => {
  it(
    "with both endpoints failing 30% of calls in every way, every run finishes through retry and fallback or ends in a classified error with its partial results; none hangs",
    async () => {
      const t0 = Date.now();
      const sightings: ErrorSighting[] = [];
      const problems: string[] = [];
      for (let round = 1; round <= ROUNDS; round++) {
        // every workflow's runs, both profiles, all at once; then drive them until they settle
        const launched = await Promise.all(
          profiles.map(async (p) => {
            const runs = await Promise.all(
              LAUNCHES.map(async (l): Promise<Tracked> => {
                const startedAt = Date.now();
                const { run } = await p.rt.engine.start(l.workflow, l.input);
                return { ...l, id: run.id, profile: p.name, startedAt, settledMs: null, final: null, outcome: null, errorRetries: 0 };
              }),
            );
            p.runs.push(...runs);
            return runs;
          }),
        );
        await Promise.all(profiles.map((p, i) => drive(p, launched[i]!, sightings, problems)));
        // a round that left runs unsettled has hung: stop here, the assertions below say which
        if (profiles.some((p) => p.runs.some((t) => !t.outcome))) break;
      }
      const wall = Date.now() - t0;
      const all = profiles.flatMap((p) => p.runs);

      // ---- the summary ----
      const stats = [a.chaosStats(), b.chaosStats()];
      const total: ChaosStats = {
        posts: stats[0]!.posts + stats[1]!.posts,
        failed: stats[0]!.failed + stats[1]!.failed,
        byKind: Object.fromEntries(FAULT_KINDS.map((k) => [k, stats[0]!.byKind[k] + stats[1]!.byKind[k]])) as ChaosStats["byKind"],
      };
      const outcomes: Record<string, number> = {};
      const perWorkflow: Record<string, Record<string, number>> = {};
      for (const t of all) {
        // swiss-army settles in IDLE either way: its cycle's outcome says how it went
        const o = t.outcome === "idle" ? `idle/${(t.final!.context as SwissContext).last?.outcome}` : (t.outcome ?? "HUNG");
        outcomes[o] = (outcomes[o] ?? 0) + 1;
        const w = (perWorkflow[t.workflow] ??= {});
        w[o] = (w[o] ?? 0) + 1;
      }
      const calls = await Promise.all(profiles.map((p) => p.rt.db.modelCall.findMany({ where: { runId: { not: null } } })));
      const flatCalls = calls.flat();
      const retried = count(flatCalls, (c) => c.ok && c.attempts > 1);
      const viaSecond = count(flatCalls, (c) => c.ok && c.endpoint === "endpoint 2");
      const failedCalls = flatCalls.filter((c) => !c.ok);
      console.log(
        `[model-faults] seed=${SEED} rate=${RATE} timeout=${TIMEOUT_MS}ms | POSTs ${total.posts} (endpoint 1: ${stats[0]!.posts}, endpoint 2: ${stats[1]!.posts}), failed ${total.failed} (${Math.round((100 * total.failed) / Math.max(1, total.posts))}%): ` +
          FAULT_KINDS.map((k) => `${k}=${total.byKind[k]}`).join(" ") +
          ` | model calls ${flatCalls.length}: ok after retries ${retried}, ok via endpoint 2 ${viaSecond}, failed ${failedCalls.length} (${[...new Set(failedCalls.map((c) => `${c.errorCategory}`))].join(",")})` +
          ` | runs ${all.length} (${ROUNDS} rounds × ${LAUNCHES.length} × ${profiles.length} profiles): ${Object.entries(outcomes).map(([k, v]) => `${k}=${v}`).join(" ")} [${Object.entries(perWorkflow).map(([w, o]) => `${w} ${Object.entries(o).map(([k, v]) => `${k}=${v}`).join(",")}`).join("; ")}], deep-research ERROR sightings ${sightings.length}` +
          ` | slowest settle ${Math.max(...all.map((t) => t.settledMs ?? Infinity))} ms, wall ${wall} ms`,
      );

      if (process.env.SWITCHYARD_CHAOS_DEBUG) {
        for (const c of flatCalls) console.log("CALL", c.runId?.slice(0, 8), c.state, c.purpose, c.attempts, c.ok, c.endpoint, c.errorCategory, c.error?.slice(0, 120));
        console.log("WAITS", profiles.map((p) => p.waits.join(",")));
        const bodies = [...a.requests, ...b.requests].filter((q) => q.method === "POST").map((q) => `${q.body?.response_format?.json_schema?.name ?? "text"}:${q.body?.messages?.length}`);
        console.log("REQS", bodies.join(" "));
      }
      // ---- none hangs ----
      const hung = all.filter((t) => !t.outcome).map((t) => `${t.profile} ${t.label} (${t.id}): ${t.final?.status} in ${t.final?.state.join(",")}`);
      expect(hung, `runs that did not settle within ${DEADLINE_MS} ms`).toEqual([]);
      expect(problems).toEqual([]);

      // ---- the faults really happened, and retry and fallback really worked ----
      expect(total.failed / total.posts).toBeGreaterThanOrEqual(0.25);
      for (const k of FAULT_KINDS) expect(total.byKind[k], `${k} injected`).toBeGreaterThan(0);
      expect(stats[1]!.posts, "requests that fell back to endpoint 2").toBeGreaterThan(0);
      expect(viaSecond, "model calls answered by endpoint 2").toBeGreaterThan(0);
      expect(retried, "model calls that succeeded after a failed attempt").toBeGreaterThan(0);
      // a Retry-After of 1 s was honoured as asked (the retry+fallback profile waits; fallback-only moves on)
      expect(profiles[0]!.waits).toContain(1_000);
      // every failed model call is classified, and by what was injected: a network or model-endpoint failure
      for (const c of failedCalls) expect(["LLM", "NETWORK"], `${c.runId} ${c.state}: ${c.error}`).toContain(c.errorCategory);

      const completedDespite = new Set(flatCalls.filter((c) => c.attempts > 1 && c.ok).map((c) => c.runId));
      // both ways out were taken: runs got through despite failed calls, and runs ended in a classified error
      expect(count(all, (t) => t.outcome === "failed" || t.outcome === "error-waiting" || (t.outcome === "idle" && (t.final!.context as SwissContext).last?.outcome === "failed")), "runs that ended in an error").toBeGreaterThan(0);
      const survivors = all.filter((t) => (t.outcome === "completed" || (t.outcome === "idle" && (t.final!.context as SwissContext).last?.outcome === "approved")) && completedDespite.has(t.id));
      expect(survivors.length, "runs that completed although some of their calls failed").toBeGreaterThan(0);

      // ---- every run: contiguous history; a failure is classified and keeps its partial results ----
      for (const p of profiles) {
        for (const t of p.runs) {
          const r = t.final!;
          const where = `${p.name} ${t.label} (${r.id}, ${r.status} in ${r.state.join(",")})`;
          const steps = await p.rt.store.transitions(r.id, 0, 100_000);
          expect(steps.map((s) => s.seq), where).toEqual(steps.map((_, i) => i + 1));
          expect(steps.length, where).toBe(r.seq);
          const runCalls = await p.rt.db.modelCall.findMany({ where: { runId: r.id } });

          if (t.workflow === "swiss-army") {
            const c = r.context as SwissContext;
            if (t.outcome === "error-waiting") {
              // a retryable model error (LLM, NETWORK) after the port's retries: waiting in ERROR for a person, who retried once
              expect(c.error, where).toMatchObject({ category: "recoverable" });
              expect(["REQUEST_RECEIVED", "EXECUTING"], where).toContain(c.error!.state);
              expect(["LLM", "NETWORK"], where).toContain(c.error!.model_error);
              expect(r.reviewId, where).toBeTruthy();
              expect(steps.some((s) => s.reason === "Model error after retries: ask a person"), where).toBe(true);
              if (c.error!.state === "EXECUTING") expect(c.records.request?.request_id, where).toBe(c.request?.id);
              continue;
            }
            expect(["approved", "failed"], where).toContain(c.last?.outcome);
            if (c.last?.outcome === "failed") {
              // the seed's critical error, back in IDLE, with the model's classified failure in the message:
              // REQUEST_RECEIVED's analysis or EXECUTING (both are model work)
              expect(c.error, where).toMatchObject({ category: "critical" });
              expect(["REQUEST_RECEIVED", "EXECUTING"], where).toContain(c.error!.state);
              expect(c.error!.message, where).toMatch(/^(Execution failed|Request parsing failed): endpoint \d: /);
              expect(runCalls.some((x) => !x.ok && CLASSIFIED.includes(x.errorCategory ?? "")), where).toBe(true);
              if (c.error!.state === "EXECUTING") {
                // what came before EXECUTING is kept: the parsed request and the context search
                expect(c.records.request?.request_id, where).toBe(c.request?.id);
                expect(c.records.context_search, where).toBeTruthy();
                expect(steps.some((s) => s.reason === "Execution failed"), where).toBe(true);
              }
            } else {
              expect(c.output.length, where).toBeGreaterThan(0);
              expect(c.records.execution_result, where).toBeTruthy();
            }
          }

          if (t.workflow === "domain-agent") {
            const c = r.context as AgentContext;
            expect(["completed", "error-waiting"], where).toContain(t.outcome);
            if (t.outcome === "error-waiting") {
              expect(c.error, where).toBeTruthy();
              expect(CLASSIFIED, `${where}: ${JSON.stringify(c.error)}`).toContain(c.error!.category);
              expect(r.reviewId, where).toBeTruthy();
              if (c.error!.state !== "ROUTE") expect(c.route, where).toBeTruthy();
              if (["ANALYZE", "SYNTHESIZE", "EVALUATE"].includes(c.error!.state)) expect(c.plan, where).toBeTruthy();
              if (c.error!.state === "OBSERVE" && c.route?.inputType !== "LOG") expect(c.answer, where).toBeTruthy();
              // entries stored before the failure stay stored
              if (c.stored) expect(await p.rt.db.logEntry.count({ where: { id: { in: c.stored.ids } } }), where).toBe(c.stored.ids.length);
            } else {
              expect(c.error, where).toBeNull();
              expect(c.observation, where).toBeTruthy();
            }
          }

          if (t.workflow === "processing-modes") {
            const c = r.context as ModesContext;
            expect(["completed", "failed", "error-waiting"], where).toContain(t.outcome);
            if (t.outcome === "error-waiting") {
              // a model error (LLM, NETWORK) after its retries: waiting for a person, who retried once
              expect(["LLM", "NETWORK"], `${where}: ${JSON.stringify(c.error)}`).toContain(c.error?.category);
              expect(c.error?.retry, where).toBeTruthy();
              expect(r.reviewId, where).toBeTruthy();
              if (c.error!.state !== "RouteRequest") expect(c.routing, where).toBeTruthy();
              const m = /^THINKING\.(\w+)$/.exec(c.error!.state);
              if (m) expect(c.stages.map((s) => s.stage), where).toEqual(STAGES.slice(0, STAGES.indexOf(m[1]!)));
            } else if (r.status === "failed") {
              expect(c.error, where).toBeTruthy();
              expect(CLASSIFIED, `${where}: ${JSON.stringify(c.error)}`).toContain(c.error!.category);
              // past routing, the routing decision is kept
              if (c.error!.state !== "RouteRequest") expect(c.routing, where).toBeTruthy();
              // the failure is recorded with its category in the per-mode metrics
              const row = await p.rt.db.modeRequest.findUnique({ where: { id: r.id } });
              expect(row, where).toMatchObject({ ok: false, errorCategory: c.error!.category });
              if (c.workflow) expect(c.workflow.errors.every((e) => CLASSIFIED.includes(e.category)), where).toBe(true);
            } else {
              expect(c.error, where).toBeNull();
              expect(c.result?.text.length, where).toBeGreaterThan(0);
            }
          }

          if (t.workflow === "deep-research") {
            const c = r.context as ResearchContext;
            expect(["completed", "error-waiting"], where).toContain(t.outcome);
            if (t.outcome === "completed") expect(c.report?.length, where).toBeGreaterThan(0);
            else expect(CLASSIFIED, where).toContain(c.error?.category);
          }
        }
      }

      // deep-research in ERROR (top-level or a processing-modes child): classified, and what was done is kept
      for (const s of sightings) {
        const where = `${s.profile} ${s.runId} ERROR ${JSON.stringify(s.error)}`;
        expect(s.error, where).toBeTruthy();
        expect(CLASSIFIED, where).toContain(s.error!.category);
        if (s.error!.state !== "PLANNING") {
          expect(s.plan, where).toBe(true);
          expect(s.artifacts.length, where).toBeGreaterThan(0);
        }
        // sub-agents read through the model: when every read failed, SYNTHESIZING stops with "no facts" (BUSINESS)
        if (s.error!.state === "SYNTHESIZING" && s.error!.category === "BUSINESS") expect(s.facts, where).toBe(0);
        // (REFLECTING may follow a round whose every read failed: it can stop with no facts yet)
        else if (s.error!.state === "SYNTHESIZING") expect(s.facts, where).toBeGreaterThan(0);
      }
    },
    // the rounds' deadlines and a margin: only a hang comes near it
    ROUNDS * DEADLINE_MS + 30_000,
  );
});
