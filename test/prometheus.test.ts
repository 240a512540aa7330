// GET /api/metrics: Prometheus text (exposition format 0.0.4). The text format and its
// escaping; exact values for loop runs driven through the engine on a simulated clock
// (one review decided after 90 s, one pending); and the route on a temp database seeded with
// rows whose every metric is known (bucket boundaries, parallel exits, odd workflow names).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pkg from "../package.json";
import { migrateDatabase } from "../lib/db/migrations";
import { sqliteDate } from "../lib/db/sqlite";
import { DWELL_BUCKETS_S, Exposition, PROMETHEUS_CONTENT_TYPE, REVIEW_WAIT_BUCKETS_S, escapeHelp, escapeLabelValue, formatValue, prometheusText } from "../lib/metrics/prometheus";
import type { Runtime } from "../lib/runtime";
import type { TransitionRow } from "../lib/engine/store/types";
import { flush, inState, loopRuntime, tempDbUrl } from "./helpers";
import { DATABASES, commitItem, modelCall, opened, runRow, type TestDb } from "./support/databases";
import { WordModel } from "./support/word-model";

const url = tempDbUrl("prometheus-api");
process.env.DATABASE_URL = url;
process.env.SWITCHYARD_SEED_GUIDE = "0";

// ---------------------------------------------------------------------------
// A small parser that also checks the grammar of every line.

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const LABEL = `[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\[\\\\"n])*"`;
const SAMPLE_RE = new RegExp(`^(${NAME})(\\{(?:${LABEL}(?:,${LABEL})*)?\\})? (-?[0-9.eE+-]+|NaN|[+-]Inf)$`);
const HELP_RE = new RegExp(`^# HELP (${NAME}) (?:[^\\\\\\n]|\\\\[\\\\n])*$`);
const TYPE_RE = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`);
const LABEL_G = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"/g;

const unescape = (v: string) => v.replace(/\\(["\\n])/g, (_, c: string) => (c === "n" ? "\n" : c));

function parseExposition(text: string): { samples: Sample[]; types: Map<string, string> } {
  expect(text.endsWith("\n")).toBe(true);
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  const helps = new Set<string>();
  for (const line of text.slice(0, -1).split("\n")) {
    const help = HELP_RE.exec(line);
    if (help) {
      expect(helps.has(help[1]), `HELP twice for ${help[1]}`).toBe(false);
      helps.add(help[1]);
      continue;
    }
    const type = TYPE_RE.exec(line);
    if (type) {
      expect(types.has(type[1]), `TYPE twice for ${type[1]}`).toBe(false);
      types.set(type[1], type[2]);
      continue;
    }
    const m = SAMPLE_RE.exec(line);
    expect(m, `not an exposition-format line: ${JSON.stringify(line)}`).not.toBeNull();
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m![2] ?? "").matchAll(LABEL_G)) labels[k] = unescape(v);
    const family = types.get(m![1]) ? m![1] : m![1].replace(/_(bucket|sum|count)$/, "");
    expect(types.has(family), `sample ${m![1]} before its TYPE line`).toBe(true);
    if (family !== m![1]) expect(types.get(family)).toBe("histogram");
    const value = m![3] === "+Inf" ? Infinity : m![3] === "-Inf" ? -Infinity : Number(m![3]);
    samples.push({ name: m![1], labels, value });
  }
  // every family has HELP and TYPE
  expect([...helps].sort()).toEqual([...types.keys()].sort());
  return { samples, types };
}

const same = (a: Record<string, string>, b: Record<string, string>) => Object.keys(a).length === Object.keys(b).length && Object.entries(b).every(([k, v]) => a[k] === v);

function value(samples: Sample[], name: string, labels: Record<string, string>): number | undefined {
  const hits = samples.filter((s) => s.name === name && same(s.labels, labels));
  expect(hits.length, `${name}${JSON.stringify(labels)} appears ${hits.length} times`).toBeLessThanOrEqual(1);
  return hits[0]?.value;
}

interface Histogram {
  buckets: [number, number][];
  sum: number;
  count: number;
}

function histogram(samples: Sample[], name: string, labels: Record<string, string>): Histogram | undefined {
  const buckets = samples
    .filter((s) => s.name === `${name}_bucket` && same(Object.fromEntries(Object.entries(s.labels).filter(([k]) => k !== "le")), labels))
    .map((s): [number, number] => [s.labels.le === "+Inf" ? Infinity : Number(s.labels.le), s.value]);
  if (!buckets.length) return undefined;
  return { buckets, sum: value(samples, `${name}_sum`, labels)!, count: value(samples, `${name}_count`, labels)! };
}

/** Every histogram series: le in increasing order, counts cumulative (monotone), +Inf last and equal to _count. */
function checkHistograms(samples: Sample[], types: Map<string, string>) {
  let series = 0;
  for (const [name, type] of types) {
    if (type !== "histogram") continue;
    const keys = new Set(samples.filter((s) => s.name === `${name}_bucket`).map((s) => JSON.stringify(Object.entries(s.labels).filter(([k]) => k !== "le"))));
    for (const key of keys) {
      const h = histogram(samples, name, Object.fromEntries(JSON.parse(key)))!;
      expect(h.buckets.length).toBeGreaterThan(1);
      for (let i = 1; i < h.buckets.length; i++) {
        expect(h.buckets[i][0]).toBeGreaterThan(h.buckets[i - 1][0]);
        expect(h.buckets[i][1]).toBeGreaterThanOrEqual(h.buckets[i - 1][1]);
      }
      expect(h.buckets.at(-1)).toEqual([Infinity, h.count]);
      expect(Number.isFinite(h.sum)).toBe(true);
      series++;
    }
  }
  return series;
}

/** Cumulative counts of `samples` (seconds) against `bounds`, then +Inf. */
const cumulative = (bounds: readonly number[], xs: number[]): [number, number][] => [...bounds.map((le): [number, number] => [le, xs.filter((x) => x <= le).length]), [Infinity, xs.length]];

// ---------------------------------------------------------------------------

describe("exposition text", () => {
  it("escapes label values: backslash, double quote, newline", () => {
    expect(escapeLabelValue('a"b')).toBe('a\\"b');
    expect(escapeLabelValue("a\\b")).toBe("a\\\\b");
    expect(escapeLabelValue("a\nb")).toBe("a\\nb");
    expect(escapeLabelValue('C:\\dir\\"x"\nnext')).toBe('C:\\\\dir\\\\\\"x\\"\\nnext');
    expect(escapeLabelValue("plain-value_1.0 ünïcode")).toBe("plain-value_1.0 ünïcode");
    expect(unescape(escapeLabelValue('\\"\n\\n'))).toBe('\\"\n\\n');
    expect(escapeHelp('a "quoted" \\ path\nline')).toBe('a "quoted" \\\\ path\\nline');
  });

  it("formats values and histograms", () => {
    expect([0, 42, 0.01, 2.5, 1e21, 1e-7, Infinity, -Infinity, NaN].map(formatValue)).toEqual(["0", "42", "0.01", "2.5", "1e+21", "1e-7", "+Inf", "-Inf", "NaN"]);
    const text = new Exposition()
      .family("x_seconds", "histogram", "help")
      .histogram("x_seconds", { wf: 'a"b' }, [0.1, 1], [1, 3], 1.25, 4)
      .text();
    expect(text).toBe(
      [
        "# HELP x_seconds help",
        "# TYPE x_seconds histogram",
        'x_seconds_bucket{wf="a\\"b",le="0.1"} 1',
        'x_seconds_bucket{wf="a\\"b",le="1"} 3',
        'x_seconds_bucket{wf="a\\"b",le="+Inf"} 4',
        'x_seconds_sum{wf="a\\"b"} 1.25',
        'x_seconds_count{wf="a\\"b"} 4',
        "",
      ].join("\n"),
    );
    const { samples } = parseExposition(text);
    expect(samples.map((s) => s.labels.wf)).toEqual(Array(5).fill('a"b'));
  });

  it("the line grammar rejects malformed lines", () => {
    for (const bad of ['m{a="x} 1', "m 1 2 3", 'm{a="x"y"} 1', "m{a=x} 1", "9m 1", "m one", '# TYPE m bogus']) {
      expect(SAMPLE_RE.test(bad) || TYPE_RE.test(bad), bad).toBe(false);
    }
  });
});

describe("metrics of loop runs (engine, simulated clock)", () => {
  let rt: Runtime & { clock: import("../lib/engine/clock").ManualClock };
  let text: string;
  let parsed: ReturnType<typeof parseExposition>;
  const REQUEST = "Summarise the release notes of the last three versions";

  beforeAll(async () => {
    // a model does WORK, so token counters have something to count (an offline answer's row has no tokens)
    rt = await loopRuntime({ model: new WordModel() });
    const a = await rt.engine.start("loop", { request: REQUEST });
    const ra = await rt.engine.waitFor(a.run.id, inState("REVIEW"));
    const b = await rt.engine.start("loop", { request: REQUEST });
    await rt.engine.waitFor(b.run.id, inState("REVIEW"));
    rt.clock.advance(90_000);
    const decided = await rt.engine.decide(ra.reviewId!, { decision: "approve", feedback: "ok", reviewer: "ana" });
    expect(decided.run.state).toEqual(["IDLE"]);
    await flush(20);
    text = await prometheusText(rt);
    parsed = parseExposition(text);
  });

  afterAll(async () => {
    await rt?.close();
  });

  it("counts runs by workflow and status, zeros included", () => {
    const { samples } = parsed;
    expect(value(samples, "switchyard_runs", { workflow: "loop", status: "waiting" })).toBe(2);
    for (const status of ["running", "completed", "failed", "aborted"]) expect(value(samples, "switchyard_runs", { workflow: "loop", status })).toBe(0);
    expect(parsed.types.get("switchyard_runs")).toBe("gauge");
  });

  it("transitions_total equals the Transition rows", () => {
    const n = (rt.sqlite!.db.prepare(`SELECT COUNT(*) AS n FROM "Transition"`).safeIntegers(false).get() as { n: number }).n;
    expect(n).toBeGreaterThan(6);
    expect(value(parsed.samples, "switchyard_transitions_total", { workflow: "loop" })).toBe(n);
    expect(parsed.types.get("switchyard_transitions_total")).toBe("counter");
  });

  it("dwell histograms: one sample per state left, cumulative buckets, exact sums", () => {
    const rows = rt.sqlite!.db.prepare(`SELECT "from", "to", "durationMs" FROM "Transition"`).safeIntegers(false).all() as { from: string; to: string; durationMs: number }[];
    const byState = new Map<string, number[]>();
    for (const r of rows) {
      const to: string[] = JSON.parse(r.to);
      for (const s of (JSON.parse(r.from) as string[]).filter((x) => !to.includes(x))) byState.set(s, [...(byState.get(s) ?? []), r.durationMs / 1000]);
    }
    // IDLE, FETCH, WORK for both runs, REVIEW for the decided one
    expect([...byState.values()].flat().length).toBe(7);
    expect(byState.get("REVIEW")).toEqual([90]);
    let total = 0;
    for (const [state, xs] of byState) {
      const h = histogram(parsed.samples, "switchyard_state_dwell_seconds", { workflow: "loop", state })!;
      expect(h, state).toBeDefined();
      expect(h.count).toBe(xs.length);
      expect(h.sum).toBeCloseTo(xs.reduce((s, x) => s + x, 0), 9);
      expect(h.buckets).toEqual(cumulative(DWELL_BUCKETS_S, xs));
      total += h.count;
    }
    expect(total).toBe(7);
    // no series for states never left (the pending run's REVIEW is the only one open; targetless WORK progress rows add nothing)
    const series = new Set(parsed.samples.filter((s) => s.name === "switchyard_state_dwell_seconds_count").map((s) => s.labels.state));
    expect([...series].sort()).toEqual([...byState.keys()].sort());
    const hr = histogram(parsed.samples, "switchyard_state_dwell_seconds", { workflow: "loop", state: "REVIEW" })!;
    expect(hr.buckets.find(([le]) => le === 60)![1]).toBe(0);
    expect(hr.buckets.find(([le]) => le === 300)![1]).toBe(1);
    expect(checkHistograms(parsed.samples, parsed.types)).toBe(byState.size + 1);
  });

  it("review wait histogram for the decided review, pending gauge for the other", () => {
    const h = histogram(parsed.samples, "switchyard_review_wait_seconds", { workflow: "loop" })!;
    expect(h.count).toBe(1);
    expect(h.sum).toBe(90);
    expect(h.buckets).toEqual(cumulative(REVIEW_WAIT_BUCKETS_S, [90]));
    expect(value(parsed.samples, "switchyard_reviews_pending", { workflow: "loop" })).toBe(1);
  });

  it("model calls and tokens match the ModelCall rows", () => {
    const rows = rt.sqlite!.db.prepare(`SELECT "runId", "ok", "errorCategory", "promptTokens", "completionTokens" FROM "ModelCall"`).safeIntegers(false).all() as { runId: string | null; ok: number; promptTokens: number; completionTokens: number }[];
    const inRuns = rows.filter((r) => r.runId !== null);
    const calls = parsed.samples.filter((s) => s.name === "switchyard_model_calls_total" && s.labels.workflow === "loop");
    expect(calls.reduce((s, x) => s + x.value, 0)).toBe(inRuns.length);
    expect(value(parsed.samples, "switchyard_model_calls_total", { workflow: "loop", outcome: "ok" }) ?? 0).toBe(inRuns.filter((r) => r.ok).length);
    const prompt = inRuns.reduce((s, r) => s + r.promptTokens, 0);
    const completion = inRuns.reduce((s, r) => s + r.completionTokens, 0);
    expect(inRuns.length).toBeGreaterThan(0); // WORK's model call, per run
    expect(prompt).toBeGreaterThan(0);
    expect(value(parsed.samples, "switchyard_model_tokens_total", { workflow: "loop", kind: "prompt" })).toBe(prompt);
    expect(value(parsed.samples, "switchyard_model_tokens_total", { workflow: "loop", kind: "completion" })).toBe(completion);
  });
});

// ---------------------------------------------------------------------------
// The seeded rows (written by the route test below with plain SQL on SQLite, and by `seed` on
// both databases through the run stores): three runs of two workflows, one with an odd name;
// transitions on bucket boundaries and parallel exits; decided, pending and cancelled reviews;
// model calls in and outside runs. Every value of the text is known.

const T0 = Date.parse("2026-11-23T09:00:00Z");
const WEIRD = 'we"ird\\flow\nx';

function expectSeeded(text: string) {
  expect(text).toContain('switchyard_runs{workflow="we\\"ird\\\\flow\\nx",status="completed"} 1\n');
  expect(text).not.toContain("ird\\flow\nx"); // never raw
  const { samples, types } = parseExposition(text);
  const v = (name: string, labels: Record<string, string>) => value(samples, name, labels);

  expect(v("switchyard_runs", { workflow: WEIRD, status: "completed" })).toBe(1);
  expect(v("switchyard_runs", { workflow: WEIRD, status: "running" })).toBe(0);
  expect(v("switchyard_runs", { workflow: "flow-b", status: "failed" })).toBe(1);
  expect(v("switchyard_runs", { workflow: "flow-b", status: "running" })).toBe(1);
  expect(samples.filter((s) => s.name === "switchyard_runs")).toHaveLength(10);

  expect(v("switchyard_transitions_total", { workflow: WEIRD })).toBe(5);
  expect(v("switchyard_transitions_total", { workflow: "flow-b" })).toBe(2);

  const dwell = (workflow: string, state: string) => histogram(samples, "switchyard_state_dwell_seconds", { workflow, state });
  expect(dwell(WEIRD, "A")).toEqual({ buckets: cumulative(DWELL_BUCKETS_S, [0.01]), sum: 0.01, count: 1 });
  expect(dwell(WEIRD, "A")!.buckets[0]).toEqual([0.01, 1]);
  expect(dwell(WEIRD, "B")).toEqual({ buckets: cumulative(DWELL_BUCKETS_S, [2.5]), sum: 2.5, count: 1 });
  expect(dwell(WEIRD, "C")).toEqual({ buckets: cumulative(DWELL_BUCKETS_S, [2.5]), sum: 2.5, count: 1 });
  expect(dwell(WEIRD, "D")).toBeUndefined();
  expect(dwell(WEIRD, "E")).toBeUndefined();
  expect(dwell("flow-b", "X")).toEqual({ buckets: cumulative(DWELL_BUCKETS_S, [4000]), sum: 4000, count: 1 });
  expect(dwell("flow-b", "X")!.buckets.slice(0, -1).every(([, n]) => n === 0)).toBe(true);

  const wait = (workflow: string) => histogram(samples, "switchyard_review_wait_seconds", { workflow });
  expect(wait(WEIRD)).toEqual({ buckets: cumulative(REVIEW_WAIT_BUCKETS_S, [10]), sum: 10, count: 1 });
  expect(wait(WEIRD)!.buckets.find(([le]) => le === 10)).toEqual([10, 1]);
  expect(wait("flow-b")).toEqual({ buckets: cumulative(REVIEW_WAIT_BUCKETS_S, [7200]), sum: 7200, count: 1 });
  expect(v("switchyard_reviews_pending", { workflow: WEIRD })).toBe(0);
  expect(v("switchyard_reviews_pending", { workflow: "flow-b" })).toBe(1);

  expect(v("switchyard_model_calls_total", { workflow: WEIRD, outcome: "ok" })).toBe(2);
  expect(v("switchyard_model_calls_total", { workflow: "flow-b", outcome: "network" })).toBe(1);
  expect(v("switchyard_model_calls_total", { workflow: "", outcome: "ok" })).toBe(1);
  expect(samples.filter((s) => s.name === "switchyard_model_calls_total")).toHaveLength(3);
  expect(v("switchyard_model_tokens_total", { workflow: WEIRD, kind: "prompt" })).toBe(150);
  expect(v("switchyard_model_tokens_total", { workflow: WEIRD, kind: "completion" })).toBe(25);
  expect(v("switchyard_model_tokens_total", { workflow: "flow-b", kind: "prompt" })).toBe(0);
  expect(v("switchyard_model_tokens_total", { workflow: "", kind: "prompt" })).toBe(7);

  expect(v("switchyard_build_info", { version: pkg.version })).toBe(1);
  expect(checkHistograms(samples, types)).toBe(6);
}

describe("GET /api/metrics", () => {
  type Handler = (req: Request) => Promise<Response>;
  let route: { GET: Handler; dynamic: string };
  let rt: Runtime;

  beforeAll(async () => {
    await migrateDatabase(url);
    route = (await import("../app/api/metrics/route")) as never;
    const { getRuntime } = await import("../lib/runtime");
    rt = await getRuntime();
    const db = rt.sqlite!.db;
    const run = db.prepare(
      `INSERT INTO "Run" ("id","workflow","status","state","input","entered","version","seq","createdAt","updatedAt") VALUES (?,?,?,'[]','null','{}',1,1,?,?)`,
    );
    run.run("r1", WEIRD, "completed", sqliteDate(T0), sqliteDate(T0));
    run.run("r2", "flow-b", "failed", sqliteDate(T0), sqliteDate(T0));
    run.run("r3", "flow-b", "running", sqliteDate(T0), sqliteDate(T0));
    const tr = db.prepare(`INSERT INTO "Transition" ("runId","seq","from","to","event","reason","at","durationMs") VALUES (?,?,?,?,'E','why',?,?)`);
    const t = (runId: string, seq: number, from: string[], to: string[], ms: number) => tr.run(runId, seq, JSON.stringify(from), JSON.stringify(to), sqliteDate(T0), ms);
    t("r1", 1, [], ["A"], 0); // start: nothing left
    t("r1", 2, ["A"], ["B"], 10); // exactly 0.01 s: in the le="0.01" bucket
    t("r1", 3, ["B"], ["B"], 5_000); // targetless: B is not left
    t("r1", 4, ["B", "C"], ["D"], 2_500); // parallel exit: one sample for B, one for C
    t("r1", 5, ["D"], ["E", "D"], 700); // D stays active: nothing left
    t("r2", 1, [], ["X"], 0);
    t("r2", 2, ["X"], ["Y"], 4_000_000); // over an hour: only +Inf
    const rv = db.prepare(
      `INSERT INTO "Review" ("id","runId","workflow","state","kind","prompt","payload","status","createdAt","decidedAt","seq") VALUES (?,?,?,'S','approval','ok?','{}',?,?,?,1)`,
    );
    rv.run("v1", "r1", WEIRD, "decided", sqliteDate(T0), sqliteDate(T0 + 10_000)); // exactly 10 s
    rv.run("v2", "r2", "flow-b", "decided", sqliteDate(T0 + 123), sqliteDate(T0 + 123 + 7_200_000)); // 2 h
    rv.run("v3", "r3", "flow-b", "pending", sqliteDate(T0), null);
    rv.run("v4", "r2", "flow-b", "cancelled", sqliteDate(T0), sqliteDate(T0 + 50_000)); // not a decision
    const mc = db.prepare(
      `INSERT INTO "ModelCall" ("id","runId","purpose","adapter","promptTokens","completionTokens","estimated","latencyMs","attempts","ok","errorCategory","createdAt") VALUES (?,?,'p','gpt-test @ primary',?,?,0,5,1,?,?,?)`,
    );
    mc.run("m1", "r1", 100, 20, 1, null, sqliteDate(T0));
    mc.run("m2", "r1", 50, 5, 1, null, sqliteDate(T0));
    mc.run("m3", "r2", 0, 0, 0, "NETWORK", sqliteDate(T0));
    mc.run("m4", null, 7, 0, 1, null, sqliteDate(T0)); // an embedding outside any run
  });

  afterAll(async () => {
    const { getRuntime } = await import("../lib/runtime");
    await (await getRuntime()).close();
  });

  it("answers Prometheus text 0.0.4, force-dynamic", async () => {
    expect(route.dynamic).toBe("force-dynamic");
    const res = await route.GET(new Request("http://test/api/metrics"));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(res.headers.get("content-type")).toBe(PROMETHEUS_CONTENT_TYPE);
    const text = await res.text();
    const { types } = parseExposition(text);
    expect(Object.fromEntries(types)).toEqual({
      switchyard_runs: "gauge",
      switchyard_transitions_total: "counter",
      switchyard_state_dwell_seconds: "histogram",
      switchyard_review_wait_seconds: "histogram",
      switchyard_reviews_pending: "gauge",
      switchyard_model_calls_total: "counter",
      switchyard_model_tokens_total: "counter",
      switchyard_tasks: "gauge",
      switchyard_task_oldest_queued_seconds: "gauge",
      switchyard_engine_live_runs: "gauge",
      switchyard_engine_evicted_runs_total: "counter",
      switchyard_build_info: "gauge",
    });
  });

  it("has the exact values of the seeded rows, with escaped labels", async () => {
    expectSeeded(await (await route.GET(new Request("http://test/api/metrics"))).text());
  });

  it("rejects query parameters with 422", async () => {
    const res = await route.GET(new Request("http://test/api/metrics?format=json"));
    expect(res.status).toBe(422);
    const body = await res.json();
    expect(body.code).toBe("invalid");
    expect(body.error).toMatch(/format|unrecognized/i);
  });
});

// ---------------------------------------------------------------------------
// SQLite and PostgreSQL: the seeded rows written through each database's run store, the same
// values on both, and the very same text (series in the same order: PostgreSQL sorts text by
// bytes, as SQLite does), also for names whose order depends on the collation.

async function seed(db: TestDb) {
  const tr = (runId: string, seq: number, from: string[], to: string[], durationMs: number): TransitionRow => ({ runId, seq, from, to, event: "E", reason: "why", at: T0, durationMs, payload: null });
  const review = (id: string, runId: string, workflow: string, status: "pending" | "decided" | "cancelled", createdAt: number, decidedAt: number | null) => ({
    id, runId, workflow, state: "S", kind: "approval", prompt: "ok?", payload: {}, status, decision: status === "decided" ? "approve" : null, feedback: null, reviewer: null, createdAt, decidedAt, seq: 1,
  });
  const outcomes = await db.store.commit([
    commitItem(runRow("r1", T0, { workflow: WEIRD, status: "completed", seq: 5, finishedAt: T0 }), null, {
      transitions: [tr("r1", 1, [], ["A"], 0), tr("r1", 2, ["A"], ["B"], 10), tr("r1", 3, ["B"], ["B"], 5_000), tr("r1", 4, ["B", "C"], ["D"], 2_500), tr("r1", 5, ["D"], ["E", "D"], 700)],
      reviewsOpen: [review("v1", "r1", WEIRD, "decided", T0, T0 + 10_000)],
    }),
    commitItem(runRow("r2", T0, { workflow: "flow-b", status: "failed", seq: 2, finishedAt: T0 }), null, {
      transitions: [tr("r2", 1, [], ["X"], 0), tr("r2", 2, ["X"], ["Y"], 4_000_000)],
      reviewsOpen: [review("v2", "r2", "flow-b", "decided", T0 + 123, T0 + 123 + 7_200_000), review("v4", "r2", "flow-b", "cancelled", T0, T0 + 50_000)],
    }),
    commitItem(runRow("r3", T0, { workflow: "flow-b", status: "running" }), null, { reviewsOpen: [review("v3", "r3", "flow-b", "pending", T0, null)] }),
  ]);
  expect(outcomes).toEqual(["ok", "ok", "ok"]);
  await modelCall(db, { id: "m1", runId: "r1", prompt: 100, completion: 20, at: T0 });
  await modelCall(db, { id: "m2", runId: "r1", prompt: 50, completion: 5, at: T0 });
  await modelCall(db, { id: "m3", runId: "r2", ok: false, errorCategory: "NETWORK", at: T0 });
  await modelCall(db, { id: "m4", runId: null, prompt: 7, at: T0 });
}

/** workflows and states whose order differs between byte order and a linguistic collation */
const NAMES = ["alpha", "Zeta", "a-b", "ab", "_under", "É-flow", "e-flow"];
const STATES = ["b", "B", "_x", "ä", "a b", "A"];

async function seedMore(db: TestDb) {
  let n = 0;
  for (const wf of NAMES) {
    const id = `o${++n}`;
    const transitions: TransitionRow[] = STATES.map((s, i) => ({ runId: id, seq: i + 1, from: [s], to: [STATES[(i + 1) % STATES.length]], event: "GO", reason: "r", at: T0, durationMs: 1_000 * (i + 1) + n, payload: { i } }));
    await db.store.commit([
      commitItem(runRow(id, T0, { workflow: wf, status: n % 2 ? "waiting" : "completed", seq: transitions.length }), null, {
        transitions,
        reviewsOpen: [{ id: `${id}-v`, runId: id, workflow: wf, state: "S", kind: "k", prompt: "p", payload: null, status: n % 2 ? "pending" : "decided", decision: null, feedback: null, reviewer: null, createdAt: T0, decidedAt: n % 2 ? null : T0 + 61_000 * n, seq: 1 }],
      }),
    ]);
    for (const [i, cat] of ["RATE_LIMIT", "TIMEOUT", "Bad_Request", "AUTH"].entries()) await modelCall(db, { id: `${id}-m${i}`, runId: id, ok: i === 3 && n % 3 === 0, errorCategory: cat, prompt: i, completion: n, at: T0 });
  }
}

const texts = new Map<string, string[]>();

for (const database of DATABASES) {
  describe(`metrics from ${database.name}`, () => {
    const h = opened(database, "prometheus");
    beforeAll(async () => {
      const db = await h.open();
      if (db) await seed(db);
    }, 60_000);
    afterAll(() => h.close());

    h.it("has the exact values of the seeded rows, with escaped labels", async (db) => {
      const text = await prometheusText(db);
      expectSeeded(text);
      texts.set(database.name, [text]);
    });

    h.it("sorts series by bytes, whatever the collation", async (db) => {
      await seedMore(db);
      const text = await prometheusText(db);
      texts.get(database.name)!.push(text);
      const { samples, types } = parseExposition(text);
      const bytes = (xs: string[]) => [...xs].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
      const dwell = samples.filter((s) => s.name === "switchyard_state_dwell_seconds_count" && s.labels.workflow === "alpha").map((s) => s.labels.state);
      expect(dwell).toEqual(bytes(STATES));
      const calls = samples.filter((s) => s.name === "switchyard_model_calls_total");
      const keys = calls.map((s) => `${s.labels.workflow}\u0000${s.labels.outcome}`);
      expect(keys).toEqual(bytes(keys));
      expect(calls.filter((s) => s.labels.workflow === "Zeta").map((s) => s.labels.outcome)).toEqual(["auth", "bad_request", "rate_limit", "timeout"]);
      expect(histogram(samples, "switchyard_review_wait_seconds", { workflow: "Zeta" })).toEqual({ buckets: cumulative(REVIEW_WAIT_BUCKETS_S, [122]), sum: 122, count: 1 });
      expect(histogram(samples, "switchyard_review_wait_seconds", { workflow: "a-b" })).toBeUndefined();
      expect(value(samples, "switchyard_reviews_pending", { workflow: "É-flow" })).toBe(0);
      expect(value(samples, "switchyard_reviews_pending", { workflow: "_under" })).toBe(1);
      checkHistograms(samples, types);
    });
  });
}

describe("metrics: SQLite and PostgreSQL agree", () => {
  for (const { name } of DATABASES.slice(1)) {
    it(`the same rows give the very same text on SQLite and ${name}`, (ctx) => {
      if (!texts.has(name)) return ctx.skip();
      expect(texts.get("SQLite")).toHaveLength(2);
      expect(texts.get(name)).toEqual(texts.get("SQLite"));
    });
  }
});
