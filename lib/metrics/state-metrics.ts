// Each workflow's "Key Metrics Per State" (its guide page, e.g. workflows/swiss-army/guide.md): each metric computed from the stored transitions of a
// workflow's runs and judged against its target and alert threshold.
import type { RunStore, TransitionRow } from "../engine/store/types";
import type { StateMetricSpec, WorkflowDefinition } from "../machines/types";

export type Verdict = "ok" | "warn" | "alert" | "no-data";

export interface MetricValue {
  state: string;
  metric: string;
  target: string;
  alert: string;
  /** the measured value, formatted */
  value: string;
  /** how many observations it rests on */
  samples: number;
  verdict: Verdict;
  detail: string;
  /** the number behind `value` (p95 ms, good share 0..1, or share of zero results; 0 without data) and the alert level in the same unit */
  amount: number;
  alertAt: number;
}

/** the nearest-rank percentile of sorted values */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[i];
}

const fmtMs = (ms: number) => (ms < 1_000 ? `${Math.round(ms)} ms` : ms < 60_000 ? `${(ms / 1_000).toFixed(1)} s` : `${(ms / 60_000).toFixed(1)} min`);
const pct = (x: number) => `${Math.round(x * 100)}%`;

export function evaluate(spec: StateMetricSpec, exits: TransitionRow[]): MetricValue {
  const c = spec.compute;
  const alertAt = c.kind === "duration" ? c.alertMs : c.kind === "outcome-rate" ? c.alert : c.alertShare;
  const base = { state: spec.state, metric: spec.metric, target: spec.target, alert: spec.alert, amount: 0, alertAt };
  if (c.kind === "duration") {
    const d = exits.map((t) => t.durationMs).sort((a, b) => a - b);
    if (!d.length) return { ...base, value: "—", samples: 0, verdict: "no-data", detail: "no visits yet" };
    const p50 = percentile(d, 0.5);
    const p95 = percentile(d, 0.95);
    const verdict: Verdict = p95 > c.alertMs ? "alert" : p95 <= c.targetMs ? "ok" : "warn";
    return { ...base, amount: p95, value: `p95 ${fmtMs(p95)}`, samples: d.length, verdict, detail: `p50 ${fmtMs(p50)} · max ${fmtMs(d[d.length - 1])}` };
  }
  if (c.kind === "outcome-rate") {
    const relevant = exits.filter((t) => c.of.includes(t.reason));
    if (!relevant.length) return { ...base, value: "—", samples: 0, verdict: "no-data", detail: "no outcomes yet" };
    const good = relevant.filter((t) => c.good.includes(t.reason)).length;
    const rate = good / relevant.length;
    const verdict: Verdict = rate < c.alert ? "alert" : rate >= c.target ? "ok" : "warn";
    return { ...base, amount: rate, value: pct(rate), samples: relevant.length, verdict, detail: `${good} of ${relevant.length}` };
  }
  // zero-share: the share of visits whose record has field == 0 (timeouts and skipped searches count as 0)
  const counts = exits
    .filter((t) => t.event !== "ABORT")
    .map((t) => {
      const rec = (t.payload as { output?: { record?: Record<string, unknown> } } | null)?.output?.record;
      const v = rec?.[c.field];
      return typeof v === "number" ? v : 0;
    });
  if (!counts.length) return { ...base, value: "—", samples: 0, verdict: "no-data", detail: "no searches yet" };
  const zero = counts.filter((n) => n === 0).length / counts.length;
  const sorted = [...counts].sort((a, b) => a - b);
  const verdict: Verdict = zero > c.alertShare ? "alert" : zero === 0 ? "ok" : "warn";
  return { ...base, amount: zero, value: `median ${percentile(sorted, 0.5)}`, samples: counts.length, verdict, detail: `${pct(zero)} of requests had no results` };
}

/** The exits each metric of `def` reads: per state, its latest `window` exits (one query per state). */
export async function exitsByState(store: RunStore, def: WorkflowDefinition, window = 1_000): Promise<Map<string, TransitionRow[]>> {
  const out = new Map<string, TransitionRow[]>();
  for (const spec of def.metrics ?? []) {
    const state = spec.compute.state;
    if (!out.has(state)) out.set(state, await store.transitionsLeaving(def.id, state, window));
  }
  return out;
}

export async function stateMetrics(store: RunStore, def: WorkflowDefinition, window = 1_000): Promise<MetricValue[]> {
  const exits = await exitsByState(store, def, window);
  return (def.metrics ?? []).map((spec) => evaluate(spec, exits.get(spec.compute.state)!));
}
