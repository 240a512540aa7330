import type { DomainModule } from "../types";

export const sleep: DomainModule = {
  id: "sleep",
  title: "Sleep",
  summary: "Sleep duration, quality and regularity.",
  vocabulary: ["sleep", "slept", "sleeping", "nap", "napped", "bed", "bedtime", "woke", "wake", "awake", "insomnia", "night", "asleep", "dream"],
  expertise: [
    "Adults who train need 7–9 h of sleep; under 6 h on several nights measurably slows recovery.",
    "An irregular bedtime (more than an hour's spread) lowers sleep quality even at the same duration.",
    "Alcohol and late caffeine shorten deep sleep.",
  ],
  metrics: [
    { name: "sleep_hours", label: "Sleep", unit: "h", better: "higher" },
    { name: "sleep_quality", label: "Sleep quality", unit: "/10", better: "higher" },
    { name: "awakenings", label: "Awakenings", unit: "count", better: "lower" },
  ],
  retrieval: { lookbackDays: 14, related: ["mood", "nutrition"] },
  needs: [],
  significant(entry) {
    const h = entry.metrics.find((m) => m.name === "sleep_hours")?.value;
    if (h !== undefined && h < 5) return `short night (${h} h)`;
    if (h !== undefined && h >= 11) return `very long sleep (${h} h)`;
    return null;
  },
};
