// The profile's values as the agent reads and writes them: the baselines a metric falls back to,
// and a person's answer to a clarification turned into a profile value.

/** Profile baselines a metric falls back to when the window before has no data. */
export const BASELINE_KEYS: Record<string, string> = { resting_hr: "resting_hr_baseline", hrv: "hrv_baseline", sleep_hours: "sleep_hours_baseline", body_weight: "body_weight_kg" };

const LB_PER_KG = 2.20462;
const NUMERIC = new Set(["max_hr", "resting_hr_baseline", "hrv_baseline", "sleep_hours_baseline", "body_weight_kg"]);

/** A clarification answer as a profile value ("about 72 kg" → "72"; "160 lb" → "72.6"). */
export function fromAnswer(key: string, answer: string): string {
  if (!NUMERIC.has(key)) return answer.trim().slice(0, 200);
  const m = answer.match(/(\d+(?:[.,]\d+)?)\s*(kg|kgs|kilos?|lbs?|pounds?)?/i);
  if (!m) return answer.trim().slice(0, 200);
  const n = Number(m[1]!.replace(",", "."));
  return key === "body_weight_kg" && /^(lb|pound)/i.test(m[2] ?? "") ? (n / LB_PER_KG).toFixed(1) : String(n);
}
