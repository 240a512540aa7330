import type { DomainModule } from "../types";

export const training: DomainModule = {
  id: "training",
  title: "Training",
  summary: "Runs, rides, lifts and other workouts: volume, intensity and load.",
  vocabulary: ["run", "ran", "running", "ride", "rode", "cycling", "bike", "swim", "swam", "workout", "training", "train", "trained", "interval", "tempo", "lift", "lifted", "gym", "squat", "deadlift", "race", "marathon", "pace", "km", "miles", "mileage", "session", "hike", "rpe", "load", "walk", "jog", "yoga", "strength", "cardio", "climb", "sprint", "pilates"],
  expertise: [
    "Training load is duration × intensity (RPE); a week-over-week jump above 30 % raises injury and fatigue risk.",
    "Hard sessions on consecutive days without an easy day in between slow recovery.",
    "Pace at the same heart rate improving over weeks means aerobic fitness is improving.",
  ],
  metrics: [
    { name: "distance_km", label: "Distance", unit: "km", better: "neutral" },
    { name: "duration_min", label: "Duration", unit: "min", better: "neutral" },
    { name: "avg_hr", label: "Average heart rate", unit: "bpm", better: "neutral" },
    { name: "rpe", label: "Perceived exertion", unit: "/10", better: "neutral" },
    { name: "elevation_m", label: "Elevation gain", unit: "m", better: "neutral" },
    { name: "training_load", label: "Training load", unit: "AU", better: "neutral" },
  ],
  retrieval: { lookbackDays: 14, related: ["recovery", "sleep"] },
  needs: [
    { key: "max_hr", when: /\b(zone|zones|max(imum)? heart rate|hr zones?)\b/i, question: "What is your maximum heart rate (bpm)? I need it to work out your training zones." },
    { key: "goal_race", when: /\b(ready for|prepared for|race plan|taper)\b/i, question: "Which race are you preparing for, and when is it?" },
  ],
  significant(entry) {
    const km = entry.metrics.find((m) => m.name === "distance_km")?.value ?? 0;
    const rpe = entry.metrics.find((m) => m.name === "rpe")?.value ?? 0;
    if (/\b(injur\w*|pain|pulled|strain\w*|sprain\w*)\b/i.test(entry.text)) return "possible injury mentioned";
    if (/\b(pb|pr|personal best|personal record)\b/i.test(entry.text)) return "personal best";
    if (km >= 30) return `long session (${km} km)`;
    if (rpe >= 9) return `very hard session (RPE ${rpe})`;
    return null;
  },
};
