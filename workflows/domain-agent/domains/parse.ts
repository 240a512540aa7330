// PARSE step of the domain-agent workflow (workflows/domain-agent/guide.md): a person's own log text ("ran 8 km, legs
// heavy, slept 6 h") → one structured entry per line, with the day it is about, the metrics it
// carries (canonical names and units from METRICS) and its domain tags. Deterministic and pure:
// no model, no I/O. It never throws, whatever the text.
//
// How a line is read:
// 1. Bullets ("-", "*", "•", "1.", "2)") and Markdown heading marks are stripped.
// 2. A line that is only a day ("Monday:", "Yesterday", "2026-11-20", "**Tue 24 Nov**") is a
//    heading: it sets the day of the lines that follow and gives no entry.
// 3. A leading day phrase ("yesterday: …", "Mon - …", "on Tuesday I …", "last night …", "Nov 20 …")
//    or, failing that, a trailing one ("… yesterday", "… on Saturday", "… last night") sets the
//    entry's day. Otherwise the entry takes the current heading's day, or today.
// 4. METRIC_PATTERNS, a table read top to bottom, finds the metrics. A matched span is blanked so a
//    later, looser pattern cannot read the same number again ("resting HR 52" is not also an
//    average HR 52). Each metric is taken once per line (its first valid match), except the
//    countable alcohol and coffee phrases, which add up ("2 beers and a glass of wine" = 3).
//    A value outside its metric's plausible range is not taken.
import { tagDomains } from "./context";
import { DOMAINS, METRICS } from "./index";
import type { Metric, ParsedEntry } from "./types";

/** At most this many entries per call. */
export const MAX_ENTRIES = 200;
/** The metric patterns read at most this many characters of one line. */
const MAX_SCAN = 4000;

// ---------------------------------------------------------------------------------------------
// Domain tags: the vocabulary matching ROUTE uses too (domains/context.ts)

export { tagDomains };

function orderDomains(ids: Iterable<string>): string[] {
  const have = new Set(ids);
  return DOMAINS.map((d) => d.id).filter((id) => have.has(id));
}

// ---------------------------------------------------------------------------------------------
// Days

const DAY_MS = 86_400_000;
const ISO_RE = /^\d{4}-\d{2}-\d{2}$/;

function validIso(day: string): boolean {
  return ISO_RE.test(day) && isoDay(Number(day.slice(0, 4)), Number(day.slice(5, 7)), Number(day.slice(8, 10))) === day;
}

/** The ISO day for a calendar date, or null when there is no such date. */
function isoDay(y: number, m: number, d: number): string | null {
  if (y < 100) y += 2000;
  if (y < 1900 || y > 2200 || m < 1 || m > 12 || d < 1 || d > 31) return null;
  const dt = new Date(Date.UTC(y, m - 1, d));
  if (dt.getUTCMonth() !== m - 1 || dt.getUTCDate() !== d) return null;
  return dt.toISOString().slice(0, 10);
}

function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
}

function weekdayOf(day: string): number {
  return new Date(`${day}T00:00:00Z`).getUTCDay();
}

/** A date without a year: its most recent occurrence on or before today. */
function recentDate(m: number, d: number, today: string): string | null {
  const year = Number(today.slice(0, 4));
  const thisYear = isoDay(year, m, d);
  if (thisYear && thisYear <= today) return thisYear;
  return isoDay(year - 1, m, d);
}

const WEEKDAY_SRC = String.raw`(mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday|s)?|thu(?:r(?:s(?:day)?)?)?|fri(?:day)?|sat(?:urday)?|sun(?:day)?)`;
const WEEKDAY_INDEX: Record<string, number> = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };
const MONTH_SRC = String.raw`(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)`;
const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const PART_OF_DAY = String.raw`(?:\s+(morning|afternoon|evening|night|am|pm))?`;
const POSSESSIVE = String.raw`(?:'s|’s)?`;

/**
 * The most recent such weekday on or before today (same weekday = today); "last Monday" on a
 * Monday is a week ago. "<weekday> night" is the morning after, like "last night" (a night is
 * logged on the morning it ends), never later than today.
 */
function weekdayDay(name: string, today: string, last: boolean, part: string | undefined): string {
  let back = (weekdayOf(today) - WEEKDAY_INDEX[name.slice(0, 3)] + 7) % 7;
  if (last && back === 0) back = 7;
  const day = addDays(today, -back);
  return part === "night" && day < today ? addDays(day, 1) : day;
}

/**
 * A relative day phrase. "today", "yesterday" and "the day before yesterday" count from today; a
 * part of a day ("this morning", "tonight", "last night") belongs to `base`, the day of the
 * current heading (today when there is none): under "Friday:", "this morning" is Friday morning.
 */
function relativeDay(phrase: string, part: string | undefined, today: string, base: string): string {
  if (/before/.test(phrase)) return addDays(today, -2);
  if (/^y/.test(phrase)) return part === "night" ? today : addDays(today, -1); // "yesterday night" = last night
  if (phrase === "today") return today;
  return base; // tonight, this morning, last night
}

interface DayHit {
  day: string;
  /** characters the phrase takes */
  length: number;
  /** the phrase could be an ordinary word or a score ("Sun was out", "6/10 mood"): it counts only before a separator or the end */
  strict: boolean;
}

const RELATIVE_RE = new RegExp(
  String.raw`^(the\s+day\s+before\s+yesterday|yesterday|yday|today|tonight|this\s+(?:morning|afternoon|evening)|last\s+night)${POSSESSIVE}${PART_OF_DAY}`,
);
const WEEKDAY_RE = new RegExp(String.raw`^(last\s+)?${WEEKDAY_SRC}${POSSESSIVE}${PART_OF_DAY}\b`);
const ISO_DATE_RE = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)/;
const NUMERIC_DATE_RE = /^(\d{1,2})([/.])(\d{1,2})(?:[/.](\d{4}|\d{2}))?(?![\d/])/;
const MONTH_DAY_RE = new RegExp(String.raw`^${MONTH_SRC}\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s+(\d{4})\b)?`);
const DAY_MONTH_RE = new RegExp(String.raw`^(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?${MONTH_SRC}\b\.?(?:,?\s+(\d{4})\b)?`);

function dateAt(s: string, today: string): DayHit | null {
  let m = ISO_DATE_RE.exec(s);
  if (m) {
    const day = isoDay(Number(m[1]), Number(m[2]), Number(m[3]));
    return day ? { day, length: m[0].length, strict: false } : null;
  }
  m = MONTH_DAY_RE.exec(s);
  if (m) return monthDate(MONTHS.indexOf(m[1].slice(0, 3)) + 1, Number(m[2]), m[3], m[0].length, today);
  m = DAY_MONTH_RE.exec(s);
  if (m) return monthDate(MONTHS.indexOf(m[2].slice(0, 3)) + 1, Number(m[1]), m[3], m[0].length, today);
  m = NUMERIC_DATE_RE.exec(s);
  if (m) {
    // day/month (European) unless only month/day is a date ("11/20")
    let [d, mo] = [Number(m[1]), Number(m[3])];
    if (mo > 12 && d <= 12) [d, mo] = [mo, d];
    const day = m[4] ? isoDay(Number(m[4]), mo, d) : recentDate(mo, d, today);
    // without a year, "7.5" and "6/10" are more often a number or a score than a date
    const strict = !m[4] && (m[2] === "." || m[3] === "10");
    return day ? { day, length: m[0].length, strict } : null;
  }
  return null;
}

function monthDate(month: number, d: number, year: string | undefined, length: number, today: string): DayHit | null {
  const day = year ? isoDay(Number(year), month, d) : recentDate(month, d, today);
  return day ? { day, length, strict: false } : null;
}

/** A day phrase at the start of `s` (lower case). */
function dayPhraseAt(s: string, today: string, base: string): DayHit | null {
  let m = RELATIVE_RE.exec(s);
  if (m) return { day: relativeDay(m[1], m[2], today, base), length: m[0].length, strict: false };
  m = WEEKDAY_RE.exec(s);
  if (m) {
    // "Monday 23 Nov", "Mon, Nov 23": the date decides
    const gap = /^,?\s+/.exec(s.slice(m[0].length))?.[0] ?? "";
    const date = gap ? dateAt(s.slice(m[0].length + gap.length), today) : null;
    if (date && !date.strict) return { day: date.day, length: m[0].length + gap.length + date.length, strict: false };
    const abbreviation = m[2] === "sat" || m[2] === "sun";
    return { day: weekdayDay(m[2], today, Boolean(m[1]), m[3]), length: m[0].length, strict: abbreviation };
  }
  return dateAt(s, today);
}

const SEPARATOR_RE = /^\s*(?:[:\-–—,.)]|$)/;

/** A leading day phrase: the day and the rest of the line after it. */
function leadingDay(s: string, today: string, base: string): { day: string; rest: string; length: number } | null {
  const on = /^on\s+/.exec(s);
  const start = on ? on[0].length : 0;
  const hit = dayPhraseAt(s.slice(start), today, base);
  if (!hit) return null;
  const after = s.slice(start + hit.length);
  const separated = SEPARATOR_RE.test(after);
  if (!separated && (hit.strict || !/^\s/.test(after))) return null;
  const rest = after.replace(/^\s*[:\-–—,.)]*\s*/, "");
  return { day: hit.day, rest, length: s.length - rest.length };
}

const TRAILING_RE = new RegExp(
  String.raw`(?:^|[\s,;(])((?:on\s+)?(?:(last\s+)?(monday|tuesday|wednesday|thursday|friday|saturday|sunday)|(the\s+day\s+before\s+yesterday|yesterday|today|tonight|this\s+(?:morning|afternoon|evening)|last\s+night))${PART_OF_DAY})[\s.!)]*$`,
);
/** words after which a trailing day is a comparison, not the entry's day ("better than yesterday") */
const COMPARISON_RE = /\b(?:than|since|vs|versus|from|until|till|like|before|after|as|of)\s*$/;

/** A day phrase ending the line ("ran 8k yesterday", "3 beers on Saturday"). */
function trailingDay(s: string, today: string, base: string): string | null {
  const m = TRAILING_RE.exec(s);
  if (!m || COMPARISON_RE.test(s.slice(0, m.index + m[0].indexOf(m[1])))) return null;
  const part = m[5];
  return m[3] ? weekdayDay(m[3], today, Boolean(m[2]), part) : relativeDay(m[4], part, today, base);
}

/** The day a line names and nothing else ("Monday:", "## Yesterday", "2026-11-20 (Fri)"), or null. */
function headingDay(line: string, today: string, base: string): string | null {
  const plain = line.replace(/[*_#>`]/g, " ").trim().toLowerCase();
  const hit = leadingDay(plain, today, base);
  if (!hit) return null;
  const rest = hit.rest.replace(/[()[\]]/g, " ").trim();
  if (/^[\s:.,\-–—]*$/.test(rest)) return hit.day;
  // the same day named twice: "2026-11-20 (Fri)", "Friday, 20/11"
  const again = leadingDay(rest, today, base);
  return again && /^[\s:.,\-–—]*$/.test(again.rest) ? hit.day : null;
}

// ---------------------------------------------------------------------------------------------
// Metric patterns

/** A number: "2,400", "72.4", "7,5" (decimal comma). */
const NUM = String.raw`(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:[.,]\d+)?)`;
/** Before a number that starts a pattern: not inside a word, a decimal, a time, a date or "5x400m". */
const B = String.raw`(?<![\w.:/×]|\d,|\d\s*[x×]\s*)`;
/** Filler between a keyword and its number: "RHR: 52", "HRV was around 48", "weighed in at 72". */
const GAP = String.raw`\s*(?:(?:[:=~]|\b(?:is|was|at|of|around|about|approx|only|avg|average|up\s+to|down\s+to|back\s+to)\b)\s*)*`;
/** After a bare number ("stress: 8"): the end, punctuation, "and" or a day word, not a unit or a noun ("sore 2 days"). */
const BARE_END = String.raw`(?=\s*(?:$|[,;.!?)\]&(]|-\s|\b(?:and|but|though|today|tonight|yesterday|this|all|at|after|before)\b))`;
/** Count words for drinks and coffees. */
const COUNT = String.raw`(a\s+couple\s+of|couple\s+of|an?|one|two|three|four|five|six|seven|eight|nine|ten|\d+)\b`;
const COUNT_WORDS: Record<string, number> = { a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10 };

const H = String.raw`(?:hours?|hrs?|h)(?![a-z])`;
const MIN_UNIT = String.raw`(?:minutes?|mins?|m)(?![a-z])`;
/** Hours with optional minutes: "6 h", "7.5 hours", "6h20m", "7h30", "1 h 20 min", "1 hr 20,". Groups: hours, then minutes in one of the next three. */
const DUR_H = String.raw`(${NUM})\s*-?\s*${H}(?:(\d{1,2})(?![\d.])(?:\s*${MIN_UNIT})?|\s+(\d{1,2})\s*${MIN_UNIT}|\s+(\d{1,2})(?=\s*(?:$|[,;.)])))?`;

/** the words that name a /10 scale: a gap containing one belongs to another metric */
const SCALE_WORD = /\b(?:mood|stress|stressed|energy|sleep|quality|sore|soreness|doms|fatigue|tired|tiredness|rpe|effort|exertion|recovery)\b/;

interface Ctx {
  /** the line, lower case */
  line: string;
  /** tagDomains of the line */
  tags: string[];
  /** values found so far */
  found: Map<string, number>;
}

interface MetricPattern {
  /** the metric it yields; null = consume the text without a metric (a pace, a max HR) */
  metric: string | null;
  re: RegExp;
  /** the value from the match, or null to skip it; default: the number in group 1 */
  value?: (m: RegExpMatchArray, ctx: Ctx) => number | null;
  /** the pattern applies only when … */
  when?: (ctx: Ctx) => boolean;
  /** countable phrases add up instead of the first match winning */
  sum?: boolean;
}

function rx(src: string): RegExp {
  return new RegExp(src, "g");
}

function parseNumber(s: string): number {
  if (/^\d{1,3}(?:,\d{3})+(?:\.\d+)?$/.test(s)) return Number(s.replace(/,/g, ""));
  return Number(s.replace(",", "."));
}

function count(word: string): number {
  const w = word.replace(/\s+/g, " ").trim();
  if (/couple/.test(w)) return 2;
  return COUNT_WORDS[w] ?? Number(w);
}

const first = (m: RegExpMatchArray): number => parseNumber(m[1]);
const times = (k: number) => (m: RegExpMatchArray): number => parseNumber(m[1]) * k;

/** hours (+ minutes) of a DUR_H match whose groups start at `i` */
function hoursOf(m: RegExpMatchArray, i: number): number | null {
  const minutes = Number(m[i + 1] ?? m[i + 2] ?? m[i + 3] ?? 0);
  return minutes < 60 ? parseNumber(m[i]) + minutes / 60 : null;
}

const isWorkout = (c: Ctx): boolean => c.tags.includes("training") || c.found.has("distance_km");
const mentions = (re: RegExp) => (c: Ctx): boolean => re.test(c.line);

/**
 * A 0–10 scale metric: "<kw> 7/10", "legs sore (6/10)", "6/10 mood", and for `bareKw` also
 * "stress: 8", "mood 4," (a bare number only before punctuation or the end).
 */
function scale(metric: string, kw: string, bareKw: string | null, when?: (c: Ctx) => boolean): MetricPattern[] {
  const outOf10 = String.raw`\s*(?:\/|out\s+of)\s*10\b`;
  const patterns: MetricPattern[] = [
    {
      metric,
      when,
      re: rx(String.raw`\b(?:${kw})\b([^\d\n,;.!?]{0,24}?)(${NUM})${outOf10}`),
      value: (m) => (SCALE_WORD.test(m[1]) ? null : parseNumber(m[2])),
    },
    { metric, when, re: rx(String.raw`${B}(${NUM})${outOf10}\s+(?:${kw})\b`) },
  ];
  if (bareKw) patterns.push({ metric, when, re: rx(String.raw`\b(?:${bareKw})\b${GAP}(${NUM})${BARE_END}`) });
  return patterns;
}

/** "in 52:10" (mm:ss) or, for an hour-sized time, "in 3:45" (h:mm): the pace decides. */
function clockDuration(m: RegExpMatchArray, c: Ctx): number | null {
  const [a, b] = [Number(m[1]), Number(m[2])];
  if (a >= 10) return a + b / 60;
  const km = c.found.get("distance_km");
  // as mm:ss this would be faster than 2 min/km, so it is h:mm ("ran 42.2 km in 3:45")
  if (km !== undefined && (a + b / 60) / km >= 2) return a + b / 60;
  return a * 60 + b;
}

const LITRE = String.raw`(l|liters?|litres?|ml|millilit(?:er|re)s?)\b`;
const litres = (m: RegExpMatchArray): number => parseNumber(m[1]) / (m[2].startsWith("m") ? 1000 : 1);

const DRINK = String.raw`(?:(?:cold|small|large|big|light|strong|craft)\s+)?(?:beers?|pints?(?!\s+of\s+(?:water|milk))|ciders?|cocktails?|shots?(?!\s+of\s+(?:espresso|coffee))|glass(?:es)?\s+of\s+(?:(?:red|white|rosé|rose|sparkling)\s+)?(?:wine|beer|cider|prosecco|champagne)|(?:cans?|bottles?)\s+of\s+(?:beer|cider)|wines?|alcoholic\s+drinks?|drinks?(?!\s+of\s+water)|ipas?|lagers?|margaritas?|g&ts?|gin\s+and\s+tonics?|whiske?ys?|vodkas?|martinis?|negronis?|proseccos?|spritz(?:es)?)`;
// Caffeine of countable coffees, in mg: a cup of brewed coffee ~95 mg, a single espresso ~63 mg
// (USDA figures). A rough estimate: the log states a count, not milligrams.
const MG_PER_COFFEE = 95;
const MG_PER_ESPRESSO = 63;
const COFFEE = String.raw`((?:double\s+)?espressos?|(?:shots?\s+of\s+espresso)|(?:cups?|mugs?)\s+of\s+coffee|coffees?|lattes?|cappuccinos?|americanos?|flat\s+whites?|cold\s+brews?)\b`;

function caffeineOfCoffees(m: RegExpMatchArray): number {
  const kind = m[2];
  const each = /espresso/.test(kind) ? MG_PER_ESPRESSO * (/double/.test(kind) ? 2 : 1) : MG_PER_COFFEE;
  return count(m[1]) * each;
}

const WEIGHT_UNIT = String.raw`(kg|kgs|kilos?|kilograms?|lbs?|pounds?)`;
function bodyWeight(m: RegExpMatchArray): number | null {
  const v = parseNumber(m[1]);
  const unit = m[2];
  if (!unit) return v >= 30 && v <= 150 ? v : null; // no unit: kg when plausible, else unknown (lb?)
  return /^(lb|pound)/.test(unit) ? v * 0.45359237 : v;
}

const LENGTH_UNIT = String.raw`(m|meters?|metres?|ft|feet)\b`;
const metres = (m: RegExpMatchArray): number => parseNumber(m[1]) * (/^f/.test(m[2] ?? "m") ? 0.3048 : 1);

const FOOD = /\b(?:ate|eat|eating|meals?|breakfast|lunch|dinner|snacks?|food|intake|diet|consumed|protein|carbs?|fat|macros|total)\b/;

/** The metric patterns, read in order (see the header). */
const METRIC_PATTERNS: MetricPattern[] = [
  // consumed without a metric: speeds, paces and maximum heart rates are not what they look like
  { metric: null, re: rx(String.raw`${B}${NUM}\s*(?:km\/h|kmh|kph|mph|min\s*\/\s*(?:km|mi|mile)|min\s+per\s+(?:km|mile))`) },
  { metric: null, re: rx(String.raw`(?:\bpace${GAP}|@\s*)?\d{1,2}[:'′]\d{2}["″]?\s*(?:min\s*)?(?:\/\s*(?:km|mi|mile)|per\s+(?:km|mile)|pace)`) },
  { metric: null, re: rx(String.raw`(?:\bpace${GAP}|@\s*)\d{1,2}:\d{2}`) },
  { metric: null, re: rx(String.raw`\b(?:max(?:imum)?|peak)\.?\s*(?:hr|heart\s*rate|pulse)${GAP}${NUM}(?:\s*bpm)?|${B}${NUM}\s*bpm\s*max`) },

  // recovery markers
  { metric: "resting_hr", re: rx(String.raw`\b(?:rhr|resting\s*(?:hr|heart\s*rate|pulse)|rest\s*hr|morning\s*(?:hr|pulse)|(?:hr|heart\s*rate|pulse)\s+at\s+rest)${GAP}(${NUM})`) },
  { metric: "resting_hr", re: rx(String.raw`${B}(${NUM})\s*bpm\s*(?:resting|at\s+rest)`) },
  // "HR 62 this morning", "pulse on waking 55": outside a workout, a morning heart rate is a resting one
  {
    metric: "resting_hr",
    re: rx(String.raw`(?<!\d\s*)\b(?:hr|heart\s*rate|pulse)${GAP}(${NUM})`),
    when: (c) => !isWorkout(c) && /\b(?:morning|waking|woke|wake|am)\b/.test(c.line),
  },
  { metric: "hrv", re: rx(String.raw`\b(?:hrv|rmssd)\b${GAP}(${NUM})`) },
  { metric: "hrv", re: rx(String.raw`${B}(${NUM})\s*ms\s*(?:hrv|rmssd)\b`) },

  // sleep: "slept 6 h", "sleep: 7h30", "in bed 8 h", "last night 6.5h", "6h sleep", "7 hours of good sleep"
  { metric: "sleep_hours", re: rx(String.raw`\b(?:slept|sleep|asleep|in\s+bed|night)\b[^\d\n,;.!?]{0,24}?${DUR_H}`), value: (m) => hoursOf(m, 1) },
  {
    metric: "sleep_hours",
    re: rx(String.raw`${B}${DUR_H}\s*(?:of\s+)?(?:(?:good|bad|solid|broken|deep|restless|decent|poor|great|light|total)\s+)?(?:sleep|in\s+bed|asleep)\b`),
    value: (m) => hoursOf(m, 1),
  },
  ...scale("sleep_quality", String.raw`sleep\s+quality|quality\s+of\s+sleep|sleep|slept`, String.raw`sleep\s+quality|quality\s+of\s+sleep`),
  ...scale("sleep_quality", "quality", null, (c) => c.tags.includes("sleep")),
  { metric: "awakenings", re: rx(String.raw`\b(?:woke|waking|woken|up)(?:\s+up)?\s+${COUNT}\s*(?:times|x)\b`), value: (m) => count(m[1]) },
  { metric: "awakenings", re: rx(String.raw`\b(?:woke|waking|woken)(?:\s+up)?\s+(once|twice|thrice)\b`), value: (m) => ({ once: 1, twice: 2, thrice: 3 })[m[1]] ?? null },
  { metric: "awakenings", re: rx(String.raw`${B}(${NUM})\s+(?:night\s+)?(?:awakenings|wake-?ups)\b`) },
  { metric: "awakenings", re: rx(String.raw`\bawakenings${GAP}(${NUM})`) },

  // 0–10 scales
  ...scale("soreness", "soreness|sore|doms", "soreness|doms"),
  ...scale("fatigue", "fatigue|fatigued|tiredness|tired", "fatigue|tiredness"),
  ...scale("mood", "mood", "mood"),
  ...scale("stress", String.raw`stress(?:ed)?(?:\s+level)?`, String.raw`stress(?:\s+level)?`),
  ...scale("energy", String.raw`energy(?:\s+level)?`, String.raw`energy(?:\s+level)?`),
  // "RPE 7", "RPE 7-8" (the middle), "effort 8/10", "felt like a 7/10" when the line speaks of effort
  {
    metric: "rpe",
    re: rx(String.raw`\brpe\b${GAP}(${NUM})(?:\s*[-–]\s*(${NUM}))?(?:\s*\/\s*10)?`),
    value: (m) => (m[2] ? (parseNumber(m[1]) + parseNumber(m[2])) / 2 : parseNumber(m[1])),
  },
  ...scale("rpe", "effort|exertion", null),
  { metric: "rpe", re: rx(String.raw`\bfelt\s+(?:like\s+)?(?:an?\s+)?(${NUM})\s*\/\s*10\b`), when: mentions(/\b(?:rpe|effort)\b/) },
  { metric: "recovery_score", re: rx(String.raw`\b(?:recovery|readiness)(?:\s+score)?${GAP}(${NUM})(?:\s*%|${BARE_END})`) },
  { metric: "recovery_score", re: rx(String.raw`${B}(${NUM})\s*%\s*(?:recovery|readiness)\b`) },

  // workout heart rate: "avg HR 152", "HR 150 bpm", "heart rate avg 148", "148 bpm avg", a bare "148 bpm" in a workout
  { metric: "avg_hr", re: rx(String.raw`\b(?:avg|average|mean)\.?\s*(?:hr|heart\s*rate|pulse)${GAP}(${NUM})`) },
  { metric: "avg_hr", re: rx(String.raw`(?<!\d\s*)\b(?:hr|heart\s*rate|pulse)${GAP}(${NUM})`) },
  { metric: "avg_hr", re: rx(String.raw`${B}(${NUM})\s*bpm\s*(?:avg|average)|\b(?:avg|average)\s*(${NUM})\s*bpm`), value: (m) => parseNumber(m[1] ?? m[2]) },
  { metric: "avg_hr", re: rx(String.raw`${B}(${NUM})\s*bpm\b`), when: isWorkout },

  // elevation: "+350 m", "350m climbing", "elevation gain: 1,200 ft", "D+ 800"
  { metric: "elevation_m", re: rx(String.raw`\+\s*(${NUM})\s*${LENGTH_UNIT}`), value: metres },
  {
    metric: "elevation_m",
    re: rx(String.raw`${B}(${NUM})\s*${LENGTH_UNIT}\s*(?:of\s+)?(?:climbing|climb|elevation|gain|vert(?:ical)?|ascent|up\b|d\+)`),
    value: metres,
  },
  {
    metric: "elevation_m",
    re: rx(String.raw`(?:\b(?:elevation(?:\s+gain)?|elev|climbing|climbed|ascent|vert(?:ical)?)|\bd\+)${GAP}(${NUM})(?:\s*${LENGTH_UNIT}|${BARE_END})`),
    value: metres,
  },

  // nutrition. Calories a watch says a workout burned are not intake: skipped.
  {
    metric: "calories",
    re: rx(String.raw`${B}(${NUM})\s*(?:kcal|calories|cals?)\b`),
    when: (c) => !/\bburn/.test(c.line) && (!isWorkout(c) || FOOD.test(c.line)),
  },
  { metric: "calories", re: rx(String.raw`${B}(${NUM})k\s*(?:kcal|calories|cals?)\b`), value: times(1000), when: (c) => !/\bburn/.test(c.line) },
  { metric: "calories", re: rx(String.raw`\b(?:calories|kcal|cals)${GAP}(${NUM})(?:\s*(?:kcal|cal)\b|${BARE_END})`), when: (c) => !/\bburn/.test(c.line) },
  { metric: "protein_g", re: rx(String.raw`${B}(${NUM})\s*g(?:rams?)?\s*(?:of\s+)?protein\b`) },
  { metric: "protein_g", re: rx(String.raw`\bprotein${GAP}(${NUM})(?:\s*g(?:rams?)?\b|${BARE_END})`) },
  { metric: "carbs_g", re: rx(String.raw`${B}(${NUM})\s*g(?:rams?)?\s*(?:of\s+)?(?:carbs?|carbohydrates?)\b`) },
  { metric: "carbs_g", re: rx(String.raw`\b(?:carbs?|carbohydrates?)${GAP}(${NUM})(?:\s*g(?:rams?)?\b|${BARE_END})`) },
  { metric: "fat_g", re: rx(String.raw`${B}(${NUM})\s*g(?:rams?)?\s*(?:of\s+)?fats?\b`) },
  { metric: "fat_g", re: rx(String.raw`(?<!body\s*)\bfats?${GAP}(${NUM})(?:\s*g(?:rams?)?\b|${BARE_END})`) },
  { metric: "water_l", re: rx(String.raw`${B}(${NUM})\s*${LITRE}\s*(?:of\s+)?water\b`), value: litres },
  { metric: "water_l", re: rx(String.raw`\bwater${GAP}(${NUM})\s*${LITRE}`), value: litres },
  { metric: "water_l", re: rx(String.raw`\b(?:drank|drink|had)\s+(?:about\s+|around\s+|~\s*)?(${NUM})\s*${LITRE}(?!\s*of\s)`), value: litres },
  // a glass of water taken as 0.25 l; US fluid ounces converted
  { metric: "water_l", re: rx(String.raw`${B}${COUNT}\s+(?:glass(?:es)?|cups?)\s+of\s+water\b`), value: (m) => count(m[1]) * 0.25 },
  { metric: "water_l", re: rx(String.raw`${B}(${NUM})\s*(?:fl\.?\s*)?oz\s*(?:of\s+)?water\b`), value: times(0.0295735) },
  { metric: "alcohol_drinks", re: rx(String.raw`${B}${COUNT}\s+${DRINK}`), value: (m) => count(m[1]), sum: true },
  { metric: "caffeine_mg", re: rx(String.raw`${B}(${NUM})\s*mg\s*(?:of\s+)?caffeine\b`) },
  { metric: "caffeine_mg", re: rx(String.raw`\bcaffeine${GAP}(${NUM})\s*mg\b`) },
  { metric: "caffeine_mg", re: rx(String.raw`${B}${COUNT}\s+${COFFEE}`), value: caffeineOfCoffees, sum: true },
  {
    metric: "body_weight",
    re: rx(String.raw`\b(?:weigh(?:ed|s|ing)?(?:\s+in)?|weigh-in|weight|body\s*weight|bw|scale(?:\s+(?:says|said|showed|shows|reads|read))?)${GAP}(${NUM})\s*${WEIGHT_UNIT}?\b`),
    value: (m) => bodyWeight(m),
  },

  // distance: km and miles anywhere; "5k" attached; "5 k" and metres ("swam 1500 m") only in a workout
  { metric: "distance_km", re: rx(String.raw`${B}(${NUM})\s*(?:km|kms|kilomet(?:er|re)s?)\b`) },
  { metric: "distance_km", re: rx(String.raw`${B}(${NUM})\s*(?:mi|miles?)\b`), value: times(1.609344) },
  { metric: "distance_km", re: rx(String.raw`${B}(${NUM})k\b(?!\s*(?:steps|kcal|cal|calories|followers))`) },
  { metric: "distance_km", re: rx(String.raw`${B}(${NUM})\s+k\b(?!\s*(?:steps|kcal|cal|calories))`), when: isWorkout },
  {
    metric: "distance_km",
    re: rx(String.raw`${B}(${NUM})\s*(?:m|meters?|metres?)\b`),
    value: (m) => (parseNumber(m[1]) >= 100 ? parseNumber(m[1]) / 1000 : null),
    when: isWorkout,
  },

  // workout duration (only in a workout: "meditated 20 min" is not training)
  { metric: "duration_min", re: rx(String.raw`${B}(\d{1,2}):([0-5]\d):([0-5]\d)(?![\d:])`), value: (m) => Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) / 60, when: isWorkout },
  { metric: "duration_min", re: rx(String.raw`\b(?:in|time|took|duration|total)\s*:?\s*(\d{1,3}):([0-5]\d)(?![\d:])(?!\s*(?:am|pm))`), value: clockDuration, when: isWorkout },
  // "ran 5 km 27:30": a bare clock time after a distance (not "at 7:30")
  {
    metric: "duration_min",
    re: rx(String.raw`(?<!\b(?:at|by|until|till|from|to|@)\s*)${B}(\d{1,3}):([0-5]\d)(?![\d:])(?!\s*(?:am|pm|h)\b)`),
    value: clockDuration,
    when: (c) => c.found.has("distance_km"),
  },
  { metric: "duration_min", re: rx(String.raw`\bfor\s+(\d{1,2}):([0-5]\d)(?![\d:])(?!\s*(?:am|pm))`), value: (m) => Number(m[1]) * 60 + Number(m[2]), when: isWorkout },
  { metric: "duration_min", re: rx(String.raw`${B}${DUR_H}`), value: (m) => { const h = hoursOf(m, 1); return h === null ? null : h * 60; }, when: isWorkout },
  { metric: "duration_min", re: rx(String.raw`${B}(${NUM})\s*-?\s*(?:minutes?|mins?|mn)\b`), when: isWorkout },
  { metric: "duration_min", re: rx(String.raw`${B}(\d{1,3})\s*['′](?:\s*(\d{1,2})\s*(?:"|″|''))?(?![\d'′])`), value: (m) => Number(m[1]) + Number(m[2] ?? 0) / 60, when: isWorkout },

  { metric: "training_load", re: rx(String.raw`\b(?:training\s+load|load|tss|trimp)${GAP}(${NUM})(?:\s*au\b|${BARE_END})`) },
];

/** Plausible values; a match outside is not taken. */
const RANGE: Record<string, [number, number]> = {
  distance_km: [0.05, 1000],
  duration_min: [1, 1440],
  avg_hr: [40, 230],
  rpe: [0, 10],
  elevation_m: [1, 10_000],
  training_load: [1, 5000],
  resting_hr: [25, 130],
  hrv: [5, 300],
  soreness: [0, 10],
  fatigue: [0, 10],
  recovery_score: [0, 100],
  sleep_hours: [0, 24],
  sleep_quality: [0, 10],
  awakenings: [0, 50],
  calories: [1, 20_000],
  protein_g: [0, 1000],
  carbs_g: [0, 2000],
  fat_g: [0, 1000],
  water_l: [0, 20],
  alcohol_drinks: [0, 50],
  caffeine_mg: [0, 3000],
  body_weight: [20, 400],
  mood: [0, 10],
  stress: [0, 10],
  energy: [0, 10],
};

/** Decimals kept per metric (default 2). */
const DECIMALS: Record<string, number> = { avg_hr: 0, resting_hr: 0, hrv: 1, elevation_m: 0, caffeine_mg: 0, body_weight: 1, calories: 0 };

function round(name: string, v: number): number {
  const f = 10 ** (DECIMALS[name] ?? 2);
  return Math.round(v * f) / f;
}

function blank(s: string, at: number, length: number): string {
  return s.slice(0, at) + " ".repeat(length) + s.slice(at + length);
}

/** The metrics of one line (lower case, day prefix digits blanked), in order of appearance. */
function extractMetrics(line: string, tags: string[]): Metric[] {
  let work = line.slice(0, MAX_SCAN);
  const found = new Map<string, { value: number; at: number; summed: boolean }>();
  const values = new Map<string, number>();
  const ctx: Ctx = { line: work, tags, found: values };
  for (const p of METRIC_PATTERNS) {
    const prev = p.metric ? found.get(p.metric) : undefined;
    if (prev && !(p.sum && prev.summed)) continue;
    if (p.when && !p.when(ctx)) continue;
    for (const m of work.matchAll(p.re)) {
      const at = m.index ?? 0;
      if (!p.metric) {
        work = blank(work, at, m[0].length);
        continue;
      }
      const v = (p.value ?? first)(m, ctx);
      const [lo, hi] = RANGE[p.metric] ?? [-Infinity, Infinity];
      if (v === null || !Number.isFinite(v) || v < lo || v > hi) continue;
      work = blank(work, at, m[0].length);
      const had = found.get(p.metric);
      const total = had ? had.value + v : v;
      found.set(p.metric, { value: total, at: had?.at ?? at, summed: Boolean(p.sum) });
      values.set(p.metric, total);
      if (!p.sum) break;
    }
  }
  return [...found.entries()]
    .sort((a, b) => a[1].at - b[1].at)
    .flatMap(([name, f]) => {
      const spec = METRICS.get(name);
      return spec ? [{ name, value: round(name, f.value), unit: spec.unit, domain: spec.domain }] : [];
    });
}

// ---------------------------------------------------------------------------------------------
// Lines

/** The line without its list bullet, numbering or Markdown heading marks. */
function stripBullet(line: string): string {
  return line
    .trim()
    .replace(/^(?:#{1,6}\s+|>\s*)/, "")
    .replace(/^(?:[-*+–—]\s+|[•·▪◦]\s*|\d{1,3}[.)]\s+|\[[ xX]\]\s+)+/, "")
    .trim();
}

/** opts.today when it is a real YYYY-MM-DD day, else the current UTC day. */
function resolveToday(opts: { today?: string } | undefined): string {
  const t = typeof opts?.today === "string" ? opts.today.trim().slice(0, 10) : "";
  return validIso(t) ? t : new Date().toISOString().slice(0, 10);
}

/**
 * One structured entry per log line: its day, its metrics and its domains. Day headings set the
 * day of the lines below them; see the header for the rules. Never throws; at most MAX_ENTRIES.
 */
export function parseLog(text: string, opts: { today: string }): ParsedEntry[] {
  const now = resolveToday(opts);
  const entries: ParsedEntry[] = [];
  let current = now;
  const lines = String(text ?? "").split(/\r\n|[\n\r\u2028\u2029]/);
  for (const raw of lines) {
    if (entries.length >= MAX_ENTRIES) break;
    try {
      const line = stripBullet(raw);
      // nothing to read: empty, a Markdown rule, only punctuation or emoji
      if (!/[\p{L}\p{N}]/u.test(line)) continue;
      const heading = headingDay(line, now, current);
      if (heading) {
        current = heading;
        continue;
      }
      entries.push(parseLine(line, now, current));
    } catch {
      // a line that defeats the parser is left out rather than failing the whole log
    }
  }
  return entries;
}

function parseLine(line: string, now: string, current: string): ParsedEntry {
  const lower = line.toLowerCase();
  const lead = leadingDay(lower, now, current);
  const day = lead?.day ?? trailingDay(lower.slice(-MAX_SCAN), now, current) ?? current;
  // a date prefix's numbers are not metrics ("20/11: 10 km"); its words stay ("last night 6h")
  const scan = lead ? lower.slice(0, lead.length).replace(/\d/g, " ") + lower.slice(lead.length) : lower;
  const tags = tagDomains(line);
  const metrics = extractMetrics(scan, tags);
  return { day, text: line, metrics, domains: orderDomains([...metrics.map((m) => m.domain), ...tags]) };
}
