// GET /api/metrics: the engine's tables as Prometheus text (exposition format 0.0.4).
//
// Aggregate queries only (the run store's, lib/engine/store/aggregates.ts): one GROUP BY per
// metric family, all in one read transaction, so the families agree with each other.
// Histograms are grouped in SQL by series and bucket index and made cumulative here; so a scrape
// never loads transition or review rows into memory, only (series × 11) aggregate rows.
// SQLite and PostgreSQL give the same text for the same rows.
import pkg from "../../package.json";
import { RUN_STATUSES } from "../api/schemas";
import type { MetricRows, RunStore } from "../engine/store/types";

export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** Upper bounds (seconds) of the state-dwell histogram buckets; +Inf is added. */
export const DWELL_BUCKETS_S = [0.01, 0.1, 0.5, 1, 5, 30, 60, 300, 1800, 3600] as const;
/** Upper bounds (seconds) of the review-wait histogram buckets (1 s … 7 days); +Inf is added. */
export const REVIEW_WAIT_BUCKETS_S = [1, 10, 60, 300, 900, 3600, 4 * 3600, 24 * 3600, 3 * 24 * 3600, 7 * 24 * 3600] as const;
/** Every run status: the runs gauge reports each of them (0 when none) for every workflow seen. */

// ---------------------------------------------------------------------------
// Text format

/** A label value in the exposition format: backslash, double quote and newline escaped. */
export function escapeLabelValue(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

/** HELP text: backslash and newline escaped (quotes are literal there). */
export function escapeHelp(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

/** A sample value: integers as such, floats in JS notation (Go's ParseFloat reads both), ±Inf, NaN. */
export function formatValue(n: number): string {
  if (Number.isNaN(n)) return "NaN";
  if (n === Infinity) return "+Inf";
  if (n === -Infinity) return "-Inf";
  return String(n);
}

export type Labels = Record<string, string>;

function labelText(labels: Labels): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabelValue(v)}"`);
  return parts.length ? `{${parts.join(",")}}` : "";
}

type MetricType = "counter" | "gauge" | "histogram";

/** Builds the text: one family at a time, HELP and TYPE first, then its samples. */
export class Exposition {
  private lines: string[] = [];

  family(name: string, type: MetricType, help: string): this {
    this.lines.push(`# HELP ${name} ${escapeHelp(help)}`, `# TYPE ${name} ${type}`);
    return this;
  }

  sample(name: string, labels: Labels, value: number): this {
    this.lines.push(`${name}${labelText(labels)} ${formatValue(value)}`);
    return this;
  }

  /** A histogram's _bucket (cumulative counts per le, then +Inf = count), _sum and _count. */
  histogram(name: string, labels: Labels, bounds: readonly number[], cumulative: readonly number[], sum: number, count: number): this {
    bounds.forEach((le, i) => this.sample(`${name}_bucket`, { ...labels, le: formatValue(le) }, cumulative[i]));
    this.sample(`${name}_bucket`, { ...labels, le: "+Inf" }, count);
    this.sample(`${name}_sum`, labels, sum);
    this.sample(`${name}_count`, labels, count);
    return this;
  }

  text(): string {
    return this.lines.length ? `${this.lines.join("\n")}\n` : "";
  }
}

// ---------------------------------------------------------------------------
// Queries

type Row = Record<string, unknown>;
const num = (v: unknown) => (typeof v === "bigint" ? Number(v) : Number(v ?? 0));
const str = (v: unknown) => (v === null || v === undefined ? "" : String(v));

/** Bounds in whole milliseconds, so that SQL compares integers (0.01 s → 10 ms, exactly). */
const toMs = (bounds: readonly number[]) => bounds.map((s) => Math.round(s * 1000));

interface Series {
  labels: Labels;
  /** per bucket index (not cumulative), the last one being +Inf only */
  counts: number[];
  sumMs: number;
}

/** Rows of (labels…, "b", "n", "sum_ms") → one series per label set, in row order. */
function seriesOf(rows: Row[], labelNames: string[], buckets: number): Series[] {
  const out = new Map<string, Series>();
  for (const r of rows) {
    const labels = Object.fromEntries(labelNames.map((k) => [k, str(r[k])]));
    const key = JSON.stringify(labels);
    let s = out.get(key);
    if (!s) out.set(key, (s = { labels, counts: new Array<number>(buckets + 1).fill(0), sumMs: 0 }));
    s.counts[num(r.b)] += num(r.n);
    s.sumMs += num(r.sum_ms);
  }
  return [...out.values()];
}

function writeHistogram(out: Exposition, name: string, bounds: readonly number[], series: Series[]) {
  for (const s of series) {
    let running = 0;
    const cumulative = bounds.map((_, i) => (running += s.counts[i]));
    const count = running + s.counts[bounds.length];
    out.histogram(name, s.labels, bounds, cumulative, s.sumMs / 1000, count);
  }
}

function collect(rt: MetricsPorts): Promise<MetricRows> {
  return rt.store.aggregates.metrics({ dwellMs: toMs(DWELL_BUCKETS_S), reviewWaitMs: toMs(REVIEW_WAIT_BUCKETS_S) });
}

// ---------------------------------------------------------------------------
// The text

/** What the scrape reads: the run store's aggregates and, when there is one, this process's engine. */
type MetricsPorts = { store: Pick<RunStore, "aggregates">; engine?: { memory: { live: number; evicted: number } } };

/** Every metric as Prometheus text (exposition format 0.0.4), from the run store (SQLite or PostgreSQL). */
export async function prometheusText(rt: MetricsPorts): Promise<string> {
  const c = await collect(rt);
  const out = new Exposition();

  // workflows that have runs: the gauges report 0 for them rather than leaving the series out
  const workflows = [...new Set(c.runs.map((r) => str(r.workflow)))].sort();

  out.family("switchyard_runs", "gauge", "Runs by workflow and status (running, waiting, completed, failed, aborted; imported: imported runs recorded as running or waiting).");
  const runCount = new Map(c.runs.map((r) => [`${str(r.workflow)}\u0000${str(r.status)}`, num(r.n)]));
  for (const wf of workflows) {
    const statuses = [...RUN_STATUSES, ...c.runs.filter((r) => str(r.workflow) === wf && !(RUN_STATUSES as readonly string[]).includes(str(r.status))).map((r) => str(r.status))];
    for (const status of statuses) out.sample("switchyard_runs", { workflow: wf, status }, runCount.get(`${wf}\u0000${status}`) ?? 0);
  }

  out.family("switchyard_transitions_total", "counter", "Transitions recorded (one per XState microstep), by workflow.");
  const transitionCount = new Map(c.transitions.map((r) => [str(r.workflow), num(r.n)]));
  for (const wf of [...new Set([...workflows, ...transitionCount.keys()])].sort()) out.sample("switchyard_transitions_total", { workflow: wf }, transitionCount.get(wf) ?? 0);

  out.family("switchyard_state_dwell_seconds", "histogram", "Time spent in a state before leaving it, from the transitions that left it (one sample per state left).");
  writeHistogram(out, "switchyard_state_dwell_seconds", DWELL_BUCKETS_S, seriesOf(c.dwell, ["workflow", "state"], DWELL_BUCKETS_S.length));

  out.family("switchyard_review_wait_seconds", "histogram", "Time from a human review opening to its decision, for decided reviews.");
  writeHistogram(out, "switchyard_review_wait_seconds", REVIEW_WAIT_BUCKETS_S, seriesOf(c.reviewWait, ["workflow"], REVIEW_WAIT_BUCKETS_S.length));

  out.family("switchyard_reviews_pending", "gauge", "Human reviews waiting for a decision, by workflow.");
  const pending = new Map(c.reviewsPending.map((r) => [str(r.workflow), num(r.n)]));
  for (const wf of [...new Set([...workflows, ...pending.keys()])].sort()) out.sample("switchyard_reviews_pending", { workflow: wf }, pending.get(wf) ?? 0);

  out.family("switchyard_model_calls_total", "counter", 'Model calls by workflow and outcome ("ok" or the error category); workflow "" for calls outside a run.');
  for (const r of c.modelCalls) out.sample("switchyard_model_calls_total", { workflow: str(r.workflow), outcome: str(r.outcome) }, num(r.n));

  out.family("switchyard_model_tokens_total", "counter", "Model tokens by workflow and kind (prompt, completion), as reported by the endpoint or estimated.");
  const tokens = new Map<string, { prompt: number; completion: number }>();
  for (const r of c.modelCalls) {
    const t = tokens.get(str(r.workflow)) ?? { prompt: 0, completion: 0 };
    t.prompt += num(r.prompt);
    t.completion += num(r.completion);
    tokens.set(str(r.workflow), t);
  }
  for (const [wf, t] of tokens) {
    out.sample("switchyard_model_tokens_total", { workflow: wf, kind: "prompt" }, t.prompt);
    out.sample("switchyard_model_tokens_total", { workflow: wf, kind: "completion" }, t.completion);
  }

  out.family("switchyard_tasks", "gauge", "External workers' open tasks by queue and status (queued: waiting for a worker; claimed: a worker holds the lease).");
  const queues = [...new Set(c.tasks.map((r) => str(r.queue)))];
  const taskCount = new Map(c.tasks.map((r) => [`${str(r.queue)}\u0000${str(r.status)}`, num(r.n)]));
  for (const q of queues) for (const status of ["queued", "claimed"]) out.sample("switchyard_tasks", { queue: q, status }, taskCount.get(`${q}\u0000${status}`) ?? 0);
  out.family("switchyard_task_oldest_queued_seconds", "gauge", "Age of the oldest task still waiting for a worker, by queue (a queue nobody serves grows without bound).");
  const now = Date.now();
  for (const r of c.tasks) if (str(r.status) === "queued") out.sample("switchyard_task_oldest_queued_seconds", { queue: str(r.queue) }, Math.max(0, (now - num(r.oldest)) / 1000));

  if (rt.engine) {
    // this process's engine: runs held in memory, and waiting runs evicted from it (lib/engine/evict.ts)
    const m = rt.engine.memory;
    out.family("switchyard_engine_live_runs", "gauge", "Runs this process holds in memory (live actors): runs with a step or an effect in flight, and runs idle for less than SWITCHYARD_EVICT_AFTER_MS.");
    out.sample("switchyard_engine_live_runs", {}, m.live);
    out.family("switchyard_engine_evicted_runs_total", "counter", "Idle runs this process has evicted from memory since it started (each is loaded from its snapshot when its next event, decision or timer arrives).");
    out.sample("switchyard_engine_evicted_runs_total", {}, m.evicted);
  }

  out.family("switchyard_build_info", "gauge", "Always 1; the version label is Switchyard's package version.");
  out.sample("switchyard_build_info", { version: String(pkg.version) }, 1);

  return out.text();
}
