// OBSERVE, offline: the observer of domain-agent (workflows/domain-agent/guide.md). On its triggers (post_query, user_correction,
// significant_log) it decides which global-context facts to set, and says why; with no trigger,
// or nothing durable learned, it skips and says that.
import { METRICS } from "../domains/index";
import type { AgentContext, Trigger } from "../types";
import { BASELINE_KEYS, fromAnswer } from "./profile-values";

export interface ObserverPlan {
  decision: "update" | "skip";
  reason: string;
  changes: { key: string; value: string; domain: string | null; why: string }[];
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function offlineObserve(triggers: Trigger[], c: AgentContext, profile: Record<string, string>): ObserverPlan {
  if (triggers.length === 0) return { decision: "skip", reason: "no trigger fired (no query answered, no correction, no significant log)", changes: [] };
  const changes: ObserverPlan["changes"] = [];
  const set = (key: string, value: string, domain: string | null, why: string) => {
    if (profile[key] === value || changes.some((x) => x.key === key)) return;
    changes.push({ key, value, domain, why });
  };
  if (triggers.includes("user_correction")) {
    for (const fix of c.route?.corrections ?? []) set(fix.key, fix.value, null, `you said “${fix.text}”`);
    const cl = c.clarification;
    if (cl?.answer && cl.need) set(cl.need, fromAnswer(cl.need, cl.answer), null, `you answered “${cl.question}” with “${cl.answer}”`);
  }
  if (triggers.includes("significant_log")) {
    for (const s of c.stored?.significant ?? []) set(`watch_${s.domain}`, `${s.day}: ${s.reason}`, s.domain, `significant log entry “${s.text}”`);
  }
  if (triggers.includes("post_query")) {
    // baselines: a stable median of at least 5 values in the entries the query looked at
    for (const [metric, key] of Object.entries(BASELINE_KEYS)) {
      const values = c.retrieved.flatMap((e) => e.metrics.filter((m) => m.name === metric).map((m) => m.value));
      if (values.length < 5) continue;
      const value = String(Math.round(median(values) * 10) / 10);
      const old = Number(profile[key]);
      if (Number.isFinite(old) && old > 0 && Math.abs(Number(value) - old) / old < 0.05) continue;
      set(key, value, METRICS.get(metric)?.domain ?? null, `median of ${values.length} ${metric} values in the entries this question looked at`);
    }
  }
  if (changes.length === 0) {
    return { decision: "skip", reason: `${triggers.join(", ")}: nothing durable to add — the global context already says what this run learned`, changes };
  }
  return { decision: "update", reason: `${triggers.join(", ")}: ${changes.map((x) => `${x.key} ← ${x.why}`).join("; ")}`, changes };
}
