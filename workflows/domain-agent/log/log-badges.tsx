// Small pieces of the /log page: domain badges, metric chips, the significant marker, observer
// triggers. No hooks: usable from server and client components alike.
import { METRICS } from "../domains";
import type { Metric } from "../domains/types";

// full class strings (Tailwind only generates classes it finds written out)
const DOMAIN_STYLES: Record<string, string> = {
  training: "bg-blue-50 text-blue-700 ring-blue-600/20",
  recovery: "bg-emerald-50 text-emerald-700 ring-emerald-600/20",
  sleep: "bg-indigo-50 text-indigo-700 ring-indigo-600/20",
  nutrition: "bg-amber-50 text-amber-800 ring-amber-600/20 dark:text-amber-300 dark:bg-amber-950",
  mood: "bg-pink-50 text-pink-700 ring-pink-600/20",
};

export function DomainBadge({ domain }: { domain: string }) {
  return (
    <span data-domain={domain} className={`inline-flex items-center rounded-full px-2 py-0.5 text-[11px] font-medium ring-1 ring-inset ${DOMAIN_STYLES[domain] ?? "bg-slate-100 dark:bg-slate-800 text-slate-700 dark:text-slate-300 ring-slate-500/20"}`}>
      {domain}
    </span>
  );
}

// "distance_km" → "distance", "sleep_hours" → "sleep", "resting_hr" → "resting hr"
const UNIT_SUFFIX = /_(km|min|g|mg|l|m|hours|drinks)$/;
const ACRONYMS = new Set(["hr", "hrv", "rpe"]);

function formatNumber(n: number): string {
  return Number.isInteger(n) ? String(n) : String(Math.round(n * 100) / 100);
}

/** "sleep 6 h", "mood 7/10", "awakenings 2", "recovery score 80%". */
export function metricText(m: Metric): string {
  const name = m.name
    .replace(UNIT_SUFFIX, "")
    .split("_")
    .map((w) => (ACRONYMS.has(w) ? w.toUpperCase() : w))
    .join(" ");
  const v = formatNumber(m.value);
  const unit = m.unit === "count" ? "" : m.unit.startsWith("/") || m.unit === "%" ? m.unit : ` ${m.unit}`;
  return `${name} ${v}${unit}`;
}

export function MetricChip({ metric }: { metric: Metric }) {
  const spec = METRICS.get(metric.name);
  return (
    <span className="inline-flex items-center whitespace-nowrap rounded-md bg-slate-100 dark:bg-slate-800 px-1.5 py-0.5 font-mono text-[11px] text-slate-700 dark:text-slate-300" title={spec ? `${spec.label} (${metric.domain})` : metric.name} data-metric={metric.name}>
      {metricText(metric)}
    </span>
  );
}

export function SignificantMarker({ reason }: { reason: string }) {
  return (
    <span className="mt-1 inline-flex items-center gap-1 rounded-md bg-amber-50 px-1.5 py-0.5 text-[11px] text-amber-900 ring-1 ring-inset ring-amber-600/20" title="This entry triggered the observer" data-testid="log-significant">
      <span aria-hidden className="h-1.5 w-1.5 rounded-full bg-amber-500" />
      <span className="font-semibold">significant:</span> {reason}
    </span>
  );
}

const TRIGGER_LABELS: Record<string, string> = {
  post_query: "after a question",
  user_correction: "your correction",
  significant_log: "significant log",
};

export function TriggerChip({ trigger }: { trigger: string }) {
  return (
    <span className="rounded bg-slate-100 dark:bg-slate-800 px-1.5 py-0.5 text-[11px] text-slate-600 dark:text-slate-400" title={trigger}>
      {TRIGGER_LABELS[trigger] ?? trigger.replace(/_/g, " ")}
    </span>
  );
}

export function SourceBadge({ source }: { source: "observer" | "user" }) {
  return (
    <span
      className={`rounded-full px-1.5 py-0.5 text-[11px] font-semibold uppercase tracking-wide ${source === "user" ? "bg-slate-800 text-white" : "bg-violet-100 text-violet-800"}`}
      title={source === "user" ? "set by you" : "set by the observer"}
    >
      {source === "user" ? "you" : "observer"}
    </span>
  );
}
