// PARSE of the domain-agent workflow (workflows/domain-agent/guide.md): log lines → day, metrics (canonical units) and
// domain tags. "Today" is Monday 2026-11-23 unless a test says otherwise.
import { describe, expect, it } from "vitest";
import { DOMAIN_IDS, METRICS } from "../domains/index";
import { MAX_ENTRIES, parseLog, tagDomains } from "../domains/parse";
import type { ParsedEntry } from "../domains/types";

const TODAY = "2026-11-23"; // a Monday
const YESTERDAY = "2026-11-22";

type M = [name: string, value: number, unit: string];

function one(line: string, today = TODAY): ParsedEntry {
  const entries = parseLog(line, { today });
  expect(entries).toHaveLength(1);
  return entries[0];
}

const byName = (a: M, b: M) => a[0].localeCompare(b[0]);

// line, expected day, expected metrics, expected domains (DOMAINS order)
const TABLE: [string, string, M[], string[]][] = [
  // runs, rides, swims, hikes, lifts
  ["ran 8 km, legs heavy, slept 6 h", TODAY, [["distance_km", 8, "km"], ["sleep_hours", 6, "h"]], ["training", "recovery", "sleep"]],
  ["Yesterday: rode 40 km in 1:25, avg HR 142, +350 m", YESTERDAY, [["distance_km", 40, "km"], ["duration_min", 85, "min"], ["avg_hr", 142, "bpm"], ["elevation_m", 350, "m"]], ["training"]],
  ["Mon - 5k easy, 28 min, RPE 4", TODAY, [["distance_km", 5, "km"], ["duration_min", 28, "min"], ["rpe", 4, "/10"]], ["training"]],
  ["on Tuesday I swam 1,500 m in 32 min", "2026-11-17", [["distance_km", 1.5, "km"], ["duration_min", 32, "min"]], ["training"]],
  ["ran 5 miles in 42:30, HR 150 bpm", TODAY, [["distance_km", 8.05, "km"], ["duration_min", 42.5, "min"], ["avg_hr", 150, "bpm"]], ["training"]],
  ["Sunday's long run: 24 km, 2:05:30, +410 m", YESTERDAY, [["distance_km", 24, "km"], ["duration_min", 125.5, "min"], ["elevation_m", 410, "m"]], ["training"]],
  ["2026-11-20 tempo 10k in 45:10, RPE 8", "2026-11-20", [["distance_km", 10, "km"], ["duration_min", 45.17, "min"], ["rpe", 8, "/10"]], ["training"]],
  ["20/11: 6 mi easy", "2026-11-20", [["distance_km", 9.66, "km"]], ["training"]],
  ["Nov 18 - gym, squat 5x5 @ 100 kg, 50 min", "2026-11-18", [["duration_min", 50, "min"]], ["training"]],
  ["ran 8k yesterday", YESTERDAY, [["distance_km", 8, "km"]], ["training"]],
  ["hiked 14 km, D+ 800, 4h30", TODAY, [["distance_km", 14, "km"], ["elevation_m", 800, "m"], ["duration_min", 270, "min"]], ["training"]],
  ["Sat - 1h20 ride, avg HR 138, 28 km/h", "2026-11-21", [["duration_min", 80, "min"], ["avg_hr", 138, "bpm"]], ["training"]],
  ["1,200 ft of climbing over 6 miles", TODAY, [["elevation_m", 366, "m"], ["distance_km", 9.66, "km"]], ["training"]],
  ["45' easy run, RPE 3", TODAY, [["duration_min", 45, "min"], ["rpe", 3, "/10"]], ["training"]],
  ["last Friday: 3x10 min threshold intervals, 60 min total", "2026-11-20", [["duration_min", 60, "min"]], ["training"]],
  ["the day before yesterday: swam 2,000 m", "2026-11-21", [["distance_km", 2, "km"]], ["training"]],
  ["RPE 7-8, HR avg 161, 10 miles", TODAY, [["rpe", 7.5, "/10"], ["avg_hr", 161, "bpm"], ["distance_km", 16.09, "km"]], ["training"]],
  ["Thu: 12 km progression run, avg HR 148, RPE 6, legs heavy", "2026-11-19", [["distance_km", 12, "km"], ["avg_hr", 148, "bpm"], ["rpe", 6, "/10"]], ["training", "recovery"]],
  ["ran 10 km, pace 5:12/km, 52 min", TODAY, [["distance_km", 10, "km"], ["duration_min", 52, "min"]], ["training"]],
  ["weights 45 min, max HR 171", TODAY, [["duration_min", 45, "min"]], ["training"]],
  // sleep
  ["last night slept 7.5 hours, woke up 3 times", TODAY, [["sleep_hours", 7.5, "h"], ["awakenings", 3, "count"]], ["sleep"]],
  ["sleep: 7h30, quality 6/10", TODAY, [["sleep_hours", 7.5, "h"], ["sleep_quality", 6, "/10"]], ["sleep"]],
  ["slept 6h20m, sleep quality 5/10", TODAY, [["sleep_hours", 6.33, "h"], ["sleep_quality", 5, "/10"]], ["sleep"]],
  ["in bed 8 h but restless", TODAY, [["sleep_hours", 8, "h"]], ["sleep"]],
  ["woke up twice, 5.5 h total sleep", TODAY, [["awakenings", 2, "count"], ["sleep_hours", 5.5, "h"]], ["sleep"]],
  ["6h sleep, 2 espressos", TODAY, [["sleep_hours", 6, "h"], ["caffeine_mg", 126, "mg"]], ["sleep", "nutrition"]],
  // recovery
  ["RHR 52, HRV 48 ms, recovery 64%", TODAY, [["resting_hr", 52, "bpm"], ["hrv", 48, "ms"], ["recovery_score", 64, "%"]], ["recovery"]],
  ["resting heart rate 58 this morning, hrv 41 — feeling tired", TODAY, [["resting_hr", 58, "bpm"], ["hrv", 41, "ms"]], ["recovery"]],
  ["Legs sore 6/10 after squats", TODAY, [["soreness", 6, "/10"]], ["training", "recovery"]],
  ["soreness 3/10, fatigue 4/10", TODAY, [["soreness", 3, "/10"], ["fatigue", 4, "/10"]], ["recovery"]],
  ["HR 62 this morning, slept badly", TODAY, [["resting_hr", 62, "bpm"]], ["recovery", "sleep"]],
  ["recovery 35%, RHR 61 (baseline 52), feeling sick", TODAY, [["recovery_score", 35, "%"], ["resting_hr", 61, "bpm"]], ["recovery"]],
  // nutrition, weigh-ins
  ["2 beers and a glass of wine with dinner", TODAY, [["alcohol_drinks", 3, "drinks"]], ["nutrition"]],
  ["two pints and a couple of cocktails", TODAY, [["alcohol_drinks", 4, "drinks"]], ["nutrition"]],
  ["3 coffees before noon", TODAY, [["caffeine_mg", 285, "mg"]], ["nutrition"]],
  ["3 coffees, 200 mg caffeine", TODAY, [["caffeine_mg", 200, "mg"]], ["nutrition"]],
  ["Breakfast + lunch ~2,400 kcal, 120 g protein, carbs 300g, fat 70 g", TODAY, [["calories", 2400, "kcal"], ["protein_g", 120, "g"], ["carbs_g", 300, "g"], ["fat_g", 70, "g"]], ["nutrition"]],
  ["Lunch: chicken salad ~650 kcal, 45g protein", TODAY, [["calories", 650, "kcal"], ["protein_g", 45, "g"]], ["nutrition"]],
  ["2.5 l water, a coffee", TODAY, [["water_l", 2.5, "l"], ["caffeine_mg", 95, "mg"]], ["nutrition"]],
  ["drank 3 liters, protein 140g", TODAY, [["water_l", 3, "l"], ["protein_g", 140, "g"]], ["nutrition"]],
  ["64 oz water, 8,5 km jog", TODAY, [["water_l", 1.89, "l"], ["distance_km", 8.5, "km"]], ["training", "nutrition"]],
  ["weighed 72.4 kg this morning", TODAY, [["body_weight", 72.4, "kg"]], ["nutrition"]],
  ["Weight 160 lb", TODAY, [["body_weight", 72.6, "kg"]], ["nutrition"]],
  ["weighed in at 165.2 lbs", TODAY, [["body_weight", 74.9, "kg"]], ["nutrition"]],
  ["this morning RHR 58, weight 70.1 kg", TODAY, [["resting_hr", 58, "bpm"], ["body_weight", 70.1, "kg"]], ["recovery", "nutrition"]],
  ["Saturday night: 4 beers", YESTERDAY, [["alcohol_drinks", 4, "drinks"]], ["sleep", "nutrition"]],
  ["Tonight: pizza and 2 beers", TODAY, [["alcohol_drinks", 2, "drinks"]], ["nutrition"]],
  ["burned 650 kcal on the run", TODAY, [], ["training", "nutrition"]],
  // mood
  ["stress 8/10 (deadline), mood 4/10, energy 6/10", TODAY, [["stress", 8, "/10"], ["mood", 4, "/10"], ["energy", 6, "/10"]], ["mood"]],
  ["yoga 30 min, stress 3/10", TODAY, [["duration_min", 30, "min"], ["stress", 3, "/10"]], ["training", "mood"]],
  ["mood: 7, energy 5 today", TODAY, [["mood", 7, "/10"], ["energy", 5, "/10"]], ["mood"]],
  // no metrics
  ["felt better than yesterday", TODAY, [], []],
  ["Felt flat all day, motivation low", TODAY, [], ["mood"]],
  ["meditated 20 min, calm", TODAY, [], ["mood"]],
  ["had a great run, slept well, ate loads", TODAY, [], ["training", "sleep", "nutrition"]],
  ["rest day, just walked the dog", TODAY, [], ["training", "recovery"]],
];

describe("parseLog: a table of real-looking log lines", () => {
  it("has at least 30 lines", () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(30);
  });

  it.each(TABLE)("%s", (line, day, metrics, domains) => {
    const entry = one(line);
    expect(entry.text).toBe(line);
    expect(entry.day).toBe(day);
    const got = entry.metrics.map((m): M => [m.name, m.value, m.unit]);
    expect(got.sort(byName)).toEqual([...metrics].sort(byName));
    expect(entry.domains).toEqual(domains);
  });

  it("gives every metric the domain and unit METRICS names, and the entry every metric's domain", () => {
    for (const [line] of TABLE) {
      const entry = one(line);
      for (const m of entry.metrics) {
        expect(METRICS.get(m.name)).toMatchObject({ unit: m.unit, domain: m.domain });
        expect(entry.domains).toContain(m.domain);
      }
    }
  });

  it("lists metrics in the order they appear in the line", () => {
    expect(one("slept 7h, ran 10 km, 2 beers").metrics.map((m) => m.name)).toEqual(["sleep_hours", "distance_km", "alcohol_drinks"]);
  });

  it("invents no metric from words without numbers", () => {
    for (const line of ["long run, felt strong", "slept badly", "big lunch, lots of water", "stressful day at work", "sore legs", "weighed myself"]) {
      expect(one(line).metrics).toEqual([]);
    }
  });

  it("does not read lifts, speeds, paces, steps or a nap as the metrics they resemble", () => {
    expect(one("deadlift 3x5 @ 140 kg").metrics).toEqual([]);
    expect(one("10k steps").metrics).toEqual([]);
    expect(one("nap 20 min").metrics).toEqual([]);
    expect(one("avg 31 km/h").metrics).toEqual([]);
    expect(one("pace 4:50/km").metrics).toEqual([]);
  });
});

describe("parseLog: lines, bullets and day headings", () => {
  it("makes one entry per non-empty line and strips bullets and numbering from the text", () => {
    const entries = parseLog("- ran 5 km\n\n* 2 beers\n• slept 8h\n1. RHR 50\n2) mood 7/10\n   \n", { today: TODAY });
    expect(entries.map((e) => e.text)).toEqual(["ran 5 km", "2 beers", "slept 8h", "RHR 50", "mood 7/10"]);
    expect(entries.map((e) => e.metrics[0].name)).toEqual(["distance_km", "alcohol_drinks", "sleep_hours", "resting_hr", "mood"]);
  });

  it("keeps a day prefix in the text", () => {
    expect(one("- Yesterday: ran 8 km").text).toBe("Yesterday: ran 8 km");
  });

  it("applies a day heading to the lines below it until the next heading; a line's own day wins", () => {
    const log = [
      "Friday:",
      "- ran 10 km",
      "- 3 beers",
      "**Saturday**",
      "- slept 9h",
      "- today: RHR 49",
      "## 2026-11-22 (Sun)",
      "long ride 80 km",
      "Yesterday",
      "mood 6/10",
      "Today",
      "HRV 55",
    ].join("\n");
    const entries = parseLog(log, { today: TODAY });
    expect(entries.map((e) => [e.text, e.day])).toEqual([
      ["ran 10 km", "2026-11-20"],
      ["3 beers", "2026-11-20"],
      ["slept 9h", "2026-11-21"],
      ["today: RHR 49", TODAY],
      ["long ride 80 km", YESTERDAY],
      ["mood 6/10", YESTERDAY],
      ["HRV 55", TODAY],
    ]);
  });

  it("reads a part of a day under a heading as that day's ('this morning' under Friday is Friday)", () => {
    const [e] = parseLog("Thursday\nthis morning RHR 57", { today: TODAY });
    expect(e.day).toBe("2026-11-19");
  });

  it("takes the date when a weekday and a date are both given", () => {
    expect(parseLog("Mon 16 Nov:\nran 6 km", { today: TODAY })[0].day).toBe("2026-11-16");
    expect(one("Wednesday, Nov 11 - 10 km").day).toBe("2026-11-11");
  });
});

describe("parseLog: days", () => {
  it.each([
    ["Monday: ran 5k", TODAY],
    ["Tuesday: ran 5k", "2026-11-17"],
    ["Wed - ran 5k", "2026-11-18"],
    ["thurs: ran 5k", "2026-11-19"],
    ["Fri, ran 5k", "2026-11-20"],
    ["Sat: ran 5k", "2026-11-21"],
    ["Sunday ran 5k", YESTERDAY],
    ["on Sunday I ran 5k", YESTERDAY],
    ["last Monday: ran 5k", "2026-11-16"],
    ["last Tuesday: ran 5k", "2026-11-17"],
    ["ran 5k on Saturday", "2026-11-21"],
    ["Sunday night slept 6h", TODAY], // a night is logged on the morning it ends
    ["Friday night: slept 9h", "2026-11-21"],
    ["last night slept 7h", TODAY],
    ["yesterday evening 2 beers", YESTERDAY],
    ["this morning: HRV 60", TODAY],
    ["today ran 5k", TODAY],
    ["Today's lunch 700 kcal", TODAY],
    ["2026-11-20: ran 5k", "2026-11-20"],
    ["20/11 - ran 5k", "2026-11-20"],
    ["11/20 ran 5k", "2026-11-20"], // month/day when day/month is no date
    ["20.11.2026: ran 5k", "2026-11-20"],
    ["Nov 20: ran 5k", "2026-11-20"],
    ["20th November - ran 5k", "2026-11-20"],
    ["ran 5k", TODAY],
  ])("resolves %s → %s (today is Monday %s)", (line, day) => {
    expect(one(line).day).toBe(day);
  });

  it("resolves weekdays to the most recent such day on or before today", () => {
    const wed = "2026-11-25";
    expect(one("Mon: ran 5k", wed).day).toBe("2026-11-23");
    expect(one("Wednesday: ran 5k", wed).day).toBe(wed);
    expect(one("Thursday: ran 5k", wed).day).toBe("2026-11-19");
    expect(one("yesterday: ran 5k", wed).day).toBe("2026-11-24");
  });

  it("puts a date without a year in the past, across a new year", () => {
    expect(one("Dec 30: ran 5k", "2027-01-03").day).toBe("2026-12-30");
    expect(one("2/1 - ran 5k", "2027-01-03").day).toBe("2027-01-02");
  });

  it("does not take words or scores for days", () => {
    expect(one("Sun was out, ran 10k").day).toBe(TODAY);
    expect(one("Sat in traffic for 2 hours, stressed").day).toBe(TODAY);
    const score = one("6/10 mood");
    expect(score.day).toBe(TODAY);
    expect(score.metrics).toEqual([{ name: "mood", value: 6, unit: "/10", domain: "mood" }]);
    expect(one("7.5 h sleep").metrics[0]).toMatchObject({ name: "sleep_hours", value: 7.5 });
    expect(one("legs heavy from yesterday's intervals").day).toBe(TODAY);
  });

  it("does not read a date prefix's numbers as metrics", () => {
    expect(one("20/11: 10 km").metrics).toEqual([{ name: "distance_km", value: 10, unit: "km", domain: "training" }]);
  });
});

describe("tagDomains", () => {
  it("matches vocabulary by stem, in DOMAINS order", () => {
    expect(tagDomains("Running felt hard, stressed about work, slept badly")).toEqual(["training", "sleep", "mood"]);
    expect(tagDomains("legs heavy")).toEqual(["recovery"]);
    expect(tagDomains("8km")).toEqual(["training"]);
  });

  it("does not take a stop word for a vocabulary word with the same stem ('at' is not 'ate')", () => {
    expect(tagDomains("5 km at tempo")).toEqual(["training"]);
  });

  it("reads 'worked out' as a workout and 'weights' as lifting", () => {
    expect(tagDomains("worked out")).toEqual(["training"]);
    expect(tagDomains("lifted weights")).toEqual(["training"]);
  });

  it("returns nothing for text without vocabulary", () => {
    expect(tagDomains("")).toEqual([]);
    expect(tagDomains("!!! ??? 🙂")).toEqual([]);
  });
});

describe("parseLog: robustness", () => {
  it("returns no entries for empty, whitespace, punctuation-only or emoji-only text", () => {
    for (const text of ["", "   ", "\n\n\r\n", "---", "!?.,;:…", "💪🏃‍♂️😴", "***\n___\n- \n* "]) {
      expect(parseLog(text, { today: TODAY })).toEqual([]);
    }
  });

  it("keeps emoji and unusual characters in the text of a line that has words", () => {
    const e = one("ran 10 km 💪 — felt great 🙂");
    expect(e.text).toBe("ran 10 km 💪 — felt great 🙂");
    expect(e.metrics).toEqual([{ name: "distance_km", value: 10, unit: "km", domain: "training" }]);
  });

  it(`caps the entries at ${MAX_ENTRIES}`, () => {
    const text = Array.from({ length: 500 }, (_, i) => `ran ${i + 1} km`).join("\n");
    const entries = parseLog(text, { today: TODAY });
    expect(entries).toHaveLength(MAX_ENTRIES);
    expect(entries[0].metrics[0].value).toBe(1);
  });

  // (no catastrophic backtracking: a pattern that had it would not finish, and vitest's timeout fails the test)
  it("handles 50 KB of text, as many lines or as one", () => {
    const chunk = "ran 8 km, legs heavy, slept 6 h, 2 beers, stress 7/10. ";
    const long = chunk.repeat(Math.ceil(50_000 / chunk.length));
    const single = parseLog(long, { today: TODAY });
    expect(single).toHaveLength(1);
    expect(single[0].metrics.map((m) => m.name)).toContain("distance_km");
    expect(parseLog(long.replace(/\. /g, "\n"), { today: TODAY })).toHaveLength(MAX_ENTRIES);
    for (const nasty of ["1".repeat(50_000), "1,".repeat(25_000), "slept ".repeat(9_000), "rhr " + ": ".repeat(25_000), "a ".repeat(25_000)]) {
      parseLog(nasty, { today: TODAY });
    }
  });

  it("never throws on random text, and everything it returns is well-formed", () => {
    // a deterministic PRNG over an alphabet of digits, units, keywords and odd characters
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const parts = ["1", "7", "20", "2,400", "7.5", ":", "/", "-", "+", ".", ",", " ", "\n", "km", "k", "mi", "m", "h", "min", "'", "kg", "lb", "bpm", "%", "/10", "x", "hr ", "rhr ", "hrv ", "slept ", "sleep ", "woke up ", "times", "a ", "beers ", "coffees ", "weight ", "mood ", "stress ", "yesterday", "Monday", "Sun", "Nov ", "last night ", "in ", "for ", "@", "💪", "\u0000", "\uD800", "é", "🏃‍♂️"];
    for (let i = 0; i < 300; i++) {
      const text = Array.from({ length: 1 + rand(60) }, () => parts[rand(parts.length)]).join("");
      const entries = parseLog(text, { today: TODAY });
      expect(entries.length).toBeLessThanOrEqual(MAX_ENTRIES);
      for (const e of entries) {
        expect(e.day).toMatch(/^\d{4}-\d{2}-\d{2}$/);
        expect(e.day <= TODAY).toBe(true);
        for (const m of e.metrics) {
          expect(Number.isFinite(m.value)).toBe(true);
          expect(METRICS.get(m.name)?.unit).toBe(m.unit);
        }
        expect(e.domains.every((d) => DOMAIN_IDS.includes(d))).toBe(true);
      }
    }
  });

  it("does not throw on an invalid today or on values that are not strings", () => {
    expect(() => parseLog("ran 5k", { today: "not a day" })).not.toThrow();
    expect(parseLog("ran 5k", { today: "2026-02-30" })[0].day).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(parseLog(undefined as unknown as string, undefined as unknown as { today: string })).toEqual([]);
    expect(tagDomains(null as unknown as string)).toEqual([]);
  });
});
