import type { DomainModule } from "../types";

export const mood: DomainModule = {
  id: "mood",
  title: "Mood & stress",
  summary: "Mood, energy and stress, at work and outside it.",
  vocabulary: ["mood", "stress", "stressed", "anxious", "anxiety", "happy", "sad", "energy", "motivation", "motivated", "work", "deadline", "calm", "irritable", "meditat", "meditation", "meditated"],
  expertise: [
    "High life stress adds to training stress: the body recovers from both with the same resources.",
    "Low mood and low motivation for several days in a row often precede illness or overreaching.",
  ],
  metrics: [
    { name: "mood", label: "Mood", unit: "/10", better: "higher" },
    { name: "stress", label: "Stress", unit: "/10", better: "lower" },
    { name: "energy", label: "Energy", unit: "/10", better: "higher" },
  ],
  retrieval: { lookbackDays: 14, related: ["sleep"] },
  needs: [],
  significant(entry) {
    const stress = entry.metrics.find((m) => m.name === "stress")?.value;
    if (stress !== undefined && stress >= 8) return `high stress (${stress}/10)`;
    const m = entry.metrics.find((x) => x.name === "mood")?.value;
    if (m !== undefined && m <= 2) return `very low mood (${m}/10)`;
    return null;
  },
};
