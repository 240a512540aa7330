import type { DomainModule } from "../types";

export const recovery: DomainModule = {
  id: "recovery",
  title: "Recovery",
  summary: "How well the body bounces back: resting heart rate, HRV, soreness, readiness.",
  vocabulary: ["recovery", "recover", "recovered", "recovering", "rest", "resting", "hrv", "soreness", "sore", "heavy", "fatigue", "fatigued", "tired", "readiness", "rested", "stiff", "overtraining", "deload", "doms", "sick"],
  expertise: [
    "Resting heart rate 5+ bpm above baseline, or HRV 10 %+ below it, signals incomplete recovery.",
    "Recovery is driven mostly by sleep, training load and nutrition (energy and protein), then stress.",
    "Soreness that peaks 24–72 h after a session is normal; soreness that keeps rising is not.",
  ],
  metrics: [
    { name: "resting_hr", label: "Resting heart rate", unit: "bpm", better: "lower" },
    { name: "hrv", label: "HRV", unit: "ms", better: "higher" },
    { name: "soreness", label: "Soreness", unit: "/10", better: "lower" },
    { name: "fatigue", label: "Fatigue", unit: "/10", better: "lower" },
    { name: "recovery_score", label: "Recovery score", unit: "%", better: "higher" },
  ],
  retrieval: { lookbackDays: 14, related: ["sleep", "training", "nutrition"] },
  needs: [],
  significant(entry, profile) {
    const rhr = entry.metrics.find((m) => m.name === "resting_hr")?.value;
    const base = Number(profile.resting_hr_baseline);
    if (rhr !== undefined && Number.isFinite(base) && base > 0 && rhr - base >= 7) return `resting HR ${rhr} bpm is ${rhr - base} above baseline ${base}`;
    const sore = entry.metrics.find((m) => m.name === "soreness")?.value;
    if (sore !== undefined && sore >= 8) return `soreness ${sore}/10`;
    if (/\b(sick|ill|fever|flu|cold)\b/i.test(entry.text)) return "illness mentioned";
    return null;
  },
};
