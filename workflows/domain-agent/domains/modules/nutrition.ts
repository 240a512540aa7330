import type { DomainModule } from "../types";

export const nutrition: DomainModule = {
  id: "nutrition",
  title: "Nutrition",
  summary: "Energy, macronutrients, hydration, alcohol and body weight.",
  vocabulary: ["ate", "eat", "eating", "food", "meal", "breakfast", "lunch", "dinner", "snack", "calories", "kcal", "protein", "carbs", "carb", "fat", "diet", "nutrition", "water", "hydration", "drank", "drink", "beer", "wine", "alcohol", "coffee", "caffeine", "weight", "weigh", "weighed", "pint", "cocktail", "espresso", "latte"],
  expertise: [
    "People who train need about 1.6 g of protein per kg of body weight per day.",
    "An energy deficit above ~500 kcal a day during heavy training impairs recovery.",
    "Two or more alcoholic drinks the evening before lower HRV and sleep quality the next night.",
  ],
  metrics: [
    { name: "calories", label: "Energy", unit: "kcal", better: "neutral" },
    { name: "protein_g", label: "Protein", unit: "g", better: "higher" },
    { name: "carbs_g", label: "Carbohydrate", unit: "g", better: "neutral" },
    { name: "fat_g", label: "Fat", unit: "g", better: "neutral" },
    { name: "water_l", label: "Water", unit: "l", better: "higher" },
    { name: "alcohol_drinks", label: "Alcohol", unit: "drinks", better: "lower" },
    { name: "caffeine_mg", label: "Caffeine", unit: "mg", better: "neutral" },
    { name: "body_weight", label: "Body weight", unit: "kg", better: "neutral" },
  ],
  retrieval: { lookbackDays: 7, related: ["training"] },
  needs: [
    { key: "body_weight_kg", when: /\b(enough protein|protein (target|goal|need)|how much protein|calorie (target|goal|need)|how many calories)\b/i, question: "What is your body weight (kg)? I need it to work out your protein and energy needs." },
  ],
  significant(entry, profile) {
    const w = entry.metrics.find((m) => m.name === "body_weight")?.value;
    const base = Number(profile.body_weight_kg);
    if (w !== undefined && Number.isFinite(base) && base > 0 && Math.abs(w - base) >= 2) return `body weight ${w} kg differs from the profile's ${base} kg`;
    const drinks = entry.metrics.find((m) => m.name === "alcohol_drinks")?.value;
    if (drinks !== undefined && drinks >= 4) return `${drinks} alcoholic drinks`;
    return null;
  },
};
